"""``ember.special``: special functions with PyTorch's ``torch.special`` API, elementwise and differentiable.

Where ember already has the op (``erf``, ``sigmoid``, ``lgamma``, ``i0``, ...), the name here is that very function
(``special.expit is ember.sigmoid``, ``special.gammaln is ember.lgamma``), so there is one kernel per function. New
here: ``ndtr``, ``ndtri``, ``log_ndtr``, ``erfcx``, ``entr``, ``xlog1py`` and the Bessel functions ``bessel_j0``,
``bessel_j1``, ``spherical_bessel_j0``, ``scaled_modified_bessel_k0``/``k1`` (which, as in PyTorch, record no
gradient); ``zeta``, ``i0e``, ``i1`` and ``i1e`` come from :mod:`ember.core.ops.gamma`, which holds the gamma and
modified Bessel I kernels.

Dtypes as in PyTorch: integer inputs compute in the default float dtype, float32 stays float32 (computed in float64
and rounded), and ``ndtri``, ``log_ndtr``, ``erfcx`` and ``zeta`` reject float16 as PyTorch's CPU kernels do. All but
``softmax`` and ``log_softmax`` take ``out=``.
"""
from __future__ import annotations

import math as _math
from fractions import Fraction

import numpy as np

from .autograd.graph import Node
from .ops import (digamma, erf, erfc, erfinv, exp2, expm1, i0, lgamma, log1p, log_softmax, logit, logsumexp,
                  mvlgamma, polygamma, sigmoid, sinc, softmax, where, xlogy)
from .ops import round as _round
from .ops._base import Tensor, sum_to, wrap
from .ops._elementwise import _SAVE_INPUT, _SAVE_OUTPUT, _floating_data, _type_error
from .ops._out import add_out_argument
from .ops.exp_log import x_times_log
from .ops.gamma import (_I0_SERIES, _I1_SERIES, _SAVE_BOTH, _fill, _poly, i0e, i1, i1e, real_unary, unsupported,
                        zeta)
from .ops.special import (_AS_DEN, _AS_NUM, _ERF_SMALL, _ERFC_C, _ERFC_D, _ERFC_P, _ERFC_Q, _ONE_OVER_SQRT_PI,
                          _erf_small, _erfc64, _erfinv64, _horner, _special)

__all__ = ["expit", "logit", "erf", "erfc", "erfcx", "erfinv", "expm1", "exp2", "log1p", "sinc", "round", "softmax",
           "log_softmax", "logsumexp", "xlogy", "xlog1py", "entr", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1",
           "i1e", "gammaln", "digamma", "psi", "polygamma", "multigammaln", "zeta", "bessel_j0", "bessel_j1",
           "spherical_bessel_j0", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]

# PyTorch's documented aliases: the same function objects as the top-level ops
expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

_SQRT1_2 = _math.sqrt(0.5)
_SQRT2 = _math.sqrt(2.0)
_SQRT_2PI = _math.sqrt(2.0 * _math.pi)
_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)
_HALF_SQRT_PI = 0.5 * _math.sqrt(_math.pi)


def round(input, *, decimals=0):
    """Round to the nearest integer, halves to even, or to ``decimals`` decimal places (see :func:`ember.round`).

    Unlike ``ember.round``, integer and bool tensors are rejected, as ``torch.special.round`` does.
    """
    if isinstance(input, Tensor) and input._data.dtype.kind in "biu":
        raise unsupported("round_vml_cpu", input._data)
    return _round(input, decimals=decimals)


# ------------------------------------------------------------------------------------------- normal distribution
def ndtr(input):
    """The standard normal cumulative distribution function, ``(1 + erf(input / sqrt(2))) / 2``, elementwise.

    Computed by that formula, as PyTorch does, so it is 0 below about -8.3 and loses relative accuracy further
    into the left tail; :func:`log_ndtr` stays accurate there.
    """
    if not isinstance(input, Tensor):
        raise _type_error("ndtr", "input", input)
    return (1 + erf(input * _SQRT1_2)) * 0.5


def _exp_square(xp, v):
    """exp(v*v) without the rounding error of squaring (Cody's split of v at a multiple of 1/16); inf once it
    overflows, including at ±inf (where the split would give inf - inf)."""
    v = xp.clip(v, -27.0, 27.0)  # exp(27^2) already overflows
    head = xp.trunc(v * 16.0) / 16.0
    return xp.exp(head * head) * xp.exp((v - head) * (v + head))


