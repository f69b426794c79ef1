"""The gamma family and the modified Bessel functions of the first kind, elementwise, with their array kernels.

Top-level ops (functions and Tensor methods, as in PyTorch): ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``
and ``i0``. ``ember.special`` also takes ``zeta`` (Hurwitz), ``i0e``, ``i1`` and ``i1e`` from here.

Every kernel computes in float64 (float16/float32 inputs are cast back) from textbook formulas:

* ``lgamma``: a Taylor series of ``lgamma(2 + z)`` on ``|z| <= 1/2`` (coefficients ``(-1)^k (zeta(k) - 1) / k``, so
  the zeros at 1 and 2 keep full relative accuracy), the recurrence down to it below 10, Stirling's series from 10,
  and the reflection formula for ``x <= -1/2``;
* ``digamma``: the derivative of that series on ``|z| <= 1/2`` and recurrences to it below 10, the asymptotic
  series from 10, and reflection for negative ``x``;
* ``zeta(s, q)``: nine terms of the sum, then Euler-Maclaurin with twelve Bernoulli terms (stopping early, as Cephes
  does, once a term no longer changes the sum); negative non-integer ``q`` is mapped to positive arguments;
* ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` for ``n >= 1``;
* ``i0``/``i1`` (and their ``exp(-|x|)``-scaled forms): the power series up to ``|x| = 20`` and Hankel's asymptotic
  series beyond, whose truncation error there is below 1e-16.

Where PyTorch's values at poles and infinities are artefacts of its algorithms, they are reproduced and said so.
"""
from __future__ import annotations

import math as _math
import operator

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, broadcast_error, record, sum_to, tensor_method, wrap
from ._elementwise import _SAVE_INPUT, _SAVE_OUTPUT, _binary_floating, _floating_data
from .clamp_where import where
from .special import _horner, _special

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "i0"]

_PI = _math.pi
_PI_SQUARED = _PI * _PI
_EPS = 2.220446049250313e-16  # float64 machine epsilon
_NAN, _INF = _math.nan, _math.inf


# ------------------------------------------------------------------------------------------------------- plumbing
def unsupported(label, data):
    """PyTorch's error for a dtype its kernel ``label`` lacks, e.g. '"digamma" not implemented for 'ComplexFloat''
    (the label is PyTorch's own, which differs per op: "lgamma_vml_cpu", "digamma", "i0e_cpu", ...)."""
    return RuntimeError(f"\"{label}\" not implemented for '{dt.scalar_type_name(data.dtype)}'")


def real_unary(name, label, kernel, node_cls, saves, doc, *, method=False, half=True):
    """Build a real elementwise op ``name(input)`` from ``kernel(xp, array)`` and its backward node.

    Integers promote to the default float dtype; complex input (and float16, unless ``half``) raises PyTorch's error
    naming its kernel ``label``. ``method`` also binds it as a Tensor method. NumPy's warnings are silenced: poles
    and overflows give inf and nan quietly, as in PyTorch.
    """
    def op(input):
        data = _floating_data(input, name)
        if data.dtype.kind == "c" or (not half and data.dtype == np.float16):
            raise unsupported(label, data)
        with np.errstate(all="ignore"):
            out = wrap(kernel(input._xp, data))
        if GRAD_ENABLED[0] and input._requires_grad:
            node = node_cls()
            if saves == _SAVE_INPUT:
                node.save(input)
            elif saves == _SAVE_OUTPUT:
                node.save_output(out)
            else:
                node.save(input)
                node.save_output(out)
            record(node, out, input)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name)(op) if method else op


_SAVE_BOTH = 3


def _fill(out, mask, fn, x):
    """``out[mask] = fn(x[mask])``, skipping the gather when ``mask`` is empty."""
    if mask.any():
        out[mask] = fn(x[mask])


def _int_arg(value, fn, arg, pos):
    """``value`` as a Python int, with PyTorch's TypeError for anything else (bools and floats included)."""
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be int, not "
                        f"{type(value).__name__}") from None


