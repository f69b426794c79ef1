"""What training scripts touch on their first lines, as PyTorch 2.13 behaves (values and messages measured in its
venv): ``finfo``/``iinfo``, ``set_float32_matmul_precision``, ``use_deterministic_algorithms`` (also through
``Trainer(deterministic=...)``, as Lightning sets it) and ``compile``; and small ops models call: ``repeat_interleave``,
``tril_indices``/``triu_indices``, ``isin``, ``addcmul``/``addcdiv`` (with the in-place methods user-written
optimizers call), ``quantile``/``nanquantile``, ``normal``/``bernoulli``/``poisson``, ``cdist``, ``signbit``,
``copysign``, ``deg2rad``/``rad2deg``, ``sinc``, ``float_power``, ``positive`` and ``gcd``/``lcm``."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck


@pytest.fixture
def restore_flags():
    from ember.core import flags
    before = dict(flags._state)
    benchmark = em.backends.cudnn.benchmark
    yield
    flags._state.update(before)
    em.backends.cudnn.benchmark = benchmark


def test_finfo_and_iinfo_as_pytorch():
    f = em.finfo(em.float32)
    assert (f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.dtype) == (
        32, 1.1920928955078125e-07, 3.4028234663852886e+38, -3.4028234663852886e+38, 1.1754943508222875e-38,
        1.1754943508222875e-38, 1e-06, "float32")
    assert repr(f) == ("finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, "
                       "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=float32)")
    assert repr(em.finfo(em.float16)) == ("finfo(resolution=0.001, min=-65504, max=65504, eps=0.000976562, "
                                          "smallest_normal=6.10352e-05, tiny=6.10352e-05, dtype=float16)")
    assert em.finfo().dtype == "float32" and em.finfo(em.complex64).dtype == "float32"
    assert em.finfo(em.float64).resolution == 1e-15
    i = em.iinfo(em.int64)
    assert (i.bits, i.max, i.min, i.dtype) == (64, 9223372036854775807, -9223372036854775808, "int64")
    assert repr(i) == "iinfo(min=-9.22337e+18, max=9.22337e+18, dtype=int64)"
    assert repr(em.iinfo(em.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"
    with pytest.raises(TypeError, match=r"finfo\(\) requires a floating point input type"):
        em.finfo(em.int32)
    with pytest.raises(TypeError, match=r"iinfo\(\) requires an integer input type"):
        em.iinfo(em.float32)
    with pytest.raises(TypeError, match="bool is not supported by torch.iinfo"):
        em.iinfo(em.bool)
    # what attention code does with it
    scores = em.zeros(2, 2).masked_fill(em.tensor([[False, True], [False, False]]), em.finfo(em.float32).min)
    assert scores.softmax(-1).tolist() == [[1.0, 0.0], [0.5, 0.5]]


def test_matmul_precision_and_deterministic_flags(restore_flags):
    assert em.get_float32_matmul_precision() == "highest"
    em.set_float32_matmul_precision("medium")
    assert em.get_float32_matmul_precision() == "medium"
    with pytest.warns(UserWarning, match="low is not one of 'highest', 'high', or 'medium'"):
        em.set_float32_matmul_precision("low")
    assert em.get_float32_matmul_precision() == "medium"
    assert not em.are_deterministic_algorithms_enabled()
    em.use_deterministic_algorithms(True, warn_only=True)
    assert em.are_deterministic_algorithms_enabled() and em.is_deterministic_algorithms_warn_only_enabled()
    em.use_deterministic_algorithms(False)
    assert not em.are_deterministic_algorithms_enabled() and not em.is_deterministic_algorithms_warn_only_enabled()
    with pytest.raises(TypeError, match="argument 'mode' \\(position 1\\) must be bool, not str"):
        em.use_deterministic_algorithms("yes")


@pytest.mark.parametrize("deterministic,cudnn_benchmark,expected", [
    (None, None, (False, False, False)), (True, None, (True, False, False)), ("warn", None, (True, True, False)),
    (False, True, (False, False, True))])
def test_trainer_deterministic_sets_the_flags_as_lightning(restore_flags, tmp_path, deterministic, cudnn_benchmark,
                                                          expected):
    em.use_deterministic_algorithms(False)
    em.Trainer(deterministic=deterministic, benchmark=cudnn_benchmark, default_root_dir=tmp_path, logger=False)
    assert (em.are_deterministic_algorithms_enabled(), em.is_deterministic_algorithms_warn_only_enabled(),
            em.backends.cudnn.benchmark) == expected


def test_trainer_warns_for_deterministic_with_benchmark(restore_flags, tmp_path):
    with pytest.warns(UserWarning, match="You passed `deterministic=True` and `benchmark=True`"):
        em.Trainer(deterministic=True, benchmark=True, default_root_dir=tmp_path, logger=False)


def test_compile_returns_the_model_and_checks_its_arguments():
    model = em.nn.Linear(3, 2)
    assert em.compile(model) is model and em.compile(mode="max-autotune")(model) is model

    @em.compile
    def double(x):
        return x * 2
    assert double(em.tensor([1.0])).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast, should be one of: default, lite"):
        em.compile(model, mode="fast")
    with pytest.raises(RuntimeError, match="Either mode or options can be specified"):
        em.compile(model, mode="default", options={"a": 1})
    with pytest.raises(AssertionError, match="A callable function is expected"):
        em.compile(3)


def test_repeat_interleave_as_pytorch():
    t = em.tensor([[1, 2], [3, 4]])
    assert em.repeat_interleave(t, 2).tolist() == [1, 1, 2, 2, 3, 3, 4, 4]
    assert em.repeat_interleave(t, em.tensor([1, 2]), dim=0).tolist() == [[1, 2], [3, 4], [3, 4]]
    assert t.repeat_interleave(em.tensor([3]), dim=1).tolist() == [[1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4]]
    assert t.repeat_interleave(2, dim=-1).shape == (2, 4) and em.repeat_interleave(t, em.tensor(2), 0).shape == (4, 2)
    assert em.repeat_interleave(em.tensor([2, 0, 3])).tolist() == [0, 0, 2, 2, 2]
    assert em.repeat_interleave(em.tensor(5), 3).tolist() == [5, 5, 5]
    assert em.repeat_interleave(t, em.tensor([1, 2]), dim=0, output_size=3).shape == (3, 2)
    for call, err, text in [
            (lambda: em.repeat_interleave(t, em.tensor([1.5, 2.0]), dim=0), NotImplementedError,
             "\"repeat_interleave_cpu\" not implemented for 'Float'"),
            (lambda: em.repeat_interleave(t, em.tensor([[1, 2]]), dim=0), RuntimeError, "must be 0-dim or 1-dim"),
            (lambda: em.repeat_interleave(em.tensor([[1, 2]])), RuntimeError, "only accept 1D vector as repeat"),
            (lambda: em.repeat_interleave(t, 2, dim=2), IndexError, "Dimension out of range"),
            (lambda: em.repeat_interleave(t, em.tensor([1, 2]), dim=0, output_size=5), RuntimeError,
             "allocated size does not match required size"),
            (lambda: em.repeat_interleave(t, em.tensor([1, 2, 3]), dim=0), RuntimeError,
             r"repeats.size\(0\) = 3 and input.size\(0\) = 2"),
            (lambda: em.repeat_interleave(t, -1), RuntimeError, "Repeats must be non-negative"),
            (lambda: em.repeat_interleave(t, em.tensor([1, -2]), dim=0), RuntimeError, "repeats can not be negative")]:
        with pytest.raises(err, match=text):
            call()
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    (g,) = em.autograd.grad(em.repeat_interleave(x, em.tensor([1, 2]), dim=0).pow(2).sum(), x)
    assert g.tolist() == [[2.0, 4.0], [12.0, 16.0]]
    xd = em.tensor(np.random.default_rng(0).standard_normal((3, 2)), requires_grad=True)
    assert gradcheck(lambda a: em.repeat_interleave(a, em.tensor([2, 0, 1]), dim=0), (xd,))


def test_triangle_indices_and_isin_as_pytorch():
    assert em.tril_indices(3, 4, 1).tolist() == [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3]]
    assert em.triu_indices(4, 3, -1).tolist() == [[0, 0, 0, 1, 1, 1, 2, 2, 3], [0, 1, 2, 0, 1, 2, 1, 2, 2]]
    assert em.tril_indices(0, 3).shape == (2, 0) and em.triu_indices(3, 3, 5).shape == (2, 0)
    assert em.tril_indices(3, 3).dtype == em.int64 and em.tril_indices(2, 2, dtype=em.int32).dtype == em.int32
    with pytest.raises(RuntimeError, match="row must be non-negative, got-1"):
        em.tril_indices(-1, 3)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        em.tril_indices(3, 3, dtype=em.float32)
    assert em.isin(em.tensor([[1, 2], [3, 4]]), em.tensor([2, 3])).tolist() == [[False, True], [True, False]]
    assert em.isin(em.tensor([1.0, 2.0, math.nan]), 2.0, invert=True).tolist() == [True, False, True]
    assert em.isin(3, em.tensor([1, 3])).item() is True
    assert em.isin(em.tensor([1, 2]), em.tensor([2.0, 1.5])).tolist() == [False, True]  # compared after promotion
    assert em.isin(em.tensor([math.nan]), em.tensor([math.nan])).tolist() == [False]
    with pytest.raises(TypeError, match="isin\\(\\) received an invalid combination of arguments"):
        em.isin(1, 2)


def test_addcmul_and_addcdiv_as_pytorch():
    a, b, c = em.tensor([1.0, 2.0]), em.tensor([3.0, 4.0]), em.tensor([5.0, 6.0])
    assert em.addcmul(a, b, c, value=0.5).tolist() == [8.5, 14.0]
    assert em.addcdiv(a, b, c, value=2).tolist() == pytest.approx([2.2, 3.3333333], rel=1e-7)
    assert em.addcmul(a, b, c, value=2).dtype == em.float32
    assert em.addcmul(em.tensor([1.0], dtype=em.float64), em.tensor([2.0]), em.tensor([3.0])).dtype == em.float64
    ints = em.tensor([1]), em.tensor([2]), em.tensor([3])
    assert em.addcmul(*ints, value=2).tolist() == [13] and em.addcmul(*ints, value=0.5).tolist() == [1]  # int(0.5)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv is no longer supported"):
        em.addcdiv(*ints)
    # a second-moment update as user-written optimizers do it, in place
    exp_avg_sq, grad = em.tensor([0.5, 1.0]), em.tensor([2.0, -3.0])
    assert exp_avg_sq.mul_(0.999).addcmul_(grad, grad, value=1 - 0.999) is exp_avg_sq
    assert exp_avg_sq.tolist() == pytest.approx([0.5 * 0.999 + 0.004, 0.999 + 0.009], rel=1e-6)
    p = em.tensor([1.0, 1.0])
    p.addcdiv_(em.tensor([0.2, 0.4]), em.tensor([2.0, 4.0]), value=-0.1)
    assert p.tolist() == pytest.approx([0.99, 0.99], rel=1e-6)
    rng = np.random.default_rng(1)
    args = tuple(em.tensor(rng.uniform(0.5, 2.0, shape), requires_grad=True) for shape in ((2, 3), (3,), (2, 1)))
    assert gradcheck(lambda x, y, z: em.addcmul(x, y, z, value=-0.7), args)
    assert gradcheck(lambda x, y, z: em.addcdiv(x, y, z, value=1.3), args)


def test_quantile_and_nanquantile_as_pytorch():
    x = em.tensor([[3.0, 1.0, 4.0, 1.5], [2.0, math.nan, 7.0, 0.5]], requires_grad=True)
    q = em.quantile(x, 0.3, dim=1).detach().numpy()
    assert q[0] == pytest.approx(1.45, rel=1e-6) and math.isnan(q[1])  # a NaN in the slice gives NaN
    assert em.nanquantile(x, 0.3, dim=1).tolist() == pytest.approx([1.45, 1.4], rel=1e-6)
    (g,) = em.autograd.grad(em.nanquantile(x, 0.3, dim=1).sum(), x)  # PyTorch 2.13's gradient
    np.testing.assert_allclose(g.numpy(), [[0.0, 0.1, 0.0, 0.9], [0.6, 0.0, 0.0, 0.4]], rtol=1e-6, atol=1e-7)
    assert em.quantile(x.detach()[0], em.tensor([0.1, 0.5, 0.9])).tolist() == pytest.approx([1.15, 2.25, 3.7])
    assert em.quantile(x.detach(), em.tensor([0.25, 0.5]), dim=0, keepdim=True).shape == (2, 1, 4)
    assert em.quantile(x.detach(), 0.5, keepdim=True).shape == (1, 1)
    assert em.quantile(em.tensor([1.0, 2.0]), em.tensor(0.5)).shape == () and em.quantile(em.tensor(3.0), 0.5) == 3
    assert math.isnan(em.nanquantile(em.tensor([math.nan, math.nan]), 0.5).item())
    ranks = em.tensor([0.1, 0.3, 0.5, 0.7])
    expected = {"linear": [0.5, 1.5, 2.5, 3.5], "lower": [0.0, 1.0, 2.0, 3.0], "higher": [1.0, 2.0, 3.0, 4.0],
                "midpoint": [0.5, 1.5, 2.5, 3.5], "nearest": [0.0, 2.0, 2.0, 4.0]}  # nearest rounds half to even
    for mode, values in expected.items():
        assert em.quantile(em.arange(6.0), ranks, interpolation=mode).tolist() == values
    assert x.detach().quantile(0.5, dim=0).tolist()[0] == 2.5
    for call, err, text in [
            (lambda: em.quantile(em.tensor([1, 2]), 0.5), RuntimeError, "must be either float or double dtype"),
            (lambda: em.quantile(em.tensor([]), 0.5), RuntimeError, "input tensor must be non-empty"),
            (lambda: em.quantile(x, 1.5), RuntimeError, r"q must be in the range \[0, 1\] but got 1.5"),
            (lambda: em.quantile(x, em.tensor([0.5], dtype=em.float64)), RuntimeError, "must be same dtype"),
            (lambda: em.quantile(x, 0.5, interpolation="cubic"), RuntimeError, "but got cubic"),
            (lambda: em.quantile(x, em.tensor([[0.5]])), RuntimeError, "q must be a scalar or 1D tensor"),
            (lambda: em.quantile(x, 0.5, dim=3), IndexError, "Dimension out of range")]:
        with pytest.raises(err, match=text):
            call()
    xd = em.tensor(np.random.default_rng(2).standard_normal((3, 5)), requires_grad=True)
    assert gradcheck(lambda a: em.quantile(a, em.tensor([0.2, 0.75], dtype=em.float64), dim=1), (xd,))


def test_normal_bernoulli_and_poisson_as_pytorch():
    assert em.normal(em.zeros(2, 3), em.ones(3)).shape == (2, 3) and em.normal(0.0, em.ones(4)).shape == (4,)
    assert em.normal(em.zeros(2), 2.0).shape == (2,) and em.normal(0.0, 1.0, (2, 2)).dtype == em.float32
    assert em.normal(2.0, 3.0, size=(3,), dtype=em.float64).dtype == em.float64
    em.manual_seed(0)
    a = em.normal(em.full((100000,), 3.0), em.tensor(2.0))
    em.manual_seed(0)
    assert em.equal(a, em.normal(em.full((100000,), 3.0), em.tensor(2.0)))  # seeded: the same draws
    assert float(a.mean()) == pytest.approx(3.0, abs=0.03) and float(a.std()) == pytest.approx(2.0, abs=0.03)
    assert em.bernoulli(em.tensor([0.0, 1.0, 1.0])).tolist() == [0.0, 1.0, 1.0]
    assert em.bernoulli(em.zeros(3), 1.0).tolist() == [1.0, 1.0, 1.0]
    assert em.bernoulli(em.tensor([0.3], dtype=em.float64)).dtype == em.float64
    assert float(em.bernoulli(em.full((100000,), 0.3)).mean()) == pytest.approx(0.3, abs=0.01)
    rates = em.poisson(em.full((100000,), 4.0))
    assert rates.dtype == em.float32 and float(rates.mean()) == pytest.approx(4.0, abs=0.05)
    assert em.poisson(em.tensor([0.0])).tolist() == [0.0]
    for call, err, text in [
            (lambda: em.normal(0.0, -1.0, (2,)), RuntimeError, "normal expects std >= 0.0, but found std -1"),
            (lambda: em.normal(em.zeros(2), em.tensor([1.0, -1.0])), RuntimeError, "all elements of std >= 0.0"),
            (lambda: em.normal(em.zeros(2, dtype=em.long), 1.0), NotImplementedError, "for 'Long'"),
            (lambda: em.normal(0.0, 1.0), TypeError, "invalid combination of arguments"),
            (lambda: em.bernoulli(em.tensor([0.5, 1.5])), RuntimeError, "Expected p_in >= 0 && p_in <= 1"),
            (lambda: em.bernoulli(em.tensor([1, 0])), NotImplementedError, "bernoulli_tensor_cpu_p_"),
            (lambda: em.poisson(em.tensor([-1.0])), RuntimeError, "invalid Poisson rate")]:
        with pytest.raises(err, match=text):
            call()


# PyTorch 2.13's cdist of these points and its gradients of (d * W).sum(), both compute modes alike
_CDIST_X1, _CDIST_X2 = [[0.0, 0.0], [3.0, 4.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 1.0]]
_CDIST = {
    2.0: ([[0.0, 1.4142135623730951], [5.0, 3.605551275463989], [1.4142135623730951, 0.0]],
          [[-1.414213562373095, -1.414213562373095], [4.018800784900916, 5.728201177351375],
           [3.5355339059327373, 3.5355339059327373]],
          [[-5.335533905932738, -5.935533905932737], [-0.8045872225278217, -1.91398761497828]]),
    1.0: ([[0.0, 2.0], [7.0, 5.0], [2.0, 0.0]], [[-2.0, -2.0], [7.0, 7.0], [5.0, 5.0]],
          [[-8.0, -8.0], [-2.0, -2.0]]),
    0.0: ([[0.0, 2.0], [2.0, 2.0], [2.0, 0.0]], [[0.0, 0.0]] * 3, [[0.0, 0.0]] * 2),
    3.0: ([[0.0, 1.2599210498948732], [4.497941445275415, 3.2710663101885897], [1.2599210498948732, 0.0]],
          [[-1.259921049894873, -1.259921049894873], [2.829898654134962, 5.737065890185406],
           [3.1498026247371826, 3.1498026247371826]],
          [[-4.484356679928789, -5.522343167300039], [-0.2354235490484824, -2.1046042977276764]]),
    math.inf: ([[0.0, 1.0], [4.0, 3.0], [1.0, 0.0]], [[-2.0, -2.0], [0.0, 7.0], [5.0, 5.0]],
               [[-5.0, -8.0], [2.0, -2.0]]),  # a tie in the max gets the whole gradient on each side
}


@pytest.mark.parametrize("p", sorted(_CDIST))
@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_values_and_gradients_as_pytorch(p, mode):
    x1 = em.tensor(_CDIST_X1, dtype=em.float64, requires_grad=True)
    x2 = em.tensor(_CDIST_X2, dtype=em.float64, requires_grad=True)
    d = em.cdist(x1, x2, p=p, compute_mode=mode)
    g1, g2 = em.autograd.grad((d * em.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=em.float64)).sum(),
                              [x1, x2])
    value, grad1, grad2 = _CDIST[p]
    for got, want in ((d, value), (g1, grad1), (g2, grad2)):  # 0 at a zero distance, not NaN
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)


def test_cdist_shapes_modes_and_errors():
    assert em.cdist(em.zeros(4, 2, 3), em.zeros(1, 5, 3)).shape == (4, 2, 5)  # batch dims broadcast
    rng = np.random.default_rng(3)
    a, b = (em.tensor(rng.standard_normal(shape)) for shape in ((30, 4), (7, 4)))
    direct = em.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist")
    np.testing.assert_allclose(em.cdist(a, b).numpy(), direct.numpy(), rtol=1e-12)  # 30 rows: the GEMM form
    np.testing.assert_allclose(direct.numpy(), np.linalg.norm(a.numpy()[:, None] - b.numpy()[None], axis=-1),
                               rtol=1e-12)
    x, y = (em.tensor(rng.standard_normal(shape), requires_grad=True) for shape in ((4, 3), (2, 3)))
    for p in (1.0, 2.0, 3.0):
        assert gradcheck(lambda s, t: em.cdist(s, t, p=p), (x, y))
    for call, err, text in [
            (lambda: em.cdist(em.zeros(3), em.zeros(3)), RuntimeError, "at least 2D tensors, X1 got: 1D"),
            (lambda: em.cdist(em.zeros(2, 3), em.zeros(2, 4)), RuntimeError, "same number of columns. X1: 3 X2: 4"),
            (lambda: em.cdist(em.zeros(2, 3, dtype=em.long), em.zeros(2, 3)), RuntimeError, "X1 got: Long"),
            (lambda: em.cdist(em.zeros(2, 3), em.zeros(2, 3), p=-1), RuntimeError, "non-negative p values"),
            (lambda: em.cdist(em.zeros(2, 3), em.zeros(2, 3), compute_mode="x"), ValueError,
             "x is not a valid value for compute_mode")]:
        with pytest.raises(err, match=text):
            call()


def test_small_elementwise_ops_as_pytorch():
    # values and gradients measured in PyTorch 2.13 (float64)
    x = em.tensor([-2.0, -0.0, 0.0, 0.5, 3.0], dtype=em.float64, requires_grad=True)
    y = em.tensor([1.0, -1.0, -0.0, -2.0, 0.0], dtype=em.float64)
    assert em.signbit(x).tolist() == [True, True, False, False, False]
    assert em.signbit(em.tensor([-1, 0, 2])).tolist() == [True, False, False]
    c = em.copysign(x, y)
    assert c.tolist() == [2.0, -0.0, -0.0, -0.5, 3.0] and np.signbit(c.detach().numpy()).tolist() == [
        False, True, True, True, False]
    assert em.autograd.grad(c.sum(), x)[0].tolist() == [-1.0, 0.0, 0.0, -1.0, 1.0]  # 0 where the input is 0
    assert em.copysign(em.tensor([1, -2]), em.tensor([-1, 1])).dtype == em.float32
    assert em.copysign(em.tensor([1.0], dtype=em.float16), em.tensor([-1.0], dtype=em.float64)).dtype == em.float64
    assert em.copysign(em.tensor([1.0, 2.0]), -1.0).tolist() == [-1.0, -2.0]
    d = em.deg2rad(x)
    assert d.tolist() == [-0.03490658503988659, -0.0, 0.0, 0.008726646259971648, 0.05235987755982989]
    assert em.autograd.grad(d.sum(), x)[0].tolist() == [0.017453292519943295] * 5
    assert em.rad2deg(x).tolist() == [-114.59155902616465, -0.0, 0.0, 28.64788975654116, 171.88733853924697]
    assert em.deg2rad(em.tensor([180])).dtype == em.float32
    s = em.sinc(x)
    np.testing.assert_allclose(s.detach().numpy(), [-3.8981718325193755e-17, 1.0, 1.0, 0.6366197723675814,
                                                    3.8981718325193755e-17], rtol=1e-12, atol=1e-30)
    np.testing.assert_allclose(em.autograd.grad(s.sum(), x)[0].numpy(),
                               [-0.5, 0.0, 0.0, -1.2732395447351625, -0.3333333333333333], rtol=1e-12)
    f = em.float_power(em.tensor([2.0, -3.0]), 2)
    assert f.dtype == em.float64 and f.tolist() == [4.0, 9.0]
    assert em.float_power(em.tensor([2, 3]), em.tensor([0.5, 2])).tolist() == [1.4142135623730951, 9.0]
    assert em.float_power(2, em.tensor([1, 2])).dtype == em.float64
    base = em.tensor([2.0, -3.0], dtype=em.float64)
    assert base.float_power(2).tolist() == [4.0, 9.0] and base.float_power_(2) is base and base.tolist() == [4.0, 9.0]
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        em.tensor([2.0]).float_power_(2)
    for name in ("copysign_", "deg2rad_", "rad2deg_", "sinc_", "gcd_", "lcm_", "addcmul_", "addcdiv_"):
        assert hasattr(em.Tensor, name)  # the in-place methods PyTorch's Tensor has
    assert not hasattr(em.Tensor, "poisson")  # a function only, as in PyTorch
    t = em.tensor([1, -2])
    assert em.positive(t) is t
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported."):
        em.positive(em.tensor([True]))
    assert em.gcd(em.tensor([12, -18, 0, 7]), em.tensor([8, 12, 0, -21])).tolist() == [4, 6, 0, 7]
    assert em.lcm(em.tensor([4, -6, 0]), em.tensor([6, 4, 5])).tolist() == [12, 12, 0]
    with pytest.raises(NotImplementedError, match="\"gcd_cpu\" not implemented for 'Float'"):
        em.gcd(em.tensor([1.0]), em.tensor([2.0]))
    xs = em.tensor(np.array([-1.3, 0.4, 2.2]), requires_grad=True)
    assert gradcheck(em.sinc, (xs,)) and gradcheck(lambda a: em.copysign(a, em.tensor([-1.0, 1.0, -0.0],
                                                                                        dtype=em.float64)), (xs,))


def test_torch_level_names_of_functional_ops_load_nn_on_first_use():
    import subprocess
    import sys
    code = ("import sys, ember as em; loaded = 'ember.core.nn' in sys.modules; "
            "F = em.nn.functional; print(loaded, all(getattr(em, n) is getattr(F, n) for n in em._FUNCTIONAL_ALIASES))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["False", "True"]  # `import ember` stays light; the names are the functional ops
    x1, x2 = em.tensor([[1.0, 0.0], [0.0, 2.0]]), em.tensor([[1.0, 1.0], [0.0, 1.0]])
    assert em.cosine_similarity(x1, x2).tolist() == pytest.approx([0.70710677, 1.0])
    assert em.conv2d(em.ones(1, 1, 3, 3), em.ones(1, 1, 2, 2)).tolist() == [[[[4.0, 4.0], [4.0, 4.0]]]]
    assert em.equal(em.dropout(x1, 0.5, False), x1)  # torch.dropout(input, p, train): positional as in torch


def test_size_arithmetic_stays_a_size_as_torch_size():
    """PyTorch 2.13: torch.Size([1]) + (2,) and (2,) + torch.Size([1]) are Sizes, as are Size * 2 and Size + Size
    (shape arithmetic such as ``batch_shape + event_shape``); a list is refused."""
    assert em.Size([1]) + (2,) == (1, 2) and isinstance(em.Size([1]) + (2,), em.Size)
    assert isinstance((2,) + em.Size([1]), em.Size) and (2,) + em.Size([1]) == (2, 1)
    assert repr(em.Size([1]) + em.Size([2])) == "ember.Size([1, 2])"
    assert isinstance(em.Size([3]) * 2, em.Size) and isinstance(2 * em.Size([3]), em.Size)
    with pytest.raises(TypeError, match=r"^can only concatenate tuple \(not list\) to ember\.Size$"):
        em.Size([1]) + [2]


def test_type_as_casts_to_the_other_tensors_dtype():
    t = em.tensor([1, 2])
    assert t.type_as(em.tensor([1.5], dtype=em.float64)).dtype == em.float64 and t.type_as(t) is t
    x = em.tensor([1.0], requires_grad=True)
    x.type_as(em.zeros(1, dtype=em.float64)).sum().backward()
    assert x.grad.tolist() == [1.0]
    with pytest.raises(TypeError, match=r"^type_as\(\): argument 'other' \(position 1\) must be Tensor, not int$"):
        t.type_as(3)


def test_can_cast_follows_pytorchs_categories():
    """PyTorch 2.13's can_cast on all pairs equals NumPy's same_kind rule except signed to unsigned integers, which
    PyTorch allows (measured over the 11 x 11 dtype pairs)."""
    dts = [em.bool, em.uint8, em.int8, em.int16, em.int32, em.int64, em.float16, em.float32, em.float64,
           em.complex64, em.complex128]
    for a in dts:
        for b in dts:
            expected = np.can_cast(a.np, b.np, casting="same_kind") or (a.np.kind == "i" and b.np.kind == "u")
            assert em.can_cast(a, b) == expected, (a, b)
    with pytest.raises(TypeError, match=r"^can_cast\(\): argument 'from_' \(position 1\) must be ember.dtype, not "
                                        r"int$"):
        em.can_cast(1, em.float32)


def test_typename_nextafter_renorm_and_the_rms_norm_alias():
    assert (em.typename(em.zeros(1)), em.typename(em.zeros(1, dtype=em.int64)), em.typename(3)) == \
        ("ember.FloatTensor", "ember.LongTensor", "int")
    assert em.typename(em.nn.Linear(1, 1)) == "ember.core.nn.modules.linear.Linear"
    # PyTorch 2.13's values
    assert em.nextafter(em.tensor([1.0, 2.0]), em.tensor([2.0, 1.0])).tolist() == [1.0000001192092896,
                                                                                    1.9999998807907104]
    x, o = em.tensor([1.0, 2.0], requires_grad=True), em.tensor([0.0, 3.0], requires_grad=True)
    em.nextafter(x, o).sum().backward()
    assert (x.grad.tolist(), o.grad.tolist()) == ([1.0, 1.0], [0.0, 0.0])
    with pytest.raises(NotImplementedError, match="\"nextafter_cpu\" not implemented for 'Long'"):
        em.nextafter(em.tensor([1]), em.tensor([0]))
    m = em.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [0.1, 0.1, 0.1]])
    assert em.renorm(m, 2, 0, 5)[1].tolist() == [2.2792115211486816, 2.8490142822265625, 3.4188172817230225]
    assert em.renorm(m, 1, 1, 4)[0].tolist() == [0.7843137383460999, 1.1267606019973755, 1.318681240081787]
    with pytest.raises(RuntimeError, match="^renorm: input needs at least 2 dimensions, got 1 dimensions$"):
        em.renorm(em.tensor([1.0, 2.0]), 2, 0, 1)
    with pytest.raises(RuntimeError, match="^renorm: non-positive-norm not supported$"):
        em.renorm(m, 0, 0, 1)
    w = m.clone()
    assert w.renorm_(2, 0, 5) is w and w.tolist() == em.renorm(m, 2, 0, 5).tolist()
    assert em.rms_norm is em.nn.functional.rms_norm
