"""Normalization: formulas, running statistics, train vs eval, state_dict keys, gradients (first and second order)."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

rng = np.random.default_rng(0)


def normalized(x, axes, eps=1e-5):
    m = x.mean(axis=axes, keepdims=True)
    return (x - m) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_batch_norm2d_training_output_and_running_stats():
    bn = nn.BatchNorm2d(3, momentum=0.2).double()
    x = rng.standard_normal((4, 3, 5, 2)) * 3 + 2
    bn.weight = nn.Parameter(em.tensor([1.0, 2.0, -1.0], dtype=em.float64))
    w = bn.weight.detach().numpy().reshape(1, 3, 1, 1)
    out = bn(em.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out, normalized(x, (0, 2, 3)) * w, atol=1e-10)
    # running stats: (1 - m) * old + m * batch, with the unbiased variance
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.2 * x.mean(axis=(0, 2, 3)))
    np.testing.assert_allclose(bn.running_var.numpy(), 0.8 + 0.2 * x.var(axis=(0, 2, 3), ddof=1))
    assert bn.num_batches_tracked.item() == 1 and bn.num_batches_tracked.dtype == em.int64


def test_batch_norm_train_and_eval_differ():
    bn = nn.BatchNorm1d(2).double()
    x = em.tensor(rng.standard_normal((8, 2)) * 4 + 10)
    train_out = bn(x).detach().numpy()
    bn.eval()
    eval_out = bn(x).detach().numpy()
    # train normalizes with the batch statistics: zero mean per feature
    np.testing.assert_allclose(train_out.mean(axis=0), 0.0, atol=1e-10)
    # eval uses the running estimates (after one step: 0.1 * batch mean, 0.9 + 0.1 * unbiased var)
    xn = x.numpy()
    rm, rv = 0.1 * xn.mean(axis=0), 0.9 + 0.1 * xn.var(axis=0, ddof=1)
    np.testing.assert_allclose(eval_out, (xn - rm) / np.sqrt(rv + 1e-5), atol=1e-10)
    assert not np.allclose(train_out, eval_out)
    before = bn.running_mean.numpy().copy()
    bn(x)
    np.testing.assert_array_equal(bn.running_mean.numpy(), before)  # eval does not update the statistics
    assert bn.num_batches_tracked.item() == 1


def test_batch_norm_momentum_none_is_a_cumulative_average():
    bn = nn.BatchNorm1d(3, momentum=None).double()
    batches = [rng.standard_normal((5, 3)) + k for k in range(3)]
    for b in batches:
        bn(em.tensor(b))
    np.testing.assert_allclose(bn.running_mean.numpy(), np.mean([b.mean(axis=0) for b in batches], axis=0))
    assert bn.num_batches_tracked.item() == 3


def test_batch_norm_without_running_stats_uses_batch_stats_in_eval():
    bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False).double()
    assert bn.running_mean is None and list(bn.state_dict().keys()) == []
    bn.eval()
    x = rng.standard_normal((3, 2, 2, 2))
    np.testing.assert_allclose(bn(em.tensor(x)).numpy(), normalized(x, (0, 2, 3)), atol=1e-10)


def test_batch_norm_state_dict_keys_and_old_checkpoints():
    bn = nn.BatchNorm2d(4)
    assert list(bn.state_dict().keys()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4))
    assert [k for k in model.state_dict() if k.startswith("1.")] == \
        ["1.weight", "1.bias", "1.running_mean", "1.running_var", "1.num_batches_tracked"]
    # a checkpoint from before num_batches_tracked existed still loads strictly
    old = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    old = type(bn.state_dict())(old)
    old._metadata = {"": {"version": 1}}
    fresh = nn.BatchNorm2d(4)
    missing, unexpected = fresh.load_state_dict(old)
    assert missing == [] and unexpected == []


def test_batch_norm_gradcheck_and_gradgradcheck_train_and_eval():
    x = em.tensor(rng.standard_normal((3, 2, 2, 3)), requires_grad=True)
    w = em.tensor(rng.standard_normal(2), requires_grad=True)
    b = em.tensor(rng.standard_normal(2), requires_grad=True)
    rm, rv = em.tensor(rng.standard_normal(2)), em.tensor(rng.random(2) + 0.5)

    def train(a, ww, bb):
        return F.batch_norm(a, None, None, ww, bb, training=True)

    def evaluate(a, ww, bb):
        return F.batch_norm(a, rm, rv, ww, bb, training=False)
    for fn in (train, evaluate):
        assert gradcheck(fn, (x, w, b))
        assert gradgradcheck(fn, (x, w, b))
    layer = nn.BatchNorm1d(3).double()
    y = em.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    assert gradcheck(layer, (y,)) and gradgradcheck(layer, (y,))


def test_instance_norm_values_running_stats_and_gradients():
    x = rng.standard_normal((2, 3, 4, 5)) * 2 + 1
    layer = nn.InstanceNorm2d(3, affine=True, track_running_stats=True).double()
    out = layer(em.tensor(x)).detach().numpy()
    np.testing.assert_allclose(out, normalized(x, (2, 3)), atol=1e-10)
    np.testing.assert_allclose(layer.running_mean.numpy(), 0.1 * x.mean(axis=(2, 3)).mean(axis=0))
    np.testing.assert_allclose(layer.running_var.numpy(), 0.9 + 0.1 * x.var(axis=(2, 3), ddof=1).mean(axis=0))
    layer.eval()
    rm, rv = layer.running_mean.numpy(), layer.running_var.numpy()
    np.testing.assert_allclose(layer(em.tensor(x)).detach().numpy(),
                               (x - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5), atol=1e-10)
    xt = em.tensor(x[:, :, :2, :3], requires_grad=True)
    assert gradcheck(nn.InstanceNorm2d(3, affine=True).double(), (xt,))
    unbatched = nn.InstanceNorm1d(3)(em.tensor(x[0, :, 0]))
    np.testing.assert_allclose(unbatched.numpy(), normalized(x[0, :, 0], (1,)), atol=1e-10)
    y = em.tensor(x[:, :, 0], requires_grad=True)
    assert gradgradcheck(nn.InstanceNorm1d(3), (y,))


def test_layer_norm_values_affine_and_gradients():
    x = rng.standard_normal((2, 3, 4))
    layer = nn.LayerNorm((3, 4)).double()
    np.testing.assert_allclose(layer(em.tensor(x)).detach().numpy(), normalized(x, (1, 2)), atol=1e-10)
    assert layer.weight.shape == (3, 4) and list(layer.state_dict()) == ["weight", "bias"]
    assert nn.LayerNorm(4, bias=False).bias is None
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None
    xt = em.tensor(x, requires_grad=True)
    w = em.tensor(rng.standard_normal(4), requires_grad=True)
    b = em.tensor(rng.standard_normal(4), requires_grad=True)

    def fn(a, ww, bb):
        return F.layer_norm(a, (4,), ww, bb, eps=1e-3)
    assert gradcheck(fn, (xt, w, b)) and gradgradcheck(fn, (xt, w, b))


def test_group_norm_values_and_gradients():
    x = rng.standard_normal((2, 6, 3))
    layer = nn.GroupNorm(3, 6).double()
    expected = normalized(x.reshape(2, 3, -1), (2,)).reshape(2, 6, 3)
    np.testing.assert_allclose(layer(em.tensor(x)).detach().numpy(), expected, atol=1e-10)
    xt = em.tensor(x, requires_grad=True)
    w = em.tensor(rng.standard_normal(6), requires_grad=True)
    b = em.tensor(rng.standard_normal(6), requires_grad=True)
    assert gradcheck(lambda a, ww, bb: F.group_norm(a, 2, ww, bb), (xt, w, b))
    assert gradgradcheck(lambda a, ww, bb: F.group_norm(a, 2, ww, bb), (xt, w, b))


def test_local_response_norm_matches_formula():
    x = rng.standard_normal((2, 5, 3))
    size, alpha, beta, k = 3, 0.1, 0.75, 2.0
    out = nn.LocalResponseNorm(size, alpha, beta, k)(em.tensor(x)).numpy()
    sq = x ** 2
    expected = np.empty_like(x)
    for c in range(5):
        lo, hi = max(0, c - size // 2), min(4, c + (size - 1) // 2)
        expected[:, c] = x[:, c] / (k + alpha / size * sq[:, lo:hi + 1].sum(axis=1)) ** beta
    np.testing.assert_allclose(out, expected, atol=1e-12)
    assert gradcheck(lambda a: F.local_response_norm(a, 2), (em.tensor(x, requires_grad=True),))


def test_normalization_repr_matches_pytorch():
    assert repr(nn.BatchNorm2d(16)) == \
        "BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"
    assert repr(nn.InstanceNorm2d(3)) == \
        "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)"
    assert repr(nn.LayerNorm(10)) == "LayerNorm((10,), eps=1e-05, elementwise_affine=True)"
    assert repr(nn.GroupNorm(2, 4)) == "GroupNorm(2, 4, eps=1e-05, affine=True)"


def test_normalization_bad_input_names_the_layer():
    bn = nn.BatchNorm2d(3)
    with pytest.raises(ValueError, match=r"BatchNorm2d\(3, .*\): expected 4D input \(got 3D input\)"):
        bn(em.randn(2, 3, 4))
    with pytest.raises(ValueError, match="expected input with 3 channels .*got 5"):
        bn(em.randn(2, 5, 4, 4))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(em.randn(1, 3))
    with pytest.raises(RuntimeError, match=r"LayerNorm\(\(4,\).*expected input with shape \[\*, 4\]"):
        nn.LayerNorm(4)(em.randn(2, 5))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match="num_features must be a positive integer"):
        nn.BatchNorm1d(0)


@pytest.mark.parametrize("make,shape", [(lambda: nn.BatchNorm2d(2), (3, 2, 2, 2)),
                                        (lambda: nn.BatchNorm3d(2), (2, 2, 2, 1, 2)),
                                        (lambda: nn.InstanceNorm3d(2, affine=True), (2, 2, 2, 1, 2)),
                                        (lambda: nn.LayerNorm([2, 3]), (2, 2, 3)),
                                        (lambda: nn.GroupNorm(1, 2), (2, 2, 3)),
                                        (lambda: nn.LocalResponseNorm(3, alpha=0.5), (2, 4, 3))])
def test_normalization_layers_gradcheck(make, shape):
    layer = make().double()
    x = em.tensor(rng.standard_normal(shape), requires_grad=True)
    params = tuple(layer.parameters())
    assert gradcheck(lambda a, *p: layer(a), (x,) + params)


# ------------------------------------------------------------------------------------------------------ RMSNorm
_RMS_X = [[0.5, -1.25, 2.0, 0.75], [3.0, 0.1, -0.2, 1e-3], [0.0, 0.0, 0.0, 0.0]]
_RMS_W = [1.5, -0.5, 2.0, 0.25]


def test_rms_norm_values_and_gradients_are_pytorchs():
    """PyTorch 2.13's float32 values for these inputs (eps=None is finfo(float32).eps; an all-zero row stays 0)."""
    x, w = em.tensor(_RMS_X, requires_grad=True), em.tensor(_RMS_W, requires_grad=True)
    y = F.rms_norm(x, (4,), w)
    assert y.tolist() == [[0.5940884947776794, 0.49507376551628113, 3.1684720516204834, 0.14852212369441986],
                          [2.991701126098633, -0.03324112296104431, -0.2659289836883545, 0.00016620561655145139],
                          [0.0, -0.0, 0.0, 0.0]]
    assert F.rms_norm(em.tensor(_RMS_X), [3, 4], None, 1e-3).tolist() == [
        [0.44083812832832336, -1.102095365524292, 1.7633525133132935, 0.6612572073936462],
        [2.645028829574585, 0.08816763013601303, -0.17633526027202606, 0.0008816762710921466],
        [0.0, 0.0, 0.0, 0.0]]
    y.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[-0.2602846622467041, 3.787966012954712, 3.3510184288024902,
                                                 -2.4492502212524414],
                                                [-0.014651298522949219, -0.17728394269943237, -0.3084154427051544,
                                                 -0.0019385854247957468], [0.0, 0.0, 0.0, 0.0]],
                               rtol=2e-6, atol=1e-6)  # PyTorch differentiates its composite: other rounding
    np.testing.assert_allclose(w.grad.numpy(), [12.404289245605469, -0.9848120212554932, 10.109932899475098,
                                                0.1764707863330841], rtol=2e-6)


