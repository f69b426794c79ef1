"""Shape ops: reshape/view, squeeze/unsqueeze, transpose/permute, expand, flatten, cat/stack/split and friends
(``tensor_split`` and its ``hsplit``/``vsplit``/``dsplit``), ``rot90``, ``block_diag`` and ``diagflat``.

Ops that return views of the input share its version counter, so an in-place change through a view is seen by
nodes that saved the base.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..tensor import Size
from ._base import GRAD_ENABLED, Tensor, normalize_dim, record, tensor_method, wrap

__all__ = ["reshape", "view", "unsqueeze", "squeeze", "transpose", "swapaxes", "swapdims", "permute", "t",
           "expand", "expand_as", "flatten", "contiguous", "ravel", "unflatten", "broadcast_to",
           "broadcast_shapes", "broadcast_tensors", "tile", "cat", "concat", "concatenate", "stack",
           "hstack", "vstack", "row_stack", "dstack", "column_stack", "atleast_1d", "atleast_2d", "atleast_3d",
           "split", "split_with_sizes", "tensor_split", "hsplit", "vsplit", "dsplit", "chunk", "unbind", "flip",
           "fliplr", "flipud", "roll", "rot90", "narrow", "tril", "triu", "block_diag", "diagflat", "movedim",
           "moveaxis"]


def _as_view(out: Tensor, input: Tensor, replay=None) -> Tensor:
    """Mark ``out`` as a view of ``input``: it shares the version counter, and remembers its root tensor with
    ``replay`` (a function that re-applies the view to a tensor shaped like the root) so that an in-place op on the
    view can rebase the root's graph. Views without a replay cannot be modified in place under autograd."""
    out._version = input._ensure_version()
    base = input._base
    if base is None:
        out._base = (input, replay)
    else:
        root, prev = base
        out._base = (root, None if replay is None or prev is None else (lambda t: replay(prev(t))))
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
        return (grad.reshape(self.in_shape),)


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
        _as_view(out, input, lambda t: t.reshape(shape))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ViewBackward0()
        node.in_shape = data.shape
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
    out = _as_view(wrap(data), input, lambda t: t.reshape(shape))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ViewBackward0()
        node.in_shape = input._data.shape
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
        return (grad.squeeze(self.dim),)


@tensor_method()
def unsqueeze(input, dim):
    """Insert a dimension of size one at ``dim``."""
    d = normalize_dim(dim, input._data.ndim + 1)
    out = _as_view(wrap(input._xp.expand_dims(input._data, d)), input, lambda t: t.unsqueeze(d))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = UnsqueezeBackward0()
        node.dim = d
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
    new_shape = tuple(s for i, s in enumerate(data.shape) if i not in axes)
    out = _as_view(wrap(data.squeeze(axes) if axes else data), input, lambda t: t.reshape(new_shape))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SqueezeBackward0() if dim is None else SqueezeBackward1()
        node.in_shape = data.shape
        record(node, out, input)
    return out


class TransposeBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        d0, d1 = self.d0, self.d1
        return (grad.transpose(d0, d1),)


@tensor_method("transpose", "swapaxes", "swapdims")
def transpose(input, dim0, dim1):
    """Swap dimensions ``dim0`` and ``dim1`` (a view)."""
    nd = input._data.ndim
    d0, d1 = normalize_dim(dim0, nd), normalize_dim(dim1, nd)
    out = _as_view(wrap(input._data.swapaxes(d0, d1) if nd else input._data), input,
                   lambda t: t.transpose(d0, d1))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = TransposeBackward0()
        node.d0, node.d1 = d0, d1
        record(node, out, input)
    return out


swapaxes = swapdims = transpose


class PermuteBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        inverse = [0] * len(self.dims)
        for i, p in enumerate(self.dims):
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
    out = _as_view(wrap(input._data.transpose(perm)), input, lambda t: t.permute(perm))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = PermuteBackward0()
        node.dims = perm
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
    out = _as_view(wrap(input._data.T), input, lambda t: t.t())
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
        return (sum_to(grad, self.in_shape),)


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
    target = [0] * len(sizes)
    for i in range(len(sizes) - 1, -1, -1):  # from the last dim, as PyTorch checks (its error names the last clash)
        s = sizes[i]
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
        target[i] = s
    target = tuple(target)
    if target == data.shape:
        out = wrap(data)
    else:
        out = wrap(input._xp.broadcast_to(data, target))
    _as_view(out, input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ExpandBackward0()
        node.in_shape = data.shape
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


# --------------------------------------------------------------------------------------------------- simple aliases
@tensor_method()
def view_as(input, other):
    """``input.view(other.size())``."""
    return view(input, other._data.shape)


@tensor_method()
def reshape_as(input, other):
    """``input.reshape(other.size())``."""
    return reshape(input, other._data.shape)


@tensor_method()
def ravel(input):
    """The elements as a 1-D tensor (a view when the memory layout allows it)."""
    return reshape(input, -1)


@tensor_method()
def unflatten(input, dim, sizes):
    """Expand dimension ``dim`` into several dimensions of the given ``sizes`` (one entry may be -1)."""
    shape = input._data.shape
    d = normalize_dim(dim, input._data.ndim)
    sizes = _shape_arg((sizes,) if isinstance(sizes, (int, np.integer)) else tuple(sizes), "unflatten")
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    n = shape[d] if shape else 1
    known = 1
    for s in sizes:
        if s != -1:
            known *= s
    if sizes.count(-1) > 1 or (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    return reshape(input, shape[:d] + _infer_shape(sizes, n) + shape[d + 1:])


@tensor_method()
def broadcast_to(input, size):
    """Broadcast ``input`` to ``size`` (a view, as :meth:`expand`)."""
    return expand(input, size)


def broadcast_shapes(*shapes):
    """The shape that tensors of ``shapes`` broadcast to, or PyTorch's error if they cannot."""
    shapes = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*shapes))
    except ValueError:
        from ._base import broadcast_error
        acc = ()
        for s in shapes:
            try:
                acc = np.broadcast_shapes(acc, s)
            except ValueError:
                raise broadcast_error(acc, s) from None
        raise


