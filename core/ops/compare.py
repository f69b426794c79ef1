"""Comparison, logical and bitwise ops, and the ``isnan``/``isclose``/``equal`` family. None is differentiable.

Comparisons promote their operands like arithmetic (``int_tensor == 2.5`` compares in float) and return bool
tensors. As in PyTorch, ``t == None`` is False and ``t != None`` True (the operators give way to Python's default
for operands that are not numbers, arrays or tensors), while ``ember.eq(t, None)`` is a TypeError.
"""
from __future__ import annotations

import numbers
import operator

import numpy as np

from .. import dtypes as dt
from ..device import array_module
from ._base import Tensor, binary_arrays, broadcast_error, tensor_method, wrap
from ._elementwise import complex_abs

__all__ = ["eq", "ne", "gt", "ge", "lt", "le", "greater", "greater_equal", "less", "less_equal", "not_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "isnan", "isinf", "isposinf", "isneginf",
           "isfinite", "isreal", "isclose", "allclose", "equal", "isin", "signbit"]


def _type_error(fn, name, value, position=None):
    pos = f" (position {position})" if position else ""
    return TypeError(f"{fn}(): argument '{name}'{pos} must be Tensor, not {type(value).__name__}")


def _not_implemented(kernel, dtype):
    return RuntimeError(f"\"{kernel}_cpu\" not implemented for '{dt.scalar_type_name(dtype)}'")


def _operands(input, other, fn):
    """Promoted arrays of a binary op whose ``other`` may be a tensor, an array or a Python number."""
    if not isinstance(input, Tensor):
        raise _type_error(fn, "input", input, 1)
    tp = type(other)
    if tp is not float and tp is not int and tp is not Tensor and \
            not isinstance(other, (Tensor, numbers.Number, np.ndarray)):
        raise TypeError(f"{fn}(): argument 'other' (position 2) must be Tensor or Number, not "
                        f"{type(other).__name__}")
    return binary_arrays(input, other)


# ------------------------------------------------------------------------------------------------- comparisons
def _comparison(name, kernel, ordered):
    def op(input, other):
        a, b = _operands(input, other, name)
        if ordered and a.dtype.kind == "c":
            raise _not_implemented(name, a.dtype)
        try:
            return wrap(kernel(a, b))
        except ValueError:
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise ``{name}`` comparison of ``input`` with ``other`` (a tensor or a number), "
                  f"broadcasting; returns a bool tensor.")
    return op


eq = tensor_method("eq")(_comparison("eq", operator.eq, False))
ne = not_equal = tensor_method("ne", "not_equal")(_comparison("ne", operator.ne, False))
gt = greater = tensor_method("gt", "greater")(_comparison("gt", operator.gt, True))
ge = greater_equal = tensor_method("ge", "greater_equal")(_comparison("ge", operator.ge, True))
lt = less = tensor_method("lt", "less")(_comparison("lt", operator.lt, True))
le = less_equal = tensor_method("le", "less_equal")(_comparison("le", operator.le, True))


def _operator(fn):
    """Bind ``fn`` as an operator that returns NotImplemented for operands it cannot take (Python then falls back:
    ``==`` to identity, so ``t == None`` is False; ``<`` to a TypeError naming both types)."""
    def method(self, other):
        tp = type(other)
        if tp is float or tp is int or tp is Tensor or isinstance(other, (Tensor, numbers.Number, np.ndarray)):
            return fn(self, other)
        return NotImplemented
    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


Tensor.__eq__ = _operator(eq)
Tensor.__ne__ = _operator(ne)
Tensor.__gt__ = _operator(gt)
Tensor.__ge__ = _operator(ge)
Tensor.__lt__ = _operator(lt)
Tensor.__le__ = _operator(le)
Tensor.__hash__ = object.__hash__  # defining __eq__ would otherwise make tensors unhashable


# ----------------------------------------------------------------------------------------------------- logical
def _logical(name, kernel):
    def op(input, other):
        if not isinstance(input, Tensor):
            raise _type_error(name, "input", input, 1)
        if not isinstance(other, Tensor):
            raise _type_error(name, "other", other, 2)
        a, b = input._data, other._data
        if type(a) is not type(b):
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{input.device} and {other.device}!")
        try:
            return wrap(kernel(input._xp, a, b))
        except ValueError:
            raise broadcast_error(a.shape, b.shape) from None

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise ``{name.split('_')[1]}`` of the truth values of ``input`` and ``other`` (nonzero is "
                  f"True), broadcasting; returns a bool tensor.")
    return tensor_method(name)(op)


