"""Exponentials, logarithms and powers, elementwise: ``exp``/``exp2``/``expm1``, ``log``/``log2``/``log10``/
``log1p``, ``sqrt``, ``rsqrt``, ``square``, ``reciprocal``, the logistic pair ``sigmoid``/``logit``, the binary
``xlogy``, ``logaddexp`` and ``logaddexp2``, the binary-exponent pair ``ldexp``/``frexp`` and the Vandermonde matrix
``vander`` (powers as running products).

Every op is a function (``ember.exp``) and a Tensor method (``t.exp()``), each forward beside its backward node.
``exp``, ``sqrt``, ``sigmoid`` and friends use their saved output in backward. Backward rules are written with ember
ops, so ``create_graph=True`` differentiates them again.
"""
from __future__ import annotations

import math as _math

import numpy as np

from .. import dtypes as dt, return_types as _rt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, broadcast_error, record, sum_to, tensor_method, wrap
from ._elementwise import _SAVE_INPUT, _SAVE_OUTPUT, _binary_floating, _conj, _floating_data, _not_implemented, \
    _shapes, _type_error, _unary
from .clamp_where import where

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "reciprocal",
           "sigmoid", "logit", "xlogy", "logaddexp", "logaddexp2", "ldexp", "frexp", "nextafter", "vander"]

_LN2 = _math.log(2.0)
_LN10 = _math.log(10.0)


# ---------------------------------------------------------------------------------------------- exp / log family
class ExpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad * _conj(self.saved_output()),)


class Exp2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad * _conj(self.saved_output()) * _LN2,)


class Expm1Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad * (_conj(self.saved_output()) + 1),)


class LogBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / _conj(x),)


class Log2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / (_conj(x) * _LN2),)


class Log10Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / (_conj(x) * _LN10),)


class Log1PBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / (_conj(x) + 1),)


class SqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad / (_conj(self.saved_output()) * 2),)


class RsqrtBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(out * out * out) * -0.5,)


class ReciprocalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (-grad * _conj(out * out),)


exp = _unary("exp", lambda xp, a: xp.exp(a), ExpBackward0, _SAVE_OUTPUT,
             "Elementwise ``e ** input``.", quiet=True)
exp2 = _unary("exp2", lambda xp, a: xp.exp2(a), Exp2Backward0, _SAVE_OUTPUT,
              "Elementwise ``2 ** input``.", quiet=True)
expm1 = _unary("expm1", lambda xp, a: xp.expm1(a), Expm1Backward0, _SAVE_OUTPUT,
               "Elementwise ``exp(input) - 1``, accurate for small ``input``.", quiet=True)
log = _unary("log", lambda xp, a: xp.log(a), LogBackward0, _SAVE_INPUT,
             "Elementwise natural logarithm (nan below 0, -inf at 0).", quiet=True)
log2 = _unary("log2", lambda xp, a: xp.log2(a), Log2Backward0, _SAVE_INPUT,
              "Elementwise base-2 logarithm.", quiet=True)
log10 = _unary("log10", lambda xp, a: xp.log10(a), Log10Backward0, _SAVE_INPUT,
               "Elementwise base-10 logarithm.", quiet=True)
log1p = _unary("log1p", lambda xp, a: xp.log1p(a), Log1PBackward0, _SAVE_INPUT,
               "Elementwise ``log(1 + input)``, accurate for small ``input``.", quiet=True)
sqrt = _unary("sqrt", lambda xp, a: xp.sqrt(a), SqrtBackward0, _SAVE_OUTPUT,
              "Elementwise square root (nan for negative real input).", quiet=True)
rsqrt = _unary("rsqrt", lambda xp, a: 1 / xp.sqrt(a), RsqrtBackward0, _SAVE_OUTPUT,
               "Elementwise reciprocal square root ``1 / sqrt(input)``.", quiet=True)
reciprocal = _unary("reciprocal", lambda xp, a: 1 / a, ReciprocalBackward0, _SAVE_OUTPUT,
                    "Elementwise ``1 / input`` (integer input gives the default float dtype).", quiet=True)


