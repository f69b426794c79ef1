"""The regularized lower incomplete gamma function ``P(a, x)`` and its derivative in ``a``: what ``Gamma.cdf`` and
the gradients of gamma draws (``_gamma_sampling``) are built on.

``P`` is evaluated by the two textbook expansions, each where it converges fast and does not cancel:

* for ``x < a + 1``, the power series ``P = x^a e^-x / Gamma(a + 1) * S``, ``S = sum_n x^n / ((a + 1)...(a + n))``;
* otherwise the upper tail ``Q = 1 - P = x^a e^-x / Gamma(a) * h``, with ``h`` the continued fraction evaluated by
  the modified Lentz method.

The derivative in ``a`` is carried through both loops alongside the value (forward-mode differentiation by hand),
so it is exact to rounding. Everything runs in float64 on ember tensors. The backward rule is first-order: its own
derivative is not recorded (PyTorch's ``gammainc`` has no gradient in ``a`` at all).
"""
from __future__ import annotations

from .. import ops
from ..autograd.function import Function, once_differentiable
from ..dtypes import float64, promote_types
from ..ops._base import sum_to

__all__ = ["gammainc", "dlog_draw_dalpha"]

_MAX_TERMS = 100000  # enough for a ~ 1e8: near x = a both expansions need O(sqrt(a)) terms
_TINY = 1e-300  # Lentz's guard against a zero denominator
_TOL = 1e-15  # relative size of the last correction at which an expansion has converged


def _series(a, x):
    """``(S, dS/da)`` of the lower series; each term's derivative is the term times ``-sum_k 1 / (a + k)``."""
    term = ops.ones_like(a)
    total, d_total, harmonic = ops.ones_like(a), ops.zeros_like(a), ops.zeros_like(a)
    ap = a
    for _ in range(_MAX_TERMS):
        ap = ap + 1
        term = term * x / ap
        harmonic = harmonic + 1 / ap
        total = total + term
        d_total = d_total - term * harmonic
        # x / (a + n) < 1 here, so the terms fall geometrically and the last one bounds what is left
        if not bool((term > _TOL * total).any()):
            break
    return total, d_total


def _continued_fraction(a, x):
    """``(h, dh/da)`` of the upper continued fraction, by the modified Lentz method and its derivative."""
    b = x + 1 - a
    db = -1.0  # every b_i is x + 2i + 1 - a
    d, dd = 1 / b, 1 / (b * b)
    h, dh = d, dd
    c = dc = None  # Lentz starts c at "infinity", which makes the first c exactly b
    for i in range(1, _MAX_TERMS):
        an, dan = -i * (i - a), float(i)
        b = b + 2
        d_den = an * d + b
        dd_den = dan * d + an * dd + db
        d_den = ops.where(d_den.abs() < _TINY, _TINY, d_den)
        if c is None:
            c, dc = b, ops.full_like(a, db)
        else:
            c, dc = b + an / c, db + dan / c - an * dc / (c * c)
            c = ops.where(c.abs() < _TINY, _TINY, c)
        d, dd = 1 / d_den, -dd_den / (d_den * d_den)
        delta, ddelta = d * c, dd * c + d * dc
        h, dh = h * delta, dh * delta + h * ddelta
        # the derivative can lag the value: for whole a the fraction ends (a_i = 0, delta = 1 from then on) while
        # its derivative still has terms, so both must have settled
        # (a few ulps, not one: once converged, delta still rounds to 1 +- 2.2e-16)
        if not bool((((delta - 1).abs() > _TOL) | ((h * ddelta).abs() > _TOL * (dh.abs() + h.abs()))).any()):
            break
    return h, dh


def _by_region(lower, a, arg, lower_fn, upper_fn):
    """``lower_fn(a, arg)`` where ``lower`` (``x < a + 1``) and ``upper_fn(a, arg)`` elsewhere, each run on its own
    entries only: an expansion outside its region converges slowly or cancels."""
    out = ops.zeros_like(a)
    if bool(lower.any()):
        out[lower] = lower_fn(a[lower], arg[lower])
    upper = ~lower
    if bool(upper.any()):
        out[upper] = upper_fn(a[upper], arg[upper])
    return out


