"""Diagonals: ``diagonal`` (a view), ``diag``, ``diag_embed`` and ``trace``.

``diagonal`` is a strided view over two dims; its gradient writes the incoming gradient back onto that diagonal of
zeros (``_onto_diagonal``), which is also ``diag_embed``'s forward, so each is the other's backward.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, check_tensor, normalize_dim, record, tensor_method, wrap

__all__ = ["diag", "diag_embed", "diagonal", "trace"]


def _diag_dims(ndim, offset, dim1, dim2, fname):
    d1, d2 = normalize_dim(dim1, ndim), normalize_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"{fname}(): dimension1 and dimension2 cannot be identical: {dim1}, {dim2}")
    return d1, d2


def _diagonal_view(data: np.ndarray, offset: int, d1: int, d2: int, xp):
    """A writable strided view of the ``offset`` diagonal over dims ``d1``, ``d2`` (appended as the last dim)."""
    shape, strides = data.shape, data.strides
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        length = max(0, min(n1, n2 - offset))
        start = [0] * data.ndim
        start[d2] = offset if length else 0
    else:
        length = max(0, min(n1 + offset, n2))
        start = [0] * data.ndim
        start[d1] = -offset if length else 0
    base = data[tuple(slice(s, None) for s in start)] if length else data
    keep = [i for i in range(data.ndim) if i not in (d1, d2)]
    new_shape = tuple(shape[i] for i in keep) + (length,)
    new_strides = tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],)
    return xp.lib.stride_tricks.as_strided(base, new_shape, new_strides, writeable=base.flags.writeable)


class DiagonalBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, offset, d1, d2 = self.in_shape, self.offset, self.d1, self.d2
        return (_onto_diagonal(grad, in_shape, offset, d1, d2, DiagonalBackwardBackward0),)


class DiagEmbedBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        offset, d1, d2 = self.offset, self.d1, self.d2
        return (diagonal(grad, offset, d1, d2),)


class DiagonalBackwardBackward0(DiagEmbedBackward0):
    __slots__ = ()


def _onto_diagonal(src: Tensor, out_shape, offset, d1, d2, node_cls) -> Tensor:
    """Zeros of ``out_shape`` with ``src`` written on the ``offset`` diagonal of dims ``d1``, ``d2``."""
    xp = src._xp
    out_data = xp.zeros(out_shape, dtype=src._data.dtype)
    _diagonal_view(out_data, offset, d1, d2, xp)[...] = src._data
    out = wrap(out_data)
    if GRAD_ENABLED[0] and src._requires_grad:
        node = node_cls()
        node.in_shape, node.offset, node.d1, node.d2 = out_shape, offset, d1, d2
        record(node, out, src)
    return out


@tensor_method()
def diagonal(input, offset=0, dim1=0, dim2=1) -> Tensor:
    """A view of the diagonal with the given ``offset`` over dims ``dim1`` and ``dim2``, appended as the last dim.

    ``offset > 0`` selects a diagonal above the main one, ``offset < 0`` below. Writing to the view writes to
    ``input``.
    """
    check_tensor(input, "input", "diagonal")
    data = input._data
    if data.ndim < 2:
        raise RuntimeError(f"diagonal(): expected a tensor with at least 2 dimensions, got {data.ndim}")
    d1, d2 = _diag_dims(data.ndim, offset, dim1, dim2, "diagonal")
    out = wrap(_diagonal_view(data, int(offset), d1, d2, input._xp))
    out._version = input._ensure_version()
    if GRAD_ENABLED[0] and input._requires_grad:
        node = DiagonalBackward0()
        node.in_shape, node.offset, node.d1, node.d2 = data.shape, int(offset), d1, d2
        record(node, out, input)
    return out


_diagonal = diagonal  # ``diag`` has an argument named ``diagonal``


@tensor_method()
def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """A tensor whose ``offset`` diagonals over dims ``dim1``, ``dim2`` hold the last dim of ``input``; zeros
    elsewhere. The result has one more dimension than ``input``."""
    check_tensor(input, "input", "diag_embed")
    data = input._data
    nd = data.ndim + 1
    d1, d2 = _diag_dims(nd, offset, dim1, dim2, "diag_embed")
    n = (data.shape[-1] if data.ndim else 1) + abs(int(offset))
    rest = list(data.shape[:-1])
    out_shape = []
    for i in range(nd):
        out_shape.append(n if i in (d1, d2) else rest.pop(0))
    src = input if data.ndim else input.reshape(1)
    return _onto_diagonal(src, tuple(out_shape), int(offset), d1, d2, DiagEmbedBackward0)


@tensor_method()
def diag(input, diagonal=0) -> Tensor:
    """1-D input: a square matrix with ``input`` on its ``diagonal``-th diagonal. 2-D input: that diagonal (a
    copy)."""
    check_tensor(input, "input", "diag")
    nd = input._data.ndim
    if nd == 1:
        return diag_embed(input, diagonal, 0, 1)
    if nd == 2:
        return _diagonal(input, diagonal, 0, 1).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")


class TraceBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shape = self.shape
        k = min(shape)
        return (_onto_diagonal(grad.expand(k), shape, 0, 0, 1, DiagonalBackwardBackward0),)


@tensor_method()
def trace(input) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor (integers sum to int64)."""
    check_tensor(input, "input", "trace")
    data = input._data
    if data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {data.ndim}")
    dtype = np.int64 if data.dtype.kind in "biu" else None
    out = wrap(input._xp.asarray(input._xp.trace(data, dtype=dtype)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = TraceBackward0()
        node.shape = data.shape
        record(node, out, input)
    return out