@tensor_method()
def square(input):
    """Elementwise ``input * input``; integer tensors stay integer (bool becomes int64)."""
    if not isinstance(input, Tensor):
        raise _type_error("square", "input", input)
    if input._data.dtype.kind == "b":
        input = input.to(dt.int64)
    return input ** 2


# ------------------------------------------------------------------------------------------------- sigmoid / logit
class SigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(out * (1 - out)),)


def _sigmoid_kernel(xp, a):
    # 1 / (1 + exp(-x)) is exact in the tails (exp(-x) overflows to inf for very negative x and 1/inf = 0); only
    # NumPy's overflow warning needs silencing. In place after the first allocation to keep it to one buffer.
    if a.ndim == 0:  # NumPy turns 0-d results into scalars, which cannot be written in place
        with np.errstate(over="ignore"):
            return 1 / (1 + xp.exp(-a))
    t = xp.negative(a)
    with np.errstate(over="ignore"):
        xp.exp(t, out=t)
    t += 1
    return xp.reciprocal(t, out=t)


sigmoid = _unary("sigmoid", _sigmoid_kernel, SigmoidBackward0, _SAVE_OUTPUT,
                 "Elementwise logistic sigmoid ``1 / (1 + exp(-input))``, stable for large ``|input|``.")


class LogitBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        eps = self.eps
        if eps is None:
            # outside [0, 1] logit is nan, and so is its derivative
            return (where((x < 0) | (x > 1), float("nan"), grad / (x * (1 - x))),)
        outside = (x < eps) | (x > 1 - eps)
        # the clamped region has zero gradient; a unit denominator there keeps 0 and 1 from dividing by zero
        return (where(outside, 0, grad / where(outside, 1, x * (1 - x))),)