def _poly(xp, z, coeffs):
    """``sum_k coeffs[k] * z**k`` (lowest power first) by Horner's rule."""
    return _horner(z, tuple(reversed(coeffs[:-1])), coeffs[-1])


def _bernoulli(n):
    """The Bernoulli numbers B_0..B_n as exact fractions, from ``sum_{k<=m} C(m+1, k) B_k = 0``."""
    from fractions import Fraction
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(_math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return b


def _series_tables():
    """The series coefficients below, derived: ``(_EM, _LG2, _STIRLING, _PSI, _PSI2)``. They are written out as
    literals because deriving them (exact Bernoulli numbers, zeta(k) - 1 from the Hurwitz kernel) took 16 ms at
    ``import ember``; a test checks that the literals are these values."""
    b = _bernoulli(26)
    em = tuple(float(b[2 * j] / _math.factorial(2 * j)) for j in range(1, 13))
    k = np.arange(2, 31, dtype=np.float64)
    lg2 = (0.0, 1.0 - _EULER) + tuple(float(c) for c in (-1.0) ** k * _hurwitz64(np, k, np.full(k.shape, 2.0)) / k)
    stirling = tuple(float(b[2 * j] / (2 * j * (2 * j - 1))) for j in range(1, 9))
    psi = tuple(float(b[2 * j] / (2 * j)) for j in range(1, 8))
    psi2 = tuple((j + 1) * lg2[j + 1] for j in range(len(lg2) - 1))
    return em, lg2, stirling, psi, psi2


# ---------------------------------------------------------------------------------------------- Hurwitz zeta
# Euler-Maclaurin: sum_{k>=1} (a+k)^-s = a^-s (a/(s-1) - 1/2 + sum_j B_2j/(2j)! (s)_(2j-1) / a^(2j-1)), used once
# the first nine terms of the series are summed directly (so a >= 9 and the twelve terms reach ~1e-18).
_EM = (
    0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05,
    -8.267195767195768e-07, 2.08767569878681e-08, -5.284190138687493e-10,
    1.3382536530684679e-11, -3.3896802963225827e-13, 8.586062056277845e-15,
    -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19,
)
_SHIFT = 9


def _hurwitz_positive(xp, s, q):
    """zeta(s, q) for finite q > 0 and s > 1 (or nan), 1-d float64 arrays of one shape."""
    total = q ** -s
    a = q
    done = xp.zeros(q.shape, dtype=bool)
    for _ in range(_SHIFT):
        a = a + 1.0
        b = a ** -s
        total = xp.where(done, total, total + b)
        # Cephes stops once a term no longer changes the sum; PyTorch's value for huge s (zeta(1e300, 1) = 1, not
        # the nan that the Bernoulli terms' overflow would give) depends on that, so it is kept
        done |= xp.abs(b) < _EPS * xp.abs(total)
    # The Bernoulli terms B_2j/(2j)! (s)_(2j-1) a^(-s-2j+1), built as Cephes builds them (the rising factorial and
    # the power of a kept apart, each term dropped once it no longer changes the sum), so that where s is huge the
    # results are PyTorch's: the factorial overflows against an underflowed power and gives nan, as in PyTorch.
    b = a ** -s
    # b * a (not a^(1-s)) as PyTorch: its zeta(2, 1e300) is 0, as here, since a^-s underflows
    total = xp.where(done, total, total + (b * a / (s - 1.0) - 0.5 * b))
    rising = xp.ones_like(s)
    k = 0.0
    for c in _EM:
        rising = rising * (s + k)
        b = b / a
        term = rising * b * c
        total = xp.where(done, total, total + term)
        done |= xp.abs(term) < _EPS * xp.abs(total)
        rising = rising * (s + (k + 1.0))
        b = b / a
        k += 2.0
    return total


def _hurwitz64(xp, s, q):
    """The Hurwitz zeta function zeta(s, q) = sum_k (q + k)^-s of two float64 arrays of one shape, with PyTorch's
    (Cephes') domain rules: inf at s == 1 and at integer q <= 0, nan for s < 1 and for q <= 0 with non-integer s."""
    shape = s.shape
    s = s.reshape(-1)
    q = q.reshape(-1)
    out = xp.full(s.shape, _NAN, dtype=np.float64)
    q_pole = (q <= 0) & (q == xp.floor(q))
    # Cephes tests s == 1, then s < 1, then the poles in q (so a nan s still gives inf there)
    out[(s == 1) | (~(s < 1) & q_pole)] = _INF
    live = (s > 1) & ~q_pole & ((q > 0) | (s == xp.floor(s)))
    # s = inf: the sum is 1 at q = 1, inf below; above 1, PyTorch's Euler-Maclaurin tail gives nan (inf * 0)
    s_inf = live & (s == _INF)
    out[s_inf & (q == 1)] = 1.0
    out[s_inf & (q < 1)] = _INF
    live &= (s != _INF) & (q != _INF)  # q = inf is nan for the same reason (PyTorch)
    pos = live & (q > 0)
    if pos.any():
        out[pos] = _hurwitz_positive(xp, s[pos], q[pos])
    neg = live & (q < 0)
    if neg.any():
        # integer s, q = r - m with r in (0, 1): the first m terms are (-1)^s sum_{j=1..m} (j - r)^-s, the
        # difference of two sums that start at 1 - r, so no term-by-term loop however negative q is:
        #   zeta(s, q) = (zeta(s, r) + (-1)^s zeta(s, 1 - r)) - (-1)^s zeta(s, m + 1 - r)
        # The bracket goes first: for odd s it cancels (exactly at r = 1/2) and the small last term keeps its digits.
        sn, qn = s[neg], q[neg]
        m = -xp.floor(qn)
        r = qn + m
        one_minus_r = -(qn + (m - 1.0))  # exact, where 1 - r would round away the digits of a tiny -q
        sign = xp.where(xp.fmod(sn, 2.0) == 0, 1.0, -1.0)
        pair = _hurwitz_positive(xp, sn, r) + sign * _hurwitz_positive(xp, sn, one_minus_r)
        rest = _hurwitz_positive(xp, sn, one_minus_r + m)
        # an infinite pair is the answer (PyTorch's sum stops there), whatever the far tail's huge-s nan
        out[neg] = xp.where(xp.isinf(pair), pair, pair - sign * rest)
    return out.reshape(shape)


# ------------------------------------------------------------------------------------------------------- lgamma
_EULER = 0.57721566490153286061
# lgamma(2 + z) = (1 - gamma) z + sum_{k>=2} (-1)^k (zeta(k) - 1) z^k / k; on |z| <= 1/2 the terms fall like 4^-k,
# so 30 reach float64 precision. zeta(k) - 1 = zeta(k, 2) comes from the kernel above.
_LG2 = (
    0.0, 0.42278433509846713, 0.3224670334241133,
    -0.06735230105319809, 0.020580808427784553, -0.007385551028673988,
    0.002890510330741523, -0.001192753911703261, 0.0005096695247430426,
    -0.0002231547584535793, 9.945751278180857e-05, -4.4926236738133156e-05,
    2.0507212775670694e-05, -9.439488275268395e-06, 4.3748667899074865e-06,
    -2.039215753801366e-06, 9.551412130407417e-07, -4.492469198764565e-07,
    2.1207184805554667e-07, -1.00432248239681e-07, 4.769810169363981e-08,
    -2.2711094608943164e-08, 1.0838659214896953e-08, -5.183475041970047e-09,
    2.4836745438024785e-09, -1.1921401405860912e-09, 5.731367241678861e-10,
    -2.7595228851242334e-10, 1.3304764374244491e-10, -6.422964563838102e-11,
    3.104424774732227e-11,
)
# Stirling: lgamma(x) = (x - 1/2)(log x - 1) - 1/2 + log(2 pi)/2 + sum_k B_2k / (2k (2k-1) x^(2k-1)); from x = 10
# eight terms leave an error below 2e-18
_STIRLING = (
    0.08333333333333333, -0.002777777777777778, 0.0007936507936507937,
    -0.0005952380952380953, 0.0008417508417508417, -0.0019175269175269176,
    0.00641025641025641, -0.029550653594771242,
)
_STIRLING_CONST = 0.5 * _math.log(2 * _PI) - 0.5
_LOG_PI = _math.log(_PI)


def _lgamma_2(xp, z):
    """lgamma(2 + z) for |z| <= 1/2, accurate relative to its size (it vanishes at z = 0)."""
    return _poly(xp, z, _LG2)


def _sinpi_abs(xp, x):
    """|sin(pi x)| with exact argument reduction (x - rint(x) is exact), accurate near the integers."""
    return xp.abs(xp.sin((x - xp.rint(x)) * _PI))


def _lgamma_recurrence(xp, v):
    """lgamma on (2.5, 10): step down to [1.5, 2.5) and add the log of the product of the steps."""
    n = xp.floor(v - 1.5)
    prod = xp.ones_like(v)
    for k in range(1, 9):
        prod *= xp.where(n >= k, v - k, 1.0)
    return _lgamma_2(xp, (v - n) - 2.0) + xp.log(prod)


def _stirling(xp, v):
    w = 1.0 / (v * v)
    series = _poly(xp, w, _STIRLING) / v
    # (v - 1/2)(log v - 1) rather than (v - 1/2) log v - v, which overflows first near the top of the range
    return (v - 0.5) * (xp.log(v) - 1.0) + (_STIRLING_CONST + series)


def _lgamma_from_half(xp, v):
    """lgamma for v >= 1/2 (and nan, inf)."""
    out = xp.empty_like(v)
    one = v < 1.5
    _fill(out, one, lambda u: _lgamma_2(xp, u - 1.0) - xp.log(u), v)  # lgamma(u) = lgamma(u + 1) - log u
    two = (v >= 1.5) & (v <= 2.5)
    _fill(out, two, lambda u: _lgamma_2(xp, u - 2.0), v)
    mid = (v > 2.5) & (v < 10.0)
    _fill(out, mid, lambda u: _lgamma_recurrence(xp, u), v)
    _fill(out, ~(v < 10.0), lambda u: _stirling(xp, u), v)  # includes inf and nan
    return out


def _lgamma64(xp, x):
    """log|Gamma(x)| in float64: inf at 0 and at the negative integers (as PyTorch), reflection below -1/2."""
    out = xp.empty_like(x)
    near0 = xp.abs(x) < 0.5
    # lgamma(x) = lgamma(x + 2) - log|x| - log(1 + x): z = x itself, no rounding of x + 2
    _fill(out, near0, lambda u: _lgamma_2(xp, u) - xp.log(xp.abs(u)) - xp.log1p(u), x)
    _fill(out, ~near0 & ~(x <= -0.5), lambda u: _lgamma_from_half(xp, u), x)
    neg = x <= -0.5
    if neg.any():
        u = x[neg]
        pole = u == xp.floor(u)  # the negative integers and -inf
        # log|Gamma(u)| = log(pi / |sin(pi u)|) - lgamma(1 - u)
        val = (_LOG_PI - xp.log(_sinpi_abs(xp, u))) - _lgamma_from_half(xp, 1.0 - u)
        out[neg] = xp.where(pole, _INF, val)
    return out


# ------------------------------------------------------------------------------------------------------ digamma
# psi(x) = log x - 1/(2x) - sum_k B_2k / (2k x^2k); from x = 10 seven terms leave an error below 5e-17.
_PSI = (
    0.08333333333333333, -0.008333333333333333, 0.003968253968253968,
    -0.004166666666666667, 0.007575757575757576, -0.021092796092796094,
    0.08333333333333333,
)
# Below 10: psi(2 + z), the derivative of the lgamma series above, on |z| <= 1/2 and recurrences to it, so the
# 1/x terms are added to an accurate value instead of summing nine of them into a large cancelling total.
_PSI2 = (
    0.42278433509846713, 0.6449340668482266, -0.20205690315959426,
    0.08232323371113821, -0.03692775514336994, 0.017343061984449137,
    -0.008349277381922827, 0.0040773561979443405, -0.002008392826082214,
    0.0009945751278180857, -0.0004941886041194647, 0.0002460865533080483,
    -0.00012271334757848915, 6.124813505870481e-05, -3.058823630702049e-05,
    1.5282259408651868e-05, -7.637197637899761e-06, 3.81729326499984e-06,
    -1.908212716553939e-06, 9.539620338727962e-07, -4.769329867878064e-07,
    2.3845050272773295e-07, -1.1921992596531106e-07, 5.960818905125948e-08,
    -2.980350351465228e-08, 1.490155482836504e-08, -7.45071178983543e-09,
    3.725334024788457e-09, -1.8626597235130496e-09, 9.313274324196682e-10,
)


def _digamma_recurrence(xp, v):
    """psi on (2.5, 10): psi(v) = psi(v - n) + sum_{k=1..n} 1/(v - k), with v - n in [1.5, 2.5)."""
    n = xp.floor(v - 1.5)
    acc = xp.zeros_like(v)
    for k in range(8, 0, -1):  # smallest terms first
        acc += xp.where(n >= k, 1.0 / (v - k), 0.0)
    return _poly(xp, (v - n) - 2.0, _PSI2) + acc


def _digamma_asymptotic(xp, v):
    w = 1.0 / (v * v)
    return xp.log(v) - 0.5 / v - w * _poly(xp, w, _PSI)


def _digamma_positive(xp, v):
    """psi for v > 0 (and inf, nan)."""
    out = xp.empty_like(v)
    _fill(out, v < 0.5, lambda u: _poly(xp, u, _PSI2) - 1.0 / u - 1.0 / (1.0 + u), v)
    _fill(out, (v >= 0.5) & (v < 1.5), lambda u: _poly(xp, u - 1.0, _PSI2) - 1.0 / u, v)
    _fill(out, (v >= 1.5) & (v <= 2.5), lambda u: _poly(xp, u - 2.0, _PSI2), v)
    _fill(out, (v > 2.5) & (v < 10.0), lambda u: _digamma_recurrence(xp, u), v)
    _fill(out, ~(v < 10.0), lambda u: _digamma_asymptotic(xp, u), v)
    return out


def _digamma64(xp, x):
    """psi(x) in float64 with PyTorch's values: -inf at +0, +inf at -0, nan at the negative integers and -inf."""
    out = xp.full_like(x, _NAN)
    zero = x == 0
    out[zero] = xp.copysign(_INF, -x[zero])
    _fill(out, x > 0, lambda u: _digamma_positive(xp, u), x)
    neg = (x < 0) & (x != xp.floor(x))
    # reflection: psi(x) = psi(1 - x) - pi cot(pi x)
    _fill(out, neg, lambda u: _digamma_positive(xp, 1.0 - u) - _PI / xp.tan((u - xp.rint(u)) * _PI), x)
    return out


# ---------------------------------------------------------------------------------------------------- polygamma
def _factorial(n):
    try:
        return float(_math.factorial(n))
    except OverflowError:  # n > 170: PyTorch's exp(lgamma(n + 1)) is inf too
        return _INF


def _polygamma64(xp, n, x):
    """psi^(n)(x) in float64: digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return _digamma64(xp, x)
    out = _hurwitz64(xp, xp.full_like(x, float(n + 1)), x) * ((-1.0) ** (n + 1) * _factorial(n))
    if n == 1:
        # PyTorch's trigamma has its own kernel (see _trigamma_poles); it is 1/x + 1/(2x^2) for huge x, where the
        # zeta kernel's a^-s underflows (PyTorch: 1e-300 at 1e300), and 0 at inf
        far = x > 1e8
        if far.any():
            u = x[far]
            out[far] = (1.0 + (0.5 + 1.0 / (6.0 * u)) / u) / u
        out[x == _INF] = 0.0
    return out


def _trigamma_poles(xp, x, out):
    """PyTorch's trigamma at its poles x = 0, -1, -2, ...: pi^2 / sin(pi x)^2 of the rounded product pi * x in the
    input's precision (float16 in float32), so about 6.6e32 at -1 in float64 and 1.3e15 in float32, inf only at 0,
    nan at -inf. Written into ``out`` (the result in ``x``'s dtype)."""
    pole = (x <= 0) & (x == xp.floor(x))
    if pole.any():
        ft = np.float64 if x.dtype == np.float64 else np.float32
        pi = ft(_PI)
        sp = xp.sin(x[pole].astype(ft) * pi)
        out[pole] = ((pi * pi) / (sp * sp)).astype(out.dtype)
    return out


# ------------------------------------------------------------------------------------------- lgamma, digamma ops
class LgammaBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * digamma(x),)


class DigammaBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * polygamma(1, x),)


class PolygammaBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * polygamma(self.n + 1, x),)


lgamma = real_unary("lgamma", "lgamma_vml_cpu", _special(_lgamma64), LgammaBackward0, _SAVE_INPUT,
                    "The natural logarithm of the absolute value of the gamma function, elementwise (inf at 0 and "
                    "at the negative integers). Its gradient is :func:`digamma`.", method=True)
digamma = real_unary("digamma", "digamma", _special(_digamma64), DigammaBackward0, _SAVE_INPUT,
                     "The digamma function ``d/dx lgamma(x)``, elementwise: -inf at 0, +inf at -0, nan at the "
                     "negative integers (PyTorch's values). Its gradient is ``polygamma(1, input)``.", method=True)

_POLYGAMMA_LABEL = {0: "digamma", 1: "trigamma"}


def polygamma(n, input):
    """The ``n``-th derivative of :func:`digamma`, elementwise; ``n = 0`` is digamma itself.

    For ``n >= 1`` it is ``(-1)**(n + 1) * n! * zeta(n + 1, input)``. The gradient is ``polygamma(n + 1, input)``.
    """
    n = _int_arg(n, "polygamma", "n", 1)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if not isinstance(input, Tensor):
        raise TypeError(f"polygamma(): argument 'input' (position 2) must be Tensor, not {type(input).__name__}")
    data = _floating_data(input, "polygamma")
    if data.dtype.kind == "c":
        raise unsupported(_POLYGAMMA_LABEL.get(n, "polygamma"), data)
    xp = input._xp
    with np.errstate(all="ignore"):
        res = _special(lambda xp_, v: _polygamma64(xp_, n, v))(xp, data)
        out = wrap(_trigamma_poles(xp, data, res) if n == 1 else res)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = PolygammaBackward0()
        node.save(input)
        node.n = n
        record(node, out, input)
    return out


