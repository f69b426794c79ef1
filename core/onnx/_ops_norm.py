"""Normalization: ``batch_norm`` (eval), ``layer_norm``, ``group_norm``, ``instance_norm``, ``normalize``."""
from __future__ import annotations

import numpy as np

from ._common import result_np_dtype
from ._registry import op

__all__ = []


def _affine(g, tensor, shape, fill, dtype):
    """``tensor`` as an ONNX value, or a constant of ``fill`` when it is None (an affine-free layer)."""
    if tensor is None:
        return g.const(np.full(shape, fill, dtype=dtype), dtype)
    return g.value(tensor, dtype)


@op("batch_norm")
def _batch_norm(g, call):
    inp = call.arg("input")
    mean, var = call.arg("running_mean"), call.arg("running_var")
    if call.arg("training", False) or mean is None or var is None:
        return NotImplemented  # batch statistics: only eval mode with running statistics is exported
    dtype = result_np_dtype(call)
    c = inp.shape[1]
    return g.op("BatchNormalization", [g.value(inp, dtype), _affine(g, call.arg("weight"), (c,), 1, dtype),
                                       _affine(g, call.arg("bias"), (c,), 0, dtype), g.value(mean, dtype),
                                       g.value(var, dtype)], epsilon=float(call.arg("eps", 1e-5)))


@op("layer_norm")
def _layer_norm(g, call):
    inp = call.arg("input")
    dtype = result_np_dtype(call)
    shape = call.arg("normalized_shape")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return g.op("LayerNormalization", [g.value(inp, dtype), _affine(g, call.arg("weight"), shape, 1, dtype),
                                       _affine(g, call.arg("bias"), shape, 0, dtype)],
                axis=-len(shape), epsilon=float(call.arg("eps", 1e-5)))


def _normalize_over(g, x, axes, eps, dtype):
    mean = g.reduce("ReduceMean", x, axes, True)
    centred = g.op("Sub", [x, mean])
    var = g.reduce("ReduceMean", g.op("Mul", [centred, centred]), axes, True)
    return g.op("Div", [centred, g.op("Sqrt", [g.op("Add", [var, g.const(eps, dtype)])])])


def _channel_affine(g, y, weight, bias, ndim, dtype):
    view = [-1] + [1] * (ndim - 2)
    if weight is not None:
        y = g.op("Mul", [y, g.reshape(g.value(weight, dtype), view)])
    if bias is not None:
        y = g.op("Add", [y, g.reshape(g.value(bias, dtype), view)])
    return y


@op("group_norm")
def _group_norm(g, call):
    # decomposed: GroupNormalization changed meaning between opsets 18 and 21
    inp = call.arg("input")
    dtype = result_np_dtype(call)
    groups = int(call.arg("num_groups"))
    x = g.value(inp, dtype)
    grouped = g.reshape(x, [0, groups, -1])
    y = _normalize_over(g, grouped, [2], float(call.arg("eps", 1e-5)), dtype)
    y = g.op("Reshape", [y, g.shape_of(x)])
    return _channel_affine(g, y, call.arg("weight"), call.arg("bias"), inp.ndim, dtype)


@op("instance_norm")
def _instance_norm(g, call):
    inp = call.arg("input")
    if not call.arg("use_input_stats", True):
        return NotImplemented
    dtype = result_np_dtype(call)
    y = _normalize_over(g, g.value(inp, dtype), list(range(2, inp.ndim)), float(call.arg("eps", 1e-5)), dtype)
    return _channel_affine(g, y, call.arg("weight"), call.arg("bias"), inp.ndim, dtype)


@op("normalize")
def _normalize(g, call):
    inp = call.arg("input")
    p = call.arg("p", 2.0)
    if p not in (1, 2, 1.0, 2.0):
        return NotImplemented
    dtype = result_np_dtype(call)
    x = g.value(inp, dtype)
    dim = call.arg("dim", 1)
    norm = g.reduce("ReduceL2" if p in (2, 2.0) else "ReduceL1", x, [dim % inp.ndim], True)
    return g.op("Div", [x, g.op("Max", [norm, g.const(call.arg("eps", 1e-12), dtype)])])
