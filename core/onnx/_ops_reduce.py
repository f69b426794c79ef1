"""Reductions: ``sum``, ``mean``, ``amax``/``max``, ``prod``, ``var``/``std``, ``argmax``, ``logsumexp``, ``cumsum``,
``all``/``any``, ``norm``."""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from ._common import axes, axis, result_np_dtype
from ._registry import op

__all__ = []


def _dims(call):
    return axes(call.arg("dim"), call.arg("input").ndim)


def _plain(onnx_op):
    def mapping(g, call):
        dtype = result_np_dtype(call)
        inp = call.arg("input")
        work = dtype if onnx_op != "ReduceMean" or np.issubdtype(dtype, np.floating) else np.float32
        x = g.value(inp, work)
        if inp.ndim == 0:
            return x
        return g.reduce(onnx_op, x, _dims(call), call.arg("keepdim", False))
    return mapping


op("sum")(_plain("ReduceSum"))
op("mean")(_plain("ReduceMean"))
op("prod")(_plain("ReduceProd"))
op("amax")(_plain("ReduceMax"))
op("amin")(_plain("ReduceMin"))


def _bool_reduce(onnx_op):
    def mapping(g, call):
        inp = call.arg("input")
        x = g.value(inp, np.int64)
        r = g.reduce(onnx_op, x, _dims(call), call.arg("keepdim", False))
        return g.cast(r, np.bool_)
    return mapping


op("all")(_bool_reduce("ReduceMin"))
op("any")(_bool_reduce("ReduceMax"))


def _minmax(onnx_op, arg_op):
    def mapping(g, call):
        inp = call.arg("input")
        dim = call.arg("dim")
        other = call.arg("other")
        if isinstance(dim, Tensor) or isinstance(other, Tensor):  # max(a, b) is elementwise
            b = dim if isinstance(dim, Tensor) else other
            dtype = result_np_dtype(call)
            return g.op("Max" if onnx_op == "ReduceMax" else "Min", [g.value(inp, dtype), g.value(b, dtype)])
        x = g.value(inp)
        if dim is None:
            return g.reduce(onnx_op, x, None, False)
        d = axis(dim, inp.ndim)
        keep = int(bool(call.arg("keepdim", False)))
        values = g.reduce(onnx_op, x, [d], keep)
        indices = g.op(arg_op, [x], axis=d, keepdims=keep, select_last_index=0)
        return (values, indices)
    return mapping


op("max")(_minmax("ReduceMax", "ArgMax"))
op("min")(_minmax("ReduceMin", "ArgMin"))


def _arg(onnx_op):
    def mapping(g, call):
        inp = call.arg("input")
        dim = call.arg("dim")
        x = g.value(inp)
        keep = int(bool(call.arg("keepdim", False)))
        if dim is None:
            return g.op(onnx_op, [g.reshape(x, [-1])], axis=0, keepdims=0)
        return g.op(onnx_op, [x], axis=axis(dim, inp.ndim), keepdims=keep)
    return mapping


op("argmax")(_arg("ArgMax"))
op("argmin")(_arg("ArgMin"))


def _moment(std):
    def mapping(g, call):
        inp = call.arg("input")
        dtype = result_np_dtype(call)
        x = g.value(inp, dtype)
        dims = _dims(call)
        correction = call.arg("correction")
        unbiased = call.arg("unbiased")
        if correction is None:
            correction = 0 if unbiased is False else 1
        n = inp.numel() if dims is None else int(np.prod([inp.shape[d] for d in dims]))
        mean = g.reduce("ReduceMean", x, dims, True)
        diff = g.op("Sub", [x, mean])
        total = g.reduce("ReduceSum", g.op("Mul", [diff, diff]), dims, call.arg("keepdim", False))
        var = g.op("Div", [total, g.const(max(n - correction, 0), dtype)])
        return g.op("Sqrt", [var]) if std else var
    return mapping


op("var")(_moment(False))
op("std")(_moment(True))


@op("logsumexp")
def _logsumexp(g, call):
    inp = call.arg("input")
    x = g.value(inp, result_np_dtype(call))
    return g.reduce("ReduceLogSumExp", x, _dims(call), call.arg("keepdim", False))


@op("cumsum")
def _cumsum(g, call):
    inp = call.arg("input")
    x = g.value(inp, result_np_dtype(call))
    return g.op("CumSum", [x, g.const(axis(call.arg("dim"), inp.ndim), np.int64)])


@op("norm")
def _norm(g, call):
    inp = call.arg("input")
    p = call.arg("p", "fro")
    x = g.value(inp, result_np_dtype(call))
    dims = _dims(call)
    keep = call.arg("keepdim", False)
    if p in ("fro", 2, 2.0):
        return g.reduce("ReduceL2", x, dims, keep)
    if p in (1, 1.0):
        return g.reduce("ReduceL1", x, dims, keep)
    if p == float("inf"):
        return g.reduce("ReduceMax", g.op("Abs", [x]), dims, keep)
    return NotImplemented
