"""Elementwise math: exp/log family, trig and hyperbolic functions, sigmoid, rounding, clamp, where, lerp, erf.

Every op is a function (``ember.exp``) and a Tensor method (``t.exp()``), each forward beside its backward node.
The rules follow PyTorch:

* floating functions given an integer or bool tensor compute in the default float dtype;
* for complex inputs a holomorphic ``f`` back-propagates ``grad * conj(f'(z))`` (PyTorch's convention);
* rounding ops and ``sign`` have zero gradient; ``maximum``/``minimum`` split the gradient equally on ties;
* ``tanh``, ``sigmoid``, ``exp`` and friends use their saved output in backward.

Backward rules are written with ember ops, so ``create_graph=True`` differentiates them again.
"""
from __future__ import annotations

import math as _math
import numbers

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, binary_arrays, broadcast_error, record, sum_to, tensor_method, wrap
from .creation import zeros_like

__all__ = ["exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square", "sin", "cos", "tan",
           "asin", "acos", "atan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
           "arcsinh", "arccosh", "arctanh", "sigmoid", "logit", "atan2", "arctan2", "floor", "ceil", "round", "trunc",
           "fix", "frac", "sign", "sgn", "reciprocal", "clamp", "clip", "clamp_min", "clamp_max", "maximum",
           "minimum", "fmax", "fmin", "where", "lerp", "relu", "erf", "erfc", "erfinv", "nan_to_num", "hypot",
           "xlogy", "logaddexp", "logaddexp2"]

_LN2 = _math.log(2.0)
_LN10 = _math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / _math.sqrt(_math.pi)
_SQRT_PI_OVER_TWO = _math.sqrt(_math.pi) / 2.0


# ------------------------------------------------------------------------------------------------------ helpers
def _type_error(fn, name, value):
    return TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _not_implemented(kernel, data):
    """PyTorch's message for a dtype a kernel does not support, e.g. '"erf_cpu" not implemented for 'ComplexFloat''."""
    return RuntimeError(f"\"{kernel}_cpu\" not implemented for '{dt.scalar_type_name(data.dtype)}'")


def _floating_data(input, fn):
    """``input``'s array, in the default float dtype when it holds integers or bools (PyTorch's rule)."""
    if not isinstance(input, Tensor):
        raise _type_error(fn, "input", input)
    data = input._data
    if data.dtype.kind not in "fc":
        data = data.astype(dt.get_default_dtype().np)
    return data


def _conj(t):
    """``conj(t)`` for complex tensors, ``t`` itself for real ones (the factor in PyTorch's complex backward)."""
    return t.conj() if t._data.dtype.kind == "c" else t


def _binary_floating(input, other, fn, *, scalars=False, real_only=True):
    """Promote two operands (PyTorch's rules), then move integer results to the default float dtype.

    Returns ``(a, b, input_tensor_or_None, other_tensor_or_None)``; ``scalars`` allows one Python-number operand.
    """
    it = isinstance(input, Tensor)
    ot = isinstance(other, Tensor)
    if not it and not (scalars and ot and isinstance(input, numbers.Number)):
        raise _type_error(fn, "input", input)
    if not ot and not (scalars and isinstance(other, numbers.Number)):
        raise _type_error(fn, "other", other)
    if it:
        a, b = binary_arrays(input, other)
    else:
        b, a = binary_arrays(other, input)
    xp = input._xp if it else other._xp
    # binary_arrays leaves a Python number as is when the tensor's dtype is already the result dtype
    if not hasattr(a, "dtype"):
        a = xp.asarray(a, dtype=b.dtype)
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=a.dtype)
    a = xp.asarray(a)
    b = xp.asarray(b)
    kind = np.result_type(a.dtype, b.dtype).kind
    if kind in "biu":
        fd = dt.get_default_dtype().np
        a, b = a.astype(fd), b.astype(fd)
    elif real_only and kind == "c":
        raise _not_implemented(fn, a if a.dtype.kind == "c" else b)
    elif a.dtype != b.dtype:
        rt = np.result_type(a.dtype, b.dtype)
        a, b = a.astype(rt, copy=False), b.astype(rt, copy=False)
    return a, b, (input if it else None), (other if ot else None)


def _shapes(a, b):
    return (a._data.shape if a is not None else ()), (b._data.shape if b is not None else ())


