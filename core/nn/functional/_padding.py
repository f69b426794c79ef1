"""``pad``: constant, reflect, replicate and circular padding of the trailing dimensions.

Padding is separable: each padded dimension is handled on its own. The gradient of a padding is its adjoint: the
centre of the gradient plus, for the non-constant modes, the padded borders folded back onto the input elements they
copied (reversed for ``reflect``, summed onto the edge for ``replicate``, wrapped for ``circular``). The adjoint's
own gradient is the padding again, so ``pad`` has gradients of every order.
"""
from __future__ import annotations

import numbers

from ...autograd.graph import Node
from ...device import array_module as _xp_of  # the one array-module lookup (core/device.py)
from ...ops._base import GRAD_ENABLED, Tensor, record, wrap

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")
_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _crop_or_pad_constant(xp, a, dim_pads, value):
    """Constant padding; negative amounts crop."""
    crop = [slice(None)] * a.ndim
    widths = [(0, 0)] * a.ndim
    for d, lo, hi in dim_pads:
        crop[d] = slice(max(-lo, 0), a.shape[d] - max(-hi, 0))
        widths[d] = (max(lo, 0), max(hi, 0))
    a = a[tuple(crop)]
    if any(w != (0, 0) for w in widths):
        a = xp.pad(a, widths, mode="constant", constant_values=value)
    return a


def pad_array(a, dim_pads, mode, value=0):
    """Pad array ``a``; ``dim_pads`` is a sequence of ``(dim, before, after)``."""
    xp = _xp_of(a)
    if mode == "constant":
        return xp.ascontiguousarray(_crop_or_pad_constant(xp, a, dim_pads, value))
    widths = [(0, 0)] * a.ndim
    for d, lo, hi in dim_pads:
        widths[d] = (lo, hi)
    return xp.pad(a, widths, mode=_NUMPY_MODE[mode])


def _take(a, d, start, stop):
    key = [slice(None)] * a.ndim
    key[d] = slice(start, stop)
    return a[tuple(key)]


def pad_adjoint_array(g, dim_pads, mode, in_shape):
    """The adjoint of :func:`pad_array` (its vector-Jacobian product) for an input of shape ``in_shape``."""
    xp = _xp_of(g)
    if mode == "constant":
        return xp.ascontiguousarray(_crop_or_pad_constant(xp, g, [(d, -lo, -hi) for d, lo, hi in dim_pads], 0))
    for d, lo, hi in dim_pads:
        n = in_shape[d]
        centre = _take(g, d, lo, lo + n).copy()
        left, right = _take(g, d, 0, lo), _take(g, d, lo + n, lo + n + hi)
        if mode == "reflect":
            if lo:
                _take(centre, d, 1, lo + 1)[...] += xp.flip(left, d)
            if hi:
                _take(centre, d, n - 1 - hi, n - 1)[...] += xp.flip(right, d)
        elif mode == "replicate":
            if lo:
                _take(centre, d, 0, 1)[...] += left.sum(d, keepdims=True)
            if hi:
                _take(centre, d, n - 1, n)[...] += right.sum(d, keepdims=True)
        else:  # circular
            if lo:
                _take(centre, d, n - lo, n)[...] += left
            if hi:
                _take(centre, d, 0, hi)[...] += right
        g = centre
    return g


class ConstantPadNdBackward0(Node):
    """Backward of padding: the adjoint, itself differentiable."""

    __slots__ = ()

    def apply(self, grad):
        dim_pads, mode, in_shape = self._ctx
        return (_pad_adjoint_op(grad, dim_pads, mode, in_shape),)


class ReflectionPadBackward0(ConstantPadNdBackward0):
    """Backward of ``reflect`` padding."""

    __slots__ = ()


class ReplicationPadBackward0(ConstantPadNdBackward0):
    """Backward of ``replicate`` padding."""

    __slots__ = ()


class CircularPadBackward0(ConstantPadNdBackward0):
    """Backward of ``circular`` padding."""

    __slots__ = ()


_NODES = {"constant": ConstantPadNdBackward0, "reflect": ReflectionPadBackward0,
          "replicate": ReplicationPadBackward0, "circular": CircularPadBackward0}


