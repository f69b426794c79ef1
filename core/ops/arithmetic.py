"""Arithmetic ops: add, sub, mul, div, pow, neg, abs and remainder (the matrix products are in ``products.py``), and
``combinations`` of a vector's elements.

Each forward sits beside its backward node. Node names match PyTorch's (``<MulBackward0>``).
"""
from __future__ import annotations

import itertools
import numbers

import numpy as _np  # errstate, and the fast path's set of float and complex dtypes

from .. import dtypes as dt
from ..autograd.graph import Node
from ._base import (GRAD_ENABLED, Tensor, _edge, apply_inplace, binary_arrays, broadcast_error, check_tensor, record,
                    sum_to, tensor_method, wrap)
from ._elementwise import complex_abs, quiet_call, quiet_truediv
from .clamp_where import where
from .compare import signbit

__all__ = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
           "remainder", "fmod", "pow", "neg", "negative", "abs", "absolute", "rsub", "addcmul", "addcdiv",
           "copysign", "float_power", "positive", "gcd", "lcm", "combinations"]


def _other_tensor(other):
    return other if isinstance(other, Tensor) else None


def _conj(t):
    """``t.conj()`` for complex tensors: PyTorch's backward convention is ``grad * conj(derivative)``."""
    return t.conj() if t._data.dtype.kind == "c" else t


def _conj_scalar(v):
    return v.conjugate() if isinstance(v, complex) else v


# ---------------------------------------------------------------------------------------------------------- add/sub
class AddBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shape_a, shape_b, alpha = self.shape_a, self.shape_b, self.alpha
        gb = None
        if self.next_functions[1] is not None:
            gb = sum_to(grad if alpha == 1 else grad * alpha, shape_b)
        return sum_to(grad, shape_a), gb


class SubBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shape_a, shape_b, alpha = self.shape_a, self.shape_b, self.alpha
        gb = None
        if self.next_functions[1] is not None:
            gb = sum_to(-grad if alpha == 1 else grad * (-alpha), shape_b)
        return sum_to(grad, shape_a), gb


class RsubBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shape_a, shape_b, alpha = self.shape_a, self.shape_b, self.alpha
        gb = sum_to(grad, shape_b) if self.next_functions[1] is not None else None
        return sum_to(-grad if alpha == 1 else grad * (-alpha), shape_a), gb


def _add_like(input, other, alpha, node_cls, fn):
    a, b = binary_arrays(input, other)
    if alpha != 1:
        b = b * alpha
    try:
        out = wrap(fn(a, b))
    except ValueError:
        raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    if GRAD_ENABLED[0]:
        ot = other if isinstance(other, Tensor) else None
        if input._requires_grad or (ot is not None and ot._requires_grad):
            node = node_cls()
            node.shape_a, node.shape_b, node.alpha = input._data.shape, ot._data.shape if ot is not None else (), alpha
            record(node, out, input, ot)
    return out


def _add(a, b):
    return a + b


def _sub(a, b):
    return a - b


def _rsub(a, b):
    return b - a


@tensor_method()
def add(input, other, *, alpha=1):
    """``input + alpha * other``, broadcasting, with PyTorch's type promotion."""
    check_tensor(input, "input", "add")
    return _add_like(input, other, alpha, AddBackward0, _add)


@tensor_method("sub", "subtract")
def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    check_tensor(input, "input", "sub")
    if input._data.dtype.kind == "b" and isinstance(other, Tensor) and other._data.dtype.kind == "b":
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                           "`logical_xor()` operator instead.")
    return _add_like(input, other, alpha, SubBackward0, _sub)