_SAVE_INPUT, _SAVE_OUTPUT = 1, 2  # what a unary node keeps for backward


def _unary(name, kernel, node_cls, saves, doc, *, quiet=False, real_only=False, aliases=()):
    """Build a floating elementwise op ``name(input)`` from ``kernel(xp, array)`` and its backward node.

    ``quiet`` silences NumPy's floating-point warnings (PyTorch returns nan/inf silently, e.g. ``log(-1)``).
    """
    def op(input):
        data = _floating_data(input, name)
        if real_only and data.dtype.kind == "c":
            raise _not_implemented(name, data)
        if quiet:
            with np.errstate(all="ignore"):
                out = wrap(kernel(input._xp, data))
        else:
            out = wrap(kernel(input._xp, data))
        if GRAD_ENABLED[0] and input._requires_grad:
            node = node_cls()
            if saves == _SAVE_INPUT:
                node.save(input)
            elif saves == _SAVE_OUTPUT:
                node.save_output(out)
            record(node, out, input)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name, *aliases)(op)


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
             "Elementwise ``e ** input``.")
exp2 = _unary("exp2", lambda xp, a: xp.exp2(a), Exp2Backward0, _SAVE_OUTPUT,
              "Elementwise ``2 ** input``.")
expm1 = _unary("expm1", lambda xp, a: xp.expm1(a), Expm1Backward0, _SAVE_OUTPUT,
               "Elementwise ``exp(input) - 1``, accurate for small ``input``.")
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


# ----------------------------------------------------------------------------------------------- trigonometric
class SinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.cos()),)


class CosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * -_conj(x.sin()),)


class TanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(out * out + 1),)


class AsinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj((1 - x * x).rsqrt()),)


class AcosBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * -_conj((1 - x * x).rsqrt()),)


class AtanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / _conj(x * x + 1),)


class Atan2Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        y, x = self.saved_tensors
        shape_y, shape_x = self._ctx
        denom = y * y + x * x
        gy = sum_to(grad * x / denom, shape_y) if self.next_functions[0] is not None else None
        gx = sum_to(grad * -y / denom, shape_x) if self.next_functions[1] is not None else None
        return gy, gx


sin = _unary("sin", lambda xp, a: xp.sin(a), SinBackward0, _SAVE_INPUT, "Elementwise sine (radians).")
cos = _unary("cos", lambda xp, a: xp.cos(a), CosBackward0, _SAVE_INPUT, "Elementwise cosine (radians).")
tan = _unary("tan", lambda xp, a: xp.tan(a), TanBackward0, _SAVE_OUTPUT, "Elementwise tangent (radians).")
asin = arcsin = _unary("asin", lambda xp, a: xp.arcsin(a), AsinBackward0, _SAVE_INPUT,
                       "Elementwise arcsine (nan outside [-1, 1] for real input).", quiet=True, aliases=("arcsin",))
acos = arccos = _unary("acos", lambda xp, a: xp.arccos(a), AcosBackward0, _SAVE_INPUT,
                       "Elementwise arccosine (nan outside [-1, 1] for real input).", quiet=True, aliases=("arccos",))
atan = arctan = _unary("atan", lambda xp, a: xp.arctan(a), AtanBackward0, _SAVE_INPUT,
                       "Elementwise arctangent.", aliases=("arctan",))


@tensor_method("atan2", "arctan2")
def atan2(input, other):
    """Elementwise arctangent of ``input / other`` using the signs of both to pick the quadrant."""
    a, b, it, ot = _binary_floating(input, other, "atan2")
    try:
        out = wrap(input._xp.arctan2(a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = Atan2Backward0()
        node.save(input, other)
        node._ctx = _shapes(input, other)
        record(node, out, input, other)
    return out


arctan2 = atan2


# -------------------------------------------------------------------------------------------------- hyperbolic
class SinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.cosh()),)


class CoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj(x.sinh()),)


class TanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(1 - out * out),)


class AsinhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * _conj((x * x + 1).rsqrt()),)


class AcoshBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        if x.is_complex():
            # sqrt(x-1) * sqrt(x+1) != sqrt(x*x - 1) off the real axis: keep the branch of acosh's derivative
            return (grad * _conj((x - 1).rsqrt() * (x + 1).rsqrt()),)
        return (grad * (x * x - 1).rsqrt(),)


class AtanhBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad / _conj(1 - x * x),)


class SigmoidBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        return (grad * _conj(out * (1 - out)),)


sinh = _unary("sinh", lambda xp, a: xp.sinh(a), SinhBackward0, _SAVE_INPUT, "Elementwise hyperbolic sine.")
cosh = _unary("cosh", lambda xp, a: xp.cosh(a), CoshBackward0, _SAVE_INPUT, "Elementwise hyperbolic cosine.")
tanh = _unary("tanh", lambda xp, a: xp.tanh(a), TanhBackward0, _SAVE_OUTPUT, "Elementwise hyperbolic tangent.")
asinh = arcsinh = _unary("asinh", lambda xp, a: xp.arcsinh(a), AsinhBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic sine.", aliases=("arcsinh",))
acosh = arccosh = _unary("acosh", lambda xp, a: xp.arccosh(a), AcoshBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic cosine (nan below 1 for real input).", quiet=True,
                         aliases=("arccosh",))
atanh = arctanh = _unary("atanh", lambda xp, a: xp.arctanh(a), AtanhBackward0, _SAVE_INPUT,
                         "Elementwise inverse hyperbolic tangent (±inf at ±1, nan beyond).", quiet=True,
                         aliases=("arctanh",))


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
        eps = self._ctx
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
        node._ctx = eps
        record(node, out, input)
    return out


# ------------------------------------------------------------------------------------------------------- rounding
class FloorBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (zeros_like(grad),)


class CeilBackward0(FloorBackward0):
    __slots__ = ()


class TruncBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward0(FloorBackward0):
    __slots__ = ()


class RoundBackward1(FloorBackward0):
    """``round(input, decimals=...)``."""
    __slots__ = ()


class SignBackward0(FloorBackward0):
    __slots__ = ()


def _rounding(name, kernel, node_cls, doc, aliases=()):
    def op(input):
        if not isinstance(input, Tensor):
            raise _type_error(name, "input", input)
        data = input._data
        kind = data.dtype.kind
        if kind in "biu":
            out = wrap(data.copy())  # already whole numbers; PyTorch returns a copy with the same dtype
        elif kind == "c":
            raise RuntimeError(f"{name} is not supported for complex inputs")
        else:
            out = wrap(kernel(input._xp, data))
        if GRAD_ENABLED[0] and input._requires_grad:
            record(node_cls(), out, input)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name, *aliases)(op)


floor = _rounding("floor", lambda xp, a: xp.floor(a), FloorBackward0,
                  "The largest integer not greater than each element (gradient zero).")
ceil = _rounding("ceil", lambda xp, a: xp.ceil(a), CeilBackward0,
                 "The smallest integer not less than each element (gradient zero).")
trunc = fix = _rounding("trunc", lambda xp, a: xp.trunc(a), TruncBackward0,
                        "Each element rounded toward zero (gradient zero).", aliases=("fix",))


@tensor_method()
def round(input, *, decimals=0):
    """Round to the nearest integer, halves to even (PyTorch and NumPy's rule), or to ``decimals`` decimal places.

    A negative ``decimals`` rounds to the left of the decimal point. The gradient is zero.
    """
    if not isinstance(input, Tensor):
        raise _type_error("round", "input", input)
    if not isinstance(decimals, (int, np.integer)) or isinstance(decimals, bool):
        raise TypeError(f"round(): argument 'decimals' must be int, not {type(decimals).__name__}")
    data = input._data
    kind = data.dtype.kind
    xp = input._xp
    if kind == "c":
        raise RuntimeError("round is not supported for complex inputs")
    if kind in "biu":
        if decimals != 0:
            raise _not_implemented("round_decimals", data)
        out = wrap(data.copy())
    elif decimals == 0:
        out = wrap(xp.rint(data))
    elif decimals > 0:
        scale = 10.0 ** decimals
        with np.errstate(all="ignore"):
            out = wrap(xp.rint(data * scale) / scale)
    else:
        scale = 10.0 ** -decimals
        with np.errstate(all="ignore"):
            out = wrap(xp.rint(data / scale) * scale)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(RoundBackward0() if decimals == 0 else RoundBackward1(), out, input)
    return out


class FracBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad,)