def _erfcx_positive(xp, y):
    """exp(y^2) erfc(y) for y > 0.46875 (and nan): Cody's rational approximations of erfc without their factor
    exp(-y^2), so nothing underflows however large y is."""
    out = xp.empty_like(y)
    mid = y <= 4.0

    def near(v):
        return _horner(v, _ERFC_C[:8], _ERFC_C[8]) / _horner(v, _ERFC_D)

    def far(v):
        z = 1.0 / (v * v)
        r = _horner(z, _ERFC_P[:5], _ERFC_P[5]) * z / _horner(z, _ERFC_Q)
        return (_ONE_OVER_SQRT_PI - r) / v

    _fill(out, mid, near, y)
    _fill(out, ~mid, far, y)
    return out


def _erfcx64(xp, x):
    """erfcx in float64: Cody's forms for |x| > 0.46875, ``erfcx(x) = 2 exp(x^2) - erfcx(-x)`` for negative x."""
    out = xp.empty_like(x)
    small = xp.abs(x) <= _ERF_SMALL
    _fill(out, small, lambda v: xp.exp(v * v) * (1.0 - _erf_small(v)), x)
    _fill(out, ~small & ~(x < 0), lambda v: _erfcx_positive(xp, v), x)  # includes nan
    _fill(out, x < -_ERF_SMALL, lambda v: 2.0 * _exp_square(xp, v) - _erfcx_positive(xp, -v), x)
    return out


def _log_ndtr64(xp, x):
    """log(ndtr(x)): through erfcx in the left tail (log(erfcx(t)/2) - t^2, t = -x/sqrt(2), finite down to
    -1e154), else log1p(-erfc(x/sqrt(2))/2), which keeps the tiny values on the right."""
    t = x * _SQRT1_2
    out = xp.empty_like(x)
    left = x < -1.0
    _fill(out, left, lambda u: xp.log(_erfcx64(xp, -u) * 0.5) - u * u, t)
    _fill(out, ~left, lambda u: xp.log1p(_erfc64(xp, u) * -0.5), t)
    return out


def _erfcinv_small(xp, q):
    """The y > 0 with erfc(y) = q, for 0 < q <= 1/2: Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4) as the start,
    then Newton steps on log(erfc(y)) = log(erfcx(y)) - y^2, which stay accurate down to subnormal q."""
    t = xp.sqrt(-2.0 * xp.log(q * 0.5))
    y = (t - _horner(t, _AS_NUM[1:], _AS_NUM[0]) / _horner(t, _AS_DEN[1:], _AS_DEN[0])) * _SQRT1_2
    log_q = xp.log(q)
    for _ in range(3):  # quadratic convergence: 4.5e-4 -> ~1e-7 -> ~1e-14 -> below rounding
        ex = _erfcx64(xp, y)
        # d/dy log(erfc(y)) = -2 / (sqrt(pi) erfcx(y))
        y = y + (xp.log(ex) - y * y - log_q) * _HALF_SQRT_PI * ex
    return y


def _ndtri64(xp, p):
    """The standard normal quantile: sqrt(2) erfinv(2p - 1) in the middle (2p - 1 is exact there), the inverse of
    erfc on 2p or 2(1 - p) in the tails; ±inf at 1 and 0, nan outside [0, 1]."""
    out = xp.full_like(p, _math.nan)
    central = xp.abs(p - 0.5) <= 0.25
    _fill(out, central, lambda v: _erfinv64(xp, 2.0 * v - 1.0) * _SQRT2, p)
    _fill(out, (p > 0) & (p < 0.25), lambda v: _erfcinv_small(xp, 2.0 * v) * -_SQRT2, p)
    _fill(out, (p > 0.75) & (p < 1), lambda v: _erfcinv_small(xp, 2.0 * (1.0 - v)) * _SQRT2, p)
    out[p == 0] = -_math.inf
    out[p == 1] = _math.inf
    return out


class SpecialErfcxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * (2 * x * self.saved_output() - _TWO_OVER_SQRT_PI),)


class SpecialLogNdtrBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        # the normal density over ndtr, as one exp so it stays finite in the far left tail (about -x there)
        return (grad * (x * x * -0.5 - self.saved_output()).exp() * (1 / _SQRT_2PI),)


class SpecialNdtriBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * (out * out * 0.5).exp() * _SQRT_2PI,)


erfcx = real_unary("erfcx", "erfcx_cpu", _special(_erfcx64), SpecialErfcxBackward0, _SAVE_BOTH,
                   "The scaled complementary error function ``exp(input**2) * erfc(input)``, elementwise: accurate "
                   "for large ``input`` (about ``1 / (input * sqrt(pi))``), inf below about -26.6.", half=False)
log_ndtr = real_unary("log_ndtr", "log_ndtr_cpu", _special(_log_ndtr64), SpecialLogNdtrBackward0, _SAVE_BOTH,
                      "The logarithm of the standard normal CDF, elementwise, accurate in both tails "
                      "(``log_ndtr(-40)`` is about -804.6).", half=False)
ndtri = real_unary("ndtri", "ndtri_cpu", _special(_ndtri64), SpecialNdtriBackward0, _SAVE_OUTPUT,
                   "The inverse of :func:`ndtr`, the standard normal quantile function, elementwise: -inf at 0, inf "
                   "at 1, nan outside [0, 1].", half=False)


# --------------------------------------------------------------------------------------------- entropy, xlog1py
class SpecialEntrBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * -(x.log() + 1),)


def _entr_kernel(xp, a):
    with np.errstate(all="ignore"):
        val = -a * xp.log(a)
    # 0 * log(0) is 0 by continuity; negative input is outside the domain (-inf, as PyTorch); nan stays nan
    return xp.where(a > 0, val, xp.where(a == 0, 0.0, xp.where(a < 0, -_math.inf, a)))


entr = real_unary("entr", "entr_cpu", _entr_kernel, SpecialEntrBackward0, _SAVE_INPUT,
                  "The elementwise entropy term ``-input * log(input)``: 0 at 0 and -inf for negative input.")


class SpecialXlog1PyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        x, y = self.saved_tensors
        gx = gy = None
        if self.next_functions[0] is not None:
            # at x == 0, y <= -1 the value is 0 by definition but log1p(y) is not finite; PyTorch returns 0 there
            gx = sum_to(where((x == 0) & (y <= -1), 0, xlog1py(grad, y)), self.shape_x)
        if self.next_functions[1] is not None:
            gy = sum_to(grad * x / (y + 1), self.shape_y)
        return gx, gy


def xlog1py(input, other):
    """Elementwise ``input * log1p(other)``, defined as 0 where ``input == 0`` (unless ``other`` is NaN).

    One of the two may be a Python number.
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"xlog1py() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected one of (Tensor input, Tensor other), (Number self, "
                        "Tensor other), (Tensor input, Number other)")
    return x_times_log(input, other, "xlog1py", lambda xp, b: xp.log1p(b), SpecialXlog1PyBackward0)


# --------------------------------------------------------------------------------------- Bessel functions J0, J1
# PyTorch's bessel_j0, bessel_j1 and spherical_bessel_j0 are not differentiable (their results never require grad).
# Kernels: the power series below |x| = 1; Miller's backward recurrence J_{k-1} = (2k/x) J_k - J_{k+1} from k = 70,
# normalised by J0 + 2 (J2 + J4 + ...) = 1, up to 25 (stable, and J_70 is negligible there); beyond, Hankel's
# expansion J_nu = sqrt(2/(pi x)) (P cos(x - phase) - Q sin(x - phase)) whose truncation error at 25 is below 1e-17.
# The phase is subtracted from x in float64 as PyTorch does, so for huge x the two agree on cos(x) of the rounded sum.
_MILLER_START = 70
_J_SPLIT = 25.0


def _hankel_pq(nu, terms=32):
    """The coefficients of Hankel's P (even k) and Q (odd k) series: (-1)^floor(k/2) a_k(nu), a_k(nu) =
    prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k)."""
    a, coeffs = Fraction(1), []
    for k in range(terms):
        coeffs.append(float(a) * (-1) ** (k // 2))
        a *= Fraction(4 * nu * nu - (2 * k + 1) ** 2, 8 * (k + 1))
    return tuple(coeffs[0::2]), tuple(coeffs[1::2])


_J0_PQ, _J1_PQ = _hankel_pq(0), _hankel_pq(1)
_J_SERIES = {nu: tuple((-1) ** k / (_math.factorial(k) * _math.factorial(k + nu)) for k in range(12)) for nu in (0, 1)}
_TWO_OVER_PI = 2.0 / _math.pi


def _j_series(xp, v, nu):
    u = v * v * 0.25
    val = _horner(u, tuple(reversed(_J_SERIES[nu][:-1])), _J_SERIES[nu][-1])
    return val if nu == 0 else val * (v * 0.5)


def _j_miller(xp, v):
    """(J0(v), J1(v)) for 1 <= v <= 25 by Miller's algorithm."""
    two_over_v = 2.0 / v
    upper = xp.zeros_like(v)  # f_{k+1}
    f = xp.full_like(v, 1e-280)  # f_k, an arbitrary small start far above the wanted orders
    norm = xp.zeros_like(v)  # 2 (f_2 + f_4 + ...)
    for k in range(_MILLER_START - 1, 0, -1):
        upper, f = f, k * two_over_v * f - upper  # f becomes f_{k-1}, from f_k and f_{k+1}
        if k % 2 == 1:  # f is now f_{k-1} with k - 1 even
            norm += 2.0 * f
    # f is f_0 and upper is f_1; f_0 was added to norm twice (once as an even order), take one back
    norm -= f
    return f / norm, upper / norm