logical_and = _logical("logical_and", lambda xp, a, b: xp.logical_and(a, b))
logical_or = _logical("logical_or", lambda xp, a, b: xp.logical_or(a, b))
logical_xor = _logical("logical_xor", lambda xp, a, b: xp.logical_xor(a, b))


@tensor_method()
def logical_not(input):
    """Elementwise logical NOT (zero becomes True, nonzero False); returns a bool tensor."""
    if not isinstance(input, Tensor):
        raise _type_error("logical_not", "input", input, 1)
    return wrap(input._xp.logical_not(input._data))


# ----------------------------------------------------------------------------------------------------- bitwise
def _bitwise(name, ufunc_name, doc):
    def op(input, other):
        a, b = _operands(input, other, name)
        dtype = a.dtype if hasattr(a, "dtype") else np.dtype(type(a))
        if dtype.kind not in "biu":
            raise _not_implemented(name, dtype)
        if name.endswith("shift") and dtype.kind == "b":
            raise _not_implemented(name, dtype)
        try:
            return wrap(getattr(input._xp, ufunc_name)(a, b))
        except ValueError:
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name)(op)


bitwise_and = _bitwise("bitwise_and", "bitwise_and",
                       "Elementwise bitwise AND of integer or bool tensors (``input & other``).")
bitwise_or = _bitwise("bitwise_or", "bitwise_or",
                      "Elementwise bitwise OR of integer or bool tensors (``input | other``).")
bitwise_xor = _bitwise("bitwise_xor", "bitwise_xor",
                       "Elementwise bitwise XOR of integer or bool tensors (``input ^ other``).")
bitwise_left_shift = _bitwise("bitwise_left_shift", "left_shift",
                              "Elementwise ``input << other`` for integer tensors.")
bitwise_right_shift = _bitwise("bitwise_right_shift", "right_shift",
                               "Elementwise arithmetic ``input >> other`` for integer tensors.")


@tensor_method()
def bitwise_not(input):
    """Elementwise bitwise NOT (``~input``): logical NOT for bool tensors, two's complement inversion for ints."""
    if not isinstance(input, Tensor):
        raise _type_error("bitwise_not", "input", input, 1)
    data = input._data
    if data.dtype.kind not in "biu":
        raise _not_implemented("bitwise_not", data.dtype)
    return wrap(input._xp.invert(data))


def _reflected(fn):
    """``number OP tensor``: turn the number into a zero-dim tensor of the promoted dtype, then apply ``fn``."""
    def method(self, other):
        if not isinstance(other, (numbers.Number, np.ndarray)):
            return NotImplemented
        left = wrap(self._xp.asarray(other, dtype=dt.result_type(self, other).np))
        return fn(left, self)
    return method


Tensor.__and__ = _operator(bitwise_and)
Tensor.__or__ = _operator(bitwise_or)
Tensor.__xor__ = _operator(bitwise_xor)
Tensor.__lshift__ = _operator(bitwise_left_shift)
Tensor.__rshift__ = _operator(bitwise_right_shift)
Tensor.__rand__ = _reflected(bitwise_and)
Tensor.__ror__ = _reflected(bitwise_or)
Tensor.__rxor__ = _reflected(bitwise_xor)
Tensor.__rlshift__ = _reflected(bitwise_left_shift)
Tensor.__rrshift__ = _reflected(bitwise_right_shift)
Tensor.__invert__ = bitwise_not


# ------------------------------------------------------------------------------------------ floating-point classes
def _classifier(name, kernel, doc, real_only=False):
    def op(input):
        if not isinstance(input, Tensor):
            raise _type_error(name, "input", input, 1)
        data = input._data
        if real_only and data.dtype.kind == "c":
            raise RuntimeError(f"{name} does not support complex inputs.")
        return wrap(kernel(input._xp, data))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name)(op)


isnan = _classifier("isnan", lambda xp, a: xp.isnan(a), "True where ``input`` is NaN (bool tensor).")
isinf = _classifier("isinf", lambda xp, a: xp.isinf(a), "True where ``input`` is +inf or -inf (bool tensor).")
isposinf = _classifier("isposinf", lambda xp, a: xp.isposinf(a), "True where ``input`` is +inf (bool tensor).",
                       real_only=True)
isneginf = _classifier("isneginf", lambda xp, a: xp.isneginf(a), "True where ``input`` is -inf (bool tensor).",
                       real_only=True)
isfinite = _classifier("isfinite", lambda xp, a: xp.isfinite(a),
                       "True where ``input`` is finite: not NaN and not ±inf (bool tensor).")
