"""The error function family, elementwise: ``erf``, ``erfc`` and ``erfinv``, with their array kernels.

NumPy has no erf, so the kernels are written here: W. J. Cody's rational approximations in float64 (about 1e-16
relative), a short rational approximation for float32/float16 inputs, and for ``erfinv`` a starting guess refined
by Halley steps. Long arrays are processed in cache-sized blocks. Complex input is rejected, as in PyTorch.
"""
from __future__ import annotations

import math as _math

import numpy as np

from ..autograd.graph import Node
from ._bounds import clamped
from ._elementwise import _SAVE_INPUT, _SAVE_OUTPUT, _unary

__all__ = ["erf", "erfc", "erfinv"]

_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)
_SQRT_PI_OVER_TWO = _math.sqrt(_math.pi) / 2.0


# ------------------------------------------------------------------------------------------------ erf family
# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969) 631-638: the
# published coefficients of the three rational approximations (erf on |x| <= 0.46875, erfc on (0.46875, 4] and
# erfc beyond 4), accurate to about 1e-16 relative in float64.
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
          1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERFC_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
           8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
           2.15311535474403846e-8)
_ERFC_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
           3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)
_ERFC_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
           6.58749161529837803e-4, 1.63153871373020978e-2)
_ERFC_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
           2.33520497626869185e-3)
_ERF_SMALL = 0.46875
_ONE_OVER_SQRT_PI = 5.6418958354775628695e-1


def _horner(x, coeffs, lead=None):
    """``((lead*x + c0)*x + c1)*x + ... + c_last`` evaluated in place (one buffer, so large inputs stay fast);
    ``lead=None`` means a leading coefficient of 1."""
    acc = x.copy() if lead is None else x * lead
    for c in coeffs[:-1]:
        acc += c
        acc *= x
    acc += coeffs[-1]
    return acc


def _erf_small(x):
    """erf(x) for |x| <= 0.46875."""
    z = x * x
    num = _horner(z, _ERF_A[:4], _ERF_A[4])
    num *= x
    num /= _horner(z, _ERF_B)
    return num


def _exp_neg_square(xp, y):
    """exp(-y*y) without the rounding error of squaring: split y at a multiple of 1/16 (Cody's trick)."""
    head = y * 16.0
    xp.trunc(head, out=head)
    head /= 16.0
    rest = y - head
    rest *= y + head
    xp.negative(rest, out=rest)
    xp.exp(rest, out=rest)
    head *= head
    xp.negative(head, out=head)
    xp.exp(head, out=head)
    head *= rest
    return head


def _erfc_positive(xp, y):
    """erfc(y) for y > 0.46875 (nan stays nan)."""
    mid = y <= 4.0
    if mid.all():
        return _erfc_mid(xp, y)
    if not mid.any():
        return _erfc_tail(xp, y)
    out = xp.empty_like(y)
    out[mid] = _erfc_mid(xp, y[mid])
    tail = ~mid
    out[tail] = _erfc_tail(xp, y[tail])
    return out


def _erfc_mid(xp, y):
    """erfc(y) for 0.46875 < y <= 4."""
    num = _horner(y, _ERFC_C[:8], _ERFC_C[8])
    num /= _horner(y, _ERFC_D)
    num *= _exp_neg_square(xp, y)
    return num


def _erfc_tail(xp, y):
    """erfc(y) for y > 4 (and nan)."""
    z = 1.0 / (y * y)
    r = _horner(z, _ERFC_P[:5], _ERFC_P[5])
    r *= z
    r /= _horner(z, _ERFC_Q)
    xp.subtract(_ONE_OVER_SQRT_PI, r, out=r)
    r /= y
    r *= _exp_neg_square(xp, y)
    # beyond 40 erfc underflows to 0 anyway (and for huge y the split exponent would meet inf * 0)
    r[y > 40.0] = 0.0
    return r


def _split_small(xp, x, small_fn, big_fn):
    """Apply ``small_fn`` where |x| <= 0.46875 and ``big_fn`` elsewhere, without gathering when one side is empty."""
    small = xp.abs(x) <= _ERF_SMALL
    if small.all():
        return small_fn(x)
    if not small.any():
        return big_fn(x)
    out = xp.empty_like(x)
    out[small] = small_fn(x[small])
    big = ~small
    out[big] = big_fn(x[big])
    return out


def _erf_big(xp, x):
    one_minus = _erfc_positive(xp, xp.abs(x))
    xp.subtract(0.5, one_minus, out=one_minus)
    one_minus += 0.5
    return xp.copysign(one_minus, x, out=one_minus)


def _erfc_big(xp, x):
    ec = _erfc_positive(xp, xp.abs(x))
    neg = x < 0
    ec[neg] = 2.0 - ec[neg]
    return ec


def _erf_small_or_big(xp, v):
    return _split_small(xp, v, _erf_small, lambda u: _erf_big(xp, u))


def _erf64(xp, x):
    return _erf_small_or_big(xp, x)


def _erfc64(xp, x):
    return _split_small(xp, x, lambda v: 1.0 - _erf_small(v), lambda v: _erfc_big(xp, v))


_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941)
_AS_NUM = (0.010328, 0.802853, 2.515517)      # Abramowitz & Stegun 26.2.23, highest power first
_AS_DEN = (0.001308, 0.189269, 1.432788, 1.0)