subtract = sub


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (the reflected subtraction behind ``2 - x``)."""
    return _add_like(input, other, alpha, RsubBackward0, _rsub)


# -------------------------------------------------------------------------------------------------------------- mul
class MulBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b, scalar = self.shape_a, self.shape_b, self.scalar
        if b is None:
            return (grad * _conj_scalar(scalar),)
        ga = sum_to(grad * _conj(b), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * _conj(a), shape_b) if self.next_functions[1] is not None else None
        return ga, gb


def _record_product(node_cls, out, input, other) -> None:
    """Record mul/div: both operands are saved when ``other`` is a tensor; a scalar ``other`` is ``node.scalar``."""
    if isinstance(other, Tensor):
        if input._requires_grad or other._requires_grad:
            node = node_cls()
            node.save(input, other)
            node.shape_a, node.shape_b, node.scalar = input._data.shape, other._data.shape, None
            record(node, out, input, other)
    elif input._requires_grad:
        node = node_cls()
        node.save(None, None)
        node.shape_a, node.shape_b, node.scalar = input._data.shape, (), other
        record(node, out, input)


@tensor_method("mul", "multiply")
def mul(input, other):
    """Elementwise ``input * other``, broadcasting."""
    a, b = binary_arrays(input, other)
    try:
        out = wrap(a * b)
    except ValueError:
        raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    if GRAD_ENABLED[0]:
        _record_product(MulBackward0, out, input, other)
    return out


multiply = mul


# -------------------------------------------------------------------------------------------------------------- div
class DivBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b, scalar = self.shape_a, self.shape_b, self.scalar
        if b is None:
            return (grad / _conj_scalar(scalar),)
        ga = sum_to(grad / _conj(b), shape_a) if self.next_functions[0] is not None else None
        # PyTorch's order, (a / b) / b: b * b underflows for |b| < 1e-19 in float32 (a = 0 then gave NaN, not 0)
        gb = sum_to(-grad * _conj((a / b) / b), shape_b) if self.next_functions[1] is not None else None
        return ga, gb


def _true_div_arrays(input, other):
    a, b = binary_arrays(input, other)
    if a.dtype.kind in "iub" and (not hasattr(b, "dtype") or b.dtype.kind in "iub") and \
            not isinstance(b, (float, complex)):
        fd = dt.get_default_dtype().np
        a = a.astype(fd)
        b = b.astype(fd) if hasattr(b, "astype") else fd.type(b)
    return a, b


@tensor_method("div", "divide", "true_divide")
def div(input, other, *, rounding_mode=None):
    """``input / other``. ``rounding_mode`` None (true division), ``"trunc"`` or ``"floor"``."""
    check_tensor(input, "input", "div")
    if rounding_mode is not None:
        if rounding_mode not in ("trunc", "floor"):
            raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                             f"'{rounding_mode}'")
        a, b = binary_arrays(input, other)
        xp = input._xp
        if a.dtype.kind in "iu" and (not hasattr(b, "dtype") or b.dtype.kind in "iu") and \
                not isinstance(b, float):
            if xp.any(xp.asarray(b) == 0):
                raise RuntimeError("ZeroDivisionError")
            q = xp.floor_divide(a, b)
            if rounding_mode == "trunc":
                q = q + ((xp.remainder(a, b) != 0) & ((a < 0) != (xp.asarray(b) < 0)))
            return wrap(q.astype(a.dtype, copy=False))
        try:
            # floor: PyTorch's div_floor (NumPy's floor_divide is the same algorithm): the quotient is corrected
            # through fmod, so -0.5 // inf is -1 and 1e-30 // -1e30 is -1 (floor(a / b) gave -0 where a / b
            # rounds to zero)
            return wrap(quiet_call(_rounded_div, xp, a, b, rounding_mode))
        except ValueError:
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    a, b = _true_div_arrays(input, other)
    try:
        out = wrap(quiet_truediv(a, b))  # x / 0 is inf or nan without a warning, as in PyTorch
    except ValueError:
        raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    if GRAD_ENABLED[0]:
        _record_product(DivBackward0, out, input, other)
    return out


divide = true_divide = div


def _rounded_div(xp, a, b, rounding_mode):
    return xp.trunc(a / b) if rounding_mode == "trunc" else xp.floor_divide(a, b)


@tensor_method()
def floor_divide(input, other):
    """``floor(input / other)``, elementwise (not differentiable)."""
    return div(input, other, rounding_mode="floor")


# -------------------------------------------------------------------------------------------------------- remainder
class RemainderBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self.shape_a, self.shape_b
        ga = sum_to(grad, shape_a) if self.next_functions[0] is not None else None
        gb = None
        if b is not None and self.next_functions[1] is not None:
            gb = sum_to(-grad * div(a, b, rounding_mode=self._mode()), shape_b)
        return ga, gb

    def _mode(self):
        return "floor"


class FmodBackward0(RemainderBackward0):
    __slots__ = ()

    def _mode(self):
        return "trunc"


def _mod_like(input, other, fn, node_cls):
    a, b = binary_arrays(input, other)
    try:
        out = wrap(fn(a, b))
    except ValueError:
        raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    ot = _other_tensor(other)
    if GRAD_ENABLED[0] and (input._requires_grad or (ot is not None and ot._requires_grad)):
        node = node_cls()
        node.save(input, ot)
        node.shape_a, node.shape_b = input._data.shape, ot._data.shape if ot is not None else ()
        record(node, out, input, ot)
    return out


@tensor_method()
def remainder(input, other):
    """Python-style modulus: a non-zero result has the sign of ``other``."""
    return _mod_like(input, other, lambda a, b: _remainder_kernel(input._xp, a, b), RemainderBackward0)


def _remainder_kernel(xp, a, b):
    """PyTorch's floating remainder: ``fmod``, then ``+ b`` where a non-zero result's sign differs from ``b``'s. A zero
    result keeps ``fmod``'s sign, i.e. ``input``'s (``remainder(-3., 3.)`` is ``-0.``), where NumPy's takes ``b``'s."""
    if a.dtype.kind != "f":
        return xp.remainder(a, b)
    with _np.errstate(invalid="ignore", divide="ignore"):
        mod = xp.fmod(a, b)
        fix = (mod != 0) & ((xp.asarray(b) < 0) != (mod < 0))
        if fix.any():
            mod = xp.where(fix, mod + b, mod)
    return mod


@tensor_method()
def fmod(input, other):
    """C-style modulus: the result has the sign of ``input``."""
    return _mod_like(input, other, lambda a, b: input._xp.fmod(a, b), FmodBackward0)


# -------------------------------------------------------------------------------------------------------------- pow
class PowBackward0(Node):
    """Tensor ** scalar."""
    __slots__ = ()

    def apply(self, grad):
        (a,) = self.saved_tensors
        p = self.p
        if p == 0:
            return (grad * 0,)
        if p == 1:
            return (grad,)
        if p == 2:  # the common square: no general power in the backward
            return (grad * _conj(a * 2),)
        return (grad * _conj((a ** (p - 1)) * p),)


class PowBackward1(Node):
    """Tensor ** Tensor (and scalar ** Tensor)."""
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        out = self.saved_output()
        shape_a, shape_b, base = self.shape_a, self.shape_b, self.base
        ga = gb = None
        if a is not None and self.next_functions[0] is not None:
            ga = sum_to(grad * _conj(b * where_nonzero_pow(a, b)), shape_a)
        if self.next_functions[1] is not None:
            log_a = (a if a is not None else wrap(out._xp.asarray(base, dtype=out._data.dtype))).log()
            # d/db a**b = a**b * log(a); PyTorch masks the 0**b (b >= 0) case to 0 instead of nan
            with out._xp.errstate(invalid="ignore"):
                term = grad * _conj(out * log_a)
            if a is not None:
                term = term.masked_fill((a == 0) & (b >= 0), 0)
            elif base == 0:
                term = term * 0
            gb = sum_to(term, shape_b)
        return ga, gb


def where_nonzero_pow(a, b):
    """``a ** (b - 1)``, the factor in d(a**b)/da, with PyTorch's 0 for b == 0."""
    return (a ** (b - 1)).masked_fill(b == 0, 0)