@tensor_method()
def frac(input):
    """The fractional part ``input - trunc(input)``, with the sign of ``input``."""
    if not isinstance(input, Tensor):
        raise _type_error("frac", "input", input)
    data = input._data
    if data.dtype.kind not in "f":
        raise _not_implemented("frac", data)
    out = wrap(data - input._xp.trunc(data))
    if GRAD_ENABLED[0] and input._requires_grad:
        record(FracBackward0(), out, input)
    return out


@tensor_method()
def sign(input):
    """-1, 0 or 1 by the sign of each element (nan stays nan; gradient zero). For complex input use :func:`sgn`."""
    if not isinstance(input, Tensor):
        raise _type_error("sign", "input", input)
    data = input._data
    kind = data.dtype.kind
    if kind == "c":
        raise RuntimeError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                           "torch.sgn instead.")
    out = wrap(data.copy() if kind == "b" else input._xp.sign(data))
    if GRAD_ENABLED[0] and input._requires_grad:
        record(SignBackward0(), out, input)
    return out


class SgnBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        if not x.is_complex():
            return (zeros_like(grad),)
        # sgn(z) = z / |z| is not holomorphic: d/dz = 1 / (2|z|), d/dconj(z) = -sgn^2 / (2|z|), which in PyTorch's
        # convention gives (g - sgn^2 conj(g)) / (2|z|); defined as 0 at z == 0.
        s = self.saved_output()
        mag = x.abs()
        zero = mag == 0
        res = (grad - s * s * grad.conj()) / (where(zero, 1, mag) * 2)
        return (where(zero, 0, res),)


@tensor_method()
def sgn(input):
    """``input / |input|`` for complex tensors (0 where ``input`` is 0); the same as :func:`sign` for real ones."""
    if not isinstance(input, Tensor):
        raise _type_error("sgn", "input", input)
    data = input._data
    if data.dtype.kind != "c":
        out = wrap(data.copy() if data.dtype.kind == "b" else input._xp.sign(data))
    else:
        xp = input._xp
        mag = xp.abs(data)
        with np.errstate(all="ignore"):
            out = wrap(xp.where(mag == 0, 0, data / mag).astype(data.dtype, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SgnBackward0()
        node.save(input)
        node.save_output(out)
        record(node, out, input)
    return out


# ---------------------------------------------------------------------------------------------------------- clamp
class ClampBackward1(Node):
    """clamp with Python-number bounds."""
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        lo, hi = self._ctx
        if lo is not None and hi is not None:
            keep = (x >= lo) & (x <= hi)
        elif lo is not None:
            keep = x >= lo
        else:
            keep = x <= hi
        return (where(keep, grad, 0),)


class ClampBackward0(Node):
    """clamp with tensor bounds: the gradient also flows to the bound that was selected."""
    __slots__ = ()

    def apply(self, grad):
        x, lo, hi = self.saved_tensors
        shape_x, shape_lo, shape_hi = self._ctx
        gx = glo = ghi = None
        if self.next_functions[0] is not None:
            keep = None
            if lo is not None:
                keep = x >= lo
            if hi is not None:
                keep = (x <= hi) if keep is None else keep & (x <= hi)
            gx = sum_to(where(keep, grad, 0), shape_x)
        if lo is not None and self.next_functions[1] is not None:
            chosen = (x < lo) & (lo < hi) if hi is not None else x < lo
            glo = sum_to(where(chosen, grad, 0), shape_lo)
        if hi is not None and self.next_functions[2] is not None:
            # when min > max PyTorch returns max everywhere, so max takes the gradient
            chosen = (x > hi) | (hi < lo) if lo is not None else x > hi
            ghi = sum_to(where(chosen, grad, 0), shape_hi)
        return gx, glo, ghi


class ClampMinBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (where(x >= self._ctx, grad, 0),)


class ClampMinBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        x, lo = self.saved_tensors
        shape_x, shape_lo = self._ctx
        gx = sum_to(where(x >= lo, grad, 0), shape_x) if self.next_functions[0] is not None else None
        glo = sum_to(where(x < lo, grad, 0), shape_lo) if self.next_functions[1] is not None else None
        return gx, glo


class ClampMaxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (where(x <= self._ctx, grad, 0),)


class ClampMaxBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        x, hi = self.saved_tensors
        shape_x, shape_hi = self._ctx
        gx = sum_to(where(x <= hi, grad, 0), shape_x) if self.next_functions[0] is not None else None
        ghi = sum_to(where(x > hi, grad, 0), shape_hi) if self.next_functions[1] is not None else None
        return gx, ghi


_PLAIN_BOUND = (float, int, type(None))


def _check_bound(value, name, fn):
    if value is None or isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Number) and not isinstance(value, complex):
        return value
    raise TypeError(f"{fn}(): argument '{name}' must be Number or Tensor, not {type(value).__name__}")


def _clamp_arrays(input, lo, hi, fn):
    """Arrays of ``input`` and the bounds, all in PyTorch's promoted dtype (Python-number bounds stay numbers)."""
    if not isinstance(input, Tensor):
        raise _type_error(fn, "input", input)
    data = input._data
    if data.dtype.kind == "c":
        raise RuntimeError(f"{fn} is not supported for complex types")
    rt = dt.result_type(input, *[b for b in (lo, hi) if b is not None]).np
    if data.dtype != rt:
        data = data.astype(rt)

    def cast(b):
        if b is None:
            return None
        if isinstance(b, Tensor):
            if b._data.dtype.kind == "c":
                raise RuntimeError(f"{fn} is not supported for complex types")
            if type(b._data) is not type(data):
                raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                                   f"devices, {input.device} and {b.device}!")
            return b._data if b._data.dtype == rt else b._data.astype(rt)
        return rt.type(b)

    return data, cast(lo), cast(hi)


