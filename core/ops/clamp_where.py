"""Elementwise selection between values: ``clamp`` (``clip``), ``clamp_min``, ``clamp_max``, ``maximum``/``minimum``,
the NaN-ignoring ``fmax``/``fmin``, ``where``, ``lerp``, ``relu``, ``nan_to_num`` and the step function
``heaviside``.

Every op is a function (``ember.clamp``) and a Tensor method (``t.clamp()``), each forward beside its backward node.
Operands are promoted like a binary op (PyTorch's rules) and broadcast. The gradient flows to whichever operand
was selected: ``maximum``/``minimum`` split it equally on ties, and a tensor bound of ``clamp`` receives it where
that bound was chosen. Backward rules are written with ember ops, so ``create_graph=True`` differentiates them again.
"""
from __future__ import annotations

import numbers

from .. import dtypes as dt, threads
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, binary_arrays, broadcast_error, record, sum_to, tensor_method, \
    wrap
from ._bounds import clamped
from ._select import select
from ._elementwise import _conj, _not_implemented, _type_error

__all__ = ["clamp", "clip", "clamp_min", "clamp_max", "maximum", "minimum", "fmax", "fmin", "where", "lerp", "relu",
           "nan_to_num", "heaviside"]


# ---------------------------------------------------------------------------------------------------------- clamp
class ClampBackward1(Node):
    """clamp with Python-number bounds."""
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        lo, hi = self.lo, self.hi
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
        shape_x, shape_lo, shape_hi = self.shape_x, self.shape_lo, self.shape_hi
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
        return (where(x >= self.bound, grad, 0),)


class ClampMinBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        x, lo = self.saved_tensors
        shape_x, shape_lo = self.shape_x, self.shape_bound
        gx = sum_to(where(x >= lo, grad, 0), shape_x) if self.next_functions[0] is not None else None
        glo = sum_to(where(x < lo, grad, 0), shape_lo) if self.next_functions[1] is not None else None
        return gx, glo


class ClampMaxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        return (where(x <= self.bound, grad, 0),)


class ClampMaxBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        x, hi = self.saved_tensors
        shape_x, shape_hi = self.shape_x, self.shape_bound
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
    if not isinstance(lo, input._xp.ndarray) and not isinstance(hi, input._xp.ndarray):
        return wrap(clamped(data, lo, hi))  # number bounds
    xp = input._xp
    out = data
    try:  # the bounds first: NumPy returns the second operand of a tie, so ties keep the input (PyTorch's rule)
        if lo is not None:
            out = xp.maximum(lo, out)
        if hi is not None:
            out = xp.minimum(hi, out)
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
                node.lo, node.hi = min, max
                record(node, out, input)
        elif input._requires_grad or (tmin is not None and tmin._requires_grad) or \
                (tmax is not None and tmax._requires_grad):
            # a number bound next to a tensor bound is saved as a zero-dim tensor
            tlo = tmin if tmin is not None or min is None else wrap(input._xp.asarray(lo, dtype=data.dtype))
            thi = tmax if tmax is not None or max is None else wrap(input._xp.asarray(hi, dtype=data.dtype))
            node = ClampBackward0()
            node.save(input, tlo, thi)
            node.shape_x = input._data.shape
            node.shape_lo = () if tlo is None else tlo._data.shape
            node.shape_hi = () if thi is None else thi._data.shape
            record(node, out, input, tmin, tmax)
    return out


clip = clamp


def _record_bound(tensor_node, scalar_node, out, input, bound) -> None:
    """Record clamp_min/clamp_max: a tensor bound is an input of its own, a number goes in ``node.bound``."""
    if isinstance(bound, Tensor):
        if input._requires_grad or bound._requires_grad:
            node = tensor_node()
            node.save(input, bound)
            node.shape_x, node.shape_bound = input._data.shape, bound._data.shape
            record(node, out, input, bound)
    elif input._requires_grad:
        node = scalar_node()
        node.save(input)
        node.bound = bound
        record(node, out, input)


