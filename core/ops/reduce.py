"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, cumulative ops, all/any, norms and counts."""
from __future__ import annotations

from .. import dtypes as dt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, normalize_dims, record, tensor_method, wrap

__all__ = ["sum", "mean"]


def _reduced_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def expand_reduced(grad: Tensor, in_shape, dims, keepdim) -> Tensor:
    """Broadcast a reduction's gradient back to the input's shape."""
    if not keepdim and dims:
        grad = grad.reshape(_reduced_shape(in_shape, dims))
    return grad.expand(in_shape)


class SumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, dims, keepdim = self._ctx
        return (expand_reduced(grad, in_shape, dims, keepdim),)


class SumBackward1(SumBackward0):
    __slots__ = ()


@tensor_method()
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all dims by default); bool and integer input sums to int64."""
    data = input._data
    dims = normalize_dims(dim, data.ndim) if dim is not None and dim != () else tuple(range(data.ndim))
    if dtype is not None:
        np_dtype = dt.to_dtype(dtype).np
    elif data.dtype.kind in "biu":
        np_dtype = dt.int64.np
    else:
        np_dtype = None
    out = wrap(data.sum(axis=dims, dtype=np_dtype, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SumBackward0() if dim is None else SumBackward1()
        node._ctx = (data.shape, dims, keepdim)
        record(node, out, input)
    return out


class MeanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, dims, keepdim, count = self._ctx
        return (expand_reduced(grad / count, in_shape, dims, keepdim),)


class MeanBackward1(MeanBackward0):
    __slots__ = ()


@tensor_method()
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over ``dim`` (all dims by default); needs a floating or complex dtype."""
    data = input._data
    if dtype is not None:
        data = data.astype(dt.to_dtype(dtype).np)
    elif data.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {input.dtype.scalar_name}")
    dims = normalize_dims(dim, data.ndim) if dim is not None and dim != () else tuple(range(data.ndim))
    out = wrap(data.mean(axis=dims, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        count = 1
        for d in dims:
            count *= data.shape[d]
        node = MeanBackward0() if dim is None else MeanBackward1()
        node._ctx = (data.shape, dims, keepdim, count)
        record(node, out, input)
    return out
