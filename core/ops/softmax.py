"""Softmax and log-softmax: the kernels and backward nodes behind ``em.softmax`` / ``em.log_softmax``, their
Tensor methods, and ``_softmax`` / ``_log_softmax``, which ``nn.functional.softmax`` / ``log_softmax`` call.

Each is one stable pass over the data (the max is subtracted first, so ``exp`` cannot overflow).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..autograd.graph import Node
from ..device import array_module as _xp_of
from . import math as _m
from ._base import GRAD_ENABLED, Tensor, record, tensor_method, wrap

__all__ = ["softmax", "log_softmax"]


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
                  "argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _axis(dim, ndim, fn):
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{fn}(): argument 'dim' must be int, not {type(dim).__name__}")
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % max(ndim, 1)


def _prep(input, dim, dtype, fn, stacklevel):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if dim is None:
        dim = _softmax_dim(fn, input.ndim, stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    elif input._data.dtype.kind not in "fc":
        raise RuntimeError(f"\"{fn}_lastdim_kernel_impl\" not implemented for '{input.dtype.scalar_name}'")
    return input, _axis(dim, input.ndim, fn)


class SoftmaxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        axis = self.dim
        y = self.saved_output()
        if not GRAD_ENABLED[0]:
            g, yd = grad._data, y._data
            gy = g * yd
            return (wrap(gy - yd * gy.sum(axis=axis, keepdims=True)),)
        gy = grad * y
        return (gy - y * gy.sum(axis, keepdim=True),)


class LogSoftmaxBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        axis = self.dim
        y = self.saved_output()
        if not GRAD_ENABLED[0]:
            g = grad._data
            return (wrap(g - y._xp.exp(y._data) * g.sum(axis=axis, keepdims=True)),)
        return (grad - _m.exp(y) * grad.sum(axis, keepdim=True),)


def _softmax_array(x, axis):
    xp = _xp_of(x)
    if x.ndim == 0:
        return xp.ones_like(x)
    e = x - x.max(axis=axis, keepdims=True)
    xp.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_array(x, axis):
    xp = _xp_of(x)
    if x.ndim == 0:
        return xp.zeros_like(x)
    z = x - x.max(axis=axis, keepdims=True)
    z -= xp.log(xp.exp(z).sum(axis=axis, keepdims=True))
    return z


def _recorded(node_cls, input, axis, out):
    """``out``, with a ``node_cls`` backward node (which keeps ``out`` and the axis) when ``input`` needs a grad."""
    if GRAD_ENABLED[0] and input._requires_grad:
        node = node_cls()
        node.dim = axis
        node.save_output(out)
        record(node, out, input)
    return out


def _softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x_i) / sum_j exp(x_j)`` along ``dim`` (computed with the max subtracted, so it cannot overflow).

    Args:
        input (Tensor): input.
        dim (int): the dimension that sums to 1.
        dtype: cast the input to this dtype first.
    """
    input, axis = _prep(input, dim, dtype, "softmax", _stacklevel)
    return _recorded(SoftmaxBackward0, input, axis, wrap(_softmax_array(input._data, axis)))


def _log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed in one stable pass (``x - max - log(sum(exp(x - max)))``)."""
    input, axis = _prep(input, dim, dtype, "log_softmax", _stacklevel)
    return _recorded(LogSoftmaxBackward0, input, axis, wrap(_log_softmax_array(input._data, axis)))


@tensor_method()
def softmax(input, dim, dtype=None):
    """Softmax over ``dim`` (see ``nn.functional.softmax``)."""
    return _softmax(input, dim, dtype=dtype)


@tensor_method()
def log_softmax(input, dim, dtype=None):
    """Log-softmax over ``dim`` (see ``nn.functional.log_softmax``)."""
    return _log_softmax(input, dim, dtype=dtype)
