"""Elementwise math: values against independent references, PyTorch's dtype rules, gradients (first and second
order, real and complex) and the error messages."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1234)


def f64(values, requires_grad=False):
    return em.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def sample(lo, hi, shape=(3,)):
    return f64(RNG.uniform(lo, hi, shape), requires_grad=True)


def vec(fn):
    return np.vectorize(fn, otypes=[np.float64])


# name, reference on float64 arrays, (lo, hi) of a domain away from singularities and kinks
UNARY = [
    ("exp", np.exp, (-2, 2)),
    ("exp2", lambda a: 2.0 ** a, (-2, 2)),
    ("expm1", np.expm1, (-2, 2)),
    ("log", np.log, (0.5, 3)),
    ("log2", lambda a: np.log(a) / math.log(2), (0.5, 3)),
    ("log10", lambda a: np.log(a) / math.log(10), (0.5, 3)),
    ("log1p", np.log1p, (-0.5, 3)),
    ("sqrt", np.sqrt, (0.5, 3)),
    ("rsqrt", lambda a: 1 / np.sqrt(a), (0.5, 3)),
    ("square", lambda a: a * a, (-2, 2)),
    ("reciprocal", lambda a: 1 / a, (0.5, 2)),
    ("sin", np.sin, (-2, 2)),
    ("cos", np.cos, (-2, 2)),
    ("tan", np.tan, (-1, 1)),
    ("asin", vec(math.asin), (-0.8, 0.8)),
    ("acos", vec(math.acos), (-0.8, 0.8)),
    ("atan", vec(math.atan), (-2, 2)),
    ("sinh", vec(math.sinh), (-2, 2)),
    ("cosh", vec(math.cosh), (-2, 2)),
    ("tanh", vec(math.tanh), (-2, 2)),
    ("asinh", vec(math.asinh), (-2, 2)),
    ("acosh", vec(math.acosh), (1.5, 3)),
    ("atanh", vec(math.atanh), (-0.8, 0.8)),
    ("sigmoid", lambda a: 1 / (1 + np.exp(-a)), (-3, 3)),
    ("logit", lambda a: np.log(a / (1 - a)), (0.2, 0.8)),
    ("erf", vec(math.erf), (-2, 2)),
    ("erfc", vec(math.erfc), (-2, 2)),
    ("relu", lambda a: np.maximum(a, 0), (0.2, 2)),
    ("nan_to_num", lambda a: a, (-2, 2)),
]
UNARY_NAMES = [u[0] for u in UNARY]


@pytest.mark.parametrize("name,ref,domain", UNARY, ids=UNARY_NAMES)
def test_unary_values_match_reference(name, ref, domain):
    x = RNG.uniform(*domain, (4, 3))
    out = getattr(em, name)(f64(x))
    assert out.dtype == em.float64
    np.testing.assert_allclose(out.numpy(), ref(x), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name,ref,domain", UNARY, ids=UNARY_NAMES)
def test_unary_method_is_the_function(name, ref, domain):
    x = f64(RNG.uniform(*domain, (3,)))
    np.testing.assert_array_equal(getattr(x, name)().numpy(), getattr(em, name)(x).numpy())


@pytest.mark.parametrize("name,ref,domain", UNARY, ids=UNARY_NAMES)
def test_unary_gradcheck_and_gradgradcheck(name, ref, domain):
    lo, hi = domain
    if name == "relu":
        x = f64([-1.5, -0.4, 0.3, 1.7], requires_grad=True)
    else:
        x = sample(lo, hi)
    fn = getattr(em, name)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name,ref,domain", UNARY + [("erfinv", None, (-0.5, 0.5)), ("floor", np.floor, (-2, 2)),
                                              ("sgn", np.sign, (-2, 2))], ids=UNARY_NAMES + ["erfinv", "floor", "sgn"])
def test_unary_zero_dim_and_empty_inputs(name, ref, domain):
    fn = getattr(em, name)
    value = (domain[0] + domain[1]) / 2 + 0.1
    x = f64(value, requires_grad=True)
    out = fn(x)
    assert out.shape == () and out.dtype == em.float64
    if ref is not None:
        assert out.item() == pytest.approx(float(ref(np.array([value]))[0]), rel=1e-14)
    out.backward()
    assert x.grad.shape == ()
    empty = fn(em.zeros(2, 0, dtype=em.float64))
    assert empty.shape == (2, 0) and empty.dtype == em.float64


def test_erfinv_gradcheck_and_gradgradcheck():
    x = sample(-0.8, 0.8)
    assert gradcheck(em.erfinv, (x,))
    assert gradgradcheck(em.erfinv, (x,))


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign", "sgn", "frac"])
def test_piecewise_ops_gradcheck_away_from_jumps(name):
    x = f64([-2.7, -1.3, 0.4, 1.2, 2.6], requires_grad=True)
    fn = getattr(em, name)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign", "sgn"])
def test_step_functions_have_zero_gradient(name):
    x = f64([-2.5, -1.0, 0.0, 0.5, 1.5], requires_grad=True)
    getattr(em, name)(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros(5))


def test_frac_passes_the_gradient():
    x = f64([-2.5, 0.25, 1.75], requires_grad=True)
    em.frac(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


# ------------------------------------------------------------------------------------------------- complex
COMPLEX_OPS = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "reciprocal",
               "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
               "sigmoid", "sgn"]


@pytest.mark.parametrize("name", COMPLEX_OPS)
def test_complex_gradients_follow_pytorch_convention(name):
    # away from branch cuts (the negative real axis for log/sqrt, |Re| >= 1 on the real axis for asin/acos/atanh)
    z = em.tensor(np.array([0.6 + 0.3j, 0.4 - 0.5j, 1.3 + 0.8j]), requires_grad=True)
    if name == "acosh":
        z = em.tensor(np.array([1.6 + 0.3j, 2.4 - 0.5j, 1.3 + 0.8j]), requires_grad=True)
    fn = getattr(em, name)
    assert fn(z).dtype == em.complex128
    assert gradcheck(fn, (z,))
    assert gradgradcheck(fn, (z,))


def test_complex_exp_backward_is_grad_times_conjugate_derivative():
    z = em.tensor([1.0 + 2.0j], dtype=em.complex128, requires_grad=True)
    out = em.exp(z)
    (g,) = em.autograd.grad(out, z, em.tensor([1.0 + 0.0j], dtype=em.complex128))
    np.testing.assert_allclose(g.numpy(), np.conj(np.exp(1.0 + 2.0j)), rtol=1e-15)


def test_complex_values():
    z = [0.5 + 1.0j, -1.0 - 0.25j]
    t = em.tensor(z)
    np.testing.assert_allclose(em.exp(t).numpy(), np.exp(z), rtol=1e-6)
    np.testing.assert_allclose(em.sgn(em.tensor([3 + 4j, 0j])).numpy(), [0.6 + 0.8j, 0])
    assert em.exp(t).dtype == em.complex64


# --------------------------------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "sigmoid", "erf", "erfinv", "reciprocal",
                                  "rsqrt", "log1p", "atan", "exp2"])
def test_integer_input_gives_default_float_dtype(name):
    fn = getattr(em, name)
    assert fn(em.tensor([0, 1])).dtype == em.float32
    assert fn(em.tensor([True, False])).dtype == em.float32
    em.set_default_dtype(em.float64)
    try:
        assert fn(em.tensor([0, 1])).dtype == em.float64
    finally:
        em.set_default_dtype(em.float32)


@pytest.mark.parametrize("dtype", [em.float16, em.float32, em.float64])
@pytest.mark.parametrize("name", ["exp", "sin", "sigmoid", "erf", "erfc", "erfinv", "floor", "relu", "logit"])
def test_floating_dtype_is_preserved(name, dtype):
    x = em.tensor([0.25, 0.5], dtype=dtype)
    assert getattr(em, name)(x).dtype == dtype


def test_rounding_integer_tensors_returns_a_copy_of_the_same_dtype():
    x = em.tensor([1, -2, 3], dtype=em.int32)
    for fn in (em.floor, em.ceil, em.round, em.trunc):
        out = fn(x)
        assert out.dtype == em.int32
        assert out.tolist() == [1, -2, 3]
        assert out._data is not x._data


def test_square_keeps_integers_and_promotes_bool():
    assert em.square(em.tensor([2, -3])).tolist() == [4, 9]
    assert em.square(em.tensor([2, -3])).dtype == em.int64
    assert em.square(em.tensor([True, False])).dtype == em.int64
    assert em.square(f64([1.5], requires_grad=True)).grad_fn.name() == "PowBackward0"


# --------------------------------------------------------------------------------------------- exact values
def test_exact_values_by_hand():
    assert em.exp(f64([0.0])).item() == 1.0
    assert em.log(f64([math.e])).item() == pytest.approx(1.0, rel=1e-15)
    assert em.exp2(f64([10.0])).item() == 1024.0
    assert em.log2(f64([8.0])).item() == 3.0
    assert em.log10(f64([1000.0])).item() == pytest.approx(3.0, rel=1e-15)
    assert em.sqrt(f64([16.0])).item() == 4.0
    assert em.rsqrt(f64([4.0])).item() == 0.5
    assert em.sigmoid(f64([0.0])).item() == 0.5
    assert em.tanh(f64([0.0])).item() == 0.0
    assert em.atan(f64([1.0])).item() == pytest.approx(math.pi / 4, rel=1e-15)
    assert em.logit(f64([0.5])).item() == 0.0
    assert em.expm1(f64([1e-10])).item() == pytest.approx(1e-10, rel=1e-9)
    assert em.log1p(f64([1e-10])).item() == pytest.approx(1e-10, rel=1e-9)


def test_domain_errors_give_nan_and_inf_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(em.log(f64([-1.0])).item())
        assert em.log(f64([0.0])).item() == -math.inf
        assert math.isnan(em.sqrt(f64([-1.0])).item())
        assert math.isnan(em.asin(f64([2.0])).item())
        assert em.atanh(f64([1.0])).item() == math.inf
        assert em.reciprocal(f64([0.0])).item() == math.inf
        assert em.rsqrt(f64([0.0])).item() == math.inf
        assert math.isnan(em.acosh(f64([0.5])).item())


def test_sigmoid_is_stable_for_large_magnitudes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = em.sigmoid(em.tensor([-1000.0, -100.0, 0.0, 100.0, 1000.0]))
        assert y.dtype == em.float32
        assert y.tolist()[0] == 0.0 and y.tolist()[-1] == 1.0 and y.tolist()[2] == 0.5
        # far tail keeps its relative accuracy in float64: 1 / (1 + e^40)
        assert em.sigmoid(f64([-40.0])).item() == pytest.approx(1 / (1 + math.exp(40)), rel=1e-15)
        x = f64([-1000.0, 1000.0], requires_grad=True)
        em.sigmoid(x).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0]


def test_logit_eps_clamps_input_and_zeroes_gradient_outside():
    x = f64([0.0, 0.5, 1.0, 2.0], requires_grad=True)
    y = em.logit(x, eps=0.25)
    np.testing.assert_allclose(y.detach().numpy(), [math.log(1 / 3), 0.0, math.log(3), math.log(3)], rtol=1e-15)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 4.0, 0.0, 0.0])
    x = f64([0.3, 0.6], requires_grad=True)
    assert gradcheck(lambda t: em.logit(t, eps=0.1), (x,))


def test_round_halves_to_even_and_decimals():
    assert em.round(em.tensor([0.5, 1.5, 2.5, -0.5, -1.5])).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0]
    np.testing.assert_allclose(em.round(f64([1.2345, -2.567]), decimals=2).numpy(), [1.23, -2.57])
    assert em.round(f64([1234.5, 1250.0]), decimals=-2).tolist() == [1200.0, 1200.0]
    x = f64([1.23], requires_grad=True)
    assert em.round(x, decimals=1).grad_fn.name() == "RoundBackward1"
    assert x.round().grad_fn.name() == "RoundBackward0"


def test_floor_ceil_trunc_frac_values():
    x = em.tensor([-1.5, -0.5, 0.5, 1.5])
    assert em.floor(x).tolist() == [-2.0, -1.0, 0.0, 1.0]
    assert em.ceil(x).tolist() == [-1.0, -0.0, 1.0, 2.0]
    assert em.trunc(x).tolist() == [-1.0, -0.0, 0.0, 1.0]
    assert em.fix(x).tolist() == [-1.0, -0.0, 0.0, 1.0]
    assert em.frac(x).tolist() == [-0.5, -0.5, 0.5, 0.5]


def test_sign_and_sgn():
    # PyTorch's sign is (x > 0) - (x < 0): NaN and -0.0 give +0.0 (NumPy's sign keeps NaN), in every float dtype
    for dtype in (em.float16, em.float32, em.float64):
        x = em.tensor([-2.0, -0.0, 0.0, 3.0, float("nan"), -float("inf")], dtype=dtype, requires_grad=True)
        for fn in (em.sign, em.sgn):
            out = fn(x)
            assert out.dtype == dtype and out.tolist() == [-1.0, 0.0, 0.0, 1.0, 0.0, -1.0]
            assert not np.signbit(out.detach().numpy()[1:3]).any()  # +0.0 for -0.0 too
        (g,) = em.autograd.grad(x.abs().sum(), x)  # abs's gradient is sign: 0 at NaN, as PyTorch's
        assert g.tolist() == [-1.0, 0.0, 0.0, 1.0, 0.0, -1.0]
    assert em.sign(em.tensor([-3, 0, 5])).tolist() == [-1, 0, 1]
    assert em.sign(em.tensor([True, False])).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="Please use torch.sgn"):
        em.sign(em.tensor([1 + 1j]))


# ------------------------------------------------------------------------------------------------------ clamp
def test_clamp_values_and_aliases():
    x = em.tensor([-2.0, -0.5, 0.5, 2.0])
    assert em.clamp(x, -1, 1).tolist() == [-1.0, -0.5, 0.5, 1.0]
    assert em.clip(x, min=0.0).tolist() == [0.0, 0.0, 0.5, 2.0]
    assert x.clamp(max=0).tolist() == [-2.0, -0.5, 0.0, 0.0]
    assert x.clip(-1, 1).tolist() == [-1.0, -0.5, 0.5, 1.0]
    assert em.clamp_min(x, 0.0).tolist() == [0.0, 0.0, 0.5, 2.0]
    assert em.clamp_max(x, 0.0).tolist() == [-2.0, -0.5, 0.0, 0.0]
    # min > max: everything becomes max (PyTorch's order of operations)
    assert em.clamp(x, 1.0, -1.0).tolist() == [-1.0, -1.0, -1.0, -1.0]
    out = em.clamp(em.tensor([float("nan"), 3.0]), 0, 1).tolist()
    assert math.isnan(out[0]) and out[1] == 1.0


def test_clamp_dtype_promotion():
    ints = em.tensor([1, 5, 10])
    assert em.clamp(ints, 2, 7).dtype == em.int64
    assert em.clamp(ints, 2, 7).tolist() == [2, 5, 7]
    assert em.clamp(ints, 2.5).dtype == em.float32
    assert em.clamp(ints, 2.5).tolist() == [2.5, 5.0, 10.0]
    assert em.clamp(em.tensor([1.0, 5.0]), 2, 3).dtype == em.float32
    assert em.clamp(em.tensor([1.0], dtype=em.float16), 0.5).dtype == em.float16


def test_clamp_tensor_bounds_broadcast():
    x = em.tensor([[-2.0, 0.0, 2.0]])
    lo = em.tensor([[-1.0], [0.5]])
    out = em.clamp(x, lo, em.tensor(1.0))
    assert out.tolist() == [[-1.0, 0.0, 1.0], [0.5, 0.5, 1.0]]


def test_clamp_gradient_passes_inside_closed_interval():
    x = f64([-2.0, -1.0, 0.0, 1.0, 2.0], requires_grad=True)
    y = em.clamp(x, -1, 1)
    assert y.grad_fn.name() == "ClampBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_clamp_gradient_to_tensor_bounds():
    x = f64([-2.0, 0.0, 2.0, 0.5], requires_grad=True)
    lo = f64([-1.0, -1.0, -1.0, 1.0], requires_grad=True)
    hi = f64([1.0, 1.0, 1.0, 0.0], requires_grad=True)  # last: min > max, so max wins
    y = em.clamp(x, lo, hi)
    assert y.grad_fn.name() == "ClampBackward0"
    assert y.tolist() == [-1.0, 0.0, 1.0, 0.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert lo.grad.tolist() == [1.0, 0.0, 0.0, 0.0]
    assert hi.grad.tolist() == [0.0, 0.0, 1.0, 1.0]


def test_clamp_gradcheck_all_forms():
    x = f64([[-1.7, -0.3, 0.4, 1.6]], requires_grad=True)
    lo = f64([[-1.0], [-0.5]], requires_grad=True)
    hi = f64([[1.0], [0.8]], requires_grad=True)
    for fn, args in [(lambda t: em.clamp(t, -1.0, 1.0), (x,)),
                     (lambda t: em.clamp(t, min=-0.5), (x,)),
                     (lambda t: em.clamp(t, max=0.5), (x,)),
                     (em.clamp, (x, lo, hi)),
                     (lambda t, a: em.clamp(t, a, 1.0), (x, lo)),
                     (lambda t, b: em.clamp(t, max=b), (x, hi)),
                     (lambda t: em.clamp_min(t, 0.1), (x,)),
                     (lambda t: em.clamp_max(t, 0.1), (x,)),
                     (em.clamp_min, (x, lo)),
                     (em.clamp_max, (x, hi))]:
        assert gradcheck(fn, args)
        assert gradgradcheck(fn, args)


def test_clamp_min_max_node_names():
    x = f64([0.5], requires_grad=True)
    assert em.clamp_min(x, 0.0).grad_fn.name() == "ClampMinBackward0"
    assert em.clamp_min(x, f64([0.0])).grad_fn.name() == "ClampMinBackward1"
    assert em.clamp_max(x, 0.0).grad_fn.name() == "ClampMaxBackward0"
    assert em.clamp_max(x, f64([0.0])).grad_fn.name() == "ClampMaxBackward1"


def test_clamp_errors():
    x = em.tensor([1.0])
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        em.clamp(x)
    with pytest.raises(TypeError, match="argument 'min' must be Number or Tensor, not str"):
        em.clamp(x, "a")
    with pytest.raises(RuntimeError, match="clamp is not supported for complex types"):
        em.clamp(em.tensor([1j]), 0)
    with pytest.raises(RuntimeError, match="must match the size"):
        em.clamp(em.ones(3), em.ones(2))


# ----------------------------------------------------------------------------------------- maximum & friends
def test_maximum_minimum_values_and_nan():
    a = em.tensor([1.0, 5.0, float("nan")])
    b = em.tensor([3.0, 2.0, 0.0])
    assert em.maximum(a, b).tolist()[:2] == [3.0, 5.0]
    assert math.isnan(em.maximum(a, b).tolist()[2])
    assert em.minimum(a, b).tolist()[:2] == [1.0, 2.0]
    assert em.fmax(em.tensor([float("nan"), 1.0]), em.tensor([2.0, float("nan")])).tolist() == [2.0, 1.0]
    assert em.fmin(em.tensor([float("nan"), 1.0]), em.tensor([2.0, float("nan")])).tolist() == [2.0, 1.0]
    assert em.maximum(em.tensor([1, 4]), em.tensor([2.5, 3.0])).dtype == em.float32


def test_maximum_minimum_split_gradient_on_ties():
    for fn in (em.maximum, em.minimum):
        a = f64([1.0, 2.0, 3.0], requires_grad=True)
        b = f64([1.0, 1.0, 4.0], requires_grad=True)
        fn(a, b).sum().backward()
        if fn is em.maximum:
            assert a.grad.tolist() == [0.5, 1.0, 0.0] and b.grad.tolist() == [0.5, 0.0, 1.0]
        else:
            assert a.grad.tolist() == [0.5, 0.0, 1.0] and b.grad.tolist() == [0.5, 1.0, 0.0]


def test_fmax_ties_go_to_input():
    a = f64([1.0, float("nan")], requires_grad=True)
    b = f64([1.0, 2.0], requires_grad=True)
    em.fmax(a, b).sum().backward()
    assert a.grad.tolist() == [1.0, 0.0] and b.grad.tolist() == [0.0, 1.0]


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logaddexp", "logaddexp2",
                                  "xlogy"])
def test_binary_gradcheck_with_broadcasting(name):
    a = f64(RNG.uniform(0.5, 2.0, (3, 1)), requires_grad=True)
    b = f64(RNG.uniform(0.5, 2.0, (4,)) + np.array([0.0, 3.0, -0.3, 0.7])[:4] * 0.1, requires_grad=True)
    fn = getattr(em, name)
    assert fn(a, b).shape == (3, 4)
    assert gradcheck(fn, (a, b))
    assert gradgradcheck(fn, (a, b))


def test_binary_values():
    assert em.atan2(f64([1.0, 1.0, -1.0]), f64([-1.0, 1.0, -1.0])).numpy().tolist() == pytest.approx(
        [3 * math.pi / 4, math.pi / 4, -3 * math.pi / 4], rel=1e-15)
    assert em.arctan2(f64([0.0]), f64([1.0])).item() == 0.0
    assert em.hypot(f64([3.0, 5.0]), f64([4.0, 12.0])).tolist() == [5.0, 13.0]
    assert em.hypot(f64([1e200]), f64([1e200])).item() == pytest.approx(math.sqrt(2) * 1e200, rel=1e-15)
    assert em.logaddexp(f64([1000.0]), f64([1000.0])).item() == pytest.approx(1000 + math.log(2), rel=1e-15)
    assert em.logaddexp2(f64([3.0]), f64([3.0])).item() == 4.0
    assert em.atan2(em.tensor([1]), em.tensor([1])).dtype == em.float32


def test_xlogy_definition_at_zero_and_scalar_forms():
    out = em.xlogy(f64([0.0, 0.0, 2.0, 0.0]), f64([0.0, -1.0, math.e, float("nan")])).tolist()
    assert out[:3] == [0.0, 0.0, 2.0] and math.isnan(out[3])
    assert em.xlogy(2.0, f64([math.e])).item() == 2.0
    assert em.xlogy(f64([3.0]), 1.0).item() == 0.0
    assert em.xlogy(em.tensor([2]), em.tensor([1])).dtype == em.float32
    x = f64([0.0, 1.5], requires_grad=True)
    y = f64([-1.0, 2.0], requires_grad=True)
    em.xlogy(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, math.log(2.0)])
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 0.75])
    y2 = f64([0.5, 2.0], requires_grad=True)
    assert gradcheck(lambda t: em.xlogy(1.5, t), (y2,))
    assert gradcheck(lambda t: em.xlogy(t, 2.5), (f64([0.3, 1.2], requires_grad=True),))


# ------------------------------------------------------------------------------------------------------ where
def test_where_values_scalars_and_promotion():
    c = em.tensor([True, False, True])
    x = em.tensor([1.0, 2.0, 3.0])
    assert em.where(c, x, 0.0).tolist() == [1.0, 0.0, 3.0]
    assert em.where(c, 9, x).tolist() == [9.0, 2.0, 9.0]
    assert em.where(c, x, 0.0).dtype == em.float32
    assert em.where(c, em.tensor([1, 2, 3]), 2.5).dtype == em.float32
    assert em.where(c, 1.0, 0.0).dtype == em.float32
    assert em.where(c, 1, 0).dtype == em.int64
    assert em.where(c, 1, 0).tolist() == [1, 0, 1]
    assert em.where(c, x, em.tensor([0.0], dtype=em.float64)).dtype == em.float64
    assert x.where(c, -1.0).tolist() == [1.0, -1.0, 3.0]


def test_where_gradient_is_routed_and_summed_over_broadcast():
    c = em.tensor([[True, False, True], [False, False, True]])
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    y = f64([[10.0], [20.0]], requires_grad=True)
    out = em.where(c, x, y)
    assert out.grad_fn.name() == "WhereBackward0"
    out.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 2.0]
    assert y.grad.tolist() == [[1.0], [2.0]]
    assert gradcheck(lambda a, b: em.where(c, a, b), (x, y))
    assert gradgradcheck(lambda a, b: em.where(c, a, b), (x, y))


def test_where_real_input_gets_real_gradient_from_complex_output():
    c = em.tensor([True, False])
    x = f64([1.0, 2.0], requires_grad=True)
    out = em.where(c, x, em.tensor([1j, 2j]))
    assert out.dtype == em.complex128
    (g,) = em.autograd.grad(out, x, em.tensor([1 + 1j, 1 + 1j], dtype=em.complex128))
    assert g.dtype == em.float64 and g.tolist() == [1.0, 0.0]


def test_where_errors():
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor, but got a tensor with "
                                           "dtype Float"):
        em.where(em.tensor([1.0]), em.tensor([1.0]), 0.0)
    with pytest.raises(TypeError, match="argument 'condition'"):
        em.where([True], em.tensor([1.0]), 0.0)
    with pytest.raises(TypeError, match="argument 'other' must be Tensor or Number, not str"):
        em.where(em.tensor([True]), em.tensor([1.0]), "a")


def test_where_with_condition_only_is_nonzero():
    if not hasattr(em.Tensor, "nonzero"):
        pytest.skip("nonzero not available")
    (idx,) = em.where(em.tensor([False, True, True]))
    assert idx.tolist() == [1, 2]


# ------------------------------------------------------------------------------------------------------- lerp
def test_lerp_values_and_exact_endpoints():
    a = f64([0.1, 1.0, -3.0])
    b = f64([0.7, 3.0, 5.0])
    assert em.lerp(a, b, 1.0).tolist() == b.tolist()
    assert em.lerp(a, b, 0.0).tolist() == a.tolist()
    np.testing.assert_allclose(em.lerp(a, b, 0.25).numpy(), [0.25, 1.5, -1.0])
    w = f64([0.0, 0.5, 1.0])
    np.testing.assert_allclose(em.lerp(a, b, w).numpy(), [0.1, 2.0, 5.0])
    assert a.lerp(b, 0.5).tolist() == pytest.approx([0.4, 2.0, 1.0])


def test_float32_lerp_rounds_once_as_pytorchs_fused_kernel():
    """PyTorch's CPU lerp is one fused multiply-add: these float32 results (from PyTorch 2.13) differ in the last bit
    from rounding the product and the sum separately."""
    cases = {0.1: [(0.3615950644016266, -2.20350980758667, 0.10508456081151962),
                   (0.35151007771492004, 1.2945587635040283, 0.44581493735313416),
                   (0.21465912461280823, -1.3412196636199951, 0.05907124653458595)],
             0.9: [(-0.13210485875606537, -0.2585725486278534, -0.24592576920986176),
                   (0.3615950644016266, -2.20350980758667, -1.946999192237854),
                   (-1.2459110021591187, 0.04905461519956589, -0.08044198155403137)]}
    for w, rows in cases.items():
        a, b, expected = (em.tensor(list(col)) for col in zip(*rows))
        assert em.lerp(a, b, w).tolist() == expected.tolist()
        a.lerp_(b, w)
        assert a.tolist() == expected.tolist()
    weights = em.tensor([0.3, 0.8])
    assert em.lerp(em.tensor([0.1257302165031433, -0.13210485875606537]),
                   em.tensor([0.3289696276187897, -0.2585725486278534]), weights).tolist() == \
        [0.18670204281806946, -0.2332790195941925]


def test_lerp_gradients():
    a = f64([0.1, 1.0, -3.0], requires_grad=True)
    b = f64([0.7, 3.0, 5.0], requires_grad=True)
    w = f64([0.2, 0.6, 0.9], requires_grad=True)
    assert em.lerp(a, b, 0.3).grad_fn.name() == "LerpBackward0"
    assert em.lerp(a, b, w).grad_fn.name() == "LerpBackward1"
    assert gradcheck(lambda x, y: em.lerp(x, y, 0.3), (a, b))
    assert gradgradcheck(lambda x, y: em.lerp(x, y, 0.7), (a, b))
    assert gradcheck(em.lerp, (a, b, w))
    assert gradgradcheck(em.lerp, (a, b, w))


def test_lerp_dtype_mismatch_errors():
    with pytest.raises(RuntimeError, match="expected dtype ember.float32 for `end` but got dtype ember.float64"):
        em.lerp(em.tensor([1.0]), f64([2.0]), 0.5)


# ------------------------------------------------------------------------------------------------------- relu
def test_relu_values_dtype_and_gradient_at_zero():
    assert em.relu(em.tensor([-1.0, 0.0, 2.0])).tolist() == [0.0, 0.0, 2.0]
    assert em.relu(em.tensor([-3, 4])).tolist() == [0, 4]
    assert em.relu(em.tensor([-3, 4])).dtype == em.int64
    x = f64([-1.0, 0.0, 2.0], requires_grad=True)
    y = x.relu()
    assert y.grad_fn.name() == "ReluBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]


# ---------------------------------------------------------------------------------------------------- erf family
def test_erf_and_erfc_match_python_math_to_float64_precision():
    x = np.concatenate([np.linspace(-6, 6, 2001), [0.0, 1e-300, 0.46875, -0.46875, 4.0, -4.0, 10.0, 26.0]])
    got_erf = em.erf(f64(x)).numpy()
    got_erfc = em.erfc(f64(x)).numpy()
    want_erf = np.array([math.erf(v) for v in x])
    want_erfc = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(got_erf, want_erf, rtol=2e-15, atol=1e-300)
    np.testing.assert_allclose(got_erfc, want_erfc, rtol=5e-15, atol=1e-300)


def test_erf_float32_uses_a_fast_approximation_within_a_few_ulps():
    x = np.linspace(-6, 6, 20001).astype(np.float32)
    got = em.erf(em.tensor(x)).numpy()
    assert got.dtype == np.float32
    want = np.array([math.erf(float(v)) for v in x])
    np.testing.assert_allclose(got, want, rtol=6e-7, atol=1e-30)
    assert em.erf(em.tensor([1e-30])).item() == pytest.approx(2 / math.sqrt(math.pi) * 1e-30, rel=1e-6)


def test_erf_family_on_arrays_larger_than_one_block():
    x = np.linspace(-5, 5, 70001)  # more than the 65536-element block of the kernels
    want_erf = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(em.erf(f64(x)).numpy(), want_erf, rtol=2e-15, atol=1e-300)
    np.testing.assert_allclose(em.erf(em.tensor(x.astype(np.float32))).numpy(), want_erf, rtol=6e-7, atol=1e-7)
    np.testing.assert_allclose(em.erfc(f64(x)).numpy(), [math.erfc(v) for v in x], rtol=5e-15)
    y = np.linspace(-0.999, 0.999, 70001)
    np.testing.assert_allclose([math.erf(v) for v in em.erfinv(f64(y)).numpy()], y, rtol=1e-15, atol=1e-16)


def test_erf_special_values():
    out = em.erf(f64([math.inf, -math.inf, math.nan, 0.0])).tolist()
    assert out[:2] == [1.0, -1.0] and math.isnan(out[2]) and out[3] == 0.0
    out = em.erfc(f64([math.inf, -math.inf, 30.0])).tolist()
    assert out == [0.0, 2.0, 0.0]


def test_erfinv_inverts_erf_to_float64_precision():
    y = np.concatenate([np.linspace(-0.999, 0.999, 1999), 1 - np.logspace(-15, -1, 29), [1e-300, 0.5, -0.5]])
    x = em.erfinv(f64(y)).numpy()
    # erf(erfinv(y)) recovers y; near 1 compare through erfc, whose argument 1 - y is exact
    np.testing.assert_allclose([math.erf(v) for v in x], y, rtol=1e-15, atol=0)
    np.testing.assert_allclose([math.erfc(v) for v in x[x > 1]], 1 - y[x > 1], rtol=2e-13)
    out = em.erfinv(f64([1.0, -1.0, 1.5, -2.0, 0.0])).tolist()
    assert out[:2] == [math.inf, -math.inf] and math.isnan(out[2]) and math.isnan(out[3]) and out[4] == 0.0


def test_erfinv_matches_scipy():
    special = pytest.importorskip("scipy.special")
    y = np.concatenate([RNG.uniform(-1, 1, 5000), 1 - np.logspace(-16, -1, 200)])
    np.testing.assert_allclose(em.erfinv(f64(y)).numpy(), special.erfinv(y), rtol=2e-15)


def test_erf_family_rejects_complex():
    with pytest.raises(RuntimeError, match="\"erf_cpu\" not implemented for 'ComplexFloat'"):
        em.erf(em.tensor([1j]))


# ------------------------------------------------------------------------------------------------ nan_to_num
def test_nan_to_num_defaults_and_gradient():
    x = em.tensor([float("nan"), float("inf"), -float("inf"), 1.5])
    assert em.nan_to_num(x).tolist() == [0.0, float(np.finfo(np.float32).max), float(np.finfo(np.float32).min),
                                         1.5]
    assert em.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0).tolist() == [1.0, 2.0, -2.0, 1.5]
    assert em.nan_to_num(em.tensor([1, 2])).tolist() == [1, 2]
    t = f64([float("nan"), float("inf"), 2.0], requires_grad=True)
    em.nan_to_num(t).sum().backward()
    assert t.grad.tolist() == [0.0, 0.0, 1.0]


# ----------------------------------------------------------------------------------------- saved tensors
def test_tanh_sigmoid_exp_backward_use_the_saved_output():
    for name in ("tanh", "sigmoid", "exp", "sqrt"):
        a = f64([0.3, 0.7], requires_grad=True)
        x = a * 1.0
        y = getattr(em, name)(x)
        x._bump_version()  # an in-place change of the input does not matter: only the output was saved
        y.sum().backward()
        assert a.grad is not None
        a = f64([0.3, 0.7], requires_grad=True)
        y = getattr(em, name)(a * 1.0)
        y._bump_version()  # ... but changing the output does
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_sin_backward_uses_the_saved_input():
    a = f64([0.3], requires_grad=True)
    x = a * 1.0
    y = em.sin(x)
    x._bump_version()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_node_names_match_pytorch():
    x = f64([0.3, 0.6], requires_grad=True)
    expected = {"exp": "ExpBackward0", "exp2": "Exp2Backward0", "expm1": "Expm1Backward0", "log": "LogBackward0",
                "log1p": "Log1PBackward0", "log2": "Log2Backward0", "log10": "Log10Backward0",
                "sqrt": "SqrtBackward0", "rsqrt": "RsqrtBackward0", "sin": "SinBackward0", "acos": "AcosBackward0",
                "tanh": "TanhBackward0", "sigmoid": "SigmoidBackward0", "atanh": "AtanhBackward0",
                "floor": "FloorBackward0", "trunc": "TruncBackward0", "frac": "FracBackward0",
                "sign": "SignBackward0", "sgn": "SgnBackward0", "erf": "ErfBackward0", "erfinv": "ErfinvBackward0",
                "reciprocal": "ReciprocalBackward0", "logit": "LogitBackward0", "nan_to_num": "NanToNumBackward0",
                "relu": "ReluBackward0"}
    for name, node in expected.items():
        assert getattr(em, name)(x).grad_fn.name() == node
    assert em.maximum(x, x).grad_fn.name() == "MaximumBackward0"
    assert em.fmin(x, x).grad_fn.name() == "FminBackward0"
    assert em.atan2(x, x).grad_fn.name() == "Atan2Backward0"
    assert em.xlogy(x, x).grad_fn.name() == "XlogyBackward0"


def test_no_graph_without_grad_mode():
    x = f64([0.3], requires_grad=True)
    with em.no_grad():
        assert em.exp(x).grad_fn is None and not em.exp(x).requires_grad
        assert em.clamp(x, 0, 1).grad_fn is None


# ----------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("name", ["exp", "log", "sin", "sigmoid", "erf", "floor", "round", "sign", "relu",
                                  "nan_to_num", "frac", "sgn", "logit", "square"])
def test_wrong_input_type_names_the_argument(name):
    with pytest.raises(TypeError, match=rf"^{name}\(\): argument 'input' must be Tensor, not str$"):
        getattr(em, name)("a")


def test_binary_type_errors():
    x = em.tensor([1.0])
    with pytest.raises(TypeError, match=r"maximum\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        em.maximum(x, 2.0)
    with pytest.raises(TypeError, match=r"atan2\(\): argument 'other' must be Tensor, not list"):
        em.atan2(x, [1.0])
    with pytest.raises(RuntimeError, match="maximum not implemented for complex tensors"):
        em.maximum(em.tensor([1j]), em.tensor([1j]))
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)"):
        em.maximum(em.ones(3), em.ones(2))
    with pytest.raises(RuntimeError, match="\"frac_cpu\" not implemented for 'Long'"):
        em.frac(em.tensor([1]))
    with pytest.raises(RuntimeError, match="floor is not supported for complex inputs"):
        em.floor(em.tensor([1j]))


def test_exponentials_overflow_silently_as_pytorch_and_leave_numpys_error_state_alone():
    """PyTorch returns inf without a warning, so a suite run with warnings as errors passes on both; NumPy's own
    error state is untouched outside ember's call."""
    x = em.tensor([-1000.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert em.exp(x).tolist() == [0.0, math.inf] and em.exp2(x).tolist() == [0.0, math.inf]
        assert em.expm1(x).tolist() == [-1.0, math.inf]
        assert em.sinh(x).tolist() == [-math.inf, math.inf] and em.cosh(x).tolist() == [math.inf, math.inf]
        with pytest.raises(RuntimeWarning, match="overflow encountered in exp"):
            np.exp(np.array([1000.0]))
