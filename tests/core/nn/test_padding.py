"""Padding: every mode against np.pad, negative (cropping) constant padding, gradients and the padding layers."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

rng = np.random.default_rng(0)
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def np_widths(ndim, pad):
    """PyTorch's pad tuple (last dimension first) as np.pad widths."""
    widths = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        widths[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad,shape", [((1, 2), (2, 3, 5)), ((2, 1, 0, 3), (2, 3, 4, 5)),
                                       ((1, 1, 2, 0, 1, 2), (1, 2, 3, 4, 5))])
def test_pad_matches_np_pad(mode, pad, shape):
    x = rng.standard_normal(shape)
    out = F.pad(em.tensor(x), pad, mode)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, np_widths(x.ndim, pad), mode=NP_MODE[mode]))


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradcheck_and_gradgradcheck(mode):
    x = em.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    assert gradcheck(lambda a: F.pad(a, (2, 1, 1, 2), mode), (x,))
    assert gradgradcheck(lambda a: F.pad(a, (2, 1, 1, 2), mode), (x,))
    y = em.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    assert gradgradcheck(lambda a: F.pad(a, (3, 2), mode), (y,))


def test_reflect_pad_backward_folds_borders_back():
    # [a b c] reflect-padded by (2, 1) is [c b a b c b]: b appears three times, c twice, a once
    x = em.tensor([[[1.0, 2.0, 3.0]]], requires_grad=True)
    out = F.pad(x, (2, 1), "reflect")
    np.testing.assert_array_equal(out.detach().numpy(), [[[3, 2, 1, 2, 3, 2]]])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[1.0, 3.0, 2.0]]])


def test_constant_pad_value_any_ndim_and_negative_cropping():
    x = rng.standard_normal((2, 3, 4, 5, 6))
    out = F.pad(em.tensor(x), (1, 1, 0, 2, 1, 0, 1, 1), value=-2.5)  # four dimensions, only constant allows it
    np.testing.assert_array_equal(out.numpy(), np.pad(x, [(0, 0), (1, 1), (1, 0), (0, 2), (1, 1)],
                                                      constant_values=-2.5))
    cropped = F.pad(em.tensor(x), (-1, 2, -2, -1), value=7.0).numpy()
    np.testing.assert_array_equal(cropped[..., :-2], x[..., 2:4, 1:])
    assert np.all(cropped[..., -2:] == 7.0)
    xt = em.tensor(x[:1, :1, :1], requires_grad=True)
    assert gradgradcheck(lambda a: F.pad(a, (-1, 2, -2, 1)), (xt,))


def test_padding_layers_match_functional_and_np_pad():
    x = rng.standard_normal((2, 3, 4, 5))
    cases = [(nn.ZeroPad2d((1, 2, 0, 1)), np.pad(x, [(0, 0), (0, 0), (0, 1), (1, 2)])),
             (nn.ConstantPad2d(1, 3.5), np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=3.5)),
             (nn.ReflectionPad2d((1, 2, 3, 0)), np.pad(x, [(0, 0), (0, 0), (3, 0), (1, 2)], mode="reflect")),
             (nn.ReplicationPad2d(2), np.pad(x, [(0, 0), (0, 0), (2, 2), (2, 2)], mode="edge")),
             (nn.CircularPad2d((0, 1, 2, 1)), np.pad(x, [(0, 0), (0, 0), (2, 1), (0, 1)], mode="wrap")),
             (nn.ReflectionPad1d(2), np.pad(x[0], [(0, 0), (0, 0), (2, 2)], mode="reflect")),
             (nn.ReplicationPad1d((0, 3)), np.pad(x[0], [(0, 0), (0, 0), (0, 3)], mode="edge")),
             (nn.ConstantPad1d((2, 1), -1.0), np.pad(x[0], [(0, 0), (0, 0), (2, 1)], constant_values=-1.0)),
             (nn.CircularPad1d(1), np.pad(x[0], [(0, 0), (0, 0), (1, 1)], mode="wrap"))]
    for layer, expected in cases:
        inp = x if expected.ndim == 4 else x[0]
        np.testing.assert_array_equal(layer(em.tensor(inp)).numpy(), expected, err_msg=repr(layer))


def test_padding_layers_second_order():
    x = em.tensor(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    for layer in (nn.ConstantPad2d((1, 0, 2, 1), 0.5), nn.ZeroPad2d(1), nn.ReflectionPad2d(1),
                  nn.ReplicationPad2d((2, 0, 0, 1))):
        assert gradcheck(layer, (x,)), repr(layer)
        assert gradgradcheck(layer, (x,)), repr(layer)


def test_padding_layer_repr_matches_pytorch():
    assert repr(nn.ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad2d((1, 0, 2, 3), 3.5)) == "ConstantPad2d(padding=(1, 0, 2, 3), value=3.5)"
    assert repr(nn.ReflectionPad1d(3)) == "ReflectionPad1d((3, 3))"
    assert repr(nn.ReplicationPad2d((1, 1, 2, 0))) == "ReplicationPad2d((1, 1, 2, 0))"


def test_pad_errors_are_clear():
    x = em.randn(1, 2, 3)
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(x, (3, 0), "reflect")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1, 2, 3))
    with pytest.raises(RuntimeError, match="Padding length too large"):
        F.pad(x, (1,) * 8)
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (4, 0), "circular")
    with pytest.raises(NotImplementedError, match="unsupported padding mode 'mirror'"):
        F.pad(x, (1, 1), "mirror")
    with pytest.raises(RuntimeError, match="reflect padding of 2 dimension"):
        F.pad(em.randn(3, 3), (1, 1, 1, 1), "reflect")
    with pytest.raises(ValueError, match="padding must be an int or a tuple of 4 ints"):
        nn.ZeroPad2d((1, 2))
    with pytest.raises(RuntimeError, match=r"ReflectionPad2d\(\(1, 1, 1, 1\)\): expected 3D"):
        nn.ReflectionPad2d(1)(em.randn(4, 4))


@pytest.mark.parametrize("layer,shape", [(nn.ReflectionPad1d((2, 1)), (2, 2, 4)), (nn.ReplicationPad1d(2), (2, 5)),
                                         (nn.CircularPad1d((1, 2)), (1, 2, 3)), (nn.ZeroPad1d(1), (2, 3)),
                                         (nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 2.0), (1, 1, 2, 2, 2)),
                                         (nn.ReflectionPad3d(1), (1, 2, 2, 2)),
                                         (nn.ReplicationPad3d((0, 1, 1, 0, 2, 0)), (1, 1, 2, 2, 2)),
                                         (nn.CircularPad3d(1), (1, 1, 2, 2, 2)), (nn.CircularPad2d(1), (1, 2, 2))])
def test_all_padding_layers_gradcheck(layer, shape):
    x = em.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(layer, (x,)), repr(layer)
