"""Indexing: ``x[...]`` with ints, slices, ``None``, ``...``, one integer or boolean tensor index; ``index_select``,
``gather``, ``narrow``, ``select``."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._common import axis
from ._registry import OnnxExporterError, op

__all__ = []

_END = np.iinfo(np.int64).max


def _expand_key(key, ndim):
    """The index as a list with ``...`` replaced by full slices."""
    items = list(key) if isinstance(key, tuple) else [key]
    used = sum(_dims_used(i) for i in items if i is not Ellipsis)
    out = []
    for item in items:
        if item is Ellipsis:
            out.extend([slice(None)] * (ndim - used))
        else:
            out.append(item)
    return out


def _dims_used(item):
    if item is None:
        return 0
    if isinstance(item, Tensor) and item._data.dtype == np.bool_:
        return item.ndim
    return 1


def _bound(g, call, value, probe_value, default):
    """A slice bound as a 1-D int64: constant, or the run-time size of the dynamic axis it followed."""
    if value is None:
        return g.ints([default])
    if probe_value is None or probe_value == value:
        return g.ints([int(value)])
    runtime = g.dim(int(value), int(probe_value))
    if runtime is None:
        raise OnnxExporterError(f"'{call.name}' in {call.where()} slices at {value} (it was {probe_value} at another "
                                "size of the dynamic axes), which is no dynamic input axis's size")
    return runtime


def _slice(g, call, x, sl, probe_sl, size, probe_size, cd):
    start, stop, step = sl.start, sl.stop, sl.step
    if start in (None, 0) and stop is None and step in (None, 1):
        return x
    probe_start = probe_sl.start if probe_sl is not None else None
    probe_stop = probe_sl.stop if probe_sl is not None else None
    if probe_sl is not None and stop is not None and probe_stop != stop and stop >= size and probe_stop >= probe_size:
        stop = probe_stop = None  # a stop the model computed from the dynamic size itself means "to the end"
    return g.op("Slice", [x, _bound(g, call, start, probe_start, 0), _bound(g, call, stop, probe_stop, _END),
                          g.ints([cd]), g.ints([1 if step is None else int(step)])])


@op("index", sizes=True)
def _index(g, call):
    inp = call.arg("input")
    key = call.arg("key", call.args[1] if len(call.args) > 1 else None)
    items = _expand_key(key, inp.ndim)
    probe_items = None
    if call.probe is not None:
        probe_inp = call.probe.args[0]
        probe_items = _expand_key(call.probe.args[1], probe_inp.ndim)
    advanced = [i for i in items if isinstance(i, (Tensor, list)) and not (isinstance(i, Tensor) and i.ndim == 0)]
    if len(advanced) > 1 or any(isinstance(i, bool) for i in items):
        return NotImplemented
    x = g.value(inp)
    d = 0   # dimension of the input the next item indexes
    cd = 0  # the same dimension's position in the current value x
    for n, item in enumerate(items):
        if item is None:
            x = g.op("Unsqueeze", [x, g.ints([cd])])
            cd += 1
        elif isinstance(item, slice):
            probe_sl = probe_items[n] if probe_items is not None and n < len(probe_items) else None
            probe_size = probe_inp.shape[d] if probe_items is not None else None
            x = _slice(g, call, x, item, probe_sl if isinstance(probe_sl, slice) else None, inp.shape[d], probe_size,
                       cd)
            d, cd = d + 1, cd + 1
        elif isinstance(item, (int, np.integer)) or (isinstance(item, Tensor) and item.ndim == 0
                                                      and item._data.dtype != np.bool_):
            probe_item = probe_items[n] if probe_items is not None and n < len(probe_items) else item
            if not isinstance(item, Tensor) and probe_item != item:
                raise OnnxExporterError(f"'{call.name}' in {call.where()} indexes with {item} (it was {probe_item} "
                                        "at another size of the dynamic axes): index from the end (x[:, -1]) instead")
            x = g.op("Gather", [x, g.value(item, np.int64) if isinstance(item, Tensor) else g.const(int(item),
                                                                                                     np.int64)],
                     axis=cd)
            d += 1
        elif isinstance(item, Tensor) and item._data.dtype == np.bool_:
            if item.ndim == 1:
                x = g.op("Compress", [x, g.value(item)], axis=cd)
            elif cd == 0:
                idx = g.op("Transpose", [g.op("NonZero", [g.value(item)])], perm=[1, 0])
                x = g.op("GatherND", [x, idx])
            else:
                return NotImplemented
            d, cd = d + item.ndim, cd + 1
        elif isinstance(item, (Tensor, list)):
            idx = g.value(item, np.int64) if isinstance(item, Tensor) else g.const(item, np.int64)
            x = g.op("Gather", [x, idx], axis=cd)
            d, cd = d + 1, cd + (item.ndim if isinstance(item, Tensor) else np.asarray(item).ndim)
        else:
            return NotImplemented
    return x


@op("index_select")
def _index_select(g, call):
    inp = call.arg("input")
    return g.op("Gather", [g.value(inp), g.value(call.arg("index"), np.int64)], axis=axis(call.arg("dim"), inp.ndim))


@op("gather", "take_along_dim")
def _gather(g, call):
    inp = call.arg("input")
    dim = call.arg("dim")
    if dim is None:
        return NotImplemented
    index = call.arg("index", call.arg("indices"))
    return g.op("GatherElements", [g.value(inp), g.value(index, np.int64)], axis=axis(dim, inp.ndim))


@op("select")
def _select(g, call):
    inp = call.arg("input")
    return g.op("Gather", [g.value(inp), g.const(int(call.arg("index")), np.int64)],
                axis=axis(call.arg("dim"), inp.ndim))


@op("narrow")
def _narrow(g, call):
    inp = call.arg("input")
    dim = axis(call.arg("dim"), inp.ndim)
    start = int(call.arg("start"))
    start = start + inp.shape[dim] if start < 0 else start
    return g.op("Slice", [g.value(inp), g.ints([start]), g.ints([start + int(call.arg("length"))]), g.ints([dim])])
