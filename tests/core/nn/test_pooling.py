"""Pooling: values and indices against naive loops, PyTorch's tie and ceil_mode rules, gradients, layers, errors."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

rng = np.random.default_rng(0)


def out_len(size, k, p, s, d, ceil):
    """PyTorch's documented formula, ceil_mode rule included."""
    num = size + 2 * p - d * (k - 1) - 1
    o = (math.ceil(num / s) if ceil else num // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def naive_max_pool2d(x, k, s, p, d, ceil):
    n, c, h, w = x.shape
    oh, ow = out_len(h, k[0], p[0], s[0], d[0], ceil), out_len(w, k[1], p[1], s[1], d[1], ceil)
    out = np.full((n, c, oh, ow), -np.inf)
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    for a in range(k[0]):
                        for q in range(k[1]):
                            r, col = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + q * d[1]
                            if 0 <= r < h and 0 <= col < w and x[b, ch, r, col] > out[b, ch, i, j]:
                                out[b, ch, i, j], idx[b, ch, i, j] = x[b, ch, r, col], r * w + col
    return out, idx


def naive_avg_pool2d(x, k, s, p, ceil, count_include_pad, divisor_override=None):
    n, c, h, w = x.shape
    oh, ow = out_len(h, k[0], p[0], s[0], 1, ceil), out_len(w, k[1], p[1], s[1], 1, ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - p[0], j * s[1] - p[1]
            h1, w1 = min(h0 + k[0], h + p[0]), min(w0 + k[1], w + p[1])
            pool = (h1 - h0) * (w1 - w0)
            h0c, w0c, h1c, w1c = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            total = x[:, :, h0c:h1c, w0c:w1c].sum(axis=(2, 3))
            div = divisor_override or (pool if count_include_pad else (h1c - h0c) * (w1c - w0c))
            out[:, :, i, j] = total / div
    return out


MAX_CASES = [((2, 2), (2, 2), (0, 0), (1, 1), False), ((3, 3), (2, 2), (1, 1), (1, 1), True),
             ((3, 2), (1, 2), (1, 0), (2, 1), False), ((2, 2), (3, 3), (0, 0), (1, 1), True)]


@pytest.mark.parametrize("case", MAX_CASES)
def test_max_pool2d_values_and_indices_match_naive(case):
    k, s, p, d, ceil = case
    x = rng.standard_normal((2, 3, 7, 8))
    out, idx = F.max_pool2d(em.tensor(x), k, s, p, d, ceil_mode=ceil, return_indices=True)
    ref, ref_idx = naive_max_pool2d(x, k, s, p, d, ceil)
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)
    assert idx.dtype == em.int64


@pytest.mark.parametrize("case", MAX_CASES)
def test_max_pool2d_gradcheck_and_gradgradcheck(case):
    k, s, p, d, ceil = case
    x = em.tensor(rng.standard_normal((1, 2, 6, 7)), requires_grad=True)

    def fn(a):
        return F.max_pool2d(a, k, s, p, d, ceil_mode=ceil)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_max_pool_gradient_goes_to_the_first_maximum():
    # ties: PyTorch routes the whole gradient to the first maximal element of the window (row-major)
    x = em.tensor([[[[1.0, 3.0, 0.0, 4.0], [3.0, 2.0, 4.0, 0.0]]]], requires_grad=True)
    out = F.max_pool2d(x, 2)
    out.backward(em.tensor([[[[10.0, 20.0]]]]))
    np.testing.assert_array_equal(x.grad.numpy(), [[[[0, 10, 0, 20], [0, 0, 0, 0]]]])
    # overlapping windows accumulate into the shared maximum
    y = em.tensor([[[0.0, 5.0, 1.0]]], requires_grad=True)
    F.max_pool1d(y, 2, stride=1).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [[[0.0, 2.0, 0.0]]])


def test_max_pool1d_values_indices_and_second_order():
    x = rng.standard_normal((2, 3, 9))
    out, idx = F.max_pool1d(em.tensor(x), 3, 2, padding=1, return_indices=True)
    ref, ref_idx = naive_max_pool2d(x[:, :, None], (1, 3), (1, 2), (0, 1), (1, 1), False)
    np.testing.assert_array_equal(out.numpy(), ref[:, :, 0])
    np.testing.assert_array_equal(idx.numpy(), ref_idx[:, :, 0])
    xt = em.tensor(x[:1], requires_grad=True)
    assert gradcheck(lambda a: F.max_pool1d(a, 3, 2, 1, dilation=2), (xt,))
    layer = nn.MaxPool1d(2, ceil_mode=True)
    assert gradgradcheck(layer, (xt,))
    assert layer(xt).shape == (1, 3, 5)