@tensor_method("polygamma")
def _polygamma_method(self, n):
    """``polygamma(n, self)``: the ``n``-th derivative of digamma, elementwise."""
    return polygamma(n, self)


# ----------------------------------------------------------------------------------------------------- mvlgamma
class MvlgammaBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        total = digamma(x)
        for j in range(1, self.p):
            total = total + digamma(x - 0.5 * j)
        return (grad * total,)


def _mvlgamma_kernel(p):
    const = p * (p - 1) / 4.0 * _LOG_PI

    def run(xp, v):
        total = _lgamma64(xp, v)
        for j in range(1, p):
            total += _lgamma64(xp, v - 0.5 * j)
        return total + const
    return _special(run)


@tensor_method()
def mvlgamma(input, p):
    """The multivariate log-gamma function of dimension ``p``, elementwise:
    ``p (p - 1) / 4 * log(pi) + sum_{j < p} lgamma(input - j / 2)``."""
    p = _int_arg(p, "mvlgamma", "p", 2)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    data = _floating_data(input, "mvlgamma")
    if data.dtype.kind == "c":
        raise unsupported("mvlgamma", data)
    with np.errstate(all="ignore"):
        out = wrap(_mvlgamma_kernel(p)(input._xp, data))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = MvlgammaBackward0()
        node.save(input)
        node.p = p
        record(node, out, input)
    return out


