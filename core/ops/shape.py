"""Shape ops: reshape/view, squeeze/unsqueeze, transpose/permute, expand, flatten, cat/stack/split and friends.

Ops that return views of the input share its version counter, so an in-place change through a view is seen by
nodes that saved the base.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, normalize_dim, record, tensor_method, wrap

__all__ = ["reshape", "view", "unsqueeze", "squeeze", "transpose", "swapaxes", "permute", "t", "expand",
           "expand_as", "flatten", "contiguous"]


def _as_view(out: Tensor, input: Tensor) -> Tensor:
    out._version = input._ensure_version()
    return out


def _shape_arg(shape, fn):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{fn}(): argument 'shape' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(out)}")
        out.append(int(s))
    return tuple(out)


def _infer_shape(shape, numel):
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        return tuple(numel // known if s == -1 else s for s in shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class ViewBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad.reshape(self._ctx),)


class UnsafeViewBackward0(ViewBackward0):
    __slots__ = ()


@tensor_method()
def reshape(input, *shape):
    """The same data with a new shape; a view when possible, else a copy. One dim may be -1."""
    shape = _infer_shape(_shape_arg(shape, "reshape"), input._data.size)
    data = input._data
    if data.shape == shape:
        out = wrap(data)
    else:
        out = wrap(data.reshape(shape))
    if out._data.base is not None or out._data is data:
        _as_view(out, input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ViewBackward0()
        node._ctx = data.shape
        record(node, out, input)
    return out


@tensor_method()
def view(input, *shape):
    """A view with a new shape; raises if the memory layout makes a view impossible (use reshape then)."""
    if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int, np.integer, Tensor)):
        from .conversion import _view_dtype
        return _view_dtype(input, shape[0])
    shape = _infer_shape(_shape_arg(shape, "view"), input._data.size)
    try:
        data = input._data.reshape(shape, copy=False)
    except ValueError:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.") from None
    out = _as_view(wrap(data), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ViewBackward0()
        node._ctx = input._data.shape
        record(node, out, input)
    return out


@tensor_method()
def contiguous(input, memory_format=None):
    """A C-contiguous tensor with the same values (self if it already is)."""
    if input._data.flags.c_contiguous:
        return input
    from .conversion import clone
    return clone(input)


class UnsqueezeBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad.squeeze(self._ctx),)


@tensor_method()
def unsqueeze(input, dim):
    """Insert a dimension of size one at ``dim``."""
    d = normalize_dim(dim, input._data.ndim + 1)
    out = _as_view(wrap(input._xp.expand_dims(input._data, d)), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = UnsqueezeBackward0()
        node._ctx = d
        record(node, out, input)
    return out


class SqueezeBackward0(ViewBackward0):
    __slots__ = ()


class SqueezeBackward1(ViewBackward0):
    __slots__ = ()


@tensor_method()
def squeeze(input, dim=None):
    """Remove dimensions of size one (all of them, or only those in ``dim``)."""
    data = input._data
    if dim is None:
        axes = tuple(i for i, s in enumerate(data.shape) if s == 1)
    else:
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        axes = tuple(i for i in (normalize_dim(d, data.ndim) for d in dims) if data.ndim and data.shape[i] == 1)
    out = _as_view(wrap(data.squeeze(axes) if axes else data), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SqueezeBackward0() if dim is None else SqueezeBackward1()
        node._ctx = data.shape
        record(node, out, input)
    return out


class TransposeBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        d0, d1 = self._ctx
        return (grad.transpose(d0, d1),)


@tensor_method("transpose", "swapaxes", "swapdims")
def transpose(input, dim0, dim1):
    """Swap dimensions ``dim0`` and ``dim1`` (a view)."""
    nd = input._data.ndim
    d0, d1 = normalize_dim(dim0, nd), normalize_dim(dim1, nd)
    out = _as_view(wrap(input._data.swapaxes(d0, d1) if nd else input._data), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = TransposeBackward0()
        node._ctx = (d0, d1)
        record(node, out, input)
    return out


swapaxes = swapdims = transpose


class PermuteBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        inverse = [0] * len(self._ctx)
        for i, p in enumerate(self._ctx):
            inverse[p] = i
        return (grad.permute(inverse),)


@tensor_method()
def permute(input, *dims):
    """Reorder dimensions (a view)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    nd = input._data.ndim
    if len(dims) != nd:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                           f"of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal to "
                           f"len(dims) = {len(dims)}")
    perm = tuple(normalize_dim(d, nd) for d in dims)
    if len(set(perm)) != nd:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}")
    out = _as_view(wrap(input._data.transpose(perm)), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = PermuteBackward0()
        node._ctx = perm
        record(node, out, input)
    return out


class TBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad.t(),)


@tensor_method()
def t(input):
    """Transpose a tensor of at most 2 dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    out = _as_view(wrap(input._data.T), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        record(TBackward0(), out, input)
    return out


def _T(self):
    return self.permute(tuple(range(self._data.ndim - 1, -1, -1)))


def _mT(self):
    if self._data.ndim < 2:
        raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return self.transpose(-2, -1)


Tensor.T = property(_T, doc="The tensor with all dimensions reversed.")
Tensor.mT = property(_mT, doc="The last two dimensions transposed (batches of matrices).")
Tensor.H = property(lambda self: _T(self).conj(), doc="Conjugate transpose of a matrix.")
Tensor.mH = property(lambda self: _mT(self).conj(), doc="Conjugate transpose of batches of matrices.")


class ExpandBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        from ._base import sum_to
        return (sum_to(grad, self._ctx),)


@tensor_method()
def expand(input, *sizes):
    """A broadcast view to a larger size; -1 keeps a dimension. Expanded data must not be written to."""
    sizes = _shape_arg(sizes, "expand")
    data = input._data
    if len(sizes) < data.ndim:
        raise RuntimeError(f"expand(ember.{input.type().split('.')[-1]}{{{list(data.shape)}}}, size={list(sizes)}): "
                           f"the number of sizes provided ({len(sizes)}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({data.ndim})")
    lead = len(sizes) - data.ndim
    target = []
    for i, s in enumerate(sizes):
        cur = data.shape[i - lead] if i >= lead else None
        if s == -1:
            if cur is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                                   f"dimension {i}")
            s = cur
        elif cur is not None and cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: "
                               f"{list(data.shape)}")
        target.append(s)
    target = tuple(target)
    if target == data.shape:
        out = wrap(data)
    else:
        out = wrap(input._xp.broadcast_to(data, target))
    _as_view(out, input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ExpandBackward0()
        node._ctx = data.shape
        record(node, out, input)
    return out


@tensor_method()
def expand_as(input, other):
    """``input.expand(other.size())``."""
    return expand(input, other._data.shape)


@tensor_method()
def flatten(input, start_dim=0, end_dim=-1):
    """Flatten dims ``start_dim`` .. ``end_dim`` into one."""
    nd = input._data.ndim
    if nd == 0:
        return reshape(input, 1)
    s, e = normalize_dim(start_dim, nd), normalize_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = input._data.shape
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return reshape(input, shape[:s] + (n,) + shape[e + 1:])