def broadcast_tensors(*tensors):
    """Expand all ``tensors`` to their common broadcast shape (views); returns a tuple."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = tuple(broadcast_shapes(*(t._data.shape for t in tensors)))
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


# ------------------------------------------------------------------------------------------------ repeat and tile
class RepeatBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, reps = self.in_shape, self.reps
        padded = (1,) * (len(reps) - len(in_shape)) + tuple(in_shape)
        # the output is reps[i] copies of each dimension, so fold it into (reps[0], s[0], reps[1], s[1], ...)
        # and sum the copies away
        interleaved = []
        for r, s in zip(reps, padded):
            interleaved += [r, s]
        g = grad.reshape(interleaved).sum(tuple(range(0, 2 * len(reps), 2)))
        return (g.reshape(in_shape),)


@tensor_method()
def repeat(input, *sizes):
    """Repeat the tensor ``sizes[i]`` times along each dimension (copies data; see :meth:`expand` for a view)."""
    reps = _shape_arg(sizes, "repeat")
    data = input._data
    if len(reps) < data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(reps)}: {list(reps)}")
    out = wrap(input._xp.tile(data, reps) if reps else data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = RepeatBackward0()
        node.in_shape, node.reps = data.shape, reps
        record(node, out, input)
    return out


@tensor_method()
def tile(input, *dims):
    """Like :meth:`repeat`, but ``dims`` may have fewer entries than the tensor has dimensions (ones are prepended)."""
    reps = _shape_arg(dims, "tile")
    nd = input._data.ndim
    if len(reps) < nd:
        reps = (1,) * (nd - len(reps)) + reps
    return repeat(input, reps)


# ------------------------------------------------------------------------------------------------------ cat/stack
def _tensor_list(tensors, fn):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{fn}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _common_dtype(tensors):
    first = tensors[0]._data.dtype
    for t in tensors:
        if t._data.dtype != first:
            break
    else:
        return None  # all equal: no casts
    from .. import dtypes as dt
    out = dt.from_numpy_dtype(first)
    for t in tensors:
        out = dt.promote_types(out, dt.from_numpy_dtype(t._data.dtype))
    return out.np


class CatBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        dim, sizes, dtypes = self.dim, self.sizes, self.dtypes
        grads = []
        start = 0
        for edge, size, dtype in zip(self.next_functions, sizes, dtypes):
            if edge is None or size is None:  # size None: a legacy empty 1-D input that cat skipped
                grads.append(None)
            else:
                g = narrow(grad, dim, start, size)
                grads.append(g if dtype is None or g._data.dtype == dtype.np else g.to(dtype))
            if size is not None:
                start += size
        return tuple(grads)


def _cat_error(arrays, dim, fn):
    ref = arrays[0]
    for i, a in enumerate(arrays):
        if a.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    for i, a in enumerate(arrays):
        if a.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} and {a.ndim}")
        for k in range(ref.ndim):
            if k != dim and a.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{ref.shape[k]} but got size {a.shape[k]} for tensor number {i} in the list.")
    return RuntimeError(f"{fn}(): could not concatenate tensors of shapes {[list(a.shape) for a in arrays]}")


def cat(tensors, dim=0, *, out=None):
    """Concatenate ``tensors`` along an existing dimension ``dim``, promoting to their common dtype.

    All tensors must have the same shape except in ``dim``. As in PyTorch, 1-D empty tensors (shape ``[0]``) are
    skipped, whatever the other shapes are.
    """
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    used = [t for t in tensors if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    ref = used[0] if used else tensors[0]
    d = normalize_dim(dim, ref._data.ndim)
    dtype = _common_dtype(tensors)
    arrays = [t._data for t in used] or [ref._data]
    if dtype is not None:
        arrays = [a.astype(dtype, copy=False) for a in arrays]
    try:
        result = ref._xp.concatenate(arrays, axis=d)
    except ValueError:
        raise _cat_error(arrays, d, "cat") from None
    res = wrap(result)
    if GRAD_ENABLED[0] and any(t._requires_grad for t in tensors):
        node = CatBackward0()
        sizes = tuple(None if (t._data.ndim == 1 and t._data.shape[0] == 0 and t is not ref) else
                      t._data.shape[d] for t in tensors)
        dtypes = tuple(t.dtype if dtype is not None else None for t in tensors)
        node.dim, node.sizes, node.dtypes = d, sizes, dtypes
        record(node, res, *tensors)
    if out is not None:
        out._data = result.astype(out._data.dtype, copy=False)
        out._bump_version()
        return out
    return res


concat = concatenate = cat


class StackBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        dim, dtypes = self.dim, self.dtypes
        parts = unbind(grad, dim)
        return tuple(None if edge is None else (g if dt is None or g._data.dtype == dt.np else g.to(dt))
                     for edge, g, dt in zip(self.next_functions, parts, dtypes))


def stack(tensors, dim=0, *, out=None):
    """Join equally-shaped ``tensors`` along a new dimension ``dim``."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]._data
    d = normalize_dim(dim, ref.ndim + 1)
    for i, t in enumerate(tensors):
        if t._data.shape != ref.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(ref.shape)} at entry 0 "
                               f"and {list(t._data.shape)} at entry {i}")
    dtype = _common_dtype(tensors)
    arrays = [t._data for t in tensors]
    if dtype is not None:
        arrays = [a.astype(dtype, copy=False) for a in arrays]
    result = tensors[0]._xp.stack(arrays, axis=d)
    res = wrap(result)
    if GRAD_ENABLED[0] and any(t._requires_grad for t in tensors):
        node = StackBackward0()
        node.dim, node.dtypes = d, tuple(t.dtype if dtype is not None else None for t in tensors)
        record(node, res, *tensors)
    if out is not None:
        out._data = result.astype(out._data.dtype, copy=False)
        out._bump_version()
        return out
    return res