# --------------------------------------------------------------------------------------------------------- zeta
class _ZetaBackward(Node):
    __slots__ = ()

    def apply(self, grad):
        x, q = self.saved_tensors
        if self.next_functions[0] is not None:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        s = self.x_number if x is None else x
        # d/dq zeta(s, q) = -s zeta(s + 1, q)
        return None, sum_to(grad * zeta(s + 1.0, q) * -s, self.shape_q)


class SpecialZetaBackward0(_ZetaBackward):
    __slots__ = ()


class SpecialZetaBackward1(_ZetaBackward):
    """The node when ``input`` (``s``) is a Python number."""
    __slots__ = ()


class SpecialZetaBackward2(_ZetaBackward):
    """The node when ``other`` (``q``) is a Python number."""
    __slots__ = ()


def zeta(input, other):
    """The Hurwitz zeta function ``sum_{k >= 0} (other + k) ** -input``, elementwise (broadcast); either argument may
    be a Python number. ``zeta(x, 1)`` is Riemann's zeta function.

    inf at ``input == 1`` and at integer ``other <= 0``; nan for ``input < 1``, and for ``other <= 0`` when
    ``input`` is not an integer. Differentiable in ``other`` only (PyTorch does not implement the other derivative).
    """
    it, ot = isinstance(input, Tensor), isinstance(other, Tensor)
    if not it and not ot:
        raise TypeError(f"zeta() received an invalid combination of arguments - got ({type(input).__name__}, "
                        f"{type(other).__name__}), but expected one of (Tensor input, Tensor other), (Number self, "
                        "Tensor other), (Tensor input, Number other)")
    a, b, it, ot = _binary_floating(input, other, "zeta", scalars=True)
    if a.dtype == np.float16:
        raise unsupported("zeta_cpu", a)
    xp = (it if it is not None else ot)._xp
    try:
        a64, b64 = xp.broadcast_arrays(a.astype(np.float64), b.astype(np.float64))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    with np.errstate(all="ignore"):
        out = wrap(_hurwitz64(xp, xp.ascontiguousarray(a64), xp.ascontiguousarray(b64)).astype(a.dtype, copy=False))
    if GRAD_ENABLED[0] and ((it is not None and it._requires_grad) or (ot is not None and ot._requires_grad)):
        node = (SpecialZetaBackward0 if it is not None and ot is not None else
                SpecialZetaBackward2 if it is not None else SpecialZetaBackward1)()
        node.save(it, ot if ot is not None else wrap(b))
        node.x_number = None if it is not None else input
        node.shape_q = b.shape
        record(node, out, it, ot)
    return out


