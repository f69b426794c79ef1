"""The gather/scatter family: ops that read or write a tensor at positions given by an index tensor or a mask.

``gather``/``scatter``/``scatter_add``/``scatter_reduce`` and ``take_along_dim`` address one position per index
element along a dim; ``index_select``/``index_add``/``index_copy``/``index_fill``/``index_reduce`` address whole
slices; ``masked_fill``/``masked_select``/``masked_scatter`` use a boolean mask; ``take`` sees the input as 1-D;
``select`` picks one slice;
``nonzero``/``argwhere`` list the non-zero positions (``where(condition)`` with one argument is ``nonzero``);
``unravel_index`` turns flat positions into coordinates.

Writes with repeated positions accumulate through the same flat 1-D ``add.at`` as the gradient of indexing, and the
reads reuse the key parsing of :mod:`.index`; see that module for why.
"""
from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, broadcast_error, normalize_dim, record, sum_to, \
    tensor_method, wrap
from ..device import array_module
from .index import _NO_ARRAYS, _add_at_flat, _index, _index_backward, _parse

__all__ = ["gather", "scatter", "scatter_add", "index_select", "index_add", "index_copy",
           "index_fill", "masked_fill", "masked_select", "masked_scatter", "nonzero", "argwhere",
           "take", "take_along_dim", "select", "repeat_interleave", "unravel_index"]


# ------------------------------------------------------------------------------------------ shared argument checks
def _int_index(index, fn, what="int64"):
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' must be Tensor, not {type(index).__name__}")
    arr = index._data
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}(): Expected dtype {what} for index")
    return arr


def _check_range(arr, n, dim):
    """Raise PyTorch's IndexError unless all of ``arr`` lies in ``[0, n)``."""
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= n:
            bad = lo if lo < 0 else hi
            raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {n}")


def _c_strides(shape):
    strides = [1] * len(shape)
    for k in range(len(shape) - 2, -1, -1):
        strides[k] = strides[k + 1] * shape[k + 1]
    return strides


def _dim_positions(shape, d, idx):
    """Flat positions in a C-contiguous array of ``shape`` of the elements ``idx`` addresses along ``d``: element
    ``(i0, .., ik, ..)`` of ``idx`` names position ``idx[..]`` in dim ``d`` and ``ik`` in every other dim."""
    xp = np if type(idx) is np.ndarray else array_module(idx)
    strides = _c_strides(shape)
    nd = idx.ndim
    lin = idx.astype(np.intp) * strides[d]
    for k in range(nd):
        if k != d and idx.shape[k] > 1:
            lin = lin + (xp.arange(idx.shape[k], dtype=np.intp) * strides[k]).reshape(
                (1,) * k + (-1,) + (1,) * (nd - k - 1))
    return lin


def _leading_block(data, shape):
    """``data[:shape[0], :shape[1], ...]`` (a view)."""
    if data.shape == tuple(shape):
        return data
    return data[tuple(slice(0, s) for s in shape)]


def _pad_to(grad, shape):
    """Zeros of ``shape`` with ``grad`` in the leading block (differentiable)."""
    if grad._data.shape == tuple(shape):
        return grad
    return _index_backward(grad, tuple(shape), _parse(tuple(slice(0, s) for s in grad._data.shape), shape))


# -------------------------------------------------------------------------------------------------------- gather
class GatherBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        shape, d = self.shape, self.d
        zeros = wrap(grad._xp.zeros(shape, dtype=grad._data.dtype))
        return (_scatter(zeros, d, index, grad, "add", copy=False),)


def _dim_index_checks(input, dim, index, fn):
    data = input._data
    idx = _int_index(index, fn)
    nd = max(data.ndim, 1)
    d = normalize_dim(dim, data.ndim)
    if max(idx.ndim, 1) != nd:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return data, idx, d