@tensor_method()
def pow(input, exponent):
    """``input ** exponent``; either may be a Python number (then ``ember.pow(2, x)``)."""
    if not isinstance(input, Tensor):
        return _scalar_pow(input, exponent)
    if isinstance(exponent, Tensor):
        a, b = binary_arrays(input, exponent)
        xp = input._xp
        if a.dtype.kind in "iu" and b.dtype.kind in "iu" and xp.any(b < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        try:
            out = wrap(a ** b)
        except ValueError:
            raise broadcast_error(a.shape, b.shape) from None
        if GRAD_ENABLED[0] and (input._requires_grad or exponent._requires_grad):
            node = PowBackward1()
            node.save(input, exponent)
            node.save_output(out)
            node.shape_a, node.shape_b, node.base = input._data.shape, exponent._data.shape, None
            record(node, out, input, exponent)
        return out
    if not isinstance(exponent, numbers.Number):
        raise TypeError(f"pow(): argument 'exponent' must be Tensor or Number, not {type(exponent).__name__}")
    a, b = binary_arrays(input, exponent)
    if a.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    out = wrap(_power_by_number(input._xp, a, b))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = PowBackward0()
        node.save(input)
        node.p = exponent
        record(node, out, input)
    return out


# NumPy's power with an integer-valued exponent runs a loop ~40x slower than a multiply (float32: 75-90 ns per
# element, against 2 ns for an exponent of 1.5). For float32/float16 and integer exponents up to this size, the power
# is a product by repeated squaring in float64, rounded once to the input's dtype: as accurate as ``pow``.
_MAX_MULTIPLIED_EXPONENT = 64


def _integer_power(a, n: int):
    """``a ** n`` for an integer ``n >= 2`` by repeated squaring (a fresh array)."""
    result, square = None, a
    while True:
        if n & 1:
            result = square if result is None else result * square
        n >>= 1
        if not n:
            return result
        square = square * square


def _power_by_number(xp, a, b):
    """``a ** b`` for a number ``b``, with PyTorch's special cases for real floats (``pow_tensor_scalar``): 2 and 3
    are products (``a*a``, ``a*a*a``), -2 is ``1 / (a*a)``, 0.5, -0.5 and -1 are ``sqrt``, ``1 / sqrt`` and
    ``1 / a``."""
    if b == 2:
        return a * a
    if a.dtype.kind != "f" or isinstance(b, complex):
        return a ** b
    if b == 3:
        return a * a * a
    if b == 0.5:
        return xp.sqrt(a)
    if b == -0.5:
        return 1 / xp.sqrt(a)
    if b == -1:
        return 1 / a
    if b == -2:
        return 1 / (a * a)
    n = float(b)
    size = -n if n < 0 else n  # (this module's ``abs`` is the tensor op)
    if a.dtype.itemsize < 8 and n.is_integer() and 1 < size <= _MAX_MULTIPLIED_EXPONENT:
        wide = _integer_power(a.astype(xp.float64), int(size))
        return (wide if n > 0 else 1 / wide).astype(a.dtype)
    return a ** b


def _scalar_pow(base, exponent):
    check_tensor(exponent, "exponent", "pow")
    rt = dt.result_type(base, exponent)
    e = exponent._data.astype(rt.np, copy=False)
    out = wrap(rt.np.type(base) ** e)
    if GRAD_ENABLED[0] and exponent._requires_grad:
        node = PowBackward1()
        node.save(None, exponent)
        node.save_output(out)
        node.shape_a, node.shape_b, node.base = (), exponent._data.shape, base
        record(node, out, None, exponent)
    return out


# ---------------------------------------------------------------------------------------------------- neg and abs
class NegBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (-grad,)


@tensor_method("neg", "negative", "__neg__")
def neg(input):
    """``-input``."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    out = wrap(-input._data)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(NegBackward0(), out, input)
    return out


negative = neg


class AbsBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (a,) = self.saved_tensors
        if a.is_complex():
            # PyTorch's convention for complex abs: grad * a / |a| (0 where a == 0)
            mag = a.abs()
            return (grad * a / mag.masked_fill(mag == 0, 1),)
        return (grad * a.sign(),)


@tensor_method("abs", "absolute", "__abs__")
def abs(input):
    """Elementwise absolute value (the magnitude for complex input)."""
    out = wrap(complex_abs(input._xp, input._data))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = AbsBackward0()
        node.save(input)
        record(node, out, input)
    return out


absolute = abs


# ------------------------------------------------------------------------------------------------------ operators
# The operators take a fast path for the overwhelmingly common case (two tensors of one dtype on one device): no
# promotion, no keyword handling, one node. Anything else falls back to the full function.
def _fast_binary(full, node_cls, ufunc_name):
    import operator
    ufunc = getattr(operator, ufunc_name)
    if ufunc_name == "truediv":  # x / 0 is inf or nan without a warning, as in PyTorch (~0.5 us, division only)
        ufunc = quiet_truediv
    saves_inputs = node_cls is not AddBackward0 and node_cls is not SubBackward0
    inexact = frozenset(_np.dtype(c) for c in "efdgFDG")  # the float and complex dtypes: a set test beats .kind

    def op(self, other):
        try:
            b = other._data
        except AttributeError:
            return full(self, other)
        a = self._data
        # other dtypes (ints for true division, bools) need the full op's promotion and checks; the dtype is read
        # once (an ndarray attribute lookup is a measurable part of a one-element op)
        dtype = a.dtype
        if dtype is not b.dtype or type(a) is not type(b) or dtype not in inexact:
            return full(self, other)
        try:
            data = ufunc(a, b)
        except ValueError:
            raise broadcast_error(a.shape, b.shape) from None
        out = wrap(data)
        if GRAD_ENABLED[0] and (self._requires_grad or other._requires_grad):
            node = node_cls()
            node.shape_a, node.shape_b = a.shape, b.shape
            if saves_inputs:
                node.save(self, other)
                node.scalar = None
            else:
                node.alpha = 1
            # record(node, out, self, other), inlined: both inputs have the output's dtype, so a complex output has
            # no real input to mark
            node.next_functions = (_edge(self), _edge(other))
            out._requires_grad = True
            out.grad_fn = node
        return out
    op.__name__ = f"__{ufunc_name}__"
    return op


def _radd(self, other):
    return add(self, other)


def _rmul(self, other):
    return mul(self, other)


def _rsub_op(self, other):
    return rsub(self, other)


def _rtruediv(self, other):
    return mul(self.reciprocal(), other)


def _rpow(self, other):
    return _scalar_pow(other, self)


def _rfloordiv(self, other):
    from .creation import as_tensor
    return floor_divide(as_tensor(other, dtype=dt.result_type(self, other)), self)


def _rmod(self, other):
    from .creation import as_tensor
    return remainder(as_tensor(other, dtype=dt.result_type(self, other)), self)


Tensor.__add__ = _fast_binary(add, AddBackward0, "add")
Tensor.__radd__ = _radd
Tensor.__sub__ = _fast_binary(sub, SubBackward0, "sub")
Tensor.__rsub__ = _rsub_op
Tensor.__mul__ = _fast_binary(mul, MulBackward0, "mul")
Tensor.__rmul__ = _rmul
Tensor.__truediv__ = _fast_binary(div, DivBackward0, "truediv")
Tensor.__rtruediv__ = _rtruediv
Tensor.__floordiv__ = floor_divide
Tensor.__rfloordiv__ = _rfloordiv
Tensor.__mod__ = remainder
Tensor.__rmod__ = _rmod
Tensor.__pow__ = pow
Tensor.__rpow__ = _rpow
Tensor.__pos__ = lambda self: self


# ------------------------------------------------------------------------------------------- addcmul, addcdiv
def _addc(fn, input, tensor1, tensor2, value, combine):
    """``input + value * tensor1 (combine) tensor2`` composed from ember ops in PyTorch's order (``value`` times
    ``tensor1`` first), so every operand gets its gradient; ``value`` takes the result's dtype, as PyTorch casts
    the scalar to the tensors' type (an int result uses ``int(value)``)."""
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        check_tensor(t, name, fn)
    kind = dt.result_type(input, tensor1, tensor2).category
    if combine is div and kind in (dt.BOOL, dt.INT):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
            "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
            "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    if kind in (dt.BOOL, dt.INT):
        value = int(value)
    return add(input, combine(mul(tensor1, value), tensor2))


