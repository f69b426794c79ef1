"""Sorting and selection (sort, topk, kthvalue, median, mode, cummax/cummin), uniques and histograms,
binary search and diff.

The selecting ops return ``(values, indices)`` named tuples as PyTorch does. Their values are differentiable: the
gradient goes back to the selected positions (a scatter-add, so ``cummax``'s repeated indices accumulate), and
``median()``/``nanmedian()`` over all elements split it evenly between the elements equal to the result. Counting
ops (unique, bincount, histc, histogram, searchsorted, bucketize) are not differentiable, as in PyTorch.

NaN ordering follows PyTorch: NaN sorts as the largest value (last ascending, first descending), ``median``
propagates NaN and ``nanmedian`` ignores it.
"""
from __future__ import annotations

import numpy as np

from .. import return_types as _rt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, check_tensor, normalize_dim, record, tensor_method, wrap

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
           "unique_consecutive", "bincount", "histc", "histogram", "searchsorted", "bucketize", "cummax", "cummin",
           "diff", "quantile", "nanquantile"]

_ValuesIndices = {name: getattr(_rt, name)
                  for name in ("sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin")}
_Histogram = _rt.histogram


# ------------------------------------------------------------------------------------------------- shared helpers
def _dim_of(input: Tensor, dim) -> int:
    return normalize_dim(dim, input._data.ndim)


def _no_complex(input: Tensor, fname: str) -> None:
    if input._data.dtype.kind == "c":
        raise RuntimeError(f"{fname}(): not implemented for '{input.dtype.scalar_name}'")


def _argsort(data: np.ndarray, axis: int, descending: bool, stable: bool, xp) -> np.ndarray:
    """Indices sorting ``data`` along ``axis`` with NaN as the largest value (numpy already puts NaN last)."""
    kind = "stable" if stable or descending else None
    if not descending:
        return xp.argsort(data, axis=axis, kind=kind)
    # descending, stable among equal values and NaN first: sort the reversed array ascending, then reverse back
    n = data.shape[axis]
    rev = xp.argsort(xp.flip(data, axis), axis=axis, kind="stable")
    return (n - 1) - xp.flip(rev, axis)


class _SelectBackward(Node):
    """Values picked at ``indices`` along ``dim``: the gradient is scatter-added back to those positions."""
    __slots__ = ()

    def apply(self, grad):
        in_shape, dim, indices, keepdim = self.in_shape, self.dim, self.indices, self.keepdim
        from .gather_scatter import scatter_add
        idx = wrap(indices)
        if not keepdim and len(in_shape):
            grad = grad.unsqueeze(dim)
            idx = idx.unsqueeze(dim)
        if not len(in_shape):
            return (grad,)
        zeros = wrap(grad._xp.zeros(in_shape, dtype=grad._data.dtype))
        return (scatter_add(zeros, dim, idx, grad),)


class SortBackward0(_SelectBackward):
    __slots__ = ()


class TopkBackward0(_SelectBackward):
    __slots__ = ()


class KthvalueBackward0(_SelectBackward):
    __slots__ = ()


class MedianBackward1(_SelectBackward):
    __slots__ = ()


class NanmedianBackward1(_SelectBackward):
    __slots__ = ()


class ModeBackward0(_SelectBackward):
    __slots__ = ()


class CummaxBackward0(_SelectBackward):
    __slots__ = ()


class CumminBackward0(_SelectBackward):
    __slots__ = ()