@tensor_method()
def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for ``dim=0`` (and likewise for other dims).

    ``index`` has the dimensions of ``input`` and may be smaller than it except along ``dim``.
    """
    data, idx, d = _dim_index_checks(input, dim, index, "gather")
    if data.ndim == 0:
        data = data.reshape(1)
    flat_idx = idx.reshape(1) if idx.ndim == 0 else idx
    for k in range(data.ndim):
        if k != d and flat_idx.shape[k] > data.shape[k]:
            raise RuntimeError(f"Size does not match at dimension {k} expected index {list(idx.shape)} to be smaller "
                               f"than self {list(input._data.shape)} apart from dimension {d}")
    _check_range(flat_idx, data.shape[d], d)
    block = _leading_block(data, tuple(s if k != d else data.shape[d] for k, s in enumerate(flat_idx.shape)))
    out = wrap(input._xp.take_along_axis(block, flat_idx.astype(np.intp, copy=False), axis=d).reshape(idx.shape))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = GatherBackward0()
        node.save(index)
        node.shape, node.d = input._data.shape, d
        record(node, out, input)
    return out


# ------------------------------------------------------------------------------------------------------- scatter
class ScatterBackward0(Node):
    """Backward of scatter with a ``src`` tensor: overwritten positions get no gradient; ``src`` gets a gather."""

    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        d, src_shape, reduce = self.d, self.src_shape, self.reduce
        if reduce == "multiply":
            raise RuntimeError("the derivative for 'scatter' with reduce='multiply' is not implemented")
        gi = gs = None
        if self.next_functions[0] is not None:
            gi = grad if reduce == "add" else _scatter(grad, d, index, 0, None)
        if len(self.next_functions) > 1 and self.next_functions[1] is not None:
            gs = _pad_to(gather(grad, d, index), src_shape)
        return gi, gs


class ScatterAddBackward0(ScatterBackward0):
    __slots__ = ()


class ScatterBackward1(ScatterBackward0):
    __slots__ = ()


def _scatter(input, dim, index, src, reduce, copy=True, fn="scatter"):
    data, idx, d = _dim_index_checks(input, dim, index, fn)
    src_t = src if isinstance(src, Tensor) else None
    shape0 = data.shape
    out_data = data.copy() if copy else data
    work = out_data.reshape(1) if out_data.ndim == 0 else out_data
    flat_idx = idx.reshape(1) if idx.ndim == 0 else idx
    if src_t is not None:
        s = src_t._data.reshape(1) if src_t._data.ndim == 0 else src_t._data
        if s.ndim != work.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    for k in range(work.ndim):
        if (k != d and flat_idx.shape[k] > work.shape[k]) or (src_t is not None and flat_idx.shape[k] > s.shape[k]):
            raise RuntimeError(f"Expected index {list(idx.shape)} to be smaller than self {list(shape0)} apart from "
                               f"dimension {d}" + (f" and to be smaller size than src {list(src_t._data.shape)}"
                                                   if src_t is not None else ""))
    _check_range(flat_idx, work.shape[d], d)
    values = _leading_block(s, flat_idx.shape) if src_t is not None else src
    if flat_idx.size:
        positions = _dim_positions(work.shape, d, flat_idx)
        flat = work.reshape(-1)  # a view: out_data is C-contiguous (a fresh copy or fresh zeros)
        if reduce is None:
            flat[positions] = values
        elif reduce == "add":
            _add_at_flat(flat, positions, values if hasattr(values, "dtype") else input._xp.asarray(values, work.dtype))
        else:
            xp = input._xp
            vals = xp.broadcast_to(xp.asarray(values, dtype=work.dtype), positions.shape)
            xp.multiply.at(flat, positions.reshape(-1), vals.reshape(-1))
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (input._requires_grad or (src_t is not None and src_t._requires_grad)):
        if src_t is None:
            node = ScatterBackward1()
        elif reduce == "add" and fn == "scatter_add":
            node = ScatterAddBackward0()
        else:
            node = ScatterBackward0()
        node.save(index)
        node.d, node.src_shape, node.reduce = d, src_t._data.shape if src_t is not None else None, reduce
        if src_t is not None:
            record(node, out, input, src_t)
        else:
            record(node, out, input)
    return out


@tensor_method()
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """Out-of-place :meth:`Tensor.scatter_`: write ``src`` (a tensor) or ``value`` (a number) at the positions
    ``index`` names along ``dim``: ``out[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    ``reduce`` may be ``'add'`` or ``'multiply'`` to combine with the existing values instead of overwriting.
    """
    if src is None and value is None:
        raise TypeError("scatter() missing required argument: 'src' or 'value'")
    if src is None:
        src = value
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    return _scatter(input, dim, index, src, reduce)


@tensor_method()
def scatter_add(input, dim, index, src):
    """Out-of-place :meth:`Tensor.scatter_add_`: add ``src`` at the positions ``index`` names along ``dim``; repeated
    positions accumulate."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    return _scatter(input, dim, index, src, "add", fn="scatter_add")


# ----------------------------------------------------------------------------------------------- index_* family
def _vector_index(index, fn):
    idx = _int_index(index, fn, "int32 or int64")
    if idx.ndim > 1:
        raise IndexError(f"{fn}(): Index is supposed to be a vector")
    return idx.reshape(-1)


def _dim_and_index(input, dim, index, fn):
    data = input._data
    d = normalize_dim(dim, data.ndim)
    idx = _vector_index(index, fn)
    n = data.shape[d] if data.ndim else 1
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < -n or hi >= n:
            raise IndexError("index out of range in self")
        if lo < 0:
            idx = idx % n
    return data, d, idx


class IndexSelectBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        shape, d = self.shape, self.d
        zeros = wrap(grad._xp.zeros(shape, dtype=grad._data.dtype))
        return (_index_add(zeros, d, index, grad, 1, copy=False),)


@tensor_method()
def index_select(input, dim, index):
    """The entries of ``input`` along ``dim`` at the positions in the 1-D ``index`` (a copy)."""
    data, d, idx = _dim_and_index(input, dim, index, "index_select")
    work = data.reshape(1) if data.ndim == 0 else data
    out_data = input._xp.take(work, idx, axis=d)
    if data.ndim == 0:
        out_data = out_data.reshape(())
    out = wrap(out_data)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = IndexSelectBackward0()
        node.save(index)
        node.shape, node.d = data.shape, d
        record(node, out, input)
    return out


def _slab_check(data, d, idx, src, fn):
    if data.ndim == 0:
        if idx.size != 1 or src.size != 1:
            raise RuntimeError(f"{fn}(): for a 0-dim self, index and source must hold one element each")
        return
    expected = data.shape[:d] + (idx.size,) + data.shape[d + 1:]
    if src.shape != expected:
        if src.ndim and src.ndim == data.ndim and src.shape[d] != idx.size:
            raise RuntimeError(f"{fn}(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                               f"({src.shape[d]})")
        raise RuntimeError(f"{fn}(): source must have the shape of self with dimension {d} of size {idx.size} "
                           f"(the number of indices): expected {list(expected)}, got {list(src.shape)}")


class IndexAddBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        d, alpha = self.d, self.alpha
        gs = None
        if self.next_functions[1] is not None:
            gs = index_select(grad, d, index)
            if alpha != 1:
                gs = gs * alpha
        return grad, gs


def _index_add(input, dim, index, source, alpha, copy=True):
    data, d, idx = _dim_and_index(input, dim, index, "index_add")
    src = source._data
    _slab_check(data, d, idx, src, "index_add")
    out_data = data.copy() if copy else data
    if idx.size and out_data.size:
        work = out_data.reshape(1) if out_data.ndim == 0 else out_data
        s = src.reshape(work.shape[:d] + (idx.size,) + work.shape[d + 1:])
        if alpha != 1:
            s = s * alpha
        nd = work.ndim
        full_idx = input._xp.broadcast_to(idx.reshape((1,) * d + (-1,) + (1,) * (nd - d - 1)), s.shape)
        _add_at_flat(work.reshape(-1), _dim_positions(work.shape, d, full_idx), s)
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (input._requires_grad or source._requires_grad):
        node = IndexAddBackward0()
        node.save(index)
        node.d, node.alpha = d, alpha
        record(node, out, input, source)
    return out


@tensor_method()
def index_add(input, dim, index, source, *, alpha=1):
    """Out-of-place :meth:`Tensor.index_add_`: add ``alpha * source`` to the entries of ``input`` along ``dim`` at the
    positions in ``index``; repeated indices accumulate."""
    return _index_add(input, dim, index, source, alpha)


class IndexCopyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        d = self.d
        gi = index_fill(grad, d, index, 0) if self.next_functions[0] is not None else None
        gs = index_select(grad, d, index) if self.next_functions[1] is not None else None
        return gi, gs


def _moved(arr, d, xp):
    if arr.ndim == 0:
        return arr.reshape(1)
    return arr if d == 0 else xp.moveaxis(arr, d, 0)


@tensor_method()
def index_copy(input, dim, index, source):
    """Out-of-place :meth:`Tensor.index_copy_`: the entries of ``input`` along ``dim`` at ``index`` replaced by the
    slices of ``source``."""
    data, d, idx = _dim_and_index(input, dim, index, "index_copy")
    src = source._data
    _slab_check(data, d, idx, src, "index_copy")
    xp = input._xp
    out_data = data.copy()
    if idx.size:
        _moved(out_data, d, xp)[idx] = _moved(src.reshape(out_data.shape[:d] + (idx.size,) + out_data.shape[d + 1:])
                                              if out_data.ndim else src.reshape(-1), d, xp)
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (input._requires_grad or source._requires_grad):
        node = IndexCopyBackward0()
        node.save(index)
        node.d = d
        record(node, out, input, source)
    return out


class IndexFillBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (index,) = self.saved_tensors
        d = self.d
        gi = index_fill(grad, d, index, 0) if self.next_functions[0] is not None else None
        gv = None
        if len(self.next_functions) > 1 and self.next_functions[1] is not None:
            # a position named twice was filled once: count it once
            unique = wrap(grad._xp.unique(index._data.reshape(-1) % max(grad._data.shape[d] if grad._data.ndim else 1,
                                                                          1)))
            gv = index_select(grad, d, unique).sum()
        return gi, gv


class IndexFillBackward1(IndexFillBackward0):
    __slots__ = ()


@tensor_method()
def index_fill(input, dim, index, value):
    """Out-of-place :meth:`Tensor.index_fill_`: the entries of ``input`` along ``dim`` at ``index`` set to ``value``
    (a number or a 0-dim tensor)."""
    data, d, idx = _dim_and_index(input, dim, index, "index_fill")
    vt = value if isinstance(value, Tensor) else None
    if vt is not None and vt._data.ndim != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{vt._data.ndim} dimension(s).")
    out_data = data.copy()
    if idx.size:
        _moved(out_data, d, input._xp)[idx] = vt._data if vt is not None else value
    out = wrap(out_data)
    if GRAD_ENABLED[0] and (input._requires_grad or (vt is not None and vt._requires_grad)):
        node = IndexFillBackward1() if vt is not None else IndexFillBackward0()
        node.save(index)
        node.d = d
        if vt is not None:
            record(node, out, input, vt)
        else:
            record(node, out, input)
    return out


# ---------------------------------------------------------------------------------------------------- masked ops
def _bool_mask(mask, fn):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{fn}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask._data.dtype.kind != "b":
        raise RuntimeError(f"{fn} only supports boolean masks, but got mask with dtype {mask.dtype.scalar_name}")
    return mask._data


class MaskedFillBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (mask,) = self.saved_tensors
        in_shape = self.in_shape
        gi = gv = None
        if self.next_functions[0] is not None:
            gi = sum_to(masked_fill(grad, mask, 0), in_shape)
        if len(self.next_functions) > 1 and self.next_functions[1] is not None:
            gv = masked_fill(grad, wrap(~mask._data), 0).sum()
        return gi, gv


class MaskedFillBackward1(MaskedFillBackward0):
    __slots__ = ()


@tensor_method()
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or 0-dim tensor) where the boolean ``mask`` (broadcastable) is True."""
    m = _bool_mask(mask, "masked_fill_")
    vt = value if isinstance(value, Tensor) else None
    data = input._data
    if vt is not None:
        if vt._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{vt._data.ndim} dimension(s).")
        v = vt._data
    else:
        v = value
    try:
        res = input._xp.where(m, v, data)
    except ValueError:
        raise broadcast_error(data.shape, m.shape) from None
    if res.dtype != data.dtype:
        res = res.astype(data.dtype)
    out = wrap(res)
    if GRAD_ENABLED[0] and (input._requires_grad or (vt is not None and vt._requires_grad)):
        node = MaskedFillBackward1() if vt is not None else MaskedFillBackward0()
        node.save(mask)
        node.in_shape = data.shape
        if vt is not None:
            record(node, out, input, vt)
        else:
            record(node, out, input)
    return out


def _masked_fill_(self, mask, value):
    """In-place :func:`masked_fill` (``mask`` must broadcast to ``self``'s shape)."""
    vt = value if isinstance(value, Tensor) else None
    if not (GRAD_ENABLED[0] and (self._requires_grad or (vt is not None and vt._requires_grad))):
        # no graph to record: write straight into self's memory (masking attention scores is a hot path)
        m = _bool_mask(mask, "masked_fill_")
        if vt is not None and vt._data.ndim != 0:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{vt._data.ndim} dimension(s).")
        try:
            self._xp.copyto(self._data, vt._data if vt is not None else value, casting="unsafe", where=m)
        except ValueError:
            raise broadcast_error(self._data.shape, m.shape) from None
        self._bump_version()
        return self
    if isinstance(value, Tensor):
        return apply_inplace(self, lambda old, v: masked_fill(old, mask, v), value)
    return apply_inplace(self, lambda old: masked_fill(old, mask, value))


# (the other in-place variants, index_add_, scatter_, ..., are generic wrappers in inplace.py)
Tensor.masked_fill_ = _masked_fill_


@tensor_method()
def masked_select(input, mask):
    """The elements of ``input`` where the boolean ``mask`` is True, as a 1-D tensor (both broadcast first)."""
    m = _bool_mask(mask, "masked_select")
    shape = input._data.shape
    if m.shape != shape:
        try:
            bshape = tuple(np.broadcast_shapes(shape, m.shape))
        except ValueError:
            raise broadcast_error(shape, m.shape) from None
        if bshape != shape:
            input = input.expand(bshape)
        if m.shape != bshape:
            mask = mask.expand(bshape)
    return _index(input, _parse(mask, input._data.shape))


class MaskedScatterBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (mask,) = self.saved_tensors
        in_shape, src_shape = self.in_shape, self.src_shape
        gi = gs = None
        if self.next_functions[0] is not None:
            gi = sum_to(masked_fill(grad, mask, 0), in_shape)
        if self.next_functions[1] is not None:
            bmask = mask if mask._data.shape == grad._data.shape else mask.expand(grad._data.shape)
            picked = _index(grad, _parse(bmask, grad._data.shape))
            numel = 1
            for s in src_shape:
                numel *= s
            gs = _pad_to(picked, (numel,)).reshape(src_shape)
        return gi, gs


@tensor_method()
def masked_scatter(input, mask, source):
    """``input`` with the positions where ``mask`` is True filled, in order, by consecutive elements of ``source``."""
    m = _bool_mask(mask, "masked_scatter_")
    data = input._data
    xp = input._xp
    try:
        bshape = tuple(np.broadcast_shapes(data.shape, m.shape))
    except ValueError:
        raise broadcast_error(data.shape, m.shape) from None
    res = xp.broadcast_to(data, bshape).copy()
    bm = xp.broadcast_to(m, bshape)
    count = int(bm.sum())
    src = source._data
    if src.size < count:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements as the number of ones "
                           f"in mask, but got {src.size} elements and {count} ones")
    res[bm] = src.reshape(-1)[:count]
    out = wrap(res)
    if GRAD_ENABLED[0] and (input._requires_grad or source._requires_grad):
        node = MaskedScatterBackward0()
        node.save(mask)
        node.in_shape, node.src_shape, node.count = data.shape, src.shape, count
        record(node, out, input, source)
    return out


# ------------------------------------------------------------------------------------------------- unravel_index
def unravel_index(indices, shape):
    """The coordinates, in a tensor of ``shape``, of the flat (row-major) ``indices``: a tuple of int64 tensors,
    one per dimension, each shaped like ``indices``. Indices outside ``[0, prod(shape))`` wrap around, as PyTorch's
    floor-division-and-modulo formula makes them."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): argument 'indices' must be Tensor, not {type(indices).__name__}")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    elif isinstance(shape, (tuple, list)):
        for s in shape:
            if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(s)}")
        shape = tuple(int(s) for s in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices._data.astype(np.int64)
    if 0 in shape and flat.size:
        raise RuntimeError("ZeroDivisionError")
    coords, stride = [], 1
    for s in reversed(shape):  # the row-major stride of each dim, last dim first
        coords.append(wrap((flat // stride) % s if s else flat))
        stride *= s
    return tuple(reversed(coords))


# -------------------------------------------------------------------------------------------- nonzero and friends
@tensor_method()
def nonzero(input, *, as_tuple=False):
    """The indices of the non-zero elements: an ``(n, ndim)`` int64 tensor, or with ``as_tuple=True`` one 1-D tensor
    per dimension (what ``where(condition)`` returns)."""
    data = input._data
    xp = input._xp
    if as_tuple:
        parts = xp.nonzero(data.reshape(1) if data.ndim == 0 else data)
        return tuple(wrap(p.astype(np.int64, copy=False)) for p in parts)
    return wrap(xp.argwhere(data).astype(np.int64, copy=False))


@tensor_method()
def argwhere(input):
    """The indices of the non-zero elements as an ``(n, ndim)`` int64 tensor (``nonzero(input)``)."""
    return nonzero(input)


@tensor_method()
def take(input, index):
    """The elements of ``input`` seen as 1-D, at the positions in ``index``; the result has ``index``'s shape."""
    idx = _int_index(index, "take")
    n = input._data.size
    if idx.size:
        lo, hi = idx.min(), idx.max()
        if lo < -n or hi >= n:
            bad = hi if hi >= n else lo
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = input.reshape(-1)
    return _index(flat, _parse((index,), (n,))) if idx.ndim else _index(flat, _parse(int(idx), (n,)))


@tensor_method()
def take_along_dim(input, indices, dim=None):
    """Pick values along ``dim`` at ``indices`` (broadcast with ``input`` in the other dims), like NumPy's
    ``take_along_axis``; with ``dim=None`` both are flattened."""
    _int_index(indices, "take_along_dim")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    nd = input._data.ndim
    d = normalize_dim(dim, nd)
    if indices._data.ndim != nd:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {nd} dimensions for input, and {indices._data.ndim} dimensions for indices")
    ishape, jshape = list(input._data.shape), list(indices._data.shape)
    ishape[d] = jshape[d] = 1
    try:
        common = list(np.broadcast_shapes(tuple(ishape), tuple(jshape)))
    except ValueError:
        raise broadcast_error(input._data.shape, indices._data.shape) from None
    a_shape = common[:d] + [input._data.shape[d]] + common[d + 1:]
    b_shape = common[:d] + [indices._data.shape[d]] + common[d + 1:]
    if tuple(a_shape) != input._data.shape:
        input = input.expand(a_shape)
    if tuple(b_shape) != indices._data.shape:
        indices = indices.expand(b_shape)
    return gather(input, d, indices)


@tensor_method()
def select(input, dim, index):
    """The slice at ``index`` along ``dim``, with that dimension removed (a view)."""
    data = input._data
    if data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = normalize_dim(dim, data.ndim)
    n = data.shape[d]
    index = int(index)
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(data.shape)} at dimension "
                         f"{d}")
    return _index(input, ((slice(None),) * d + (index, Ellipsis), None, _NO_ARRAYS, None))