def test_max_pool2d_2x2_fast_path_matches_strided_maximum():
    x = rng.standard_normal((4, 5, 8, 6)).astype(np.float32)
    expected = np.maximum(np.maximum(x[..., ::2, ::2], x[..., 1::2, ::2]), np.maximum(x[..., ::2, 1::2],
                                                                                    x[..., 1::2, 1::2]))
    np.testing.assert_array_equal(F.max_pool2d(em.tensor(x), 2).numpy(), expected)
    np.testing.assert_array_equal(nn.MaxPool2d(2)(em.tensor(x[0])).numpy(), expected[0])  # unbatched


AVG_CASES = [((2, 2), (2, 2), (0, 0), False, True, None), ((3, 3), (2, 2), (1, 1), True, True, None),
             ((3, 2), (2, 1), (1, 1), True, False, None), ((3, 3), (1, 2), (1, 0), False, True, 5)]


@pytest.mark.parametrize("case", AVG_CASES)
def test_avg_pool2d_matches_naive_and_gradchecks(case):
    k, s, p, ceil, include, override = case
    x = rng.standard_normal((2, 3, 7, 8))
    out = F.avg_pool2d(em.tensor(x), k, s, p, ceil, include, override)
    np.testing.assert_allclose(out.numpy(), naive_avg_pool2d(x, k, s, p, ceil, include, override), atol=1e-12)
    xt = em.tensor(x[:1, :2], requires_grad=True)

    def fn(a):
        return F.avg_pool2d(a, k, s, p, ceil, include, override)
    assert gradcheck(fn, (xt,))
    assert gradgradcheck(fn, (xt,))


def test_avg_pool1d_and_layers():
    x = rng.standard_normal((2, 3, 10))
    out = F.avg_pool1d(em.tensor(x), 4, 3, padding=2, count_include_pad=False)
    ref = naive_avg_pool2d(x[:, :, None], (1, 4), (1, 3), (0, 2), False, False)[:, :, 0]
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-12)
    xt = em.tensor(x[:1], requires_grad=True)
    assert gradcheck(nn.AvgPool1d(3, 2, 1), (xt,))
    x2 = em.tensor(rng.standard_normal((1, 2, 5, 5)), requires_grad=True)
    layer = nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, divisor_override=2)
    assert gradcheck(layer, (x2,)) and gradgradcheck(layer, (x2,))


def test_lp_pool2d_values_and_second_order():
    x = rng.random((2, 3, 6, 7)) + 0.5
    out = F.lp_pool2d(em.tensor(x), 3, (2, 3), stride=(2, 2))
    ref = np.zeros((2, 3, 3, 3))
    for i in range(3):
        for j in range(3):
            ref[:, :, i, j] = (x[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 3] ** 3).sum(axis=(2, 3)) ** (1 / 3)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    layer = nn.LPPool2d(2, 2)
    xt = em.tensor(x[:1, :2, :4, :4], requires_grad=True)
    assert gradcheck(layer, (xt,)) and gradgradcheck(layer, (xt,))
    y = em.tensor(x[:1, :, 0], requires_grad=True)
    assert gradcheck(nn.LPPool1d(2, 3, stride=2), (y,))


def test_adaptive_avg_pool_windows_follow_floor_ceil_rule():
    x = rng.standard_normal((2, 3, 7, 5))
    out = F.adaptive_avg_pool2d(em.tensor(x), (3, 4)).numpy()
    for i in range(3):
        for j in range(4):
            h0, h1 = (i * 7) // 3, -(-(i + 1) * 7 // 3)
            w0, w1 = (j * 5) // 4, -(-(j + 1) * 5 // 4)
            np.testing.assert_allclose(out[:, :, i, j], x[:, :, h0:h1, w0:w1].mean(axis=(2, 3)), atol=1e-12)
    np.testing.assert_allclose(F.adaptive_avg_pool2d(em.tensor(x), 1).numpy(), x.mean(axis=(2, 3), keepdims=True))
    assert F.adaptive_avg_pool2d(em.tensor(x), (None, 2)).shape == (2, 3, 7, 2)
    even = F.adaptive_avg_pool2d(em.tensor(x[:, :, :6, :4]), (3, 2)).numpy()  # divisible: plain avg_pool
    np.testing.assert_allclose(even, naive_avg_pool2d(x[:, :, :6, :4], (2, 2), (2, 2), (0, 0), False, True))
    xt = em.tensor(x[:1], requires_grad=True)
    assert gradcheck(nn.AdaptiveAvgPool2d((3, 4)), (xt,))
    assert gradgradcheck(nn.AdaptiveAvgPool2d((3, 4)), (xt,))
    y = em.tensor(x[:1, :, 0], requires_grad=True)
    assert gradcheck(nn.AdaptiveAvgPool1d(3), (y,))