@tensor_method()
def logit(input, eps=None):
    """Elementwise ``log(p / (1 - p))``; with ``eps`` the input is first clamped to ``[eps, 1 - eps]``."""
    data = _floating_data(input, "logit")
    if data.dtype.kind == "c":
        raise _not_implemented("logit", data)
    xp = input._xp
    if eps is not None:
        data = xp.clip(data, eps, 1 - eps)
    with np.errstate(all="ignore"):
        out = wrap(xp.log(data / (1 - data)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LogitBackward0()
        node.save(input)
        node.eps = eps
        record(node, out, input)
    return out


# ------------------------------------------------------------------------------------------------ xlogy, logaddexp
class XlogyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        x, y = self.saved_tensors
        shape_x, shape_y = self.shape_x, self.shape_y
        gx = gy = None
        if self.next_functions[0] is not None:
            # at x == 0, y <= 0 xlogy is 0 by definition but not differentiable; PyTorch returns 0 there
            gx = sum_to(where((x == 0) & (y <= 0), 0, xlogy(grad, y)), shape_x)
        if self.next_functions[1] is not None:
            gy = sum_to(grad * x / y, shape_y)
        return gx, gy


@tensor_method()
def xlogy(input, other):
    """Elementwise ``input * log(other)``, defined as 0 where ``input == 0`` (unless ``other`` is NaN).

    One of the two may be a Python number.
    """
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise _type_error("xlogy", "input", input)
    return x_times_log(input, other, "xlogy", lambda xp, b: xp.log(b), XlogyBackward0)


def x_times_log(input, other, fn, log, node_cls):
    """``input * log(other)`` (``log(xp, b)`` is the log kernel: log, log1p), 0 where ``input == 0`` unless
    ``other`` is NaN; one operand may be a Python number. The rule of ``xlogy`` and ``special.xlog1py``."""
    a, b, it, ot = _binary_floating(input, other, fn, scalars=True)
    xp = (it if it is not None else ot)._xp
    try:
        with np.errstate(all="ignore"):
            prod = a * log(xp, b)
            out = wrap(xp.where((a == 0) & ~xp.isnan(b), 0, prod).astype(prod.dtype, copy=False))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and ((it is not None and it._requires_grad) or (ot is not None and ot._requires_grad)):
        # number operands are saved as zero-dim tensors so one rule serves all three overloads
        tx = it if it is not None else wrap(a)
        ty = ot if ot is not None else wrap(b)
        node = node_cls()
        node.save(tx, ty)
        node.shape_x, node.shape_y = tx._data.shape, ty._data.shape
        record(node, out, it, ot)
    return out


class LogaddexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self.shape_a, self.shape_b
        scale = self._scale()
        ga = sum_to(grad * sigmoid((a - b) * scale), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * sigmoid((b - a) * scale), shape_b) if self.next_functions[1] is not None else None
        return ga, gb

    @staticmethod
    def _scale():
        return 1.0


class Logaddexp2Backward0(LogaddexpBackward0):
    __slots__ = ()

    @staticmethod
    def _scale():
        return _LN2


def _logaddexp_kernel(xp, a, b, base2=False):
    """NumPy's ``logaddexp`` (``logaddexp2`` with ``base2``) by its own formula, ``max(a, b) + log1p(exp(-|a - b|))``,
    as fast whole-array passes: NumPy's ufunc runs a scalar loop (64k float32: 2.8 ms against ~0.3 ms)."""
    top = xp.asarray(xp.maximum(a, b))  # (0-d operands give NumPy scalars, which cannot be written in place)
    gap = xp.asarray(xp.subtract(a, b))
    xp.abs(gap, out=gap)
    xp.negative(gap, out=gap)
    # equal infinities (inf - inf is NaN) add nothing to their maximum; a NaN operand stays NaN through ``top``
    xp.fmax(gap, -xp.inf, out=gap)
    if base2:
        xp.exp2(gap, out=gap)
        xp.log1p(gap, out=gap)
        gap *= 1 / _LN2
    else:
        xp.exp(gap, out=gap)
        xp.log1p(gap, out=gap)
    if top.shape == gap.shape:
        top += gap
        return top
    return top + gap


def _logaddexp_like(input, other, fn, kernel, node_cls):
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    a, b, it, ot = _binary_floating(input, other, fn)
    try:
        with np.errstate(all="ignore"):
            out = wrap(kernel(input._xp, a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = node_cls()
        node.save(input, other)
        node.shape_a, node.shape_b = _shapes(input, other)
        record(node, out, input, other)
    return out


@tensor_method()
def logaddexp(input, other):
    """Elementwise ``log(exp(input) + exp(other))``, computed without overflow."""
    return _logaddexp_like(input, other, "logaddexp", _logaddexp_kernel, LogaddexpBackward0)


@tensor_method()
def logaddexp2(input, other):
    """Elementwise ``log2(2**input + 2**other)``, computed without overflow."""
    return _logaddexp_like(input, other, "logaddexp2", lambda xp, a, b: _logaddexp_kernel(xp, a, b, base2=True),
                           Logaddexp2Backward0)


# ------------------------------------------------------------------------------------------------- ldexp, frexp
class LdexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        x, e = self.saved_tensors
        shape_x, shape_e = self.shape_x, self.shape_e
        scale = exp2(e.to(grad.dtype) if e._data.dtype.kind in "biu" else e)
        gx = sum_to(grad * _conj(scale), shape_x) if self.next_functions[0] is not None else None
        ge = None
        if self.next_functions[1] is not None:
            ge = grad * _conj(x * scale) * _LN2
            ge = sum_to(ge.real if ge._data.dtype.kind == "c" and e._data.dtype.kind != "c" else ge, shape_e)
        return gx, ge


@tensor_method()
def ldexp(input, other):
    """``input * 2 ** other``, elementwise (broadcast). Integer exponents scale exactly (no rounding of the power,
    so ``ldexp(1e-30, 130)`` stays finite in float32); integer inputs compute in the default float dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"ldexp(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    rt = dt.result_type(input, other)
    if rt.category < dt.FLOAT:
        rt = dt.get_default_dtype()
    xp = input._xp
    a, e = input._data.astype(rt.np, copy=False), other._data
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            if e.dtype.kind in "biu":  # scale the binary exponent itself
                e = e.astype(np.int64, copy=False)
                if rt.np.kind == "c":
                    res = a * xp.ldexp(xp.ones(e.shape, dtype=rt.to_real().np), e)
                else:
                    res = xp.ldexp(a, e)
            else:
                res = a * xp.exp2(e.astype(rt.np, copy=False))
    except ValueError:
        raise broadcast_error(input._data.shape, other._data.shape) from None
    out = wrap(xp.asarray(res, dtype=rt.np))
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = LdexpBackward0()
        node.save(input, other)
        node.shape_x, node.shape_e = input._data.shape, other._data.shape
        record(node, out, input, other)
    return out


def _ldexp_(self, other):
    if self._data.dtype.kind not in "fc":  # the result is floating: it cannot go back into an integer tensor
        raise RuntimeError(f"ldexp can't be cast to the desired output type {self.dtype.scalar_name}")
    return apply_inplace(self, ldexp, other)


_ldexp_.__name__ = "ldexp_"
_ldexp_.__doc__ = "In-place version of :meth:`ldexp`."
Tensor.ldexp_ = _ldexp_

_Frexp = _rt.return_type("frexp", ("mantissa", "exponent"))


class FrexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        # mantissa = input / 2**exponent, with the exponent piecewise constant
        return (grad * self.inv_scale,)


@tensor_method()
def frexp(input):
    """Split a floating tensor into mantissas in ``[0.5, 1)`` (in magnitude) and integer exponents with
    ``input = mantissa * 2 ** exponent``: the named tuple ``(mantissa, exponent)``, exponents as int32. Zero, inf
    and NaN keep their value as mantissa with exponent 0."""
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    xp = input._xp
    m, e = xp.frexp(data)
    mantissa, exponent = wrap(xp.asarray(m)), wrap(xp.asarray(e, dtype=np.int32))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = FrexpBackward0()
        node.inv_scale = wrap(xp.ldexp(xp.ones(data.shape, dtype=data.dtype), -e))
        record(node, mantissa, input)
    return _Frexp(mantissa, exponent)


class NextafterBackward0(Node):
    """PyTorch's rule: the step to the next float is treated as the identity in ``input`` and constant in ``other``."""
    __slots__ = ()

    def apply(self, grad):
        nf = self.next_functions
        return (sum_to(grad, self.shape_x) if nf[0] is not None else None,
                wrap(grad._xp.zeros(self.shape_o, dtype=self.dtype_o)) if nf[1] is not None else None)


@tensor_method()
def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other``, elementwise (both tensors; the result takes
    their promoted float dtype)."""
    for pos, (name, t) in enumerate((("input", input), ("other", other)), 1):
        if not isinstance(t, Tensor):
            raise TypeError(f"nextafter(): argument '{name}' (position {pos}) must be Tensor, not {type(t).__name__}")
    a, b = input._data, other._data
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype.kind != "f":
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for '{dt.scalar_type_name(dtype)}'")
    xp = input._xp
    try:
        out = wrap(xp.nextafter(a.astype(dtype, copy=False), b.astype(dtype, copy=False)))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = NextafterBackward0()
        node.shape_x, node.shape_o, node.dtype_o = a.shape, b.shape, b.dtype
        record(node, out, input, other)
    return out


# ---------------------------------------------------------------------------------------------------------- vander
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the 1-D ``x``: column ``j`` holds ``x ** (N - 1 - j)`` (``x ** j`` with
    ``increasing``); ``N`` defaults to ``len(x)``. Integer and bool input give int64. Differentiable."""
    if not isinstance(x, Tensor):
        raise TypeError(f"vander(): argument 'x' (position 1) must be Tensor, not {type(x).__name__}")
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0]
    if N is None:
        N = n
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)):
        raise TypeError(f"vander(): argument 'N' must be int, not {type(N).__name__}")
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    if x._data.dtype.kind in "biu":
        x = x.to(dt.int64)
    xp = x._xp
    if N <= 1:
        return wrap(xp.ones((n, int(N)), dtype=x._data.dtype))
    # the powers 1, x, x**2, ... as running products of rows [1, x, x, ...]: exact for integers, and
    # differentiable through zeros (the Tensor methods keep this module free of an import of reduce)
    first = wrap(xp.arange(int(N)) == 0)
    powers = where(first, 1, x.unsqueeze(1).expand(n, int(N))).cumprod(1)
    return powers if increasing else powers.flip(1)