@tensor_method()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each entry of ``input`` along ``dim`` (of the flattened input when ``dim`` is None) ``repeats``
    times: an int, or a 0-d/1-d integer tensor with one count per entry. Called with one integer tensor only, it
    returns ``arange(len(repeats))`` repeated by ``repeats``. Differentiable (an ``index_select``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"repeat_interleave(): argument 'input' must be Tensor, not {type(input).__name__}")
    xp = input._xp
    if repeats is None:  # repeat_interleave(repeats): the positions, each repeated by its count
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        counts = _repeat_counts(input, input.shape[0])
        return wrap(xp.repeat(xp.arange(counts.shape[0], dtype=np.int64), counts))
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        d = normalize_dim(dim, max(1, input.ndim))
    n = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor):
        counts = _repeat_counts(repeats, n)
    else:
        if isinstance(repeats, bool) or not isinstance(repeats, (int, np.integer)):
            raise TypeError(f"repeat_interleave(): argument 'repeats' must be int or Tensor, not "
                            f"{type(repeats).__name__}")
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        counts = int(repeats)
    index = xp.repeat(xp.arange(n, dtype=np.int64), counts)
    if output_size is not None and output_size != index.size:
        raise RuntimeError("allocated size does not match required size")
    return index_select(input, d, wrap(index))


def _repeat_counts(repeats, n):
    """``repeats`` (a 0-d or 1-d integer tensor) as one non-negative count per entry of a dim of size ``n``."""
    counts = repeats._data
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{repeats.dtype.scalar_name}'")
    if counts.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    counts = counts.astype(np.int64).reshape(-1)
    if counts.size == 1 and n != 1:
        counts = repeats._xp.full(n, counts[0], dtype=np.int64)
    if counts.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{counts.size} and input.size(0) = {n}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return counts
