"""Reductions: prod, max/min family, var/std, logsumexp, cumulative ops, norm, logical and nan-aware reductions."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from op_testing import check_grads as _check_grads, leaf as _leaf


def _with_zeros():
    return em.tensor([[1.0, 0.0, 3.0], [2.0, 1.5, -1.0], [0.5, 0.0, 2.0]], dtype=em.float64, requires_grad=True)


def test_dim_out_of_range_message():
    x = em.zeros(2, 3)
    msg = r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"
    for op in (lambda: x.sum(2), lambda: x.prod(2), lambda: x.max(2), lambda: x.amax(2), lambda: x.argmax(2),
               lambda: x.var(2), lambda: x.cumsum(2), lambda: x.norm(dim=2), lambda: x.logsumexp(2)):
        with pytest.raises(IndexError, match=msg):
            op()


# ---------------------------------------------------------------------------------------------------------- prod
def test_prod_values_and_dtypes():
    x = em.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert x.prod().item() == 720.0
    assert em.prod(x, 1).tolist() == [6.0, 120.0]
    assert x.prod(0, keepdim=True).tolist() == [[4.0, 10.0, 18.0]]
    i = em.tensor([[1, 2], [3, 4]], dtype=em.int32)
    assert i.prod().dtype == em.int64 and i.prod().item() == 24
    assert em.tensor([True, True]).prod().dtype == em.int64
    assert x.prod(1, dtype=em.float64).dtype == em.float64


def test_prod_gradient_with_zeros():
    x = em.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, 6.0, 0.0]  # only the zero's gradient survives: the product of the others
    y = em.tensor([0.0, 4.0, 0.0], requires_grad=True)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0]
    z = em.tensor([[2.0, 5.0], [0.0, 3.0]], requires_grad=True)
    z.prod(1).sum().backward()
    assert z.grad.tolist() == [[5.0, 2.0], [3.0, 0.0]]


@pytest.mark.parametrize("fn", [lambda a: a.prod(), lambda a: a.prod(1), lambda a: a.prod(0, keepdim=True)])
def test_prod_gradcheck(fn):
    _check_grads(fn, _leaf(3, 3))
    _check_grads(fn, _with_zeros())


# ------------------------------------------------------------------------------------------------------- max/min
def test_max_min_values_and_named_tuple():
    x = em.tensor([[1.0, 5.0, 5.0], [7.0, -2.0, 0.0]])
    assert x.max().item() == 7.0 and em.min(x).item() == -2.0
    res = x.max(1)
    assert res.values.tolist() == [5.0, 7.0]
    assert res.indices.tolist() == [1, 0]  # the first maximal index
    assert res.indices.dtype == em.int64
    values, indices = em.max(x, dim=0, keepdim=True)
    assert values.tolist() == [[7.0, 5.0, 5.0]] and indices.tolist() == [[1, 0, 0]]
    assert res[0] is res.values
    assert type(res).__name__ == "max"
    assert repr(res).startswith("ember.return_types.max(\nvalues=tensor(")
    low = x.min(-1)
    assert low.values.tolist() == [1.0, -2.0] and low.indices.tolist() == [0, 1]
    assert type(low).__name__ == "min"


def test_binary_max_is_maximum():
    a, b = em.tensor([1.0, 5.0]), em.tensor([3.0, 2.0])
    assert em.max(a, b).tolist() == [3.0, 5.0]
    assert a.min(b).tolist() == [1.0, 2.0]


def test_max_errors():
    with pytest.raises(RuntimeError, match="max\\(\\): Expected reduction dim to be specified for input.numel\\(\\) "
                                           "== 0"):
        em.zeros(0).max()
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        em.zeros(2, 0).max(1)


def test_max_gradients_ties():
    x = em.tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]  # max() over all elements splits between ties
    y = em.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    y.max(1).values.sum().backward()
    assert y.grad.tolist() == [[0.0, 1.0, 0.0]]  # max(dim) sends everything to the returned index
    z = em.tensor([[4.0, 4.0, 1.0], [0.0, 2.0, 2.0]], requires_grad=True)
    z.amax(1).sum().backward()
    assert z.grad.tolist() == [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    w = em.tensor([[4.0, 4.0], [4.0, 1.0]], requires_grad=True)
    w.amin((0, 1)).backward()
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 1.0]]


@pytest.mark.parametrize("fn", [
    lambda a: a.max(), lambda a: a.min(), lambda a: a.amax(1), lambda a: a.amin((0, 1)), lambda a: a.amax(0, True),
    lambda a: a.max(1).values, lambda a: a.min(0, keepdim=True)[0], lambda a: em.aminmax(a, dim=1).max,
    lambda a: em.aminmax(a).min,
])
def test_max_family_gradcheck(fn):
    _check_grads(fn, _leaf(3, 4))


def test_amax_amin_aminmax_values():
    x = em.tensor([[1.0, 9.0], [-4.0, 2.0]])
    assert em.amax(x).item() == 9.0
    assert x.amax(0).tolist() == [1.0, 9.0]
    assert x.amin(-1, keepdim=True).tolist() == [[1.0], [-4.0]]
    mm = em.aminmax(x, dim=0)
    assert mm.min.tolist() == [-4.0, 2.0] and mm.max.tolist() == [1.0, 9.0]
    assert em.aminmax(x).max.item() == 9.0


def test_argmax_argmin():
    x = em.tensor([[1.0, 9.0, 9.0], [-4.0, 2.0, -4.0]])
    assert x.argmax().item() == 1 and em.argmin(x).item() == 3
    assert x.argmax(1).tolist() == [1, 1]
    assert x.argmin(1, keepdim=True).tolist() == [[0], [0]]
    assert x.argmax(keepdim=True).shape == (1, 1)
    assert x.argmax().dtype == em.int64


# ---------------------------------------------------------------------------------------------------- var / std
def test_var_correction_vs_unbiased():
    data = [1.0, 2.0, 3.0, 6.0]  # mean 3, squared deviations 4 + 1 + 0 + 9 = 14
    x = em.tensor(data)
    assert x.var().item() == pytest.approx(14 / 3)
    assert x.var(unbiased=True).item() == pytest.approx(14 / 3)
    assert x.var(unbiased=False).item() == pytest.approx(14 / 4)
    assert x.var(correction=0).item() == pytest.approx(14 / 4)
    assert em.var(x, correction=2).item() == pytest.approx(14 / 2)
    assert em.var(x, False).item() == pytest.approx(14 / 4)  # the legacy var(input, unbiased) overload
    assert x.std(correction=0).item() == pytest.approx(math.sqrt(3.5))
    with pytest.raises(RuntimeError, match="can only specify one of 'unbiased' and 'correction'"):
        x.var(unbiased=True, correction=1)
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        em.tensor([1, 2]).var()


def test_var_std_dims_and_mean_variants():
    a = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 9.0]])
    x = em.tensor(a)
    np.testing.assert_allclose(x.var(1).numpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(x.std(0, keepdim=True).numpy(), a.std(0, ddof=1, keepdims=True))
    np.testing.assert_allclose(x.var((0, 1), correction=0).numpy(), a.var(ddof=0))
    v, m = em.var_mean(x, 1)
    np.testing.assert_allclose(v.numpy(), a.var(1, ddof=1))
    np.testing.assert_allclose(m.numpy(), a.mean(1))
    s, m = em.std_mean(x, dim=0, correction=0, keepdim=True)
    np.testing.assert_allclose(s.numpy(), a.std(0, keepdims=True))
    assert m.shape == (1, 3)
    s, m = em.std_mean(x)
    assert s.shape == () and m.item() == pytest.approx(a.mean())


def test_var_degrees_of_freedom_warning():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = em.tensor([1.0]).var()
    assert math.isnan(out.item())


def test_std_gradient_zero_at_constant_input():
    x = em.tensor([2.0, 2.0, 2.0], requires_grad=True)
    x.std().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [
    lambda a: a.var(), lambda a: a.var(1, correction=0), lambda a: a.std(0, keepdim=True), lambda a: a.std(),
    lambda a: em.var_mean(a, 1)[0], lambda a: em.std_mean(a, 0)[0],
])
def test_var_std_gradcheck(fn):
    _check_grads(fn, _leaf(3, 4))


# ----------------------------------------------------------------------------------------------------- logsumexp
def test_logsumexp_is_stable_and_exact():
    x = em.tensor([[1000.0, 1000.0], [-1000.0, -1000.0]])
    out = em.logsumexp(x, 1)
    assert out.tolist() == pytest.approx([1000 + math.log(2), -1000 + math.log(2)])
    neg = em.tensor([-math.inf, -math.inf]).logsumexp(0)
    assert neg.item() == -math.inf
    a = np.array([[0.5, 1.0, -2.0], [3.0, 0.0, 1.0]])
    np.testing.assert_allclose(em.tensor(a).logsumexp((0, 1)).numpy(), np.log(np.exp(a).sum()))
    assert em.tensor([1, 2]).logsumexp(0).dtype == em.float32
    assert em.tensor(a).logsumexp(1, keepdim=True).shape == (2, 1)


def test_logsumexp_gradient_is_softmax():
    x = em.tensor([1.0, 2.0, 3.0], dtype=em.float64, requires_grad=True)
    x.logsumexp(0).backward()
    e = np.exp([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.numpy(), e / e.sum())
    _check_grads(lambda a: em.logsumexp(a, 1), _leaf(3, 4))
    _check_grads(lambda a: a.logsumexp((0, 1), keepdim=True), _leaf(3, 4))


# -------------------------------------------------------------------------------------------------- cumsum / cumprod
def test_cumsum_cumprod_values():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = em.tensor(a)
    np.testing.assert_array_equal(x.cumsum(1).numpy(), a.cumsum(1))
    np.testing.assert_array_equal(em.cumsum(x, dim=0).numpy(), a.cumsum(0))
    np.testing.assert_array_equal(x.cumprod(-1).numpy(), a.cumprod(-1))
    assert em.tensor([1, 2, 3], dtype=em.int32).cumsum(0).dtype == em.int64
    assert em.tensor([True, True]).cumsum(0).tolist() == [1, 2]
    assert x.cumsum(0, dtype=em.float64).dtype == em.float64


def test_cumsum_gradient():
    x = em.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x.cumsum(0) * em.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [111.0, 110.0, 100.0]


def test_cumprod_gradient_with_zeros():
    # sum(cumprod(x)) = x0 + x0 x1 + x0 x1 x2: the gradient is (1 + x1 + x1 x2, x0 + x0 x2, x0 x1)
    x = em.tensor([2.0, 0.0, 3.0], requires_grad=True)
    x.cumprod(0).sum().backward()
    assert x.grad.tolist() == [1.0, 8.0, 0.0]
    # y0 + y0 y1 + y0 y1 y2 + y0 y1 y2 y3: d/dy0 = 1 + y1 + y1 y2 + y1 y2 y3 = 3, the rest carry the factor y0 = 0
    y = em.tensor([0.0, 2.0, 0.0, 5.0], requires_grad=True)
    y.cumprod(0).sum().backward()
    assert y.grad.tolist() == [3.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("fn", [lambda a: a.cumsum(1), lambda a: a.cumprod(1), lambda a: a.cumprod(0)])
def test_cumulative_gradcheck(fn):
    _check_grads(fn, _leaf(3, 4))
    _check_grads(fn, _with_zeros())


# ------------------------------------------------------------------------------------------------------------ norm
def test_norm_values():
    a = np.array([[3.0, -4.0], [0.0, 12.0]])
    x = em.tensor(a)
    assert x.norm().item() == pytest.approx(13.0)
    assert em.norm(x, "fro").item() == pytest.approx(13.0)
    assert x.norm(dim=1).tolist() == pytest.approx([5.0, 12.0])
    assert x.norm(p=1).item() == pytest.approx(19.0)
    assert x.norm(p=float("inf")).item() == 12.0
    assert x.norm(p=-float("inf"), dim=1).tolist() == [3.0, 0.0]
    assert x.norm(p=0).item() == 3.0
    assert x.norm(p=3, dim=0, keepdim=True).numpy() == pytest.approx(np.array([[3.0, (64 + 1728) ** (1 / 3)]]))
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point or complex tensor as "
                                           "input. Got Long"):
        em.tensor([1, 2]).norm()


def test_norm_gradient_at_zero_is_zero():
    x = em.zeros(3, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    y = em.tensor([[3.0, 4.0], [0.0, 0.0]], requires_grad=True)
    y.norm(dim=1).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    z = em.tensor([1.0, -3.0, 3.0], requires_grad=True)
    z.norm(p=float("inf")).backward()
    assert z.grad.tolist() == [0.0, -0.5, 0.5]


@pytest.mark.parametrize("fn", [
    lambda a: a.norm(), lambda a: a.norm(dim=1), lambda a: a.norm(p=float("inf"), dim=0), lambda a: a.norm(p=3, dim=1),
    lambda a: a.norm(p=1), lambda a: a.norm(p=1.5, dim=0, keepdim=True), lambda a: a.norm(p=-float("inf")),
])
def test_norm_gradcheck(fn):
    _check_grads(fn, _leaf(3, 4))


# ----------------------------------------------------------------------------------------- all/any/count_nonzero
def test_all_any_count_nonzero():
    x = em.tensor([[1, 0], [2, 3]])
    assert em.all(x).item() is False and em.any(x).item() is True
    assert x.all(1).tolist() == [False, True]
    assert x.any(0, keepdim=True).tolist() == [[True, True]]
    assert x.all().dtype == em.bool
    assert em.tensor([1, 0], dtype=em.uint8).all().dtype == em.uint8
    assert em.count_nonzero(x).item() == 3
    assert x.count_nonzero(0).tolist() == [2, 1]
    assert x.count_nonzero(dim=(0, 1)).dtype == em.int64


# ------------------------------------------------------------------------------------------------------ nan-aware
def test_nansum_nanmean_values_and_gradients():
    x = em.tensor([[1.0, float("nan")], [3.0, 5.0]], requires_grad=True)
    assert x.nansum().item() == 9.0
    assert em.nansum(x, 1).tolist() == [1.0, 8.0]
    assert x.nanmean().item() == 3.0
    assert x.nanmean(0).tolist() == [2.0, 5.0]
    x.nanmean(1).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [0.5, 0.5]]
    assert em.tensor([1, 2]).nansum().dtype == em.int64
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(em.tensor([float("nan")]).nanmean().item())
    _check_grads(lambda a: a.nansum(1), _leaf(3, 4))
    _check_grads(lambda a: a.nanmean(0), _leaf(3, 4))
