"""``scatter_reduce`` and ``index_reduce``: writes that combine the values meeting at a position by a sum, mean,
product, maximum or minimum (with or without the input's own value, ``include_self``), and their gradients with
PyTorch's rules for ties (tied maxima share the gradient evenly, the input counting among them)."""
from __future__ import annotations

import warnings

import numpy as np

from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, apply_inplace, normalize_dim, record, tensor_method, wrap
from .gather_scatter import _dim_positions, _leading_block, _pad_to, _scatter, gather
from .index import _add_at_flat

__all__ = ["scatter_reduce", "index_reduce"]


# ``reduce`` -> the ufunc whose ``.at`` combines repeated positions (mean sums, then divides by the count)
_REDUCE_UFUNC = {"sum": "add", "mean": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}


def _reduce_identity(reduce, dtype):
    """The value a position starts from when ``include_self=False``: it leaves the first contribution unchanged."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _reduce_at(input, d, idx, src, reduce, include_self, fn):
    """The array of ``input`` with ``src`` (a leading block shaped like ``idx``) combined in at the positions
    ``idx`` names along ``d``."""
    xp = input._xp
    data = input._data
    kind = data.dtype.kind
    kernel = None  # PyTorch's name of the kernel that lacks this dtype
    ordered = reduce in ("amax", "amin")
    if fn == "index_reduce":
        if kind == "b":
            kernel = "index_func_"
        elif kind == "c" and ordered:
            kernel = "maximum_cpu" if reduce == "amax" else "minimum_cpu"
    elif (kind == "b" and reduce == "mean") or (kind == "c" and ordered):
        kernel = f"scatter_gather_tensor_cpu_reduce_{reduce}"
    if kernel is not None:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype.scalar_name}'")
    out = data.copy()
    work = out.reshape(1) if out.ndim == 0 else out
    if idx.size == 0:
        return out
    positions = _dim_positions(work.shape, d, idx).reshape(-1)
    values = src.reshape(-1)
    flat = work.reshape(-1)  # a view: ``out`` is a fresh C-contiguous copy
    if not include_self:
        flat[positions] = _reduce_identity(reduce, data.dtype)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and overflow propagate silently, as in PyTorch
        if reduce in ("sum", "mean"):
            _add_at_flat(flat, positions, values)
        else:
            getattr(xp, _REDUCE_UFUNC[reduce]).at(flat, positions, values)
    if reduce == "mean":
        count = xp.zeros(flat.shape, dtype=np.int64)
        _add_at_flat(count, positions, xp.ones(positions.shape, dtype=np.int64))
        hit = count > 0
        count = count + int(include_self)
        # integer means round down, as PyTorch's floor division does
        flat[hit] = (flat[hit] // count[hit]) if kind in "iu" else (flat[hit] / count[hit])
    return out


class ScatterReduceBackward0(Node):
    """Backward of ``scatter_reduce``/``index_reduce``: ``index`` is the full per-element index along ``d``."""

    __slots__ = ()

    def apply(self, grad):
        self_t, index, src = self.saved_tensors
        result = self.saved_output()
        d, reduce, include_self, src_shape = self.d, self.reduce, self.include_self, self.src_shape
        gi, gs = _scatter_reduce_grads(grad, self_t, index, src, result, d, reduce, include_self)
        if gs is not None:
            gs = _pad_to(gs, src_shape)
        return (gi if self.next_functions[0] is not None else None,
                gs if self.next_functions[1] is not None else None)


class IndexReduceBackward0(ScatterReduceBackward0):
    __slots__ = ()


def _scatter_reduce_grads(grad, self_t, index, src, result, d, reduce, include_self):
    """The gradients w.r.t. ``self`` and the used block of ``src``, as PyTorch defines them.

    sum: ``grad`` passes through. mean: divided by the number of contributions. prod: the product of the other
    contributions, formed without dividing by zero (a zero factor is replaced by one before the product is retaken;
    two zeros at one position give zero). amax/amin: shared evenly among the contributions equal to the result.
    Positions that ``include_self=False`` overwrote give ``self`` no gradient.
    """
    from .clamp_where import where
    xp = grad._xp
    src = src if src._data.shape == index._data.shape else src[tuple(slice(0, s) for s in index._data.shape)]
    dtype = grad._data.dtype

    def const(arr):
        return wrap(arr.astype(dtype, copy=False))

    if reduce == "sum":
        g_self, g_src = grad, gather(grad, d, index)
    elif reduce == "mean":
        ones = xp.ones(index._data.shape, dtype=dtype)
        count = _scatter(wrap(xp.full(grad._data.shape, float(include_self), dtype=dtype)), d, index, wrap(ones),
                         "add", fn="scatter_add")._data
        count = const(xp.where(count == 0, 1, count))
        g_self = grad / count
        g_src = gather(g_self, d, index)
    elif reduce == "prod":
        masked_self = where(wrap(self_t._data == 0), 1, self_t)
        g_self = grad * scatter_reduce(masked_self, d, index, src, "prod", include_self=include_self) / masked_self
        src_zero = src._data == 0
        zeros_here = _scatter(wrap(xp.zeros(grad._data.shape, dtype=np.int64)), d, index,
                              wrap(src_zero.astype(np.int64)), "add", fn="scatter_add")
        single = wrap(src_zero & (gather(zeros_here, d, index)._data == 1))  # the only zero at its position
        masked_src = where(single, 1, src)
        others = gather(grad * scatter_reduce(self_t, d, index, masked_src, "prod", include_self=include_self), d,
                        index)
        plain = gather(grad * result, d, index) / where(wrap(src_zero), 1, src)
        g_src = where(single, others, plain)
    else:  # amax, amin
        # ``self`` counts among the ties even where include_self=False left it out (PyTorch's rule), though it then
        # receives nothing
        self_hit = const(self_t._data == result._data)
        src_hit = const(src._data == gather(result, d, index)._data)
        count = _scatter(self_hit, d, index, src_hit, "add", fn="scatter_add")
        with np.errstate(divide="ignore", invalid="ignore"):  # a NaN result: nothing equals it, the gradient is NaN
            share = grad / count
            g_self = share * self_hit
            g_src = gather(share, d, index) * src_hit
    if not include_self:
        g_self = _scatter(g_self, d, index, 0, None)  # the overwritten positions
    return g_self, g_src


def _check_reduce_index(input, dim, index, src, fn):
    """Shared checks of scatter_reduce; returns ``(d, idx, src block)`` with 0-dim tensors seen as 1-D."""
    data = input._data
    d = normalize_dim(dim, data.ndim)
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError("scatter(): Expected dtype int32/int64 for index")
    work = data.reshape(1) if data.ndim == 0 else data
    flat_idx = idx.reshape(1) if idx.ndim == 0 else idx
    s = src._data.reshape(1) if src._data.ndim == 0 else src._data
    if flat_idx.ndim != work.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if s.ndim != work.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if data.dtype != src._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    for k in range(work.ndim):
        if (k != d and flat_idx.shape[k] > work.shape[k]) or flat_idx.shape[k] > s.shape[k]:
            raise RuntimeError(f"Expected index {list(idx.shape)} to be no larger than self {list(data.shape)} apart "
                               f"from dimension {d} and to be no larger size than src {list(src._data.shape)}")
    if flat_idx.size:
        lo, hi = flat_idx.min(), flat_idx.max()
        if lo < 0 or hi >= work.shape[d]:
            raise RuntimeError(f"index {lo if lo < 0 else hi} is out of bounds for dimension {d} with size "
                               f"{work.shape[d]}")
    return d, flat_idx, _leading_block(s, flat_idx.shape)


def _record_reduce(node_cls, out, input, index, src, d, reduce, include_self):
    node = node_cls()
    node.save(input, index, src)
    node.save_output(out)
    node.d, node.reduce, node.include_self, node.src_shape = d, reduce, include_self, src._data.shape
    record(node, out, input, src)


def _reduce_name(reduce, valid, message):
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce) if "sum" in valid else reduce
    if reduce not in valid:
        raise RuntimeError(message)
    return reduce


@tensor_method()
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Out-of-place :meth:`Tensor.scatter_reduce_`: combine the values of ``src`` into ``input`` at the positions
    ``index`` names along ``dim`` (``out[index[i][j]][j] op= src[i][j]`` for ``dim=0``), with ``reduce`` one of
    ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``. With ``include_self=False`` the positions written to
    forget their value in ``input`` first. Integer means round down. Differentiable w.r.t. ``input`` and ``src``
    (ties of amax/amin share the gradient evenly)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    reduce = _reduce_name(reduce, ("sum", "prod", "mean", "amax", "amin"),
                          f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d, idx, block = _check_reduce_index(input, dim, index, src, "scatter_reduce")
    tracking = GRAD_ENABLED[0] and (input._requires_grad or src._requires_grad)
    if tracking and input._data.dtype.kind == "c":
        raise RuntimeError("scatter_reduce does not support automatic differentiation for outputs with complex "
                           "dtype.")
    out = wrap(_reduce_at(input, d, idx, block, reduce, include_self, "scatter_reduce"))
    if tracking:
        # (a 0-dim index and src take part as 1-D, as in the forward)
        _record_reduce(ScatterReduceBackward0, out, input, index if index._data.ndim else index.reshape(1),
                       src if src._data.ndim else src.reshape(1), d, reduce, include_self)
    return out


_warned_index_reduce = [False]


@tensor_method()
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Out-of-place :meth:`Tensor.index_reduce_`: combine the slices of ``source`` into ``input`` at the positions in
    the 1-D ``index`` along ``dim``, with ``reduce`` one of ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``. With
    ``include_self=False`` the slices written to forget their value in ``input`` first. Integer means round down.
    Differentiable w.r.t. ``input`` and ``source`` (ties of amax/amin share the gradient evenly). A beta API in
    PyTorch, which warns once."""
    if not _warned_index_reduce[0]:
        _warned_index_reduce[0] = True
        warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=2)
    if not isinstance(source, Tensor):
        raise TypeError(f"index_reduce(): argument 'source' (position 4) must be Tensor, not "
                        f"{type(source).__name__}")
    reduce = _reduce_name(reduce, ("prod", "mean", "amax", "amin"),
                          f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    data = input._data
    d = normalize_dim(dim, data.ndim)
    if not isinstance(index, Tensor):
        raise TypeError(f"index_reduce(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {index.dtype.scalar_name}")
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
                         f"{index.dtype.scalar_name} and size: {list(idx.shape)}")
    idx = idx.reshape(-1)
    src = source._data
    n_src = src.shape[d] if src.ndim else 1
    if src.ndim and idx.size != n_src:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {d}")
    if src.shape[:d] + src.shape[d + 1:] != data.shape[:d] + data.shape[d + 1:] or src.ndim != data.ndim:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(data.shape)} source.shape = {list(src.shape)}")
    if data.dtype != src.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.scalar_name}) and source "
                           f"({source.dtype.scalar_name}) must have the same scalar type")
    n = data.shape[d] if data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError("index out of range in self")
    tracking = GRAD_ENABLED[0] and (input._requires_grad or source._requires_grad)
    if tracking and data.dtype.kind == "c":  # PyTorch has no complex gradient here and says so this way
        raise NotImplementedError(f"\"index_func_\" not implemented for '{input.dtype.scalar_name}'")
    # the same reduction as scatter_reduce with the index repeated across the slices
    shape = src.shape if src.ndim else (1,)
    full = input._xp.broadcast_to(idx.astype(np.int64).reshape((1,) * d + (-1,) + (1,) * (len(shape) - d - 1)), shape)
    out = wrap(_reduce_at(input, d, full, src.reshape(shape), reduce, include_self, "index_reduce"))
    if tracking:
        _record_reduce(IndexReduceBackward0, out, input, wrap(full), source if src.ndim else source.reshape(1), d,
                       reduce, include_self)
    return out


def _reduce_inplace(op):
    def method(self, dim, index, src, reduce, *, include_self=True):
        return apply_inplace(self, lambda old, s: op(old, dim, index, s, reduce, include_self=include_self), src)
    method.__name__ = op.__name__ + "_"
    method.__doc__ = f"In-place version of :meth:`{op.__name__}`."
    return method


Tensor.scatter_reduce_ = _reduce_inplace(scatter_reduce)
Tensor.index_reduce_ = _reduce_inplace(index_reduce)
