"""Activations and softmax: ``relu``, ``gelu`` (exact and tanh), ``silu``, ``leaky_relu``, ``elu``, ``selu``..."""
from __future__ import annotations

import math

from ._common import axis, result_np_dtype
from ._registry import op

__all__ = []

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _x(g, call):
    dtype = result_np_dtype(call)
    return g.value(call.arg("input"), dtype), dtype


@op("leaky_relu", "leaky_relu_")
def _leaky_relu(g, call):
    x, _ = _x(g, call)
    return g.op("LeakyRelu", [x], alpha=float(call.arg("negative_slope", 0.01)))


@op("elu", "elu_")
def _elu(g, call):
    x, _ = _x(g, call)
    return g.op("Elu", [x], alpha=float(call.arg("alpha", 1.0)))


@op("celu", "celu_")
def _celu(g, call):
    x, _ = _x(g, call)
    return g.op("Celu", [x], alpha=float(call.arg("alpha", 1.0)))


@op("selu", "selu_")
def _selu(g, call):
    x, _ = _x(g, call)
    return g.op("Selu", [x], alpha=_SELU_ALPHA, gamma=_SELU_SCALE)


@op("relu6")
def _relu6(g, call):
    x, dtype = _x(g, call)
    return g.op("Clip", [x, g.const(0, dtype), g.const(6, dtype)])


@op("hardtanh", "hardtanh_")
def _hardtanh(g, call):
    x, dtype = _x(g, call)
    return g.op("Clip", [x, g.const(call.arg("min_val", -1.0), dtype), g.const(call.arg("max_val", 1.0), dtype)])


@op("threshold", "threshold_")
def _threshold(g, call):
    x, dtype = _x(g, call)
    keep = g.op("Greater", [x, g.const(call.arg("threshold"), dtype)])
    return g.op("Where", [keep, x, g.const(call.arg("value"), dtype)])


@op("gelu")
def _gelu(g, call):
    x, dtype = _x(g, call)
    approximate = call.arg("approximate", "none")
    if g.opset >= 20:
        return g.op("Gelu", [x], approximate=approximate)
    half = g.op("Mul", [x, g.const(0.5, dtype)])
    if approximate == "tanh":
        cube = g.op("Mul", [g.op("Mul", [x, x]), x])
        inner = g.op("Add", [x, g.op("Mul", [cube, g.const(0.044715, dtype)])])
        t = g.op("Tanh", [g.op("Mul", [inner, g.const(math.sqrt(2 / math.pi), dtype)])])
    else:
        t = g.op("Erf", [g.op("Div", [x, g.const(math.sqrt(2.0), dtype)])])
    return g.op("Mul", [half, g.op("Add", [t, g.const(1.0, dtype)])])


@op("silu", "silu_")
def _silu(g, call):
    x, _ = _x(g, call)
    return g.op("Mul", [x, g.op("Sigmoid", [x])])


@op("mish", "mish_")
def _mish(g, call):
    x, _ = _x(g, call)
    return g.op("Mul", [x, g.op("Tanh", [g.op("Softplus", [x])])])


@op("softplus")
def _softplus(g, call):
    x, dtype = _x(g, call)
    beta, threshold = float(call.arg("beta", 1.0)), float(call.arg("threshold", 20.0))
    bx = x if beta == 1.0 else g.op("Mul", [x, g.const(beta, dtype)])
    soft = g.op("Softplus", [bx])
    if beta != 1.0:
        soft = g.op("Div", [soft, g.const(beta, dtype)])
    # PyTorch reverts to the identity where beta * x > threshold
    return g.op("Where", [g.op("Greater", [bx, g.const(threshold, dtype)]), x, soft])


@op("softsign")
def _softsign(g, call):
    x, _ = _x(g, call)
    return g.op("Softsign", [x])


@op("hardsigmoid", "hardsigmoid_")
def _hardsigmoid(g, call):
    x, _ = _x(g, call)
    return g.op("HardSigmoid", [x], alpha=1.0 / 6, beta=0.5)


@op("hardswish", "hardswish_")
def _hardswish(g, call):
    x, _ = _x(g, call)
    return g.op("HardSwish", [x])


@op("logsigmoid")
def _logsigmoid(g, call):
    x, _ = _x(g, call)
    return g.op("Neg", [g.op("Softplus", [g.op("Neg", [x])])])


@op("tanhshrink")
def _tanhshrink(g, call):
    x, _ = _x(g, call)
    return g.op("Sub", [x, g.op("Tanh", [x])])


@op("prelu")
def _prelu(g, call):
    x, dtype = _x(g, call)
    inp, weight = call.arg("input"), call.arg("weight")
    slope = g.value(weight, dtype)
    if inp.ndim >= 2 and weight.numel() > 1:  # one slope per channel (dim 1)
        slope = g.reshape(slope, [-1] + [1] * (inp.ndim - 2))
    return g.op("PRelu", [x, slope])


@op("glu")
def _glu(g, call):
    x, _ = _x(g, call)
    inp = call.arg("input")
    dim = axis(call.arg("dim", -1), inp.ndim)
    half = inp.shape[dim] // 2
    a, b = g.op("Split", [x, g.ints([half, half])], outputs=2, axis=dim)
    return g.op("Mul", [a, g.op("Sigmoid", [b])])


def _softmax_like(onnx_op, negate=False):
    def mapping(g, call):
        x, dtype = _x(g, call)
        inp = call.arg("input")
        dim = call.arg("dim")
        if dim is None:  # PyTorch's legacy implicit dim
            dim = 0 if inp.ndim in (0, 1, 3) else 1
        if negate:
            x = g.op("Neg", [x])
        return g.op(onnx_op, [x], axis=axis(dim, max(inp.ndim, 1)))
    return mapping


op("softmax", "_softmax")(_softmax_like("Softmax"))
op("log_softmax", "_log_softmax")(_softmax_like("LogSoftmax"))
op("softmin")(_softmax_like("Softmax", negate=True))