def _p_lower(a, x):
    s, _ = _series(a, x)
    return ops.exp(a * ops.log(x) - x - ops.lgamma(a + 1)) * s


def _p_upper(a, x):
    h, _ = _continued_fraction(a, x)
    return 1 - ops.exp(a * ops.log(x) - x - ops.lgamma(a)) * h


def _dlogx_da_lower(a, log_x):
    # P / p = x S / a and d log P / da = log x - digamma(a + 1) + S' / S, with p the Gamma(a, 1) density
    s, ds = _series(a, log_x.exp())
    return -(s * (log_x - ops.digamma(a + 1)) + ds) / a


def _dlogx_da_upper(a, log_x):
    # Q / p = x h and d log Q / da = log x - digamma(a) + h' / h; dP = -dQ
    h, dh = _continued_fraction(a, log_x.exp())
    return h * (log_x - ops.digamma(a)) + dh


def dlog_draw_dalpha(alpha, log_x):
    """``d log(x) / d alpha`` for a Gamma(alpha, 1) draw ``x`` that keeps its quantile ``P(alpha, x)`` as ``alpha``
    moves, i.e. ``-(dP/dalpha) / (x p(x))``; float64 tensors in and out (broadcast).

    It takes ``log x`` so that draws too small for float64 (tiny ``alpha``) keep their gradient: there
    ``dx/dalpha`` underflows but ``d log x / d alpha`` (about ``-log(x) / alpha``) does not.
    """
    a, lx = ops.broadcast_tensors(alpha, log_x)
    a, lx = a.contiguous(), lx.contiguous()
    return _by_region(lx.exp() < a + 1, a, lx, _dlogx_da_lower, _dlogx_da_upper)


def _float64_pair(a, x):
    a, x = ops.broadcast_tensors(a.detach().to(float64), x.detach().to(float64))
    return a.contiguous(), x.contiguous()


class Gammainc(Function):
    """The regularized lower incomplete gamma function ``P(a, x)``, differentiable in both arguments."""

    @staticmethod
    def forward(ctx, a, x):
        """``P(a, x)`` for ``a > 0``, ``x >= 0`` (broadcast), in their common dtype."""
        a64, x64 = _float64_pair(a, x)
        # P(a, 0) = 0 and P(a, inf) = 1 are the limits; the expansions would take log(0) or inf - inf
        edge = (x64 == 0) | x64.isinf()
        safe = ops.where(edge, 1.0, x64)
        value = _by_region(safe < a64 + 1, a64, safe, _p_lower, _p_upper)
        value = ops.where(x64 == 0, 0.0, ops.where(x64.isinf(), 1.0, value))
        ctx.save_for_backward(a, x)
        return value.to(promote_types(a.dtype, x.dtype))

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        """``dP/dx`` is the Gamma(a, 1) density ``p``; ``dP/da = -p(x) x dlog(x)/da`` at fixed quantile."""
        a, x = ctx.saved_tensors
        a64, x64 = _float64_pair(a, x)
        density = ops.exp(ops.xlogy(a64 - 1, x64) - x64 - ops.lgamma(a64))
        grad_a = grad_x = None
        if ctx.needs_input_grad[0]:
            edge = (x64 == 0) | x64.isinf()
            safe = ops.where(edge, 1.0, x64)
            dp_da = -density * safe * dlog_draw_dalpha(a64, safe.log())
            grad_a = sum_to((grad * ops.where(edge, 0.0, dp_da)).to(a.dtype), a.shape)
        if ctx.needs_input_grad[1]:
            grad_x = sum_to((grad * density).to(x.dtype), x.shape)
        return grad_a, grad_x


def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x) = gamma(a, x) / Gamma(a)``, differentiable in
    ``a`` and ``x``."""
    return Gammainc.apply(a, x)