# ------------------------------------------------------------------------------------- modified Bessel I0 and I1
# Below |x| = 20 the power series (all terms positive, 40 reach float64 precision at 20):
#   I0(x) = sum_k u^k / (k!)^2,   I1(x) = x/2 sum_k u^k / (k! (k+1)!),   u = x^2 / 4.
# Beyond, Hankel's expansion I_nu(x) e^-x sqrt(2 pi x) ~ sum_k c_k / x^k, c_k = prod_{j<=k} ((2j-1)^2 - 4 nu^2) / (8j),
# whose 25-term truncation error at x = 20 is about 5e-17 and shrinks as x grows.
_I_SPLIT = 20.0
_I0_SERIES = tuple(1.0 / _math.factorial(k) ** 2 for k in range(42))
_I1_SERIES = tuple(1.0 / (_math.factorial(k) * _math.factorial(k + 1)) for k in range(42))


def _hankel(nu, terms=25):
    num, den, out = 1, 1, []
    for j in range(1, terms + 1):
        out.append(num / den)  # exact integers divided once: the correctly rounded c_k
        num *= (2 * j - 1) ** 2 - 4 * nu * nu
        den *= 8 * j
    return tuple(out)


_I0_HANKEL, _I1_HANKEL = _hankel(0), _hankel(1)
_INV_SQRT_2PI = 1.0 / _math.sqrt(2 * _PI)


