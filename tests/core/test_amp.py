"""``ember.amp``, ``ember.accelerator``, ``ember.version`` and the default device: the first lines of PyTorch's own
tutorials and AMP recipes. Expected values, states and messages are PyTorch 2.13's (CPU build), measured in its
venv with the same calls."""
import math
import warnings

import numpy as np
import pytest

import ember as em


# ------------------------------------------------------------------------------------------------- GradScaler
def _run_scaler(grads, **scaler_args):
    """PyTorch's AMP loop on one parameter, with the given raw gradients: ``(scale, tracker, params, step result)``
    after each iteration."""
    p = em.nn.Parameter(em.tensor([1.0, 2.0]))
    opt = em.optim.SGD([p], lr=0.1)
    scaler = em.amp.GradScaler("cpu", **scaler_args)
    seen = []
    for g in grads:
        scaler.scale(em.tensor(0.0))  # only the gradients below matter
        p.grad = em.tensor(g)
        result = scaler.step(opt)
        scaler.update()
        seen.append((scaler.get_scale(), scaler.state_dict()["_growth_tracker"], p.detach().tolist(), result))
    return seen


def test_grad_scaler_grows_backs_off_and_skips_steps_as_pytorch():
    inf, nan = math.inf, math.nan
    seen = _run_scaler([[1.0, 1.0], [1.0, 1.0], [inf, 1.0], [nan, 1.0]], init_scale=4.0, growth_interval=2)
    assert [(s, t) for s, t, _, _ in seen] == [(4.0, 1), (8.0, 0), (4.0, 0), (2.0, 0)]
    # the raw gradients are divided by the scale: 1/4 then 1/8 of a 0.1 step; inf and nan steps are skipped
    assert [p for _, _, p, _ in seen] == [[0.9750000238418579, 1.975000023841858],
                                          [0.9500000476837158, 1.9500000476837158],
                                          [0.9500000476837158, 1.9500000476837158],
                                          [0.9500000476837158, 1.9500000476837158]]


def test_grad_scaler_float32_arithmetic_matches_pytorch_for_factors_that_round():
    """Scale 1.1, growth 3.3, backoff 0.37: the float32 scale times a float64 factor, rounded to float32, and the
    gradients multiplied by the float32-rounded reciprocal (values from PyTorch 2.13)."""
    inf, nan = math.inf, math.nan
    seen = _run_scaler([[1.0, 1.0], [1.0, 1.0], [inf, 1.0], [1.0, 1.0], [nan, 0.0]], init_scale=1.1,
                       growth_factor=3.3, backoff_factor=0.37, growth_interval=1)
    assert seen == [(3.630000114440918, 0, [0.9090909361839294, 1.9090908765792847], None),
                    (11.979000091552734, 0, [0.8815427422523499, 1.881542682647705], None),
                    (4.432229995727539, 0, [0.8815427422523499, 1.881542682647705], None),
                    (14.626358985900879, 0, [0.8589807152748108, 1.858980655670166], None),
                    (5.411752700805664, 0, [0.8589807152748108, 1.858980655670166], None)]


def test_grad_scaler_keeps_a_scale_that_would_overflow_float32():
    assert _run_scaler([[1.0, 1.0]], init_scale=3.0e38, growth_interval=1)[0][0] == 3.0000000054977558e+38


def test_float32_training_with_a_scaler_is_bit_identical_to_training_without():
    em.manual_seed(0)
    model = em.nn.Sequential(em.nn.Linear(5, 7), em.nn.Tanh(), em.nn.Linear(7, 2))
    reference = em.nn.Sequential(em.nn.Linear(5, 7), em.nn.Tanh(), em.nn.Linear(7, 2))
    reference.load_state_dict(model.state_dict())
    opt, ref_opt = em.optim.Adam(model.parameters(), lr=0.01), em.optim.Adam(reference.parameters(), lr=0.01)
    scaler = em.amp.GradScaler("cpu", growth_interval=3)
    for _ in range(7):
        x, y = em.randn(16, 5), em.randn(16, 2)
        opt.zero_grad()
        scaler.scale(em.nn.functional.mse_loss(model(x), y)).backward()
        scaler.step(opt)
        scaler.update()
        ref_opt.zero_grad()
        em.nn.functional.mse_loss(reference(x), y).backward()
        ref_opt.step()
    for a, b in zip(model.parameters(), reference.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert scaler.get_scale() == 2.0 ** 16 * 4  # grew after steps 3 and 6


def test_grad_scaler_unscale_before_clipping_then_step_does_not_unscale_twice():
    p = em.nn.Parameter(em.tensor([1.0, 2.0]))
    opt = em.optim.SGD([p], lr=0.1)
    scaler = em.amp.GradScaler("cpu", init_scale=4.0)
    scaled = scaler.scale((p * p).sum())
    assert scaled.item() == 20.0 and scaled.dtype == em.float32
    scaled.backward()
    assert p.grad.tolist() == [8.0, 16.0]
    scaler.unscale_(opt)
    assert p.grad.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) has already been called on this optimizer since the last "
                                           r"update\(\)\.$"):
        scaler.unscale_(opt)
    assert scaler.step(opt) is None
    assert p.detach().tolist() == [pytest.approx(0.8), pytest.approx(1.6)]
    with pytest.raises(RuntimeError, match=r"^step\(\) has already been called since the last update\(\)\.$"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match=r"^unscale_\(\) is being called after step\(\)\.$"):
        scaler.unscale_(opt)