def _clamp_forward(input, data, lo, hi):
    xp = input._xp
    out = data
    try:
        if lo is not None:
            out = xp.maximum(out, lo)
        if hi is not None:
            out = xp.minimum(out, hi)
    except ValueError:
        shapes = [data.shape] + [getattr(b, "shape", ()) for b in (lo, hi) if b is not None]
        raise broadcast_error(shapes[0], shapes[-1] if len(shapes) > 1 else ()) from None
    if out is data:
        out = data.copy()
    return wrap(out)


@tensor_method("clamp", "clip")
def clamp(input, min=None, max=None):
    """Clamp each element into ``[min, max]``; the bounds may be Python numbers or tensors (broadcast).

    When ``min > max`` every element becomes ``max``. NaN stays NaN. The gradient flows where
    ``min <= input <= max`` (and to a tensor bound where that bound was selected).
    """
    if type(min) in _PLAIN_BOUND and type(max) in _PLAIN_BOUND and isinstance(input, Tensor) and \
            input._data.dtype.kind == "f":
        # hot path: a float tensor and Python-number bounds need no promotion (NumPy keeps the tensor's dtype)
        if min is None and max is None:
            raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
        data = input._data
        lo, hi = min, max
    else:
        _check_bound(min, "min", "clamp")
        _check_bound(max, "max", "clamp")
        if min is None and max is None:
            raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
        data, lo, hi = _clamp_arrays(input, min, max, "clamp")
    out = _clamp_forward(input, data, lo, hi)
    if GRAD_ENABLED[0]:
        tmin = min if isinstance(min, Tensor) else None
        tmax = max if isinstance(max, Tensor) else None
        if tmin is None and tmax is None:
            if input._requires_grad:
                node = ClampBackward1()
                node.save(input)
                node._ctx = (min, max)
                record(node, out, input)
        elif input._requires_grad or (tmin is not None and tmin._requires_grad) or \
                (tmax is not None and tmax._requires_grad):
            # a number bound next to a tensor bound is saved as a zero-dim tensor
            tlo = tmin if tmin is not None or min is None else wrap(input._xp.asarray(lo, dtype=data.dtype))
            thi = tmax if tmax is not None or max is None else wrap(input._xp.asarray(hi, dtype=data.dtype))
            node = ClampBackward0()
            node.save(input, tlo, thi)
            node._ctx = (input._data.shape, () if tlo is None else tlo._data.shape,
                         () if thi is None else thi._data.shape)
            record(node, out, input, tmin, tmax)
    return out


clip = clamp


