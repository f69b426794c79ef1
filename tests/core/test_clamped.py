"""Clamping by numbers (ops/_bounds.py): the block path gives PyTorch's clamp exactly (ties keep the data, NaN stays
NaN, ``lo > hi`` gives ``hi``), the same bits as NumPy's ``clip``, on every size, layout and thread count; and the
ops built on it keep PyTorch's signed zeros."""
import numpy as np
import pytest

import ember as em
from ember.core import threads
from ember.core.ops import _bounds
from ember.core.ops._bounds import clamped

SPECIAL = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, -1.0, 1.0, 0.5, -0.5, 2.0, -2.0, 3.0]
# below the block path's minimum, one block plus a remainder, several blocks, split across threads
SIZES = [len(SPECIAL), _bounds._MIN_SIZE + 7, 3 * _bounds._BLOCK + 5, 2 * threads.ELEMENTWISE_GRAIN + 11]
BOUNDS = [(0, None), (None, 0.0), (-1.0, 1), (-0.5, 2.0), (2.0, -1.0), (np.nan, None), (None, -np.inf)]


def _data(n, dtype):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype) * 2
    a[:len(SPECIAL)] = SPECIAL
    a[-len(SPECIAL):] = SPECIAL
    return a


def _torch_rule(a, lo, hi):
    """PyTorch's clamp, written with comparisons: below ``lo`` becomes ``lo``, then above ``hi`` becomes ``hi``;
    NaN data and ties keep the data (a NaN bound gives NaN, as comparing with it is false in NumPy's ``maximum``)."""
    out = a.copy()
    if lo is not None:
        out = np.where(np.isnan(lo) | (out < lo), lo, out).astype(a.dtype)
    if hi is not None:
        out = np.where(np.isnan(hi) | (out > hi), hi, out).astype(a.dtype)
    return np.where(np.isnan(a), a, out)


def _bits(a):
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64)


def _same(got, expected):
    """The same bits, except that any NaN matches any NaN (which NaN a NaN bound gives is not specified)."""
    nan = np.isnan(expected)
    return np.array_equal(np.isnan(got), nan) and np.array_equal(_bits(got)[~nan], _bits(expected)[~nan])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("lo,hi", BOUNDS)
def test_clamped_is_pytorch_clamp_bit_for_bit(dtype, n, lo, hi):
    a = _data(n, dtype)
    expected = _torch_rule(a, lo, hi)
    got = clamped(a, lo, hi)
    assert got.dtype == a.dtype and got.shape == a.shape
    assert _same(got, expected)


@pytest.mark.parametrize("n", SIZES)
def test_clamped_matches_numpy_clip(n):
    a = _data(n, np.float32)
    lo, hi = np.float32(-1.5), np.float32(0.0)
    assert np.array_equal(_bits(clamped(a, lo, hi)), _bits(np.clip(a, lo, hi)))


def test_clamped_in_place_and_into_out():
    a = _data(SIZES[2], np.float32)
    expected = _torch_rule(a, -1.0, 1.0)
    out = np.empty_like(a)
    assert clamped(a, -1.0, 1.0, out=out) is out
    assert np.array_equal(_bits(out), _bits(expected))
    b = a.copy()
    assert clamped(b, -1.0, 1.0, out=b) is b
    assert np.array_equal(_bits(b), _bits(expected))
    assert np.array_equal(_bits(a), _bits(_data(SIZES[2], np.float32)))  # the input of a fresh result is untouched


def test_clamped_other_layouts_and_dtypes_take_the_plain_path_with_the_same_result():
    a = _data(5 * 40_000, np.float32).reshape(-1, 5)
    strided = a.T  # not C-contiguous
    assert np.array_equal(_bits(clamped(strided, 0, 2.0)), _bits(_torch_rule(strided, 0, 2.0)))
    ints = np.arange(-5000, 5000)
    assert np.array_equal(clamped(ints, -3, 7), np.clip(ints, -3, 7))
    # a float64 NumPy scalar is not weak: the result is float64, as NumPy's own call gives
    assert clamped(a, np.float64(0.5)).dtype == np.maximum(np.float64(0.5), a).dtype == np.float64