def _bessel_i64(xp, x, order, scaled):
    """I0 or I1 of a float64 array (``exp(-|x|) I(x)`` when ``scaled``). PyTorch's kernels compute I as exp(|x|)
    times the scaled value, so I is inf past |x| ~ 709.8 and nan at ±inf; so does this one."""
    ax = xp.abs(x)
    out = xp.empty_like(x)
    series = ax <= _I_SPLIT

    def small(v):
        u = v * v * 0.25
        if order == 0:
            val = _poly(xp, u, _I0_SERIES)
        else:
            val = _poly(xp, u, _I1_SERIES) * (v * 0.5)
        return val * xp.exp(-xp.abs(v)) if scaled else val

    def large(v):
        a = xp.abs(v)
        val = _poly(xp, 1.0 / a, _I0_HANKEL if order == 0 else _I1_HANKEL) * (_INV_SQRT_2PI / xp.sqrt(a))
        if order == 1:
            val = xp.copysign(val, v)
        return val if scaled else val * xp.exp(a)

    _fill(out, series, small, x)
    _fill(out, ~series, large, x)  # includes nan
    return out


class I0Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * i1(x),)


class SpecialI0EBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * (i1e(x) - x.sgn() * self.saved_output()),)


def _tiny_safe(x):
    """``(|x| > eps, x with the tiny entries replaced by eps)``: I1(x)/x is 1/2 at 0, where the formula is 0/0.
    As in PyTorch a nan input counts as tiny, so its gradient is 1/2 too."""
    eps = float(np.finfo(x._data.dtype).eps)
    big = x.abs() > eps
    return big, where(big, x, eps)