class PadBackwardBackward0(Node):
    """Backward of the padding adjoint: the padding again (with zeros)."""

    __slots__ = ()

    def apply(self, grad):
        dim_pads, mode, _ = self._ctx
        return (_pad_op(grad, dim_pads, mode, 0),)


def _pad_op(x, dim_pads, mode, value):
    out = wrap(pad_array(x._data, dim_pads, mode, value))
    if GRAD_ENABLED[0] and x._requires_grad:
        node = _NODES[mode]()
        node._ctx = (dim_pads, mode, x._data.shape)
        record(node, out, x)
    return out


def _pad_adjoint_op(g, dim_pads, mode, in_shape):
    out = wrap(pad_adjoint_array(g._data, dim_pads, mode, in_shape))
    if GRAD_ENABLED[0] and g._requires_grad:
        node = PadBackwardBackward0()
        node._ctx = (dim_pads, mode, in_shape)
        record(node, out, g)
    return out


def _parse_pad(input, pad, mode):
    if not isinstance(pad, (tuple, list)) or not all(isinstance(p, numbers.Integral) and not isinstance(p, bool)
                                                      for p in pad):
        raise TypeError(f"pad(): argument 'pad' must be a tuple of ints, but got {pad!r}")
    if len(pad) % 2:
        raise RuntimeError(f"Padding length must be divisible by 2, but got pad={tuple(pad)}")
    n = len(pad) // 2
    if n > input.ndim:
        raise RuntimeError(f"Padding length too large: pad={tuple(pad)} pads {n} dimensions but the input has only "
                           f"{input.ndim}")
    dim_pads = tuple((input.ndim - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(n))
    if mode == "constant":
        for d, lo, hi in dim_pads:
            if input.shape[d] + lo + hi < 0:
                raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding {lo} and {hi} resulted "
                                   f"in a negative output size, which is invalid. Check dimension {d} of your input.")
        return dim_pads
    if n > 3:
        raise NotImplementedError(f"pad(): mode '{mode}' pads at most the last 3 dimensions, but got pad={tuple(pad)} "
                                  f"for {n} dimensions")
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"pad(): {mode} padding of {n} dimension(s) expects a {n + 1}D (unbatched) or {n + 2}D "
                           f"(batched) input, but got input of size {list(input.shape)}")
    for d, lo, hi in dim_pads:
        size = input.shape[d]
        if lo < 0 or hi < 0:
            raise RuntimeError(f"pad(): negative padding is only supported in 'constant' mode, but got "
                               f"pad={tuple(pad)} with mode='{mode}'")
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                               f"but got: padding ({lo}, {hi}) at dimension {d} of input {list(input.shape)}")
        if mode == "circular" and (lo > size or hi > size):
            raise RuntimeError(f"Padding value causes wrapping around more than once: padding ({lo}, {hi}) at "
                               f"dimension {d} of input {list(input.shape)}")
        if mode == "replicate" and size == 0 and (lo or hi):
            raise RuntimeError(f"pad(): cannot replicate an empty dimension {d} of input {list(input.shape)}")
    return dim_pads


def pad(input, pad, mode="constant", value=None):
    r"""Pad the trailing dimensions of ``input``.

    Args:
        input: the tensor to pad.
        pad: ``(left, right)`` amounts for the last dimension, then ``(top, bottom)`` for the one before, and so
            on: ``len(pad) / 2`` dimensions are padded. In ``'constant'`` mode negative amounts crop.
        mode: ``'constant'`` (fill with ``value``; any number of dimensions), ``'reflect'`` (mirror without
            repeating the edge), ``'replicate'`` (repeat the edge) or ``'circular'`` (wrap around); the last three
            pad the last 1, 2 or 3 dimensions of a batched or unbatched input.
        value: the fill value for ``'constant'`` padding (default 0).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if mode not in _MODES:
        raise NotImplementedError(f"pad(): unsupported padding mode {mode!r}, expected one of {list(_MODES)}")
    if value is not None and mode != "constant" and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    dim_pads = _parse_pad(input, pad, mode)
    return _pad_op(input, dim_pads, mode, 0 if value is None else value)