def test_adaptive_max_pool2d_values_indices_and_gradients():
    x = rng.standard_normal((2, 3, 7, 5))
    out, idx = F.adaptive_max_pool2d(em.tensor(x), (3, 2), return_indices=True)
    for i in range(3):
        for j in range(2):
            h0, h1 = (i * 7) // 3, -(-(i + 1) * 7 // 3)
            w0, w1 = (j * 5) // 2, -(-(j + 1) * 5 // 2)
            win = x[:, :, h0:h1, w0:w1].reshape(2, 3, -1)
            np.testing.assert_array_equal(out.numpy()[:, :, i, j], win.max(-1))
            a = win.argmax(-1)
            np.testing.assert_array_equal(idx.numpy()[:, :, i, j], (h0 + a // (w1 - w0)) * 5 + w0 + a % (w1 - w0))
    xt = em.tensor(x[:1], requires_grad=True)
    assert gradcheck(nn.AdaptiveMaxPool2d((3, 2)), (xt,))
    y = em.tensor(x[:1, :, 0], requires_grad=True)
    assert gradcheck(nn.AdaptiveMaxPool1d(2), (y,))
    ties = em.tensor([[[[1.0, 2.0], [2.0, 0.0]]]], requires_grad=True)
    F.adaptive_max_pool2d(ties, 1).sum().backward()
    np.testing.assert_array_equal(ties.grad.numpy(), [[[[0, 1], [0, 0]]]])


def test_max_unpool2d_inverts_max_pool2d_at_the_maxima():
    x = em.tensor(rng.standard_normal((1, 2, 4, 6)), requires_grad=True)
    pooled, idx = nn.MaxPool2d(2, return_indices=True)(x)
    restored = nn.MaxUnpool2d(2)(pooled, idx)
    assert restored.shape == (1, 2, 4, 6)
    xn, rn = x.detach().numpy(), restored.detach().numpy()
    nz = rn != 0
    assert nz.sum() == pooled.numel()
    np.testing.assert_array_equal(rn[nz], xn[nz])
    assert F.max_unpool2d(pooled, idx, 2, output_size=(5, 7)).shape == (1, 2, 5, 7)
    assert gradcheck(lambda p: F.max_unpool2d(p, idx, 2), (pooled.detach().requires_grad_(),))


def test_pooling_repr_matches_pytorch():
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.MaxPool1d(3, 2, 1)) == "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3, stride=2)) == "AvgPool2d(kernel_size=3, stride=2, padding=0)"
    assert repr(nn.AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))"
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"
    assert repr(nn.AdaptiveMaxPool2d(7)) == "AdaptiveMaxPool2d(output_size=7)"
    assert repr(nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"


def test_pooling_bad_arguments_are_named():
    with pytest.raises(ValueError, match="padding should be at most half of effective kernel size"):
        nn.MaxPool2d(2, padding=2)
    with pytest.raises(ValueError, match="padding should be at most half of kernel size"):
        nn.AvgPool2d(3, padding=2)
    with pytest.raises(ValueError, match="stride must be greater than zero"):
        nn.MaxPool1d(2, stride=0)
    with pytest.raises(RuntimeError, match=r"MaxPool2d\(kernel_size=2.*expected 3D \(unbatched\) or 4D"):
        nn.MaxPool2d(2)(em.randn(4, 4))
    with pytest.raises(RuntimeError, match="is too small"):
        F.max_pool2d(em.randn(1, 1, 3, 3), 4)
    with pytest.raises(ValueError, match="output_size must be greater than zero"):
        F.adaptive_avg_pool2d(em.randn(1, 1, 3, 3), 0)


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True), (1, 2, 6, 5)),
    (lambda: nn.MaxPool1d(3, stride=1, padding=1, dilation=2), (2, 2, 7)),
    (lambda: nn.AvgPool2d((2, 3), stride=(1, 2), padding=(1, 1), count_include_pad=False), (1, 2, 5, 6)),
    (lambda: nn.AdaptiveMaxPool2d((2, None)), (1, 2, 5, 3)),
])
def test_pooling_layers_gradcheck_and_gradgradcheck(make, shape):
    layer = make()
    x = em.tensor(rng.standard_normal(shape), requires_grad=True)
    assert gradcheck(layer, (x,))
    if not isinstance(layer, nn.AdaptiveMaxPool2d):
        assert gradgradcheck(layer, (x,))


def test_max_unpool1d_and_its_gradient():
    x = em.tensor(rng.standard_normal((1, 2, 8)))
    pooled, idx = F.max_pool1d(x, 2, return_indices=True)
    restored = nn.MaxUnpool1d(2)(pooled, idx)
    xn, rn = x.numpy(), restored.numpy()
    np.testing.assert_array_equal(rn[rn != 0], xn[rn != 0])
    assert gradcheck(lambda p: F.max_unpool1d(p, idx, 2), (pooled.detach().requires_grad_(),))
