"""Arithmetic and matrix-product ops: values, broadcasting, promotion, errors and first/second-order gradients."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(0)


def d(*shape, low=None):
    arr = rng.standard_normal(shape)
    if low is not None:
        arr = np.abs(arr) + low
    return em.tensor(arr, dtype=em.float64, requires_grad=True)


BINARY = {
    "add": lambda a, b: a + b,
    "add_alpha": lambda a, b: em.add(a, b, alpha=2.5),
    "sub": lambda a, b: a - b,
    "sub_alpha": lambda a, b: em.sub(a, b, alpha=-0.5),
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
    "remainder": lambda a, b: em.remainder(a, b),
    "fmod": lambda a, b: em.fmod(a, b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((2, 3, 4), (3, 1)), ((4,), (2, 1, 4))])
def test_binary_ops_first_and_second_order_gradients(name, shapes):
    a, b = d(*shapes[0], low=0.5), d(*shapes[1], low=0.7)
    assert gradcheck(BINARY[name], (a, b))
    if name not in ("remainder", "fmod"):
        assert gradgradcheck(BINARY[name], (a, b))


@pytest.mark.parametrize("fn", [lambda a: a * 3.0, lambda a: 2.0 - a, lambda a: 3.0 / a, lambda a: a ** 3,
                                lambda a: a ** 0.5, lambda a: 2.0 ** a, lambda a: -a, lambda a: em.abs(a),
                                lambda a: a / 4, lambda a: a + 1])
def test_scalar_operand_gradients(fn):
    a = d(2, 3, low=0.5)
    assert gradcheck(fn, (a,))
    assert gradgradcheck(fn, (a,))


MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
                 ((2, 3), (5, 3, 4)), ((2, 1, 2, 3), (4, 3, 2))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_values_and_gradients(sa, sb):
    a, b = d(*sa), d(*sb)
    np.testing.assert_allclose((a @ b).detach().numpy(), np.matmul(a.detach().numpy(), b.detach().numpy()))
    assert gradcheck(em.matmul, (a, b))
    assert gradgradcheck(em.matmul, (a, b))


def test_matrix_product_family():
    a, b, v, w = d(2, 3), d(3, 4), d(3), d(4)
    assert gradcheck(em.mm, (a, b)) and gradgradcheck(em.mm, (a, b))
    assert gradcheck(em.mv, (a, v)) and gradcheck(em.dot, (v, v))
    assert gradcheck(em.outer, (v, w)) and gradgradcheck(em.outer, (v, w))
    c = d(2, 4)
    assert gradcheck(lambda c, a, b: em.addmm(c, a, b, beta=0.5, alpha=2.0), (c, a, b))
    x, y = d(5, 2, 3), d(5, 3, 4)
    assert gradcheck(em.bmm, (x, y))
    np.testing.assert_allclose(em.outer(v, w).detach().numpy(), np.outer(v.detach().numpy(), w.detach().numpy()))


def test_broadcasting_shapes():
    assert (em.zeros(5, 1, 4, 1) + em.zeros(3, 1, 1)).shape == (5, 3, 4, 1)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(2\) must match the size of tensor b \(3\) at "
                                           r"non-singleton dimension 1"):
        em.zeros(5, 2, 4, 1) + em.zeros(3, 1, 1)


def test_matmul_errors_name_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 5x6\)"):
        em.zeros(3, 4) @ em.zeros(5, 6)
    with pytest.raises(RuntimeError, match=r"both arguments to matmul need to be at least 1D"):
        em.matmul(em.tensor(1.0), em.zeros(2))
    with pytest.raises(RuntimeError, match=r"\[2, 3, 4\] and \[2, 5, 6\]"):
        em.zeros(2, 3, 4) @ em.zeros(2, 5, 6)


def test_type_promotion_follows_pytorch():
    f32 = em.ones(2)
    i64 = em.tensor([1, 2])
    assert (f32 * 2.5).dtype == em.float32
    assert (f32 * 2).dtype == em.float32
    assert (i64 * 2).dtype == em.int64
    assert (i64 * 2.5).dtype == em.float32
    assert (i64 / 2).dtype == em.float32
    assert (i64 + f32).dtype == em.float32
    assert (f32 + em.tensor(1.0, dtype=em.float64)).dtype == em.float32  # zero-dim of same category
    assert (i64 + em.tensor(1.5, dtype=em.float64)).dtype == em.float64  # zero-dim of a higher category
    assert (em.ones(2, dtype=em.float16) + em.tensor([1, 2])).dtype == em.float16
    assert (em.tensor([True]) + em.tensor([True])).dtype == em.bool
    np.testing.assert_array_equal((i64 / 2).numpy(), [0.5, 1.0])


def test_division_rounding_modes():
    a = em.tensor([-7.0, 7.0, 5.5])
    b = em.tensor([2.0, -2.0, 2.0])
    np.testing.assert_array_equal(em.div(a, b, rounding_mode="trunc").numpy(), [-3.0, -3.0, 2.0])
    np.testing.assert_array_equal(em.div(a, b, rounding_mode="floor").numpy(), [-4.0, -4.0, 2.0])
    # PyTorch's div_floor corrects the quotient through fmod: a quotient that rounds to zero still floors to -1
    c = em.tensor([-0.5, 1e-30, 1.0, 0.5, -0.0], requires_grad=True)
    d = em.tensor([np.inf, -1e30, -np.inf, np.inf, 3.0], requires_grad=True)
    floor = em.div(c, d, rounding_mode="floor").detach().numpy()
    assert floor.tolist() == [-1.0, -1.0, -1.0, 0.0, -0.0] and np.signbit(floor).tolist() == [1, 1, 1, 0, 1]
    assert (c // d).tolist() == floor.tolist()
    (gd,) = em.autograd.grad(em.remainder(c, d).sum(), d)  # -floor(c / d): PyTorch 2.13 gives these
    assert gd.tolist() == [1.0, 1.0, 1.0, -0.0, 0.0]
    ia, ib = em.tensor([-7, 7]), em.tensor([2, -2])
    np.testing.assert_array_equal(em.div(ia, ib, rounding_mode="trunc").numpy(), [-3, -3])
    np.testing.assert_array_equal((ia // ib).numpy(), [-4, -4])
    assert em.div(ia, ib, rounding_mode="trunc").dtype == em.int64
    with pytest.raises(ValueError, match="rounding_mode"):
        em.div(a, b, rounding_mode="round")


def test_remainder_and_fmod_signs():
    a = em.tensor([-3.0, 3.0])
    np.testing.assert_array_equal(em.remainder(a, 2).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(em.fmod(a, 2).numpy(), [-1.0, 1.0])
    np.testing.assert_array_equal((a % -2).numpy(), [-1.0, -1.0])


def test_reflected_operators():
    a = em.tensor([1.0, 2.0, 4.0])
    np.testing.assert_array_equal((1 - a).numpy(), [0.0, -1.0, -3.0])
    np.testing.assert_array_equal((8 / a).numpy(), [8.0, 4.0, 2.0])
    np.testing.assert_array_equal((2 ** a).numpy(), [2.0, 4.0, 16.0])
    np.testing.assert_array_equal((np.float32(3) * a).numpy(), [3.0, 6.0, 12.0])
    out = np.array([1.0, 1.0, 1.0], np.float32) + a
    assert isinstance(out, em.Tensor)


def test_integer_power_errors_and_bool_negation():
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        em.tensor([2, 3]) ** -1
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor is not supported"):
        -em.tensor([True])
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        em.tensor([True]) - em.tensor([False])


def test_pow_gradient_at_zero_base_matches_pytorch():
    base = em.tensor([0.0, 2.0], dtype=em.float64, requires_grad=True)
    exp = em.tensor([2.0, 3.0], dtype=em.float64, requires_grad=True)
    (base ** exp).sum().backward()
    np.testing.assert_allclose(base.grad.numpy(), [0.0, 12.0])
    np.testing.assert_allclose(exp.grad.numpy(), [0.0, 8.0 * np.log(2.0)])


def test_add_requires_tensor_input():
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        em.add(2, 3)


# PyTorch 2.13, float32: v ** e for v = [-0.0, 0.0, inf, -inf, nan, -4, 2]
_POW_TABLE = {
    -0.5: [-np.inf, np.inf, 0.0, np.nan, np.nan, np.nan, 0.7071067690849304],
    -1: [-np.inf, np.inf, 0.0, -0.0, np.nan, -0.25, 0.5],
    -2: [np.inf, np.inf, 0.0, 0.0, np.nan, 0.0625, 0.25],
    3: [-0.0, 0.0, np.inf, -np.inf, np.nan, -64.0, 8.0],
    0.5: [-0.0, 0.0, np.inf, np.nan, np.nan, np.nan, 1.4142135381698608],
    4: [0.0, 0.0, np.inf, np.inf, np.nan, 256.0, 16.0],
    -3: [-np.inf, np.inf, 0.0, -0.0, np.nan, -0.015625, 0.125],
}


@pytest.mark.parametrize("exponent", sorted(_POW_TABLE))
def test_pow_by_number_special_values_as_pytorch(exponent):
    v = em.tensor([-0.0, 0.0, np.inf, -np.inf, np.nan, -4.0, 2.0])
    with np.errstate(all="ignore"):
        got = (v ** exponent).numpy()
    expected = np.array(_POW_TABLE[exponent], np.float32)
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(got), nan)
    assert np.array_equal(got[~nan].view(np.uint32), expected[~nan].view(np.uint32))  # signed zeros too


@pytest.mark.parametrize("exponent", [3, 4, 5, -3, 7, 64, -1, 0.5, 0, 1])
def test_pow_by_number_is_within_an_ulp_of_pow(exponent):
    # integer exponents are products (PyTorch's 2 and 3, and repeated squaring in float64 for the others, as NumPy's
    # integer power runs a slow loop): float32 results within 1 ulp of the float64 power, rounded. (-2 is PyTorch's
    # 1 / (x * x) in float32, which the table above pins; 1.5 and 65 are NumPy's own power.)
    a = (np.random.default_rng(0).standard_normal(20_000) * 3).astype(np.float32)
    a[:4] = [1e-30, -1e20, 1e10, -7.5]
    with np.errstate(all="ignore"):
        expected = np.power(a.astype(np.float64), exponent).astype(np.float32)
        got = (em.tensor(a) ** exponent).numpy()
    assert got.dtype == np.float32
    normal = np.isfinite(expected) & (np.abs(expected) > np.finfo(np.float32).tiny)
    assert np.all(np.abs(got[normal] - expected[normal]) <= np.spacing(np.abs(expected[normal])))
    assert np.array_equal(got[~normal], expected[~normal], equal_nan=True)


def test_pow_by_integer_gradient():
    x = em.tensor(np.random.default_rng(1).standard_normal(6) + 2.0, requires_grad=True)
    for exponent in (3, 4, -3, 5):
        assert gradcheck(lambda t: t ** exponent, (x,))


def test_division_gradient_of_a_tiny_divisor_as_pytorch():
    # PyTorch computes -grad * ((a / b) / b): b * b underflows to 0 in float32 below ~1e-19, which gave 0/0 = NaN
    # for a = 0 (and -inf for a = 1e-30) where PyTorch gives -0 (and -1e30); values measured in PyTorch 2.13
    a = em.tensor([0.0, 1e-30, -1e-30, 2.0], requires_grad=True)
    b = em.tensor([1e-30, 1e-30, 3e-20, 1e-30], requires_grad=True)
    with np.errstate(over="ignore"):
        (gb,) = em.autograd.grad((a / b).sum(), b)
    assert gb.numpy().tolist() == [-0.0, -1.0000000150474662e+30, 1111111296.0, -np.inf]
    assert np.signbit(gb.numpy()[0])


def test_division_by_zero_is_silent_as_in_pytorch():
    """inf and nan without NumPy's RuntimeWarning, so a suite run with warnings as errors passes as on PyTorch; the
    gradient through the division too."""
    a, z = em.tensor([1.0, 0.0, -1.0]), em.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for result in (a / z, em.div(a, z), a / 0.0, em.div(a, z, rounding_mode="floor")):
            assert [str(v) for v in result.tolist()] == ["inf", "nan", "-inf"]
        assert em.div(a, z, rounding_mode="trunc").tolist()[0] == math.inf
        x = em.tensor([1.0], requires_grad=True)
        (x / em.zeros(1)).sum().backward()
        assert x.grad.tolist() == [math.inf]