def test_grad_scaler_scales_nested_outputs_and_rejects_other_values():
    scaler = em.amp.GradScaler("cpu", init_scale=2.0)
    a = em.tensor(3.0)
    out = scaler.scale([a, (a, a)])
    assert isinstance(out, list) and isinstance(out[1], tuple)
    assert [out[0].item(), out[1][0].item(), out[1][1].item()] == [6.0, 6.0, 6.0]
    assert scaler.scale(em.tensor(2.0, dtype=em.float64)).dtype == em.float64
    with pytest.raises(ValueError, match="^outputs must be a Tensor or an iterable of Tensors$"):
        scaler.scale(3.0)


def test_grad_scaler_errors_and_state_dict_as_pytorch():
    with pytest.raises(AssertionError, match=r"^The growth factor must be > 1\.0\.$"):
        em.amp.GradScaler("cpu", growth_factor=1.0)
    with pytest.raises(AssertionError, match=r"^The backoff factor must be < 1\.0\.$"):
        em.amp.GradScaler("cpu", backoff_factor=1.5)
    p = em.nn.Parameter(em.tensor([1.0]))
    opt = em.optim.SGD([p], lr=0.1)
    scaler = em.amp.GradScaler("cpu", init_scale=8.0, growth_interval=5)
    assert scaler.state_dict() == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                   "growth_interval": 5, "_growth_tracker": 0}
    with pytest.raises(AssertionError, match=r"^Attempted step but _scale is None\.  This may indicate your script "
                                             r"did not use scaler\.scale\(loss or outputs\) earlier"):
        scaler.step(opt)
    scaler.scale(p.sum())
    with pytest.raises(RuntimeError, match="^Closure use is not currently supported if GradScaler is enabled.$"):
        scaler.step(opt, closure=lambda: 0)
    with pytest.raises(AssertionError, match="^No inf checks were recorded prior to update.$"):
        scaler.update()
    p.grad = em.tensor([1.0])
    scaler.step(opt)
    scaler.update(new_scale=3.0)
    assert scaler.get_scale() == 3.0
    p.grad = em.tensor([1.0])
    scaler.step(opt)
    with pytest.raises(AssertionError, match="^new_scale should be a float or a 1-element"):
        scaler.update(new_scale=em.tensor([5.0, 6.0]))
    scaler.update(new_scale=em.tensor(5.0))
    restored = em.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="^The source state dict is empty, possibly because it was saved from a "
                                           "disabled instance of GradScaler.$"):
        restored.load_state_dict({})
    restored.load_state_dict(scaler.state_dict())
    assert restored.state_dict() == {"scale": 5.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                     "growth_interval": 5, "_growth_tracker": 0}  # new_scale keeps the tracker
    half = em.nn.Parameter(em.tensor([1.0], dtype=em.float16))
    half.grad = em.tensor([1.0], dtype=em.float16)
    fp16_scaler = em.amp.GradScaler("cpu")
    fp16_scaler.scale(half.sum())
    with pytest.raises(ValueError, match="^Attempting to unscale FP16 gradients.$"):
        fp16_scaler.unscale_(em.optim.SGD([half], lr=0.1))


def test_disabled_grad_scaler_is_a_pass_through():
    p = em.nn.Parameter(em.tensor([1.0]))
    loss = p.sum()
    scaler = em.amp.GradScaler("cpu", enabled=False)
    assert scaler.scale(loss) is loss
    assert (scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()) == (False, 1.0, {})
    with pytest.warns(UserWarning, match=r"^ember\.amp\.GradScaler is enabled, but CUDA is not available\. "
                                         r"Disabling\.$"):
        cuda_scaler = em.amp.GradScaler()  # PyTorch's default device is "cuda"
    assert not cuda_scaler.is_enabled()