def _j_hankel(xp, v, nu):
    w = 1.0 / (v * v)
    p_coeffs, q_coeffs = _J0_PQ if nu == 0 else _J1_PQ
    p = _horner(w, tuple(reversed(p_coeffs[:-1])), p_coeffs[-1])
    q = _horner(w, tuple(reversed(q_coeffs[:-1])), q_coeffs[-1]) / v
    phase = v - (0.25 * _math.pi if nu == 0 else 0.75 * _math.pi)
    return xp.sqrt(_TWO_OVER_PI / v) * (p * xp.cos(phase) - q * xp.sin(phase))


def _bessel_j64(xp, x, nu):
    """J0 or J1 of a float64 array (J1 is odd, J0 even; nan at ±inf, as PyTorch)."""
    ax = xp.abs(x)
    out = xp.empty_like(x)
    _fill(out, ax < 1.0, lambda v: _j_series(xp, v, nu), ax)
    mid = (ax >= 1.0) & (ax <= _J_SPLIT)
    _fill(out, mid, lambda v: _j_miller(xp, v)[nu], ax)
    _fill(out, ~(ax <= _J_SPLIT), lambda v: _j_hankel(xp, v, nu), ax)  # includes ±inf and nan
    return out if nu == 0 else xp.copysign(1.0, x) * out


def _spherical_j0(xp, x):
    """sin(x)/x: 1 - x^2/6 + x^4/120 below |x| = 1e-4, 0 at ±inf (PyTorch's values)."""
    with np.errstate(all="ignore"):
        val = xp.sin(x) / x
    small = xp.abs(x) < 1e-4
    x2 = x * x
    val = xp.where(small, 1.0 - x2 / 6.0 + x2 * x2 / 120.0, val)
    return xp.where(xp.isinf(x), 0.0, val)


# Modified Bessel functions of the second kind, scaled by exp(x) (x > 0; nan below 0, inf at 0, as PyTorch):
# * x < 1: the series K0 = -(log(x/2) + gamma) I0 + sum_k H_k u^k / k!^2 and
#   K1 = 1/x + log(x/2) I1 - x/4 sum_k (psi(k+1) + psi(k+2)) u^k / (k! (k+1)!), u = x^2/4 (twelve terms);
# * x >= 1: K_nu(x) = int_0^inf exp(-x cosh t) cosh(nu t) dt with s = sqrt(2x) sinh(t/2), so that
#   e^x K0(x) = sqrt(2/x) int_0^inf exp(-s^2) / sqrt(1 + s^2/(2x)) ds (and K1 has the extra factor 1 + s^2/x):
#   a Gaussian integrand for every x, whose trapezoidal sum with step 0.2 is exact to rounding (its error falls like
#   exp(-2 pi d / h), d = sqrt(2x) the distance of the nearest singularity).
_K_STEP = 0.2
_K_NODES = tuple(_K_STEP * i for i in range(34))  # exp(-6.6^2) is below 1e-18
_EULER = 0.57721566490153286061
_HARMONIC = tuple(float(sum(Fraction(1, j) for j in range(1, k + 1))) for k in range(12))
_K0_SERIES = tuple(_HARMONIC[k] / _math.factorial(k) ** 2 for k in range(12))
# psi(k+1) + psi(k+2) = 2 H_k + 1/(k+1) - 2 gamma
_K1_SERIES = tuple((2 * _HARMONIC[k] + 1.0 / (k + 1) - 2 * _EULER) / (_math.factorial(k) * _math.factorial(k + 1))
                   for k in range(12))


