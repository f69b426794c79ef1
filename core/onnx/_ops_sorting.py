"""Sorting and selection: ``topk``, ``sort``, ``argsort`` (ONNX's TopK) and ``one_hot``."""
from __future__ import annotations

import numpy as np

from ._common import axis
from ._registry import op

__all__ = []


def _top(g, call, k_name, largest):
    inp = call.arg("input")
    d = axis(call.arg("dim", -1), inp.ndim)
    return g.op("TopK", [g.value(inp), k_name], outputs=2, axis=d, largest=int(bool(largest)), sorted=1)


@op("topk")
def _topk(g, call):
    if not call.arg("sorted", True):
        return NotImplemented
    values, indices = _top(g, call, g.ints([int(call.arg("k"))]), call.arg("largest", True))
    return (values, indices)


def _whole_dim(g, call):
    """The length of the sorted dimension, read at run time (it may follow a dynamic axis)."""
    inp = call.arg("input")
    d = axis(call.arg("dim", -1), inp.ndim)
    return g.shape_of(g.value(inp), start=d, end=d + 1)


@op("sort")
def _sort(g, call):
    values, indices = _top(g, call, _whole_dim(g, call), call.arg("descending", False))
    return (values, indices)


@op("argsort")
def _argsort(g, call):
    return _top(g, call, _whole_dim(g, call), call.arg("descending", False))[1]


@op("one_hot")
def _one_hot(g, call):
    depth = int(call.result.shape[-1])
    indices = g.value(call.arg("tensor"), np.int64)
    return g.op("OneHot", [indices, g.const(depth, np.int64), g.const([0, 1], np.int64)], axis=-1)