@tensor_method()
def clamp_min(input, min):
    """``max(input, min)`` elementwise; ``min`` is a number or a tensor."""
    _check_bound(min, "min", "clamp_min")
    if min is None:
        raise TypeError("clamp_min(): argument 'min' must be Number or Tensor, not NoneType")
    data, lo, _ = _clamp_arrays(input, min, None, "clamp_min")
    out = _clamp_forward(input, data, lo, None)
    if GRAD_ENABLED[0]:
        _record_bound(ClampMinBackward1, ClampMinBackward0, out, input, min)
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
        _record_bound(ClampMaxBackward1, ClampMaxBackward0, out, input, max)
    return out


# ------------------------------------------------------------------------------------------ maximum / minimum
class MaximumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        a, b = self.saved_tensors
        shape_a, shape_b = self.shape_a, self.shape_b
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
        shape_a, shape_b = self.shape_a, self.shape_b
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
        node.shape_a, node.shape_b = input._data.shape, other._data.shape
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
        shape_a, shape_b, real_a, real_b = self.shape_a, self.shape_b, self.real_a, self.real_b
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
    try:
        out = wrap(select(c, a, b))
    except ValueError:
        raise broadcast_error(getattr(a, "shape", ()), getattr(b, "shape", ())) from None
    if GRAD_ENABLED[0]:
        ti = input if isinstance(input, Tensor) else None
        to = other if isinstance(other, Tensor) else None
        if (ti is not None and ti._requires_grad) or (to is not None and to._requires_grad):
            node = WhereBackward0()
            node.save(condition)
            node.shape_a = () if ti is None else ti._data.shape
            node.shape_b = () if to is None else to._data.shape
            node.real_a = ti is not None and ti._data.dtype.kind != "c"
            node.real_b = to is not None and to._data.dtype.kind != "c"
            record(node, out, ti, to)
    return out


# ------------------------------------------------------------------------------------------------------------ lerp
class LerpBackward0(Node):
    """lerp with a Python-number weight."""
    __slots__ = ()

    def apply(self, grad):
        shape_a, shape_b, w = self.shape_a, self.shape_b, self.w
        wc = w.conjugate() if isinstance(w, complex) else w
        ga = sum_to(grad * (1 - wc), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * wc, shape_b) if self.next_functions[1] is not None else None
        return ga, gb


class LerpBackward1(Node):
    """lerp with a tensor weight."""
    __slots__ = ()

    def apply(self, grad):
        a, b, w = self.saved_tensors
        shape_a, shape_b, shape_w = self.shape_a, self.shape_b, self.shape_w
        ga = sum_to(grad * _conj(1 - w), shape_a) if self.next_functions[0] is not None else None
        gb = sum_to(grad * _conj(w), shape_b) if self.next_functions[1] is not None else None
        gw = sum_to(grad * _conj(b - a), shape_w) if self.next_functions[2] is not None else None
        return ga, gb, gw