def hstack(tensors, *, out=None):
    """Stack horizontally: concatenate along dim 1, or along dim 0 for 1-D tensors."""
    tensors = atleast_1d(*_tensor_list(tensors, "hstack"))
    tensors = tensors if isinstance(tensors, tuple) else (tensors,)
    return cat(tensors, 0 if tensors[0]._data.ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Stack vertically: make every tensor at least 2-D, then concatenate along dim 0."""
    tensors = atleast_2d(*_tensor_list(tensors, "vstack"))
    return cat(tensors if isinstance(tensors, tuple) else (tensors,), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Stack depthwise: make every tensor at least 3-D, then concatenate along dim 2."""
    tensors = atleast_3d(*_tensor_list(tensors, "dstack"))
    return cat(tensors if isinstance(tensors, tuple) else (tensors,), 2, out=out)


def column_stack(tensors, *, out=None):
    """Stack 1-D tensors as columns (and 0-D ones as single elements) of a 2-D result, concatenating along dim 1."""
    cols = []
    for t in _tensor_list(tensors, "column_stack"):
        nd = t._data.ndim
        cols.append(reshape(t, (t._data.size, 1)) if nd <= 1 else t)
    return cat(cols, 1, out=out)


def _atleast(tensors, fn, make):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(make(t) for t in _tensor_list(tensors[0], fn))
    results = tuple(make(t) for t in _tensor_list(tensors, fn))
    return results[0] if len(results) == 1 else results


def _to_1d(t):
    return reshape(t, 1) if t._data.ndim == 0 else t


def _to_2d(t):
    nd = t._data.ndim
    return reshape(t, (1, 1)) if nd == 0 else unsqueeze(t, 0) if nd == 1 else t


def _to_3d(t):
    nd = t._data.ndim
    if nd == 0:
        return reshape(t, (1, 1, 1))
    if nd == 1:
        return unsqueeze(unsqueeze(t, 0), 2)
    if nd == 2:
        return unsqueeze(t, 2)
    return t


def atleast_1d(*tensors):
    """View each input with at least one dimension (0-D becomes shape ``[1]``). One tensor in, one tensor out."""
    return _atleast(tensors, "atleast_1d", _to_1d)


def atleast_2d(*tensors):
    """View each input with at least two dimensions (a 1-D tensor of size n becomes ``[1, n]``)."""
    return _atleast(tensors, "atleast_2d", _to_2d)


def atleast_3d(*tensors):
    """View each input with at least three dimensions (``[n]`` becomes ``[1, n, 1]``, ``[m, n]`` becomes ``[m, n, 1]``)."""
    return _atleast(tensors, "atleast_3d", _to_3d)


# ------------------------------------------------------------------------------------------- split/chunk/unbind
class SplitBackward0(Node):
    """One node for all the pieces: its backward concatenates their gradients (zeros for unused pieces)."""

    __slots__ = ()

    def apply(self, *grads):
        dim, sizes, in_shape = self.dim, self.sizes, self.in_shape
        ref = next(g for g in grads if g is not None)
        parts = []
        for g, size in zip(grads, sizes):
            if g is None:
                shape = in_shape[:dim] + (size,) + in_shape[dim + 1:]
                g = wrap(ref._xp.zeros(shape, dtype=ref._data.dtype))
            parts.append(g)
        return (parts[0] if len(parts) == 1 else cat(parts, dim),)


class SplitWithSizesBackward0(SplitBackward0):
    __slots__ = ()


def _split_sizes(input, sizes, d, node_cls):
    data = input._data
    lead = (slice(None),) * d
    pieces = []
    start = 0
    for s in sizes:
        key = lead + (slice(start, start + s),)
        pieces.append(_as_view(wrap(data[key]), input, lambda t, key=key: t[key]))
        start += s
    pieces = tuple(pieces)
    if GRAD_ENABLED[0] and input._requires_grad:
        from ._base import record_multi
        node = node_cls()
        node.n_outputs = len(pieces)
        node.dim, node.sizes, node.in_shape = d, tuple(sizes), data.shape
        record_multi(node, pieces, input)
    return pieces


@tensor_method()
def split(tensor, split_size_or_sections, dim=0):
    """Split into pieces of ``split_size_or_sections`` along ``dim`` (an int: equal pieces, the last maybe smaller;
    a list: the size of each piece). The pieces are views of ``tensor``."""
    data = tensor._data
    d = normalize_dim(dim, data.ndim)
    if data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    n = data.shape[d]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
        if size == 0:
            if n != 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
            return _split_sizes(tensor, [0], d, SplitBackward0)
        sizes = [size] * (n // size) + ([n % size] if n % size else [])
        return _split_sizes(tensor, sizes or [0], d, SplitBackward0)
    sizes = [int(s) for s in split_size_or_sections]
    if sum(sizes) != n or any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {d}), but got split_sizes={sizes}")
    return _split_sizes(tensor, sizes, d, SplitWithSizesBackward0)


@tensor_method()
def split_with_sizes(input, split_sizes, dim=0):
    """Split into pieces of the given ``split_sizes`` along ``dim``."""
    return split(input, list(split_sizes), dim)


@tensor_method()
def tensor_split(input, indices_or_sections, dim=0):
    """Split into ``n`` nearly equal pieces (an int) or at the given indices (a list, or a 1-D int64 tensor), along
    ``dim``. Piece ``k`` is ``input[indices[k-1]:indices[k]]`` along ``dim`` (indices clamped into range), so a
    decreasing index gives an empty piece and the next piece starts over from the smaller index."""
    data = input._data
    if data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if isinstance(indices_or_sections, Tensor):
        idx = indices_or_sections
        if idx._data.dtype != np.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{idx.dtype.scalar_name}")
        if idx._data.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {idx._data.ndim} dims")
        indices_or_sections = int(idx.item()) if idx._data.ndim == 0 else idx.tolist()
    d = normalize_dim(dim, data.ndim)
    n = data.shape[d]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        base, extra = divmod(n, k)
        return _split_sizes(input, [base + 1] * extra + [base] * (k - extra), d, SplitWithSizesBackward0)
    bounds = [min(max(int(i) + (n if int(i) < 0 else 0), 0), n) for i in indices_or_sections]
    starts, stops = [0] + bounds, bounds + [n]
    if all(a <= b for a, b in zip(starts, stops)):
        return _split_sizes(input, [b - a for a, b in zip(starts, stops)], d, SplitWithSizesBackward0)
    # the pieces of a decreasing index are independent slices (they may overlap), each its own view
    lead = (slice(None),) * d
    return tuple(input[lead + (slice(a, b),)] for a, b in zip(starts, stops))


def _split_by_direction(fn, input, args, sections, indices, min_dims, dim):
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``, where an int must divide the size evenly."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if sections is not None:
        arg = sections
    elif indices is not None:
        arg = list(indices)
    elif len(args) == 1:
        arg = args[0]
    else:
        arg = list(args)
    nd = input._data.ndim
    if nd < min_dims:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{nd} dimensions!")
    if isinstance(arg, (int, np.integer)):
        size = input._data.shape[dim]
        if arg == 0 or size % arg:
            raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {arg}!")
    return tensor_split(input, arg, dim)


@tensor_method()
def hsplit(input, *indices_or_sections, sections=None, indices=None):
    """Split horizontally: :func:`tensor_split` along dim 1 (dim 0 for a 1-D input). An int number of sections must
    divide that dimension evenly; a list gives the split indices."""
    nd = input._data.ndim if isinstance(input, Tensor) else 0
    return _split_by_direction("hsplit", input, indices_or_sections, sections, indices, 1, 1 if nd > 1 else 0)


@tensor_method()
def vsplit(input, *indices_or_sections, sections=None, indices=None):
    """Split vertically: :func:`tensor_split` along dim 0 of an input with at least 2 dims. An int number of
    sections must divide that dimension evenly; a list gives the split indices."""
    return _split_by_direction("vsplit", input, indices_or_sections, sections, indices, 2, 0)


@tensor_method()
def dsplit(input, *indices_or_sections, sections=None, indices=None):
    """Split depthwise: :func:`tensor_split` along dim 2 of an input with at least 3 dims. An int number of
    sections must divide that dimension evenly; a list gives the split indices."""
    return _split_by_direction("dsplit", input, indices_or_sections, sections, indices, 3, 2)


@tensor_method()
def chunk(input, chunks, dim=0):
    """Split into ``chunks`` pieces along ``dim`` (views); all the same size except maybe the last, and fewer than
    ``chunks`` pieces when the size does not divide evenly enough."""
    if not isinstance(chunks, (int, np.integer)) or chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    data = input._data
    if data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, data.ndim)
    n = data.shape[d]
    if n == 0:
        return _split_sizes(input, [0] * int(chunks), d, SplitWithSizesBackward0)
    return split(input, -(-n // int(chunks)), d)


class UnbindBackward0(Node):
    __slots__ = ()

    def apply(self, *grads):
        dim, in_shape = self.dim, self.in_shape
        ref = next(g for g in grads if g is not None)
        shape = in_shape[:dim] + in_shape[dim + 1:]
        parts = [wrap(ref._xp.zeros(shape, dtype=ref._data.dtype)) if g is None else g for g in grads]
        return (stack(parts, dim),)


@tensor_method()
def unbind(input, dim=0):
    """All slices along ``dim`` as a tuple of views, with that dimension removed."""
    data = input._data
    if data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = normalize_dim(dim, data.ndim)
    moved = data if d == 0 else input._xp.moveaxis(data, d, 0)
    pieces = tuple(_as_view(wrap(a), input, lambda t, i=i: t.select(d, i)) for i, a in enumerate(moved))
    if GRAD_ENABLED[0] and input._requires_grad and pieces:
        from ._base import record_multi
        node = UnbindBackward0()
        node.n_outputs = len(pieces)
        node.dim, node.in_shape = d, data.shape
        record_multi(node, pieces, input)
    return pieces


# ------------------------------------------------------------------------------------------------ flip/roll/narrow
class FlipBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (flip(grad, self.dims),)


@tensor_method()
def flip(input, *dims):
    """Reverse the order of elements along ``dims`` (returns a copy, as PyTorch does)."""
    data = input._data
    if len(dims) == 1 and not isinstance(dims[0], (int, np.integer)):
        dims = tuple(dims[0])
    axes = tuple(normalize_dim(d, data.ndim) for d in dims)
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(axes)}, but unique flip dims "
                           f"size={len(set(axes))}")
    out = wrap(input._xp.flip(data, axes).copy() if data.ndim else data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = FlipBackward0()
        node.dims = axes
        record(node, out, input)
    return out


@tensor_method()
def fliplr(input):
    """Flip left/right: reverse dimension 1 (the input needs at least 2 dims)."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@tensor_method()
def flipud(input):
    """Flip up/down: reverse dimension 0 (the input needs at least 1 dim)."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


class RollBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        shifts, dims = self.shifts, self.dims
        return (roll(grad, tuple(-s for s in shifts), dims),)


@tensor_method()
def roll(input, shifts, dims=None):
    """Shift elements cyclically by ``shifts`` along ``dims`` (the flattened tensor when ``dims`` is None)."""
    data = input._data
    shifts_t = (int(shifts),) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(shifts_t) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts_t)}, dims:0")
        out = wrap(input._xp.roll(data.reshape(-1), shifts_t[0]).reshape(data.shape))
        dims_t = None
    else:
        dims_t = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
        if len(shifts_t) != len(dims_t):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts_t)}, dims:{len(dims_t)}")
        dims_t = tuple(normalize_dim(d, data.ndim) for d in dims_t)
        out = wrap(input._xp.roll(data, shifts_t, dims_t))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = RollBackward0()
        node.shifts, node.dims = shifts_t, dims_t
        record(node, out, input)
    return out