def test_clamped_threads_give_the_same_bits():
    before = em.get_num_threads()
    a = _data(SIZES[-1], np.float32)
    try:
        em.set_num_threads(1)
        one = clamped(a, -0.5, 0.0)
        em.set_num_threads(2)
        two = clamped(a, -0.5, 0.0)
    finally:
        em.set_num_threads(before)
    assert np.array_equal(_bits(one), _bits(two))


def test_constant_blocks_are_read_only_and_the_cache_is_bounded():
    a = _data(SIZES[1], np.float32)
    for i in range(3 * _bounds._CACHE_SIZE):
        clamped(a, float(i))
    assert len(_bounds._blocks) <= _bounds._CACHE_SIZE
    assert all(not block.flags.writeable for block in _bounds._blocks.values())


@pytest.mark.parametrize("n", [6, SIZES[2]])
def test_ops_keep_pytorch_signed_zeros_and_nan(n):
    # PyTorch 2.13: relu, clamp, relu6, hardtanh, elu, selu, leaky_relu of [-0.0, 0.0, nan, -1, 6, -inf]
    v = np.zeros(n, np.float32)
    v[:6] = [-0.0, 0.0, np.nan, -1.0, 6.0, -np.inf]
    x = em.tensor(v)
    F = em.nn.functional
    expected = {
        "relu": [-0.0, 0.0, np.nan, 0.0, 6.0, 0.0],
        "clamp(min=0)": [-0.0, 0.0, np.nan, 0.0, 6.0, 0.0],
        "clamp(-1, 0)": [-0.0, 0.0, np.nan, -1.0, 0.0, -1.0],
        "clamp(max=0)": [-0.0, 0.0, np.nan, -1.0, 0.0, -np.inf],
        "relu6": [-0.0, 0.0, np.nan, 0.0, 6.0, 0.0],
        "hardtanh": [-0.0, 0.0, np.nan, -1.0, 1.0, -1.0],
        "elu": [-0.0, 0.0, np.nan, -0.6321205496788025, 6.0, -1.0],
        "selu": [-0.0, 0.0, np.nan, -1.1113307476043701, 6.304205894470215, -1.7580993175506592],
        "leaky_relu": [-0.0, 0.0, np.nan, -0.009999999776482582, 6.0, -np.inf],
    }
    got = {"relu": em.relu(x), "clamp(min=0)": em.clamp(x, min=0.0), "clamp(-1, 0)": em.clamp(x, -1, 0),
           "clamp(max=0)": em.clamp(x, max=0.0), "relu6": F.relu6(x), "hardtanh": F.hardtanh(x), "elu": F.elu(x),
           "selu": F.selu(x), "leaky_relu": F.leaky_relu(x)}
    for name, values in expected.items():
        expected_bits = _bits(np.array(values, np.float32))
        got_bits = _bits(got[name].numpy()[:6])
        nan = np.isnan(np.array(values))
        assert np.array_equal(got_bits[~nan], expected_bits[~nan]) and np.isnan(got[name].numpy()[2]), name


@pytest.mark.parametrize("name", ["relu", "clamp", "relu6", "leaky_relu", "leaky_relu(2)", "elu", "hardswish",
                                  "softplus", "where", "logaddexp", "pow4", "smooth_l1", "huber"])
def test_rewritten_ops_take_zero_dim_tensors(name):
    # NumPy turns 0-d results into scalars, which the in-place passes of these kernels cannot write
    F = em.nn.functional
    ops = {"relu": em.relu, "clamp": lambda t: t.clamp(0, 2), "relu6": F.relu6, "leaky_relu": F.leaky_relu,
           "leaky_relu(2)": lambda t: F.leaky_relu(t, 2.0), "elu": F.elu, "hardswish": F.hardswish,
           "softplus": F.softplus, "where": lambda t: em.where(em.tensor(True), t, 0.0),
           "logaddexp": lambda t: em.logaddexp(t, t), "pow4": lambda t: t ** 4,
           "smooth_l1": lambda t: F.smooth_l1_loss(t, em.tensor(3.0)), "huber": lambda t: F.huber_loss(t, em.tensor(3.0))}
    for value in (-1.5, 1.25):
        x = em.tensor(value, requires_grad=True)
        y = ops[name](x)
        ref = ops[name](em.tensor([value], requires_grad=True))
        assert y.shape == () and y.item() == pytest.approx(ref.item(), rel=1e-6)
        y.backward()
        assert x.grad.shape == ()
