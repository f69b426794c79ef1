"""``ember.optim.swa_utils``: AveragedModel (SWA and EMA, per-tensor and list forms), update_bn and SWALR's home.

The averaged weights are PyTorch 2.13's to the last bit: the same four weight snapshots averaged by PyTorch gave the
values computed here in NumPy in PyTorch's order (the list forms are fused ``lerp``s, emulated exactly in float64).
"""
import numpy as np
import pytest

import ember as em
from ember.optim import swa_utils

rng = np.random.default_rng(0)
SNAPSHOTS = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(4)]


def _average(**kwargs):
    model = em.nn.Linear(3, 2)
    averaged = swa_utils.AveragedModel(model, **kwargs)
    for w in SNAPSHOTS:
        with em.no_grad():
            model.weight.copy_(em.tensor(w))
        averaged.update_parameters(model)
    assert int(averaged.n_averaged) == len(SNAPSHOTS)
    return averaged


def _fused_lerp(a, b, w):
    """float32 ``lerp`` rounded once (PyTorch's fused CPU kernel)."""
    w = np.float32(w)
    d = (b - a).astype(np.float64)
    if w < 0.5:
        return (a.astype(np.float64) + np.float64(w) * d).astype(np.float32)
    return (b.astype(np.float64) - d * np.float64(np.float32(1) - w)).astype(np.float32)


def test_default_average_is_the_running_mean_in_pytorchs_order():
    expected = SNAPSHOTS[0]
    for n, w in enumerate(SNAPSHOTS[1:], start=1):
        expected = expected + (w - expected) / np.float32(n + 1)
    np.testing.assert_array_equal(_average().module.weight.detach().numpy(), expected)


def test_ema_forms_match_pytorchs_arithmetic():
    per_tensor, listed = SNAPSHOTS[0], SNAPSHOTS[0]
    for w in SNAPSHOTS[1:]:
        per_tensor = np.float32(0.9) * per_tensor + np.float32(1 - 0.9) * w
        listed = _fused_lerp(listed, w, 1 - 0.9)
    np.testing.assert_array_equal(
        _average(avg_fn=swa_utils.get_ema_avg_fn(0.9)).module.weight.detach().numpy(), per_tensor)
    np.testing.assert_array_equal(
        _average(multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9)).module.weight.detach().numpy(), listed)
    swa = SNAPSHOTS[0]
    for n, w in enumerate(SNAPSHOTS[1:], start=1):
        swa = _fused_lerp(swa, w, np.float32(1 / (n + 1)))
    np.testing.assert_array_equal(
        _average(multi_avg_fn=swa_utils.get_swa_multi_avg_fn()).module.weight.detach().numpy(), swa)
    # PyTorch 2.13's first value of the four averages, to tie the emulation to the real thing
    assert _average(multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9)).module.weight[0, 0].item() == \
        0.02919160947203636


def test_averaged_model_forwards_copies_buffers_and_checks_its_arguments():
    net = em.nn.Sequential(em.nn.Linear(3, 4), em.nn.BatchNorm1d(4))
    averaged = swa_utils.AveragedModel(net)
    assert averaged.module is not net and [n for n, _ in averaged.named_buffers()][0] == "n_averaged"
    net.train()
    net(em.randn(8, 3))  # moves the running statistics
    averaged.update_parameters(net)
    assert averaged.module[1].running_mean.tolist() == net[1].running_mean.tolist()  # copied, not averaged
    x = em.randn(5, 3)
    averaged.eval(), net.eval()
    assert averaged(x).tolist() == net(x).tolist()
    with pytest.raises(AssertionError, match="^Only one of avg_fn and multi_avg_fn should be provided$"):
        swa_utils.AveragedModel(net, avg_fn=swa_utils.get_swa_avg_fn(), multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
    with pytest.raises(ValueError, match=r"^Invalid decay value 1\.5 provided\. Please provide a value in \[0,1\] "
                                         r"range\.$"):
        swa_utils.get_ema_avg_fn(1.5)


def test_update_bn_recomputes_the_statistics_as_a_cumulative_average_over_the_loader():
    net = em.nn.Sequential(em.nn.Linear(3, 4), em.nn.BatchNorm1d(4))
    batches = [em.randn(5, 3) for _ in range(3)]
    net.eval()
    swa_utils.update_bn([(b, 0) for b in batches], net)  # a (input, target) batch gives its input
    assert not net.training and net[1].momentum == 0.1 and int(net[1].num_batches_tracked) == 3
    with em.no_grad():
        feats = [net[0](b).numpy().astype(np.float64) for b in batches]
    np.testing.assert_allclose(net[1].running_mean.numpy(), np.mean([f.mean(0) for f in feats], axis=0), rtol=1e-5)
    np.testing.assert_allclose(net[1].running_var.numpy(), np.mean([f.var(0, ddof=1) for f in feats], axis=0),
                               rtol=1e-5)


def test_swalr_lives_in_swa_utils_with_pytorchs_messages():
    from ember.callbacks.stochastic_weight_avg import SWALR
    assert SWALR is swa_utils.SWALR is em.optim.swa_utils.SWALR
    opt = em.optim.SGD([em.nn.Parameter(em.zeros(1))], lr=0.1)
    with pytest.raises(ValueError, match="^anneal_strategy must be one of 'cos' or 'linear', instead got step$"):
        swa_utils.SWALR(opt, 0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match=r"^swa_lr must have the same length as optimizer\.param_groups"):
        swa_utils.SWALR(opt, [0.1, 0.2])
