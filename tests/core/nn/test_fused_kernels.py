"""Every fused kernel of the speed work against its composed reference: values and gradients in float32 and
float64, plus finite-difference checks in float64."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core.nn import functional as F
from ember.core.nn.functional import _conv_kernels, _norm

rng = np.random.default_rng(0)
TOL = {np.float32: dict(rtol=2e-5, atol=2e-6), np.float64: dict(rtol=1e-12, atol=1e-13)}


def _grads(fn, arrays, g=None, create_graph=False):
    ts = [em.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*ts)
    g = np.ones(out.shape, dtype=arrays[0].dtype) if g is None else g
    out.backward(em.tensor(g), create_graph=create_graph)
    return out.detach().numpy(), [t.grad.detach().numpy() for t in ts]


# ---------------------------------------------------------------------------------------------------- relu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_backward_is_the_masked_gradient(dtype):
    x = rng.standard_normal((7, 300)).astype(dtype)
    x[0, :5] = 0.0  # at zero the gradient is 0, as in PyTorch
    g = rng.standard_normal(x.shape).astype(dtype)
    out, (gx,) = _grads(F.relu, [x], g)
    assert np.array_equal(out, np.maximum(x, 0))
    assert np.array_equal(gx, np.where(x > 0, g, 0))
    # the composed rule (create_graph) agrees with the fused one
    _, (gx2,) = _grads(F.relu, [x], g, create_graph=True)
    assert np.array_equal(gx, gx2)


def test_relu_gradchecks():
    x = rng.standard_normal((4, 5)) + 0.05
    assert gradcheck(F.relu, (em.tensor(x, requires_grad=True),))


# ---------------------------------------------------------------------------------------------------- gelu
def _gelu_reference(x):
    x64 = x.astype(np.float64)
    erf = np.vectorize(math.erf)(x64 / math.sqrt(2))
    phi = 0.5 * (1 + erf)
    pdf = np.exp(-0.5 * x64 * x64) / math.sqrt(2 * math.pi)
    return x64 * phi, phi + x64 * pdf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_matches_exact_erf_reference(dtype):
    x = np.concatenate([np.linspace(-9, 9, 4001), rng.standard_normal(70000) * 3]).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    out, (gx,) = _grads(F.gelu, [x], g)
    ref, slope = _gelu_reference(x)
    assert out.dtype == dtype and gx.dtype == dtype
    np.testing.assert_allclose(out, ref, **({"rtol": 2e-6, "atol": 2e-6} if dtype == np.float32 else TOL[dtype]))
    np.testing.assert_allclose(gx, g * slope, **({"rtol": 2e-6, "atol": 2e-6} if dtype == np.float32 else
                                                 TOL[dtype]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_fused_backward_equals_composed_rule(dtype):
    x = (rng.standard_normal((33, 65)) * 2).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    _, (fused,) = _grads(F.gelu, [x], g)
    _, (composed,) = _grads(F.gelu, [x], g, create_graph=True)
    np.testing.assert_allclose(fused, composed, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_gelu_gradcheck_and_gradgradcheck():
    x = em.tensor(rng.standard_normal((3, 4)) * 2, requires_grad=True)
    assert gradcheck(F.gelu, (x,))
    assert gradgradcheck(F.gelu, (x,))


# ---------------------------------------------------------------------------------------------------- conv
def _force_input_grad_path(monkeypatch, full_conv):
    monkeypatch.setattr(_conv_kernels, "_full_conv_cheaper", lambda g, f, c: full_conv)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [((4, 6, 14, 14), (16, 6, 5, 5), 0), ((3, 16, 8, 8), (16, 16, 3, 3), 1)])
def test_conv_input_gradient_paths_agree(monkeypatch, dtype, shape):
    xs, ws, pad = shape
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    oh = xs[2] + 2 * pad - ws[2] + 1
    g = rng.standard_normal((xs[0], ws[0], oh, oh)).astype(dtype)
    results = []
    for full in (True, False):
        _force_input_grad_path(monkeypatch, full)
        results.append(_grads(lambda a, b: F.conv2d(a, b, padding=pad), [x, w], g))
    (o1, (gx1, gw1)), (o2, (gx2, gw2)) = results
    assert np.array_equal(o1, o2)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else TOL[dtype]
    np.testing.assert_allclose(gx1, gx2, **tol)
    np.testing.assert_allclose(gw1, gw2, **tol)
    # both against the composed reference (create_graph uses the differentiable conv_t/conv_w ops)
    _, (gx3, gw3) = _grads(lambda a, b: F.conv2d(a, b, padding=pad), [x, w], g, create_graph=True)
    np.testing.assert_allclose(gx1, gx3, **tol)
    np.testing.assert_allclose(gw1, gw3, **tol)


def test_choice_of_input_gradient_path():
    lenet2 = _conv_kernels.ConvGeometry((1, 1), (1, 1), (0, 0, 0, 0), 1, (5, 5), (14, 14), (10, 10))
    vgg = _conv_kernels.ConvGeometry((1, 1), (1, 1), (1, 1, 1, 1), 1, (3, 3), (32, 32), (32, 32))
    assert not _conv_kernels._full_conv_cheaper(lenet2, 16, 6)  # widening layer: col2im
    assert _conv_kernels._full_conv_cheaper(vgg, 32, 32)  # same width: the full convolution


@pytest.mark.parametrize("full", [True, False])
def test_conv_gradcheck_on_both_paths(monkeypatch, full):
    _force_input_grad_path(monkeypatch, full)
    x = em.tensor(rng.standard_normal((2, 2, 6, 6)), requires_grad=True)
    w = em.tensor(rng.standard_normal((5, 2, 3, 3)), requires_grad=True)
    assert gradcheck(lambda a, b: F.conv2d(a, b, padding=1), (x, w))


# ---------------------------------------------------------------------------------------------------- norms
NORMS = [
    ("batch", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (6, 4, 5, 3), (4,)),
    ("layer", lambda x, w, b: F.layer_norm(x, (5, 3), w, b), (6, 4, 5, 3), (5, 3)),
    ("group", lambda x, w, b: F.group_norm(x, 2, w, b), (6, 4, 5, 3), (4,)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fn,xs,ps", NORMS, ids=[n[0] for n in NORMS])
def test_norm_fused_backward_equals_composed(dtype, name, fn, xs, ps):
    x = (rng.standard_normal(xs) * 2 + 1).astype(dtype)
    w = rng.standard_normal(ps).astype(dtype)
    b = rng.standard_normal(ps).astype(dtype)
    g = rng.standard_normal(xs).astype(dtype)
    out, fused = _grads(fn, [x, w, b], g)
    _, composed = _grads(fn, [x, w, b], g, create_graph=True)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else TOL[dtype]
    for a, c in zip(fused, composed):
        assert a.dtype == dtype
        np.testing.assert_allclose(a, c, **tol)


def test_batch_norm_without_affine_matches_formula():
    x = rng.standard_normal((5, 3, 4, 4))
    g = rng.standard_normal(x.shape)
    xt = em.tensor(x, requires_grad=True)
    out = F.batch_norm(xt, None, None, training=True)
    out.backward(em.tensor(g))
    axes = (0, 2, 3)
    xhat = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out.detach().numpy(), xhat, rtol=1e-12, atol=1e-12)
    invstd = 1 / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
    ref = invstd * (g - g.mean(axes, keepdims=True) - xhat * (g * xhat).mean(axes, keepdims=True))
    np.testing.assert_allclose(xt.grad.numpy(), ref, rtol=1e-10, atol=1e-12)


def test_norm_backward_keeps_the_normalised_input():
    x = em.tensor(rng.standard_normal((4, 3, 2, 2)), requires_grad=True)
    out = F.batch_norm(x, None, None, training=True)
    xhat = out.grad_fn._ctx[2]
    np.testing.assert_allclose(xhat, out.detach().numpy())
    assert _norm.NativeNormBackward0.__doc__


# ---------------------------------------------------------------------------------------------------- pooling
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_backward_routes_to_the_first_maximum(dtype):
    x = rng.standard_normal((3, 2, 6, 6)).astype(dtype)
    x[0, 0, 0, :2] = 5.0  # a tie: the first maximal element takes the gradient, as in PyTorch
    g = rng.standard_normal((3, 2, 3, 3)).astype(dtype)
    out, (gx,) = _grads(lambda a: F.max_pool2d(a, 2), [x], g)
    _, (gx2,) = _grads(lambda a: F.max_pool2d(a, 2), [x], g, create_graph=True)
    assert np.array_equal(gx, gx2)
    assert gx[0, 0, 0, 0] == g[0, 0, 0, 0] and gx[0, 0, 0, 1] == 0


def _naive_max_pool(x, g, k, s, p, d, ceil_mode):
    """Window by window: the value, the flat plane index of the first maximum (the last NaN if any, PyTorch's CPU
    rule) and the gradient routed there."""
    n, c, h, w = x.shape
    oh, ow = (F._pooling.pool_out_len(size, kk, pp, ss, dd, ceil_mode) for size, kk, pp, ss, dd in
              zip((h, w), k, p, s, d))
    out = np.empty((n, c, oh, ow), dtype=x.dtype)
    idx = np.empty((n, c, oh, ow), dtype=np.int64)
    gx = np.zeros_like(x)
    for b, ch, i, j in np.ndindex(n, c, oh, ow):
        best, where = -np.inf, None
        for a in range(k[0]):
            for e in range(k[1]):
                r, q = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + e * d[1]
                if 0 <= r < h and 0 <= q < w:
                    v = x[b, ch, r, q]
                    if where is None or v > best or np.isnan(v):
                        best, where = v, r * w + q
        out[b, ch, i, j], idx[b, ch, i, j] = best, where
        gx[b, ch, where // w, where % w] += g[b, ch, i, j]
    return out, idx, gx


POOL_CASES = [  # kernel, stride, padding, dilation, ceil_mode, (H, W)
    ((2, 2), (2, 2), (0, 0), (1, 1), False, (8, 6)),  # windows tile the input: gradient written in place
    ((2, 2), (2, 2), (0, 0), (1, 1), False, (7, 9)),  # a leftover row and column get zero
    ((3, 3), (2, 2), (1, 1), (1, 1), False, (7, 8)),  # overlapping, padded windows: += per tap
    ((2, 3), (2, 1), (1, 0), (2, 1), True, (9, 7)),  # dilation and ceil_mode
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool_tap_indices_match_window_by_window_reference(dtype, case):
    k, s, p, d, ceil_mode, (h, w) = case
    x = np.maximum(rng.standard_normal((2, 3, h, w)), 0).astype(dtype)  # after ReLU: many all-zero windows (ties)
    x[0, 0, 0, :3] = 2.0  # an explicit tie on the first row
    oh, ow = (F._pooling.pool_out_len(size, kk, pp, ss, dd, ceil_mode) for size, kk, pp, ss, dd in
              zip((h, w), k, p, s, d))
    g = rng.standard_normal((2, 3, oh, ow)).astype(dtype)
    ref, ref_idx, ref_gx = _naive_max_pool(x, g, k, s, p, d, ceil_mode)

    def pool(a):
        return F.max_pool2d(a, k, s, p, d, ceil_mode)
    out, (gx,) = _grads(pool, [x], g)
    assert np.array_equal(out, ref)
    np.testing.assert_allclose(gx, ref_gx, **TOL[dtype])  # overlapping windows add in another order
    _, (gx2,) = _grads(pool, [x], g, create_graph=True)  # the composed rule: scatter_add at the plane indices
    np.testing.assert_allclose(gx2, ref_gx, **TOL[dtype])
    _, idx = F.max_pool2d(em.tensor(x), k, s, p, d, ceil_mode, return_indices=True)
    assert np.array_equal(idx.numpy(), ref_idx)


def test_max_pool_nan_is_the_maximum_and_its_index_the_last_nan():
    x = np.array([[[[1.0, np.nan, 5.0, np.nan], [0.0, 2.0, 3.0, 4.0]]]])
    out, idx = F.max_pool2d(em.tensor(x), (1, 4), return_indices=True)
    assert np.isnan(out.numpy()[0, 0, 0, 0]) and out.numpy()[0, 0, 1, 0] == 4.0
    assert idx.numpy().ravel().tolist() == [3, 7]  # as torch 2.x on CPU
    xt = em.tensor(x, requires_grad=True)
    F.max_pool2d(xt, (1, 4)).sum().backward()
    assert xt.grad.numpy().ravel().tolist() == [0, 0, 0, 1, 0, 0, 0, 1]


def test_max_pool_keeps_tap_indices_not_the_output():
    x = em.tensor(rng.standard_normal((2, 3, 8, 8)).astype(np.float32), requires_grad=True)
    y = F.max_pool2d(x, 2)
    assert y.grad_fn.taps.dtype == np.uint8 and y.grad_fn.taps.shape == (2, 3, 4, 4)
    y.mul_(2)  # PyTorch saves the indices, not the output: an in-place change of the output is allowed
    y.sum().backward()
    assert x.grad.numpy().sum() == pytest.approx(2 * 2 * 3 * 4 * 4)
    x2 = em.tensor(rng.standard_normal((1, 1, 4, 4)), requires_grad=True)
    a = x2 * 1
    z = F.max_pool2d(a, 2)
    a.add_(1)  # but the input is saved: changing it in place is an error at backward, as in PyTorch
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ---------------------------------------------------------------------------------------------------- BLAS sums
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_blas_sums_equal_numpy_sums(dtype):
    from ember.core.nn.functional._sums import sum_leading, sum_trailing
    a = (rng.standard_normal((6, 5, 7)) * 10).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sum_leading(np, a, 2), a.sum(axis=(0, 1)), **tol)
    np.testing.assert_allclose(sum_trailing(np, a, 2), a.sum(axis=(1, 2), keepdims=True), **tol)
    assert sum_trailing(np, a, 1).shape == (6, 5, 1) and sum_leading(np, a, 1).shape == (5, 7)
    t = a.transpose(2, 1, 0)  # not contiguous: NumPy's own sum
    np.testing.assert_allclose(sum_leading(np, t, 1), t.sum(axis=0), **tol)
    assert sum_leading(np, a, 0) is a