isreal = _classifier("isreal", lambda xp, a: (a.imag == 0) if a.dtype.kind == "c" else xp.ones(a.shape, bool),
                     "True where ``input`` has a zero imaginary part; every element of a real tensor is real.")


# ------------------------------------------------------------------------------------------------- closeness
@tensor_method()
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (equal values, including infinities, are close).

    Both tensors must have the same dtype. NaNs are close to each other only with ``equal_nan=True``.
    """
    if not isinstance(input, Tensor):
        raise _type_error("isclose", "input", input, 1)
    if not isinstance(other, Tensor):
        raise _type_error("isclose", "other", other, 2)
    a, b = input._data, other._data
    if a.dtype != b.dtype:
        raise RuntimeError(f"{dt.scalar_type_name(a.dtype)} did not match {dt.scalar_type_name(b.dtype)}")
    try:
        return wrap(isclose_arrays(a, b, rtol, atol, equal_nan))
    except ValueError:
        raise broadcast_error(a.shape, b.shape) from None


def isclose_arrays(a, b, rtol, atol, equal_nan):
    """``torch.isclose`` on two arrays of one dtype, rounding where PyTorch rounds, so that values at the edge of
    the tolerance fall on the same side as in PyTorch (``isclose`` and ``ember.testing.assert_close`` use it)."""
    if not isinstance(equal_nan, (bool, np.bool_)):
        raise TypeError(f"isclose(): argument 'equal_nan' must be bool, not {type(equal_nan).__name__}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    xp = array_module(a, b)
    with np.errstate(all="ignore"):  # inf - inf and overflowing tolerances are part of the rules, not accidents
        close = a == b
        if equal_nan and a.dtype.kind in "fc":
            close = close | (xp.isnan(a) & xp.isnan(b))
        if rtol == 0 and atol == 0:
            return close
        if a.dtype.kind in "biu":
            # bools and integers are measured in the default float dtype (so 2**24 + 1 is close to 2**24 in
            # float32, and int8 differences cannot wrap), as PyTorch 2.13 measures them
            fd = dt.get_default_dtype().np
            a, b = a.astype(fd), b.astype(fd)
        if a.dtype == np.float16:
            # PyTorch's half kernels compute in float32 and round each result to half
            f32 = np.float32
            scaled = xp.abs((f32(rtol) * b.astype(f32)).astype(np.float16))
            allowed = (f32(atol) + scaled.astype(f32)).astype(np.float16)
            actual = xp.abs(a - b)
        else:
            scaled = complex_abs(xp, a.dtype.type(rtol) * b)  # the tolerances are cast to the dtype, as PyTorch's are
            allowed = scaled.dtype.type(atol) + scaled
            actual = complex_abs(xp, a - b)
        return close | (xp.isfinite(actual) & (actual <= allowed))


@tensor_method()
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """True if every element of ``input`` is close to ``other`` (see :func:`isclose`); a Python bool."""
    return bool(isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)._data.all())


@tensor_method()
def equal(input, other) -> bool:
    """True if ``input`` and ``other`` have the same shape and the same elements (NaN is never equal)."""
    if not isinstance(input, Tensor):
        raise _type_error("equal", "input", input, 1)
    if not isinstance(other, Tensor):
        raise _type_error("equal", "other", other, 2)
    if input._data.shape != other._data.shape:
        return False
    a, b = binary_arrays(input, other)
    return bool((a == b).all())


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """A bool tensor shaped like ``elements``: whether each element is in ``test_elements`` (either may be a
    number, not both). Compared after promotion, as ``==`` compares, so NaN is in nothing; ``invert`` negates."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(f"isin() received an invalid combination of arguments - got "
                        f"({type(elements).__name__}, {type(test_elements).__name__}): pass a Tensor as "
                        "'elements' or 'test_elements'")
    like = elements if isinstance(elements, Tensor) else test_elements
    a, b = binary_arrays(like, test_elements if like is elements else elements)
    if like is not elements:
        a, b = b, a
    xp = like._xp
    return wrap(xp.asarray(xp.isin(a, b, assume_unique=assume_unique, invert=invert)))


@tensor_method()
def signbit(input):
    """A bool tensor: whether each element's sign bit is set (True for -0.0; for integers, whether negative)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"signbit(): argument 'input' must be Tensor, not {type(input).__name__}")
    data, xp = input._data, input._xp
    if data.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    return wrap(xp.asarray(xp.signbit(data) if data.dtype.kind == "f" else data < 0))