# --------------------------------------------------------------------------------------------------- autocast
def test_autocast_warns_and_runs_the_block_in_full_precision():
    a, b = em.randn(2, 3), em.randn(3, 2)
    with pytest.warns(UserWarning, match=r"^In CPU autocast, but ember has no lower-precision kernels"):
        ctx = em.autocast("cpu")
    with ctx as entered:
        assert entered is ctx and (a @ b).dtype == em.float32
        assert not em.is_autocast_enabled() and not em.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match=r"^CUDA is not available\. Disabling autocast\.$"):
        cuda_ctx = em.amp.autocast("cuda", dtype=em.float32)
    assert (cuda_ctx.device, cuda_ctx.fast_dtype, cuda_ctx._enabled) == ("cuda", em.float32, False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with em.autocast(device_type="cpu", enabled=False):  # asked for nothing: no warning
            pass

    @em.autocast("cpu", enabled=False)
    def f(x):
        return x * 2
    assert f(em.tensor(3.0)).item() == 6.0


def test_autocast_argument_errors_are_pytorchs():
    with pytest.raises(ValueError, match=r"^Expected `device_type` of type `str`, got: `<class 'int'>`$"):
        em.autocast(device_type=1)
    with pytest.raises(RuntimeError, match="device type at start of device string: xyz$"):
        em.autocast("xyz")
    with pytest.raises(TypeError, match=r"missing 1 required keyword-only argument: 'device_type'"):
        em.amp.custom_fwd(lambda x: x)
    fwd = em.amp.custom_fwd(device_type="cpu")(lambda x: x + 1)
    assert fwd(1) == 2 and em.amp.custom_bwd(lambda g: g, device_type="cpu")(3) == 3
    assert em.amp.is_autocast_available("cpu") is False


def test_deprecated_cuda_amp_names_warn_as_pytorch_and_are_the_amp_classes():
    with pytest.warns(FutureWarning, match=r"^`ember\.cuda\.amp\.GradScaler\(args\.\.\.\)` is deprecated\. Please use "
                                           r"`ember\.amp\.GradScaler\('cuda', args\.\.\.\)` instead\.$"):
        scaler = em.cuda.amp.GradScaler(enabled=False)
    assert isinstance(scaler, em.amp.GradScaler) and scaler._device == "cuda"
    with pytest.warns(FutureWarning, match=r"`ember\.cuda\.amp\.autocast\(args\.\.\.\)` is deprecated"):
        ctx = em.cuda.amp.autocast(enabled=False)
    assert isinstance(ctx, em.amp.autocast) and ctx.fast_dtype == em.float16


# ------------------------------------------------------------------------------- accelerator, version, device
def test_quickstart_device_line_picks_the_cpu():
    device = em.accelerator.current_accelerator().type if em.accelerator.is_available() else "cpu"
    assert device == "cpu"
    assert (em.accelerator.is_available(), em.accelerator.current_accelerator(), em.accelerator.device_count()) == \
        (False, None, 0)
    for call in (em.accelerator.current_device_index, em.accelerator.synchronize,
                 lambda: em.accelerator.set_device_index(0)):
        with pytest.raises(RuntimeError, match=r"^Cannot access accelerator device when none is available\.$"):
            call()
    with pytest.warns(FutureWarning, match=r"^Use `current_device_index` instead\.$"):
        with pytest.raises(RuntimeError, match="none is available"):
            em.accelerator.current_device_idx()
    with em.accelerator.device_index(None):  # None selects nothing
        pass
    with pytest.raises(RuntimeError, match="none is available"):
        with em.accelerator.device_index(0):
            pass


def test_version_module_as_a_cpu_only_pytorch():
    import ember.version
    assert ember.version is em.version and em.version.__version__ == em.__version__
    assert (em.version.cuda, em.version.hip, em.version.rocm, em.version.xpu, em.version.debug) == \
        (None, None, None, None, False)


def test_default_device_is_the_cpu_and_a_gpu_default_is_refused():
    assert em.get_default_device() == em.device("cpu")
    em.set_default_device("cpu")
    em.set_default_device(None)
    assert em.zeros(1).device == em.get_default_device()
    with pytest.raises(RuntimeError, match="device string: meta$"):
        em.set_default_device("meta")
    if not em.cuda.is_available():
        with pytest.raises(RuntimeError, match="pip install cupy"):
            em.set_default_device("cuda")