def _k_small(xp, v, nu):
    """K0 or K1 (unscaled) for 0 < v < 1 by the series."""
    u = v * v * 0.25
    log_half = xp.log(v * 0.5)
    if nu == 0:
        return -(log_half + _EULER) * _poly(xp, u, _I0_SERIES[:12]) + _poly(xp, u, _K0_SERIES)
    i1_ = _poly(xp, u, _I1_SERIES[:12]) * (v * 0.5)
    return 1.0 / v + log_half * i1_ - v * 0.25 * _poly(xp, u, _K1_SERIES)


def _k_scaled_large(xp, v, nu):
    """exp(v) K_nu(v) for v >= 1 (and inf, nan) by the trapezoidal rule in s."""
    inv_2v = 0.5 / v
    total = xp.zeros_like(v)
    for i, s in enumerate(_K_NODES):
        g = (s * s) * inv_2v
        w = _K_STEP * (0.5 if i == 0 else 1.0) * _math.exp(-s * s)
        term = w / xp.sqrt(1.0 + g)
        total += term * (1.0 + 2.0 * g) if nu == 1 else term
    return total * xp.sqrt(2.0 / v)


def _k_scaled64(xp, x, nu):
    out = xp.full_like(x, _math.nan)
    out[x == 0] = _math.inf
    _fill(out, (x > 0) & (x < 1.0), lambda v: _k_small(xp, v, nu) * xp.exp(v), x)
    _fill(out, ~(x < 1.0) & ~(x != x), lambda v: _k_scaled_large(xp, v, nu), x)
    return out


def _not_differentiable(name, kernel, doc):
    """A real elementwise function whose result never requires grad (as PyTorch's Bessel J family)."""
    def op(input):
        data = _floating_data(input, name)
        if data.dtype.kind == "c" or data.dtype == np.float16:
            raise unsupported(f"{name}_cpu", data)
        with np.errstate(all="ignore"):
            return wrap(_special(kernel)(input._xp, data))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


bessel_j0 = _not_differentiable("bessel_j0", lambda xp, v: _bessel_j64(xp, v, 0),
                                "The Bessel function of the first kind of order 0, elementwise (not differentiable, "
                                "as in PyTorch).")
bessel_j1 = _not_differentiable("bessel_j1", lambda xp, v: _bessel_j64(xp, v, 1),
                                "The Bessel function of the first kind of order 1, elementwise (not differentiable, "
                                "as in PyTorch).")
spherical_bessel_j0 = _not_differentiable("spherical_bessel_j0", _spherical_j0,
                                          "The spherical Bessel function of the first kind of order 0, "
                                          "``sin(x) / x``, elementwise (1 at 0, 0 at ±inf; not differentiable, as "
                                          "in PyTorch).")

scaled_modified_bessel_k0 = _not_differentiable(
    "scaled_modified_bessel_k0", lambda xp, v: _k_scaled64(xp, v, 0),
    "``exp(x) * K0(x)``, the scaled modified Bessel function of the second kind of order 0, elementwise (inf at 0, "
    "nan for negative input; not differentiable, as in PyTorch).")
scaled_modified_bessel_k1 = _not_differentiable(
    "scaled_modified_bessel_k1", lambda xp, v: _k_scaled64(xp, v, 1),
    "``exp(x) * K1(x)``, the scaled modified Bessel function of the second kind of order 1, elementwise (inf at 0, "
    "nan for negative input; not differentiable, as in PyTorch).")


# PyTorch's torch.special functions take ``out=`` (softmax and log_softmax do not); the shared ops already have it.
add_out_argument(globals(), [n for n in __all__ if n not in ("softmax", "log_softmax")])