@tensor_method()
def clamp_min(input, min):
    """``max(input, min)`` elementwise; ``min`` is a number or a tensor."""
    _check_bound(min, "min", "clamp_min")
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be Number or Tensor, not NoneType")
    data, lo, _ = _clamp_arrays(input, min, None, "clamp_min")
    out = _clamp_forward(input, data, lo, None)
    if GRAD_ENABLED[0]:
        if isinstance(min, Tensor):
            if input._requires_grad or min._requires_grad:
                node = ClampMinBackward1()
                node.save(input, min)
                node._ctx = (input._data.shape, min._data.shape)
                record(node, out, input, min)
        elif input._requires_grad:
            node = ClampMinBackward0()
            node.save(input)
            node._ctx = min
            record(node, out, input)
    return out


@tensor_method()
def clamp_max(input, max):
    """``min(input, max)`` elementwise; ``max`` is a number or a tensor."""
    _check_bound(max, "max", "clamp_max")
    if max is None:
        raise TypeError("clamp_max(): argument 'max' must be Number or Tensor, not NoneType")
    data, _, hi = _clamp_arrays(input, None, max, "clamp_max")
    out = _clamp_forward(input, data, None, hi)
    if GRAD_ENABLED[0]:
        if isinstance(max, Tensor):
            if input._requires_grad or max._requires_grad:
                node = ClampMaxBackward1()
                node.save(input, max)
                node._ctx = (input._data.shape, max._data.shape)
                record(node, out, input, max)
        elif input._requires_grad:
            node = ClampMaxBackward0()
            node.save(input)
            node._ctx = max
            record(node, out, input)
    return out