def _lerp_arrays(xp, a, b, w, w_is_array):
    """PyTorch's CPU lerp: ``a + w (b - a)`` for ``|w| < 0.5``, else ``b - (b - a)(1 - w)``, each a fused
    multiply-add rounded once. For float32/float16 the product and sum are computed in float64 (exact for the
    product of two float32 numbers) and rounded once to the dtype, which reproduces the fused result; rounding
    twice instead differs from PyTorch in the last bit for 10-50% of elements (an EMA drifts apart). Other dtypes
    round twice."""
    diff = b - a  # PyTorch rounds this difference to the dtype before the fused step
    if a.dtype.kind == "f" and a.dtype.itemsize <= 4:
        dtype = a.dtype
        w = w.astype(dtype) if w_is_array else dtype.type(w)
        wide = xp.float64
        a64, b64, d64 = a.astype(wide), b.astype(wide), diff.astype(wide)
        if w_is_array:
            small = xp.abs(w) < 0.5
            out = xp.where(small, a64 + w.astype(wide) * d64, b64 - d64 * (1 - w).astype(wide))
        elif abs(w) < 0.5:
            out = a64 + wide(w) * d64
        else:
            out = b64 - d64 * wide(dtype.type(1) - w)
        return out.astype(dtype)
    if w_is_array:
        return xp.where(xp.abs(w) < 0.5, a + w * diff, b - diff * (1 - w))
    if abs(w) < 0.5:
        return a + w * diff
    return b - diff * (1 - w)


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
        out = _lerp_arrays(xp, a, b, w, wt)
    except ValueError:
        raise broadcast_error(a.shape, b.shape if not wt or a.shape == b.shape else w.shape) from None
    out = wrap(xp.asarray(out, dtype=a.dtype))
    if GRAD_ENABLED[0]:
        if wt and (input._requires_grad or end._requires_grad or weight._requires_grad):
            node = LerpBackward1()
            node.save(input, end, weight)
            node.shape_a, node.shape_b, node.shape_w = a.shape, b.shape, w.shape
            record(node, out, input, end, weight)
        elif not wt and (input._requires_grad or end._requires_grad):
            node = LerpBackward0()
            node.shape_a, node.shape_b, node.w = a.shape, b.shape, weight
            record(node, out, input, end)
    return out


# ------------------------------------------------------------------------------------------------------------ relu
class ReluBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        out = self.saved_output()
        if not GRAD_ENABLED[0]:
            # plain backward: one masked multiply (np.where with a data-dependent mask is ~15x slower); it differs
            # from where() only for an inf/nan gradient at an inactive unit, which PyTorch leaves undefined anyway
            g, xp = grad._data, grad._xp
            if g.shape != out._data.shape:
                return (wrap(xp.multiply(g, out._data > 0, dtype=g.dtype)),)
            return (wrap(threads.elementwise(lambda r, a, o: xp.multiply(a, o > 0, out=r), xp.empty_like(g), g,
                                             out._data)),)
        return (where(out > 0, grad, 0),)


@tensor_method()
def relu(input):
    """Elementwise ``max(input, 0)`` (NaN stays NaN); the gradient is 1 where the output is positive."""
    if not isinstance(input, Tensor):
        raise _type_error("relu", "input", input)
    data = input._data
    if data.dtype.kind in "bc":
        raise _not_implemented("clamp_min_scalar", data)
    out = wrap(clamped(data, lo=0))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ReluBackward0()
        node.save_output(out)
        record(node, out, input)
    return out


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


# ------------------------------------------------------------------------------------------------------- heaviside
class HeavisideBackward0(Node):
    """PyTorch defines no derivative for heaviside (its node is ``NotImplemented``): backward raises."""
    __slots__ = ()

    def apply(self, grad):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


@tensor_method()
def heaviside(input, values):
    """The Heaviside step function: 0 where ``input < 0``, ``values`` where ``input == 0``, 1 where ``input > 0``
    (NaN input gives 0). ``values`` broadcasts against ``input`` and must have its dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"heaviside(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    a, v = input._data, values._data
    if a.dtype.kind == "c" or v.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if a.dtype != v.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    xp = input._xp
    try:
        res = xp.where(a == 0, v, a > 0).astype(a.dtype, copy=False)
    except ValueError:
        raise broadcast_error(a.shape, v.shape) from None
    out = wrap(res)
    if GRAD_ENABLED[0] and (input._requires_grad or values._requires_grad):
        record(HeavisideBackward0(), out, input, values)
    return out


def _heaviside_(self, values):
    return apply_inplace(self, heaviside, values)


_heaviside_.__name__ = "heaviside_"
_heaviside_.__doc__ = "In-place version of :meth:`heaviside`."
Tensor.heaviside_ = _heaviside_