class Rot90Backward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (rot90(grad, -self.k, self.dims),)


@tensor_method()
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first dim towards the second (a negative
    ``k`` turns the other way). Returns a copy, as PyTorch does."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"rot90(): argument 'k' must be int, not {type(k).__name__}")
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    data = input._data
    if data.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {data.ndim}")
    d0, d1 = normalize_dim(dims[0], data.ndim), normalize_dim(dims[1], data.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k = int(k) % 4
    out = wrap(input._xp.rot90(data, k, axes=(d0, d1)).copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = Rot90Backward0()
        node.k, node.dims = k, (d0, d1)
        record(node, out, input)
    return out


@tensor_method()
def narrow(input, dim, start, length):
    """The view of ``length`` elements of dimension ``dim`` beginning at ``start`` (which may be negative)."""
    data = input._data
    if data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, data.ndim)
    n = data.shape[d]
    if isinstance(start, Tensor):
        start = start.item()
    start, length = int(start), int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < -n or start > n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return input[(slice(None),) * d + (slice(start, start + length),)]


# ------------------------------------------------------------------------------------------------------- tril/triu
class TrilBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (tril(grad, self.diagonal),)


class TriuBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (triu(grad, self.diagonal),)


def _triangle(input, diagonal, lower):
    data = input._data
    name = "tril" if lower else "triu"
    if data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = input._xp
    out = wrap(xp.tril(data, int(diagonal)) if lower else xp.triu(data, int(diagonal)))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = TrilBackward0() if lower else TriuBackward0()
        node.diagonal = int(diagonal)
        record(node, out, input)
    return out


@tensor_method()
def tril(input, diagonal=0):
    """The lower triangle of the last two dims (elements on and below the ``diagonal``-th diagonal); zeros elsewhere."""
    return _triangle(input, diagonal, True)


@tensor_method()
def triu(input, diagonal=0):
    """The upper triangle of the last two dims (elements on and above the ``diagonal``-th diagonal); zeros elsewhere."""
    return _triangle(input, diagonal, False)


# ------------------------------------------------------------------------------------------- block_diag, diagflat
class BlockDiagBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        grads = []
        for (r, c, rows, cols, shape, dtype), edge in zip(self.blocks, self.next_functions):
            if edge is None:
                grads.append(None)
                continue
            g = grad[r:r + rows, c:c + cols].reshape(shape)
            if g._data.dtype != dtype.np:  # the block was promoted into the result's dtype
                g = (g.real if g._data.dtype.kind == "c" and dtype.np.kind != "c" else g).to(dtype)
            grads.append(g)
        return tuple(grads)


def block_diag(*tensors):
    """The tensors (each 0-, 1- or 2-D, seen as a matrix with one row when fewer) placed in order along the diagonal
    of a zero matrix; the dtype is the promotion of theirs."""
    from .. import dtypes as dt
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t._data.ndim} dimensions")
    if not tensors:
        return wrap(np.zeros((1, 0), dtype=dt.get_default_dtype().np))
    rt = tensors[0].dtype
    for t in tensors[1:]:
        rt = dt.promote_types(rt, t.dtype)
    mats = [t._data.reshape((1, -1) if t._data.ndim < 2 else t._data.shape) for t in tensors]
    xp = tensors[0]._xp
    out_data = xp.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)), dtype=rt.np)
    blocks, r, c = [], 0, 0
    for t, m in zip(tensors, mats):
        out_data[r:r + m.shape[0], c:c + m.shape[1]] = m
        blocks.append((r, c, m.shape[0], m.shape[1], t._data.shape, t.dtype))
        r, c = r + m.shape[0], c + m.shape[1]
    out = wrap(out_data)
    if GRAD_ENABLED[0] and any(t._requires_grad for t in tensors):
        node = BlockDiagBackward0()
        node.blocks = tuple(blocks)
        record(node, out, *tensors)
    return out


@tensor_method()
def diagflat(input, offset=0):
    """A 2-D tensor with the flattened ``input`` on its ``offset``-th diagonal (above the main one for
    ``offset > 0``, below for ``offset < 0``) and zeros elsewhere."""
    from .diagonals import diag_embed
    return diag_embed(reshape(input, -1), offset, 0, 1)


# ------------------------------------------------------------------------------------------------------- movedim
@tensor_method("movedim", "moveaxis")
def movedim(input, source, destination):
    """Move dimension(s) ``source`` to position(s) ``destination``; the other dims keep their order (a view)."""
    nd = input._data.ndim
    src = (source,) if isinstance(source, (int, np.integer)) else tuple(source)
    dst = (destination,) if isinstance(destination, (int, np.integer)) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    src = tuple(normalize_dim(s, nd) for s in src)
    dst = tuple(normalize_dim(s, nd) for s in dst)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    order = [None] * nd
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(i for i in range(nd) if i not in src)
    perm = tuple(o if o is not None else next(rest) for o in order)
    return permute(input, perm)


moveaxis = movedim