def test_rms_norm_gradcheck_and_second_order():
    x = em.randn(3, 2, 5, dtype=em.float64, requires_grad=True)
    w = em.randn(2, 5, dtype=em.float64, requires_grad=True)
    assert em.autograd.gradcheck(lambda a, b: F.rms_norm(a, (2, 5), b, 1e-3), (x, w))
    assert em.autograd.gradgradcheck(lambda a, b: F.rms_norm(a, (5,), b[0]), (x, w))
    assert em.autograd.gradcheck(lambda a: F.rms_norm(a, 5), (x,))


def test_rms_norm_module_and_errors_as_pytorch():
    m = em.nn.RMSNorm(4)
    assert repr(m) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert [n for n, _ in m.named_parameters()] == ["weight"] and m.weight.tolist() == [1.0] * 4
    assert repr(em.nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False)) == \
        "RMSNorm((2, 3), eps=1e-05, elementwise_affine=False)"
    assert m(em.tensor(_RMS_X)).tolist() == F.rms_norm(em.tensor(_RMS_X), (4,)).tolist()
    assert F.rms_norm(em.tensor(_RMS_X, dtype=em.float64), (4,)).dtype == em.float64
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[5\], expected input with shape \[\*5\], but "
                                           r"got input of size\[3, 4\]$"):
        F.rms_norm(em.tensor(_RMS_X), (5,))
    with pytest.raises(RuntimeError, match=r"^Expected weight to be of same shape as normalized_shape, but got "
                                           r"weight of shape \[3\] and normalized_shape = \[4\]$"):
        F.rms_norm(em.tensor(_RMS_X), (4,), em.ones(3))
    with pytest.raises(NotImplementedError, match="^\"rms_norm\" not implemented for 'Long'$"):
        F.rms_norm(em.arange(4), (4,))