@tensor_method()
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``, elementwise with broadcasting (optimizers' second-moment update)."""
    return _addc("addcmul", input, tensor1, tensor2, value, mul)


@tensor_method()
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``, elementwise with broadcasting; integer tensors are refused, as in
    PyTorch."""
    return _addc("addcdiv", input, tensor1, tensor2, value, div)


# ------------------------------------------------------------------------------ copysign, float_power, gcd, lcm
@tensor_method()
def copysign(input, other):
    """``|input|`` with the sign of ``other`` (-0.0 counts as negative); integers give the default float dtype.
    The gradient for ``input`` is ``sign(input) * sign(result)`` (0 where input is 0), none flows to ``other``, as
    in PyTorch."""
    check_tensor(input, "input", "copysign")
    result = dt.result_type(input, other)
    if result.category in (dt.BOOL, dt.INT):
        result = dt.get_default_dtype()
    size = abs(input if input.dtype == result else input.to(result))
    if not isinstance(other, Tensor):
        return -size if _np.signbit(other) else size
    return where(signbit(other), -size, size)


@tensor_method()
def float_power(input, exponent):
    """``input ** exponent`` computed in double precision (float64, or complex128 for complex operands), as
    PyTorch's ``float_power``; either may be a number."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): expected a Tensor as 'input' or 'exponent'")
    wide = _double_operands(input, exponent)

    def widen(v):
        return v.to(wide) if isinstance(v, Tensor) else v
    if not isinstance(input, Tensor):  # pow needs a tensor base
        from .creation import tensor
        input = tensor(input, dtype=wide)
    return pow(widen(input), widen(exponent))


def _double_operands(input, exponent):
    complex_ = any(isinstance(v, complex) or (isinstance(v, Tensor) and v.is_complex()) for v in (input, exponent))
    return dt.complex128 if complex_ else dt.float64


def _float_power_(self, exponent):
    """In-place :func:`float_power`: the tensor must already have the double dtype of the result, as in PyTorch."""
    wide = _double_operands(self, exponent)
    if self.dtype != wide:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.scalar_name} but the operation's "
                           f"result requires dtype {wide.scalar_name}")
    return apply_inplace(self, float_power, exponent)