class SpecialI1Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        big, safe = _tiny_safe(x)
        return (grad * where(big, i0(safe) - self.saved_output() / safe, 0.5),)


class SpecialI1EBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        big, safe = _tiny_safe(x)
        d = i0e(safe) - self.saved_output() * (safe.sgn() + 1.0 / safe)
        return (grad * where(big, d, 0.5),)


def _bessel_kernel(order, scaled):
    return _special(lambda xp, v: _bessel_i64(xp, v, order, scaled))


i0 = real_unary("i0", "i0_vml_cpu", _bessel_kernel(0, False), I0Backward0, _SAVE_INPUT,
                "The modified Bessel function of the first kind of order 0, elementwise (PyTorch's values: inf "
                "past |x| ~ 709.8, nan at ±inf). Its gradient is ``special.i1``.", method=True)
i0e = real_unary("i0e", "i0e_cpu", _bessel_kernel(0, True), SpecialI0EBackward0, _SAVE_BOTH,
                 "The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) * i0(x)``, elementwise.")
i1 = real_unary("i1", "i1_cpu", _bessel_kernel(1, False), SpecialI1Backward0, _SAVE_BOTH,
                "The modified Bessel function of the first kind of order 1, elementwise.")
i1e = real_unary("i1e", "i1e_cpu", _bessel_kernel(1, True), SpecialI1EBackward0, _SAVE_BOTH,
                 "The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) * i1(x)``, elementwise.")


# ------------------------------------------------------------------------------------------------ in-place forms
@tensor_method("lgamma_")
def _lgamma_(self):
    """In-place version of :meth:`lgamma`."""
    return apply_inplace(self, lgamma)


@tensor_method("digamma_")
def _digamma_(self):
    """In-place version of :meth:`digamma`."""
    return apply_inplace(self, digamma)


@tensor_method("polygamma_")
def _polygamma_(self, n):
    """In-place version of :meth:`polygamma`: ``self = polygamma(n, self)``."""
    return apply_inplace(self, lambda t, k: polygamma(k, t), n)


@tensor_method("mvlgamma_")
def _mvlgamma_(self, p):
    """In-place version of :meth:`mvlgamma`."""
    return apply_inplace(self, mvlgamma, p)


@tensor_method("i0_")
def _i0_(self):
    """In-place version of :meth:`i0`."""
    return apply_inplace(self, i0)