def _halley(xp, y, residual, steps):
    """Halley steps for erf(y) = target, given ``residual(y) = erf(y) - target`` (derivative 2/sqrt(pi)
    exp(-y^2), second derivative -2y times that): the error is cubed at each step."""
    for _ in range(steps):  # a fixed number of whole-array steps
        step = residual(y)
        step /= _exp_neg_square(xp, y) * _TWO_OVER_SQRT_PI
        y = y - step / (1.0 + y * step)
    return y


def _erfinv_central(xp, ax):
    """erfinv for 0 <= ax <= 0.5: M. Giles' central approximation ("Approximating the erfinv function", 2010),
    good to ~1e-7, refined on erf."""
    w = -xp.log((1.0 - ax) * (1.0 + ax))
    w -= 2.5
    y = _horner(w, _GILES_CENTRAL[1:], _GILES_CENTRAL[0])
    y *= ax
    return _halley(xp, y, lambda v: _erf_small_or_big(xp, v) - ax, 1)  # (1e-7)^3 is far below float64 eps


def _erfinv_outer(xp, ax):
    """erfinv for 0.5 < ax < 1, refined on erfc(y) = 1 - ax (exact there, so accuracy holds up to ax -> 1). The
    start is the normal-quantile approximation of Abramowitz & Stegun 26.2.23 (|error| < 4.5e-4 in y*sqrt(2))."""
    q = 1.0 - ax
    t = xp.sqrt(-2.0 * xp.log(q * 0.5))  # q / 2 is the upper-tail probability of the normal quantile y*sqrt(2)
    z = t - _horner(t, _AS_NUM[1:], _AS_NUM[0]) / _horner(t, _AS_DEN[1:], _AS_DEN[0])
    y = z * 0.7071067811865476
    return _halley(xp, y, lambda v: q - _erfc_positive(xp, v), 2)


def _erfinv64(xp, x):
    """erfinv in float64: a starting point, then Halley steps; ±inf at ±1 and nan outside [-1, 1]."""
    ax = xp.abs(x)
    central = ax <= 0.5
    y = xp.empty_like(x)
    y[central] = _erfinv_central(xp, ax[central])
    outer = ~central
    y[outer] = _erfinv_outer(xp, ax[outer])
    y[ax == 1.0] = np.inf
    y[ax > 1.0] = np.nan
    return xp.copysign(y, x, out=y)


_BLOCK = 65536


def _blockwise(xp, fn, a, out_dtype):
    """``fn`` (an elementwise kernel of many passes) over ``a`` in blocks of 64K elements, so the passes work in
    cache; measured about 3x faster than whole-array passes on 1M elements."""
    flat = a.reshape(-1)
    if flat.size <= _BLOCK:
        return fn(xp, flat).reshape(a.shape)
    out = xp.empty(flat.shape, dtype=out_dtype)
    for start in range(0, flat.size, _BLOCK):  # a few dozen blocks, not a loop over elements
        out[start:start + _BLOCK] = fn(xp, flat[start:start + _BLOCK])
    return out.reshape(a.shape)


def _special(fn64):
    """Run a float64 kernel blockwise and return the input's float dtype (float16/32 inputs computed in float64)."""
    def run(xp, flat):
        return fn64(xp, flat.astype(np.float64, copy=False))

    def kernel(xp, a):
        return _blockwise(xp, run, a, np.float64).astype(a.dtype, copy=False)
    return kernel


class ErfBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * (-(x * x)).exp() * _TWO_OVER_SQRT_PI,)


class ErfcBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * (-(x * x)).exp() * -_TWO_OVER_SQRT_PI,)


class ErfinvBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * (out * out).exp() * _SQRT_PI_OVER_TWO,)


# float32 erf: the rational approximation x * P(x^2) / Q(x^2) on [-4, 4] used by Eigen and XLA (beyond 4, erf is
# ±1 in float32). About 15 array operations instead of Cody's ~90, within 5.2e-7 relative of the exact value (a few
# float32 ulps), so float32 and float16 inputs (GELU's hot path) take it; float64 keeps Cody's 1e-16.
_ERF32_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
            -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02)
_ERF32_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
            -1.42647390514189e-02)


def _erf32(xp, a):
    """erf of a float32/float16 array, in float32."""
    x = clamped(a.astype(np.float32, copy=False), np.float32(-4.0), np.float32(4.0))
    z = x * x
    num = _horner(z, _ERF32_P[1:], np.float32(_ERF32_P[0]))
    num *= x
    num /= _horner(z, _ERF32_Q[1:], np.float32(_ERF32_Q[0]))
    return num


_erf64_kernel = _special(_erf64)


def _erf_kernel(xp, a):
    if a.dtype == np.float64:
        return _erf64_kernel(xp, a)
    return _blockwise(xp, _erf32, a, np.float32).astype(a.dtype, copy=False)


erf = _unary("erf", _erf_kernel, ErfBackward0, _SAVE_INPUT,
             "The Gauss error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, elementwise.", quiet=True,
             real_only=True)
erfc = _unary("erfc", _special(_erfc64), ErfcBackward0, _SAVE_INPUT,
              "The complementary error function ``1 - erf(input)``, accurate where erf is close to 1.", quiet=True,
              real_only=True)
erfinv = _unary("erfinv", _special(_erfinv64), ErfinvBackward0, _SAVE_OUTPUT,
                "The inverse error function on (-1, 1): ±inf at ±1 and nan outside.", quiet=True, real_only=True)
