"""Rounding and sign, elementwise: ``floor``, ``ceil``, ``trunc`` (``fix``), ``round`` (with ``decimals``),
``frac``, ``sign`` and its complex generalisation ``sgn``.

Every op is a function (``ember.floor``) and a Tensor method (``t.floor()``). Integer and bool tensors are already
whole, so the rounding ops return a copy with the same dtype. The rounding ops and ``sign`` have zero gradient;
``frac`` passes the gradient through and ``sgn`` differentiates ``z / |z|`` for complex input.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, record, tensor_method, wrap
from ._elementwise import _not_implemented, _type_error
from .clamp_where import where
from .creation import zeros_like

__all__ = ["floor", "ceil", "round", "trunc", "fix", "frac", "sign", "sgn"]


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


def _real_sign(xp, data):
    """PyTorch's sign of a real array: ``(x > 0) - (x < 0)`` in its dtype, so NaN and -0.0 give +0.0 (NumPy's sign
    keeps NaN, and a NaN then reached the gradient of abs)."""
    if data.dtype.kind == "b":
        return data.copy()
    if data.dtype.kind != "f":
        return xp.sign(data)
    return xp.subtract(data > 0, data < 0, dtype=data.dtype)


@tensor_method()
def sign(input):
    """-1, 0 or 1 by the sign of each element (0 for NaN, as PyTorch; gradient zero). For complex input use
    :func:`sgn`."""
    if not isinstance(input, Tensor):
        raise _type_error("sign", "input", input)
    data = input._data
    kind = data.dtype.kind
    if kind == "c":
        raise RuntimeError("Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
                           "torch.sgn instead.")
    out = wrap(_real_sign(input._xp, data))
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
        out = wrap(_real_sign(input._xp, data))
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
