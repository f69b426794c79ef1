"""Kernels that replace NumPy loops which are slow on data-dependent input: ``where`` as a bit-select
(ops/_select.py) must give ``np.where``'s bits exactly; ``logaddexp``/``logaddexp2`` and ``softplus`` by their formula
must match a float64 reference to float32 rounding, infinities and NaN included."""
import math

import numpy as np
import pytest

import ember as em
from ember.core.ops import _select
from ember.core.ops._select import select

DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64]
SPECIAL = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-45, -1.5]


def _bits(a):
    return a.view(f"u{a.dtype.itemsize}")


def _operands(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f":
        flat = a.reshape(-1)
        flat[:len(SPECIAL)] = np.array(SPECIAL).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((5, 7), (5, 7), (5, 7)),  # below the fast path's size
                                    ((70, 64), (70, 64), (70, 64)),
                                    ((1, 70, 64), (3, 70, 64), (70, 64)),  # broadcast: the mask is the smallest
                                    ((3, 70, 64), (64,), (3, 1, 64))])  # the mask is the largest
def test_select_is_numpy_where_bit_for_bit(dtype, shapes):
    rng = np.random.default_rng(1)
    cond = rng.standard_normal(shapes[0]) > 0  # a data-dependent mask
    a, b = _operands(dtype, shapes[1], 2), _operands(dtype, shapes[2], 3)
    for x, y in [(a, b), (a, 0), (0, b), (a, 3), (5, b), (a, a.reshape(-1)[:1].reshape(()) if a.ndim else a)]:
        got, expected = select(cond, x, y), np.where(cond, x, y)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        assert np.array_equal(_bits(got), _bits(expected))
        assert got.base is None or got.size < _select._MIN_SIZE  # a base array: a leaf can take it as .grad


def test_select_leaves_other_dtypes_and_numbers_to_numpy():
    cond = np.random.default_rng(0).standard_normal(5000) > 0
    ints = np.arange(5000, dtype=np.int32)
    # a float number with an integer array promotes (NumPy's rule), so where() itself runs
    assert select(cond, ints, 0.5).dtype == np.where(cond, ints, 0.5).dtype == np.float64
    mixed = select(cond, ints, np.arange(5000, dtype=np.int64))
    assert mixed.dtype == np.int64 and np.array_equal(mixed, np.where(cond, ints, np.arange(5000)))
    bools = select(cond, cond, ~cond)
    assert bools.dtype == np.bool_ and np.array_equal(bools, np.where(cond, cond, ~cond))
    small = np.zeros(5000, np.int8)  # a number out of the dtype's range: whatever where() makes of it
    assert np.array_equal(select(cond, small, 1000), np.where(cond, small, 1000))


def test_ember_where_uses_it_and_keeps_its_gradient():
    rng = np.random.default_rng(0)
    cond = em.tensor(rng.standard_normal((64, 128)) > 0)
    x = em.tensor(rng.standard_normal((64, 128)), requires_grad=True)
    y = em.tensor(rng.standard_normal((128,)), requires_grad=True)
    out = em.where(cond, x, y)
    assert np.array_equal(out.detach().numpy(), np.where(cond.numpy(), x.detach().numpy(), y.detach().numpy()))
    out.sum().backward()
    assert np.array_equal(x.grad.numpy(), cond.numpy().astype(np.float64))
    assert np.array_equal(y.grad.numpy(), (~cond.numpy()).sum(0).astype(np.float64))


@pytest.mark.parametrize("fn,ref", [(em.logaddexp, np.logaddexp), (em.logaddexp2, np.logaddexp2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logaddexp_matches_a_float64_reference(fn, ref, dtype):
    v = np.array([0, 1, -1, 30, -30, 100, -100, 88, -104, 1e-8, -1e-8, np.inf, -np.inf, np.nan], dtype)
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))
    a, b = np.tile(a, 30), np.tile(b, 30)  # large enough for every kernel path
    with np.errstate(all="ignore"):
        expected = ref(a.astype(np.float64), b.astype(np.float64)).astype(dtype)
    got = fn(em.tensor(a), em.tensor(b)).numpy()
    assert got.dtype == dtype
    assert np.array_equal(np.isnan(got), np.isnan(expected))
    finite = np.isfinite(expected)
    assert np.array_equal(got[~finite & ~np.isnan(expected)], expected[~finite & ~np.isnan(expected)])  # +-inf
    ulp = np.spacing(np.abs(expected[finite]).astype(dtype))
    assert np.all(np.abs(got[finite] - expected[finite]) <= 2 * ulp)


def test_logaddexp_broadcasts():
    a, b = em.tensor(np.arange(3.0).reshape(3, 1)), em.tensor(np.arange(4.0))
    assert np.allclose(em.logaddexp(a, b).numpy(), np.logaddexp(np.arange(3.0).reshape(3, 1), np.arange(4.0)),
                       rtol=1e-15)


def test_softplus_extremes_as_pytorch():
    # PyTorch 2.13: softplus of [inf, -inf, nan, 0, -0] is [inf, 0, nan, ln 2, ln 2]
    got = em.nn.functional.softplus(em.tensor([np.inf, -np.inf, np.nan, 0.0, -0.0])).numpy()
    assert got[0] == np.inf and got[1] == 0 and np.isnan(got[2])
    assert got[3] == got[4] == np.float32(math.log(2))
    x = np.linspace(-60, 60, 20001, dtype=np.float32)
    expected = np.where(x * 2 > 20, x, np.log1p(np.exp(2 * x.astype(np.float64))) / 2)
    got = em.nn.functional.softplus(em.tensor(x), beta=2.0).numpy()
    assert np.allclose(got, expected, rtol=3e-7, atol=1e-30)