def _select_result(name, input, dim, values, indices, keepdim, node_cls):
    out = wrap(values)
    idx = wrap(indices.astype(np.int64, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad and input._data.dtype.kind in "fc":
        node = node_cls()
        node.in_shape, node.dim, node.indices, node.keepdim = input._data.shape, dim, idx._data, keepdim
        record(node, out, input)
    return _ValuesIndices[name](out, idx)


# ------------------------------------------------------------------------------------------------------------ sort
@tensor_method()
def sort(input, dim=-1, descending=False, stable=False):
    """Sort along ``dim``; returns ``(values, indices)`` with ``values == input.gather(dim, indices)``.

    ``stable=True`` keeps the order of equal elements. NaN sorts as the largest value.
    """
    if isinstance(dim, bool):  # sort(input, stable, dim, descending) keyword form passed positionally
        raise TypeError("sort(): argument 'dim' must be int, not bool")
    check_tensor(input, "input", "sort")
    _no_complex(input, "sort")
    data = input._data
    xp = input._xp
    if data.ndim == 0:
        normalize_dim(dim, 0)
        return _select_result("sort", input, 0, data.copy(), xp.zeros((), dtype=np.int64), True, SortBackward0)
    d = _dim_of(input, dim)
    idx = _argsort(data, d, descending, stable, xp)
    values = xp.take_along_axis(data, idx, axis=d)
    return _select_result("sort", input, d, values, idx, True, SortBackward0)


@tensor_method()
def argsort(input, dim=-1, descending=False, stable=False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (see :func:`sort`)."""
    check_tensor(input, "input", "argsort")
    _no_complex(input, "argsort")
    data = input._data
    if data.ndim == 0:
        normalize_dim(dim, 0)
        return wrap(input._xp.zeros((), dtype=np.int64))
    return wrap(_argsort(data, _dim_of(input, dim), descending, stable, input._xp).astype(np.int64, copy=False))


@tensor_method()
def msort(input) -> Tensor:
    """``input`` sorted along its first dimension (the values of ``sort(input, dim=0)``)."""
    return sort(input, dim=0).values


# ------------------------------------------------------------------------------------------------- topk / kthvalue
@tensor_method()
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or, with ``largest=False``, smallest) elements along ``dim``: ``(values, indices)``.

    With ``sorted`` they come in sorted order (descending for largest); NaN counts as the largest value.
    """
    check_tensor(input, "input", "topk")
    _no_complex(input, "topk")
    data = input._data
    xp = input._xp
    d = _dim_of(input, dim) if data.ndim else normalize_dim(dim, 0)
    n = data.shape[d] if data.ndim else 1
    if not isinstance(k, (int, np.integer)) or k < 0 or k > n:
        raise RuntimeError("selected index k out of range")
    if data.ndim == 0:
        return _select_result("topk", input, 0, data.copy(), xp.zeros((), dtype=np.int64), True, TopkBackward0)
    if k == 0:
        shape = list(data.shape)
        shape[d] = 0
        return _select_result("topk", input, d, xp.empty(shape, dtype=data.dtype), xp.empty(shape, dtype=np.int64),
                              True, TopkBackward0)
    if 2 * k >= n:
        idx = _argsort(data, d, largest, True, xp)
        idx = xp.take(idx, xp.arange(k), axis=d)
    else:
        # partition first (O(n)), then order only the k selected elements
        if largest:
            part = xp.argpartition(data, n - k, axis=d)
            idx = xp.take(part, xp.arange(n - k, n), axis=d)
        else:
            part = xp.argpartition(data, k - 1, axis=d)
            idx = xp.take(part, xp.arange(k), axis=d)
        if sorted:
            vals = xp.take_along_axis(data, idx, axis=d)
            idx = xp.take_along_axis(idx, _argsort(vals, d, largest, True, xp), axis=d)
    values = xp.take_along_axis(data, idx, axis=d)
    return _select_result("topk", input, d, values, idx, True, TopkBackward0)


@tensor_method()
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element (1-based) along ``dim`` and its index: ``(values, indices)``."""
    check_tensor(input, "input", "kthvalue")
    _no_complex(input, "kthvalue")
    data = input._data
    xp = input._xp
    d = _dim_of(input, dim) if data.ndim else normalize_dim(dim, 0)
    n = data.shape[d] if data.ndim else 1
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    if data.ndim == 0:
        return _select_result("kthvalue", input, 0, data.copy(), xp.zeros((), dtype=np.int64), keepdim,
                              KthvalueBackward0)
    part = xp.argpartition(data, k - 1, axis=d)
    idx = xp.take(part, xp.arange(k - 1, k), axis=d)
    values = xp.take_along_axis(data, idx, axis=d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return _select_result("kthvalue", input, d, values, idx, keepdim, KthvalueBackward0)


# ---------------------------------------------------------------------------------------------- median / nanmedian
class MedianBackward0(Node):
    """median() over all elements: the gradient is split evenly between the elements equal to the median."""
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        value = self.saved_output()
        xd, vd = x._data, value._data
        mask = (xd == vd) | (x._xp.isnan(xd) & x._xp.isnan(vd))
        weights = wrap((mask / max(int(mask.sum()), 1)).astype(xd.dtype))
        return (grad * weights,)


class NanmedianBackward0(MedianBackward0):
    __slots__ = ()


def _median_all(input, ignore_nan, fname, node_cls):
    check_tensor(input, "input", fname)
    _no_complex(input, fname)
    xp = input._xp
    flat = input._data.reshape(-1)
    if ignore_nan and flat.dtype.kind == "f":
        flat = flat[~xp.isnan(flat)]
    if flat.size == 0:
        value = xp.asarray(np.nan, dtype=input._data.dtype) if input._data.dtype.kind == "f" else None
        if value is None:
            raise RuntimeError(f"{fname}() input tensor cannot be empty")
    elif not ignore_nan and flat.dtype.kind == "f" and xp.isnan(flat).any():
        value = xp.asarray(np.nan, dtype=flat.dtype)
    else:
        kth = (flat.size - 1) // 2  # the lower median, as PyTorch returns for an even count
        value = xp.partition(flat, kth)[kth]
    out = wrap(xp.asarray(value, dtype=input._data.dtype))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = node_cls()
        node.save(input)
        node.save_output(out)
        record(node, out, input)
    return out


def _median_dim(input, dim, keepdim, ignore_nan, fname, node_cls):
    check_tensor(input, "input", fname)
    _no_complex(input, fname)
    data = input._data
    xp = input._xp
    if data.ndim == 0:
        normalize_dim(dim, 0)
        return _select_result(fname, input, 0, data.copy(), xp.zeros((), dtype=np.int64), keepdim, node_cls)
    d = _dim_of(input, dim)
    n = data.shape[d]
    if n == 0:
        raise IndexError(f"{fname}(): Expected reduction dim {d} to have non-zero size.")
    is_float = data.dtype.kind == "f"
    nan = xp.isnan(data) if is_float else None
    if ignore_nan and is_float:
        # the lower median of the non-NaN values: its rank differs per slice, so sort (NaN last) and pick it
        count = n - nan.sum(axis=d, keepdims=True)
        kth = xp.maximum(count - 1, 0) // 2
        order = xp.argsort(data, axis=d, kind="stable")
        idx = xp.take_along_axis(order, kth, axis=d)
    else:
        kth = (n - 1) // 2
        idx = xp.take(xp.argpartition(data, kth, axis=d), xp.arange(kth, kth + 1), axis=d)
        if is_float:
            has_nan = nan.any(axis=d, keepdims=True)
            if has_nan.any():
                # median propagates NaN: report the first NaN of the slice
                idx = xp.where(has_nan, xp.argmax(nan, axis=d, keepdims=True), idx)
    values = xp.take_along_axis(data, idx, axis=d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return _select_result(fname, input, d, values, idx, keepdim, node_cls)


@tensor_method()
def median(input, dim=None, keepdim=False):
    """The median: of all elements (a 0-d tensor) or, with ``dim``, ``(values, indices)`` along ``dim``.

    For an even number of elements this is the lower of the two middle values (not their mean). NaN propagates.
    """
    if dim is None:
        return _median_all(input, False, "median", MedianBackward0)
    return _median_dim(input, dim, keepdim, False, "median", MedianBackward1)


@tensor_method()
def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` ignoring NaN values (NaN only where a whole slice is NaN)."""
    if dim is None:
        return _median_all(input, True, "nanmedian", NanmedianBackward0)
    return _median_dim(input, dim, keepdim, True, "nanmedian", NanmedianBackward1)


# ------------------------------------------------------------------------------------------------------------ mode
@tensor_method()
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest one on ties) and the index of its last occurrence."""
    check_tensor(input, "input", "mode")
    _no_complex(input, "mode")
    data = input._data
    xp = input._xp
    if data.ndim == 0:
        normalize_dim(dim, 0)
        return _select_result("mode", input, 0, data.copy(), xp.zeros((), dtype=np.int64), keepdim, ModeBackward0)
    d = _dim_of(input, dim)
    n = data.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    moved = xp.moveaxis(data, d, -1)
    order = xp.argsort(moved, axis=-1, kind="stable")
    s = xp.take_along_axis(moved, order, axis=-1)
    pos = xp.arange(n)
    starts = xp.ones(s.shape, dtype=bool)
    starts[..., 1:] = s[..., 1:] != s[..., :-1]
    ends = xp.ones(s.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    run_start = xp.maximum.accumulate(xp.where(starts, pos, 0), axis=-1)
    run_len = xp.where(ends, pos - run_start + 1, 0)
    best = xp.argmax(run_len, axis=-1)[..., None]  # first maximum = smallest value among the modes
    values = xp.take_along_axis(s, best, axis=-1)
    idx = xp.take_along_axis(order, best, axis=-1)  # stable sort: the run's end is the last occurrence
    values, idx = xp.moveaxis(values, -1, d), xp.moveaxis(idx, -1, d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    return _select_result("mode", input, d, values, idx, keepdim, ModeBackward0)


# --------------------------------------------------------------------------------------------------- cummax/cummin
def _cum_extreme(input, dim, largest, fname, node_cls):
    check_tensor(input, "input", fname)
    _no_complex(input, fname)
    data = input._data
    xp = input._xp
    if data.ndim == 0:
        normalize_dim(dim, 0)
        return _select_result(fname, input, 0, data.copy(), xp.zeros((), dtype=np.int64), True, node_cls)
    d = _dim_of(input, dim)
    if data.dtype.kind == "b":
        work = data.astype(np.uint8)
    else:
        work = data
    ufunc = xp.maximum if largest else xp.minimum
    values = ufunc.accumulate(work, axis=d)  # NaN propagates, as in PyTorch
    n = data.shape[d]
    if n == 0 or data.size == 0:
        idx = xp.zeros(data.shape, dtype=np.int64)
    else:
        # the index moves to every position that reaches the running extreme (ties: the latest) or is NaN
        hit = work == values
        if work.dtype.kind == "f" and xp.isnan(xp.take(values, xp.arange(n - 1, n), axis=d)).any():
            hit |= xp.isnan(work)  # NaN propagates to the end of its slice, so the last values reveal it
        # forward-fill the hit positions along ``dim``: every slice starts with a hit, so in the flattened
        # (dim-last) layout each hit simply repeats until the next one
        flat_hit = xp.moveaxis(hit, d, -1).ravel()
        hits = xp.flatnonzero(flat_hit)
        runs = xp.diff(xp.append(hits, flat_hit.size))
        moved_shape = tuple(s for i, s in enumerate(data.shape) if i != d) + (n,)
        idx = xp.repeat(hits % n, runs).reshape(moved_shape)
        if d != data.ndim - 1:
            idx = xp.ascontiguousarray(xp.moveaxis(idx, -1, d))
    return _select_result(fname, input, d, values.astype(data.dtype, copy=False), idx, True, node_cls)


@tensor_method()
def cummax(input, dim):
    """The running maximum along ``dim`` and the index where it was reached: ``(values, indices)``."""
    return _cum_extreme(input, dim, True, "cummax", CummaxBackward0)


@tensor_method()
def cummin(input, dim):
    """The running minimum along ``dim`` and the index where it was reached: ``(values, indices)``."""
    return _cum_extreme(input, dim, False, "cummin", CumminBackward0)


# ---------------------------------------------------------------------------------------------------------- unique
def _int64(arr, xp):
    return wrap(xp.asarray(arr).astype(np.int64, copy=False))


@tensor_method()
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input`` (sorted), or the distinct slices along ``dim``.

    With ``return_inverse`` also the index of each input element (slice) in the output; with ``return_counts``
    the number of occurrences of each output element. Returns a tensor, or a tuple when either flag is set.
    """
    check_tensor(input, "input", "unique")
    data = input._data
    xp = input._xp
    if dim is None:
        res = xp.unique(data.reshape(-1), return_inverse=return_inverse, return_counts=return_counts)
    else:
        d = _dim_of(input, dim)
        if data.shape[d] == 0 and data.size == 0:
            res = (data,) + ((xp.zeros(0, dtype=np.int64),) if return_inverse else ()) + \
                ((xp.zeros(0, dtype=np.int64),) if return_counts else ())
        else:
            res = xp.unique(data, return_inverse=return_inverse, return_counts=return_counts, axis=d)
    if not (return_inverse or return_counts):
        return wrap(res)
    out = [wrap(res[0])]
    i = 1
    if return_inverse:
        inv = res[i]
        inv = inv.reshape(data.shape) if dim is None else inv.reshape(-1)
        out.append(_int64(inv, xp))
        i += 1
    if return_counts:
        out.append(_int64(res[i], xp))
    return tuple(out)


@tensor_method()
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse every run of consecutive equal elements (or slices along ``dim``) to one.

    Options as :func:`unique`; the output keeps the input order.
    """
    check_tensor(input, "input", "unique_consecutive")
    data = input._data
    xp = input._xp
    if dim is None:
        flat = data.reshape(-1)
        starts = xp.ones(flat.shape, dtype=bool)
        if flat.size:
            starts[1:] = flat[1:] != flat[:-1]
        values = flat[starts]
        inv_shape = data.shape
    else:
        d = _dim_of(input, dim)
        moved = xp.moveaxis(data, d, 0)
        rows = moved.reshape(moved.shape[0], -1)
        starts = xp.ones(rows.shape[0], dtype=bool)
        if rows.shape[0] > 1:
            starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
        values = xp.moveaxis(moved[starts], 0, d)
        inv_shape = (data.shape[d],)
    if not (return_inverse or return_counts):
        return wrap(values)
    out = [wrap(values)]
    if return_inverse:
        out.append(_int64((xp.cumsum(starts) - 1).reshape(inv_shape), xp))
    if return_counts:
        bounds = xp.concatenate([xp.flatnonzero(starts), xp.asarray([starts.size])])
        out.append(_int64(xp.diff(bounds), xp))
    return tuple(out)


# ------------------------------------------------------------------------------------------------------- counting
@tensor_method()
def bincount(input, weights=None, minlength=0) -> Tensor:
    """Count the occurrences of each value of a 1-D non-negative integer tensor (summing ``weights`` instead).

    The output has ``max(max(input) + 1, minlength)`` bins; int64 without weights, float32 for float32 weights and
    float64 for other weights.
    """
    check_tensor(input, "input", "bincount")
    data = input._data
    xp = input._xp
    if data.ndim != 1 or data.dtype.kind not in "iub" or (data.size and data.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0, got {minlength}")
    if weights is None:
        return _int64(xp.bincount(data, minlength=minlength), xp)
    check_tensor(weights, "weights", "bincount")
    w = weights._data
    if w.shape != data.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    out_dtype = np.float32 if w.dtype == np.float32 else np.float64
    return wrap(xp.bincount(data, weights=w, minlength=minlength).astype(out_dtype))


def _float_check(input, fname):
    if input._data.dtype.kind != "f":
        raise RuntimeError(f"{fname}: input tensor must be floating point, but got {input.dtype.scalar_name}")


@tensor_method()
def histc(input, bins=100, min=0, max=0) -> Tensor:
    """A histogram of ``input`` with ``bins`` equal-width bins over ``[min, max]``.

    ``min == max`` (the default) uses the data's minimum and maximum. Elements outside the range are ignored; the
    last bin includes ``max``. The result has the input's dtype.
    """
    check_tensor(input, "input", "histc")
    _float_check(input, "torch.histc")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    data = input._data.reshape(-1)
    xp = input._xp
    data = data[~xp.isnan(data)]
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} max {hi}")
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc(): range of [{lo}, {hi}] is not finite")
    counts, _ = xp.histogram(data, bins=int(bins), range=(lo, hi))
    return wrap(xp.asarray(counts, dtype=input._data.dtype))


@tensor_method()
def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """A histogram of ``input``: ``(hist, bin_edges)``.

    ``bins`` is a number of equal-width bins (over ``range``, default the data's min and max) or a 1-D tensor of
    increasing bin edges. ``weight`` weights each element; ``density`` normalises the histogram to integrate to 1.
    """
    check_tensor(input, "input", "histogram")
    _float_check(input, "torch.histogram")
    data = input._data.reshape(-1)
    xp = input._xp
    w = None
    if weight is not None:
        check_tensor(weight, "weight", "histogram")
        if weight._data.shape != input._data.shape:
            raise RuntimeError("histogram(): if weight tensor is provided it should have the same shape as the "
                               "input tensor")
        w = weight._data.reshape(-1)
    if isinstance(bins, Tensor):
        edges = bins._data
        if edges.ndim != 1:
            raise RuntimeError(f"histogram(): bins tensor should have one dimension, but got {edges.ndim} dimensions")
        hist, edges = xp.histogram(data, bins=edges, weights=w, density=density)
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"histogram(): bins must be > 0, but got {bins} for dimension 0")
        rng = None
        if range is not None:
            rng = (float(range[0]), float(range[1]))
            if rng[0] > rng[1]:
                raise RuntimeError(f"histogram(): min should not exceed max, but got min {rng[0]} max {rng[1]}")
        elif data.size == 0:
            rng = (0.0, 1.0)
        hist, edges = xp.histogram(data, bins=int(bins), range=rng, weights=w, density=density)
    dtype = input._data.dtype
    return _Histogram(wrap(xp.asarray(hist, dtype=dtype)), wrap(xp.asarray(edges, dtype=dtype)))


# -------------------------------------------------------------------------------------------------- binary search
def _side(right, side):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        return side
    return "right" if right else "left"


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None) -> Tensor:
    """For each value of ``input``, the index where it would be inserted into ``sorted_sequence`` to keep it sorted.

    ``sorted_sequence`` is 1-D, or N-D with one sorted row per leading index of ``input`` (same leading dims).
    ``right``/``side="right"`` returns the index after equal elements. ``sorter`` gives the indices that sort an
    unsorted ``sorted_sequence``. ``input`` may be a Python number (the result is then 0-d).
    """
    check_tensor(sorted_sequence, "sorted_sequence", "searchsorted")
    seq = sorted_sequence._data
    xp = sorted_sequence._xp
    scalar = not isinstance(input, Tensor)
    vals = xp.asarray(input, dtype=seq.dtype) if scalar else input._data
    which = _side(right, side)
    if sorter is not None:
        srt = sorter._data if isinstance(sorter, Tensor) else xp.asarray(sorter)
        if srt.shape != seq.shape:
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                               f"tensor {list(seq.shape)}and got sorter tensor {list(srt.shape)}")
        seq = xp.take_along_axis(seq, srt.astype(np.int64), axis=-1)
    out_dtype = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        res = xp.searchsorted(seq, vals, side=which)
    else:
        if scalar or vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                               f"dimensions of boundaries tensor and input value tensor must match, but we got "
                               f"boundaries tensor {list(seq.shape)} and input value tensor "
                               f"{list(vals.shape) if not scalar else []}")
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = vals.reshape(-1, vals.shape[-1])
        res = xp.empty(rows_v.shape, dtype=np.int64)
        for i in range(rows_s.shape[0]):
            res[i] = xp.searchsorted(rows_s[i], rows_v[i], side=which)
        res = res.reshape(vals.shape)
    return wrap(xp.asarray(res).astype(out_dtype, copy=False))


def bucketize(input, boundaries, *, out_int32=False, right=False) -> Tensor:
    """The index of the bucket of each element of ``input`` given 1-D increasing ``boundaries``.

    With ``right=False`` bucket ``i`` holds ``boundaries[i-1] < x <= boundaries[i]``; with ``right=True``
    ``boundaries[i-1] <= x < boundaries[i]``.
    """
    check_tensor(boundaries, "boundaries", "bucketize")
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----------------------------------------------------------------------------------------------------------- diff
@tensor_method()
def diff(input, n=1, dim=-1, prepend=None, append=None) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out[i] = input[i + 1] - input[i]`` (XOR for bool).

    ``prepend``/``append`` are concatenated along ``dim`` first.
    """
    check_tensor(input, "input", "diff")
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _dim_of(input, dim)
    from .shape import cat
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        length = x._data.shape[d]
        if length == 0:
            break
        hi, lo = x.narrow(d, 1, length - 1), x.narrow(d, 0, length - 1)
        x = hi.logical_xor(lo) if x._data.dtype.kind == "b" else hi - lo
    return x


# diagonals and grids moved to their own modules; these names keep the old import path working
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_ranks(fn, input, q):
    """``q`` as a 1-D array of fractions in ``input``'s dtype (checked as PyTorch checks it) and whether it was a
    scalar."""
    xp, np_dtype = input._xp, input._data.dtype
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
        qs = q._data.reshape(-1)
        if bool(((qs < 0) | (qs > 1)).any()):
            raise RuntimeError(f"{fn}() q values must be in the range [0, 1]")
        return qs, q.ndim == 0
    if isinstance(q, bool) or not isinstance(q, (int, float, np.integer, np.floating)):
        raise TypeError(f"{fn}(): argument 'q' must be float or Tensor, not {type(q).__name__}")
    if not 0 <= q <= 1:
        raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {q}")
    return xp.asarray([q], dtype=np_dtype), True


def _quantile(fn, input, q, dim, keepdim, interpolation, ignore_nan):
    """PyTorch's quantile: sort the reduced dim (NaN last), take ranks ``q * (n - 1)`` (for ``nanquantile`` n
    counts the non-NaN values; for ``quantile`` a slice holding NaN takes the last rank, so NaN), adjust them by
    ``interpolation`` and ``lerp`` between the neighbours, all with differentiable ops."""
    check_tensor(input, "input", fn)
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    qs, scalar_q = _quantile_ranks(fn, input, q)
    xp = input._xp
    if dim is None:
        x, d = input.reshape(-1), None
    else:
        d = normalize_dim(dim, max(1, input.ndim))
        x = input.reshape(1) if input.ndim == 0 else input.movedim(d, -1)
    values = sort(x, dim=-1).values.unsqueeze(-2)  # (..., 1, n): one row per q after broadcasting
    n = values.shape[-1]
    nan = xp.isnan(values._data)
    if ignore_nan:
        ranks = qs[:, None] * ((~nan).sum(-1, keepdims=True) - 1).astype(qs.dtype)
        ranks = xp.maximum(ranks, 0)  # a slice of NaN only: rank 0, whose value is NaN
    else:
        ranks = xp.where(nan.any(-1, keepdims=True), n - 1, qs[:, None] * (n - 1)).astype(qs.dtype)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": xp.floor, "higher": xp.ceil, "nearest": xp.round}[interpolation](ranks)
    shape = values.shape[:-2] + (qs.shape[0], 1)
    ranks = xp.broadcast_to(ranks, shape)
    values = values.expand(*values.shape[:-2], qs.shape[0], n)
    below = values.gather(-1, wrap(ranks.astype(np.int64)))
    if interpolation in ("linear", "midpoint"):
        weights = xp.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - xp.floor(ranks)
        above = values.gather(-1, wrap(xp.ceil(ranks).astype(np.int64)))
        below = below.lerp(above, wrap(weights))
    out = below.squeeze(-1).movedim(-1, 0)  # (k, ...reduced shape)
    if keepdim:
        kept = [1] * input.ndim if d is None else list(input.shape[:d]) + [1] + list(input.shape[d + 1:])
        out = out.reshape([qs.shape[0]] + kept)
    return out.squeeze(0) if scalar_q else out


@tensor_method()
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (a float or a 1-D tensor of fractions in [0, 1], which adds a leading dim) of
    ``input`` along ``dim`` (of all elements when None), interpolating between neighbours as ``interpolation``
    says (linear, lower, higher, midpoint or nearest); NaN if the slice holds a NaN. Differentiable in ``input``."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False)


@tensor_method()
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` ignoring NaN (a slice of NaN only gives NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True)


from .diagonals import diag, diag_embed, diagonal, trace  # noqa: E402,F401
from .grids import cartesian_prod, meshgrid  # noqa: E402,F401