Tensor.float_power_ = _float_power_


@tensor_method()
def positive(input):
    """``input`` itself (``+input``); bool tensors are refused, as in PyTorch."""
    check_tensor(input, "input", "positive")
    if input.dtype is dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _integer_only(fn, input, other, ufunc):
    check_tensor(input, "input", fn)
    a, b = binary_arrays(input, other)
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f'"{fn}_cpu" not implemented for \'{input.dtype.scalar_name}\'')
    return wrap(input._xp.asarray(ufunc(a, b)))


@tensor_method()
def gcd(input, other):
    """The greatest common divisor of integer tensors, elementwise (non-negative; gcd(0, 0) = 0)."""
    return _integer_only("gcd", input, other, input._xp.gcd)


@tensor_method()
def lcm(input, other):
    """The least common multiple of integer tensors, elementwise (non-negative; 0 if either is 0)."""
    return _integer_only("lcm", input, other, input._xp.lcm)


# --------------------------------------------------------------------------------------------------- combinations
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of the elements of the 1-D ``input``, as the rows of a ``(count, r)`` tensor in
    lexicographic order of positions (``itertools.combinations``, or ``combinations_with_replacement``).
    Differentiable: each row gathers its elements."""
    if not isinstance(input, Tensor):
        raise TypeError(f"combinations(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input._data.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return wrap(input._xp.empty((0,), dtype=input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    # the positions are metadata, built on the host, then moved to the input's device
    rows = _np.fromiter(itertools.chain.from_iterable(pick(range(input._data.shape[0]), r)), dtype=_np.int64)
    return input[wrap(input._xp.asarray(rows.reshape(-1, r)))]