# ------------------------------------------------------------------------------------------ maximum / minimum
class MaximumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self._ctx
        # ties split the gradient equally between the two inputs
        shared = where(a == b, grad / 2, grad)
        ga = sum_to(where(self._loses(a, b), 0, shared), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(where(self._loses(b, a), 0, shared), shape_b) if self.next_functions[1] is not None else None
        return ga, gb

    @staticmethod
    def _loses(x, y):
        return x < y


class MinimumBackward0(MaximumBackward0):
    __slots__ = ()

    @staticmethod
    def _loses(x, y):
        return x > y


class FmaxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self._ctx
        # the result came from `input` where it won (ties included) or where `other` is nan
        from_a = self._wins(a, b) | b.isnan()
        ga = sum_to(where(from_a, grad, 0), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(where(from_a, 0, grad), shape_b) if self.next_functions[1] is not None else None
        return ga, gb

    @staticmethod
    def _wins(x, y):
        return x >= y


class FminBackward0(FmaxBackward0):
    __slots__ = ()

    @staticmethod
    def _wins(x, y):
        return x <= y


def _binary_select(input, other, fn, node_cls):
    if not isinstance(input, Tensor):
        raise _type_error(fn, "input", input)
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input._data.dtype.kind == "c" or other._data.dtype.kind == "c":
        raise RuntimeError(f"{fn} not implemented for complex tensors.")
    a, b = binary_arrays(input, other)
    try:
        out = wrap(getattr(input._xp, fn)(a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = node_cls()
        node.save(input, other)
        node._ctx = (input._data.shape, other._data.shape)
        record(node, out, input, other)
    return out


@tensor_method()
def maximum(input, other):
    """Elementwise maximum of two tensors (NaN propagates); ties split the gradient equally."""
    return _binary_select(input, other, "maximum", MaximumBackward0)


@tensor_method()
def minimum(input, other):
    """Elementwise minimum of two tensors (NaN propagates); ties split the gradient equally."""
    return _binary_select(input, other, "minimum", MinimumBackward0)


@tensor_method()
def fmax(input, other):
    """Elementwise maximum that ignores NaN: where one side is NaN the other is returned."""
    return _binary_select(input, other, "fmax", FmaxBackward0)


@tensor_method()
def fmin(input, other):
    """Elementwise minimum that ignores NaN: where one side is NaN the other is returned."""
    return _binary_select(input, other, "fmin", FminBackward0)


# ---------------------------------------------------------------------------------------------------------- where
class WhereBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (cond,) = self.saved_tensors
        shape_a, shape_b, real_a, real_b = self._ctx
        ga = gb = None
        if self.next_functions[0] is not None:
            ga = where(cond, grad, 0)
            ga = sum_to(ga.real if real_a and ga.is_complex() else ga, shape_a)
        if self.next_functions[1] is not None:
            gb = where(cond, 0, grad)
            gb = sum_to(gb.real if real_b and gb.is_complex() else gb, shape_b)
        return ga, gb


def _where_arrays(input, other):
    it = isinstance(input, Tensor)
    ot = isinstance(other, Tensor)
    if not it and not isinstance(input, numbers.Number):
        raise TypeError(f"where(): argument 'input' must be Tensor or Number, not {type(input).__name__}")
    if not ot and not isinstance(other, numbers.Number):
        raise TypeError(f"where(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
    if it:
        return binary_arrays(input, other)
    if ot:
        b, a = binary_arrays(other, input)
        return a, b
    rt = dt.result_type(input, other).np
    return rt.type(input), rt.type(other)


@tensor_method("where")
def _where_method(self, condition, y):
    """``self.where(condition, y)`` is ``ember.where(condition, self, y)``."""
    return where(condition, self, y)


def where(condition, input=None, other=None):
    """Elements of ``input`` where ``condition`` is True, else of ``other`` (broadcast together).

    ``input`` and ``other`` may be tensors or Python numbers and are promoted like a binary op. With only
    ``condition``, returns ``condition.nonzero(as_tuple=True)``.
    """
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not "
                        f"{type(condition).__name__}")
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    c = condition._data
    if c.dtype.kind != "b":
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{dt.scalar_type_name(c.dtype)}")
    a, b = _where_arrays(input, other)
    xp = condition._xp
    try:
        out = wrap(xp.where(c, a, b))
    except ValueError:
        raise broadcast_error(getattr(a, "shape", ()), getattr(b, "shape", ())) from None
    if GRAD_ENABLED[0]:
        ti = input if isinstance(input, Tensor) else None
        to = other if isinstance(other, Tensor) else None
        if (ti is not None and ti._requires_grad) or (to is not None and to._requires_grad):
            node = WhereBackward0()
            node.save(condition)
            node._ctx = (() if ti is None else ti._data.shape, () if to is None else to._data.shape,
                         ti is not None and ti._data.dtype.kind != "c", to is not None and to._data.dtype.kind != "c")
            record(node, out, ti, to)
    return out


# ------------------------------------------------------------------------------------------------------------ lerp
class LerpBackward0(Node):
    """lerp with a Python-number weight."""
    __slots__ = ()

    def apply(self, grad):
        shape_a, shape_b, w = self._ctx
        wc = w.conjugate() if isinstance(w, complex) else w
        ga = sum_to(grad * (1 - wc), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * wc, shape_b) if self.next_functions[1] is not None else None
        return ga, gb


class LerpBackward1(Node):
    """lerp with a tensor weight."""
    __slots__ = ()

    def apply(self, grad):
        a, b, w = self.saved_tensors
        shape_a, shape_b, shape_w = self._ctx
        ga = sum_to(grad * _conj(1 - w), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * _conj(w), shape_b) if self.next_functions[1] is not None else None
        gw = sum_to(grad * _conj(b - a), shape_w) if self.next_functions[2] is not None else None
        return ga, gb, gw


@tensor_method()
def lerp(input, end, weight):
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` is a number or a tensor.

    As in PyTorch, weights of magnitude >= 0.5 use ``end - (end - input) * (1 - weight)`` so that
    ``lerp(a, b, 1) == b`` exactly.
    """
    if not isinstance(input, Tensor):
        raise _type_error("lerp", "input", input)
    if not isinstance(end, Tensor):
        raise _type_error("lerp", "end", end)
    if input._data.dtype != end._data.dtype:
        raise RuntimeError(f"expected dtype {input.dtype} for `end` but got dtype {end.dtype}")
    a, b = input._data, end._data
    xp = input._xp
    wt = isinstance(weight, Tensor)
    if wt:
        if weight._data.dtype != a.dtype:
            raise RuntimeError(f"expected dtype {input.dtype} for `weight` but got dtype {weight.dtype}")
        w = weight._data
    elif isinstance(weight, numbers.Number):
        w = weight
    else:
        raise TypeError(f"lerp(): argument 'weight' must be Number or Tensor, not {type(weight).__name__}")
    try:
        diff = b - a
        if wt:
            out = xp.where(xp.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))
        elif abs(w) < 0.5:
            out = a + w * diff
        else:
            out = b - diff * (1 - w)
    except ValueError:
        raise broadcast_error(a.shape, b.shape if not wt or a.shape == b.shape else w.shape) from None
    out = wrap(xp.asarray(out, dtype=a.dtype))
    if GRAD_ENABLED[0]:
        if wt and (input._requires_grad or end._requires_grad or weight._requires_grad):
            node = LerpBackward1()
            node.save(input, end, weight)
            node._ctx = (a.shape, b.shape, w.shape)
            record(node, out, input, end, weight)
        elif not wt and (input._requires_grad or end._requires_grad):
            node = LerpBackward0()
            node._ctx = (a.shape, b.shape, weight)
            record(node, out, input, end)
    return out


# ------------------------------------------------------------------------------------------------------------ relu
class ReluBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (where(self.saved_output() > 0, grad, 0),)


@tensor_method()
def relu(input):
    """Elementwise ``max(input, 0)`` (NaN stays NaN); the gradient is 1 where the output is positive."""
    if not isinstance(input, Tensor):
        raise _type_error("relu", "input", input)
    data = input._data
    if data.dtype.kind in "bc":
        raise _not_implemented("clamp_min_scalar", data)
    out = wrap(input._xp.maximum(data, 0))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ReluBackward0()
        node.save_output(out)
        record(node, out, input)
    return out


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
    x = xp.clip(a.astype(np.float32, copy=False), np.float32(-4.0), np.float32(4.0))
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


# ------------------------------------------------------------------------------------------------------ nan_to_num
class NanToNumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (grad * x.isfinite(),)


@tensor_method()
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (default: the dtype's largest and
    smallest finite values). Integer tensors are returned as a copy."""
    if not isinstance(input, Tensor):
        raise _type_error("nan_to_num", "input", input)
    data = input._data
    if data.dtype.kind in "biu":
        out = wrap(data.copy())
    else:
        out = wrap(input._xp.nan_to_num(data, nan=nan, posinf=posinf, neginf=neginf))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = NanToNumBackward0()
        node.save(input)
        record(node, out, input)
    return out


# ------------------------------------------------------------------------------------- hypot, xlogy, logaddexp
class HypotBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self._ctx
        out = self.saved_output()
        ga = sum_to(grad * a / out, shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * b / out, shape_b) if self.next_functions[1] is not None else None
        return ga, gb


@tensor_method()
def hypot(input, other):
    """Elementwise ``sqrt(input**2 + other**2)`` without intermediate overflow."""
    a, b, it, ot = _binary_floating(input, other, "hypot")
    try:
        out = wrap(input._xp.hypot(a, b))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and (input._requires_grad or other._requires_grad):
        node = HypotBackward0()
        node.save(input, other)
        node.save_output(out)
        node._ctx = _shapes(input, other)
        record(node, out, input, other)
    return out


class XlogyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        x, y = self.saved_tensors
        shape_x, shape_y = self._ctx
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
    a, b, it, ot = _binary_floating(input, other, "xlogy", scalars=True)
    xp = (it if it is not None else ot)._xp
    try:
        with np.errstate(all="ignore"):
            prod = a * xp.log(b)
            out = wrap(xp.where((a == 0) & ~xp.isnan(b), 0, prod).astype(prod.dtype, copy=False))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None
    if GRAD_ENABLED[0] and ((it is not None and it._requires_grad) or (ot is not None and ot._requires_grad)):
        # number operands are saved as zero-dim tensors so one rule serves all three overloads
        tx = it if it is not None else wrap(a)
        ty = ot if ot is not None else wrap(b)
        node = XlogyBackward0()
        node.save(tx, ty)
        node._ctx = (tx._data.shape, ty._data.shape)
        record(node, out, it, ot)
    return out


class LogaddexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self._ctx
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
        node._ctx = _shapes(input, other)
        record(node, out, input, other)
    return out


@tensor_method()
def logaddexp(input, other):
    """Elementwise ``log(exp(input) + exp(other))``, computed without overflow."""
    return _logaddexp_like(input, other, "logaddexp", lambda xp, a, b: xp.logaddexp(a, b), LogaddexpBackward0)


@tensor_method()
def logaddexp2(input, other):
    """Elementwise ``log2(2**input + 2**other)``, computed without overflow."""
    return _logaddexp_like(input, other, "logaddexp2", lambda xp, a, b: xp.logaddexp2(a, b), Logaddexp2Backward0)
