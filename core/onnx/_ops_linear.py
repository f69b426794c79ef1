"""Matrix products and lookup layers: ``linear``, ``matmul``/``mm``/``bmm``, ``addmm``, ``einsum``, ``embedding``,
``dropout`` (identity in eval mode)."""
from __future__ import annotations

from ..tensor import Tensor
from ._common import result_np_dtype
from ._registry import op, unsupported

__all__ = []


@op("linear")
def _linear(g, call):
    dtype = result_np_dtype(call)
    inp, weight, bias = call.arg("input"), call.arg("weight"), call.arg("bias")
    x, w = g.value(inp, dtype), g.value(weight, dtype)
    if inp.ndim == 2 and weight.ndim == 2:
        inputs = [x, w] + ([g.value(bias, dtype)] if bias is not None else [])
        return g.op("Gemm", inputs, transB=1)
    wt = g.op("Transpose", [w], perm=[1, 0]) if weight.ndim == 2 else w
    y = g.op("MatMul", [x, wt])
    return g.op("Add", [y, g.value(bias, dtype)]) if bias is not None else y


@op("matmul", "mm", "bmm", "matmul_", "__rmatmul__")
def _matmul(g, call):
    dtype = result_np_dtype(call)
    a = call.arg("input")
    b = call.arg("other", call.arg("mat2"))
    return g.op("MatMul", [g.value(a, dtype), g.value(b, dtype)])


@op("addmm", "addmm_")
def _addmm(g, call):
    dtype = result_np_dtype(call)
    c = call.arg("input")
    return g.op("Gemm", [g.value(call.arg("mat1"), dtype), g.value(call.arg("mat2"), dtype), g.value(c, dtype)],
                alpha=float(call.arg("alpha", 1)), beta=float(call.arg("beta", 1)))


@op("baddbmm")
def _baddbmm(g, call):
    dtype = result_np_dtype(call)
    prod = g.op("MatMul", [g.value(call.arg("batch1"), dtype), g.value(call.arg("batch2"), dtype)])
    alpha, beta = call.arg("alpha", 1), call.arg("beta", 1)
    if alpha != 1:
        prod = g.op("Mul", [prod, g.const(alpha, dtype)])
    c = g.value(call.arg("input"), dtype)
    if beta != 1:
        c = g.op("Mul", [c, g.const(beta, dtype)])
    return g.op("Add", [c, prod])


@op("einsum")
def _einsum(g, call):
    dtype = result_np_dtype(call)
    args = call.arg("args") or (call.arg("equation"),) + tuple(call.arg("operands", ()))
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (tuple, list)):
        operands = operands[0]
    if not isinstance(equation, str):
        return NotImplemented
    return g.op("Einsum", [g.value(t, dtype) for t in operands], equation=equation.replace(" ", ""))


@op("embedding")
def _embedding(g, call):
    weight, indices = call.arg("weight"), call.arg("input")
    if not isinstance(indices, Tensor):
        return NotImplemented
    return g.op("Gather", [g.value(weight), g.value(indices)], axis=0)


@op("dropout", "dropout_", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")
def _dropout(g, call):
    if call.arg("training", True) and call.arg("p", 0.5) > 0:
        raise unsupported(call, g.opset, "dropout with training=True is random; the exporter runs the model in eval "
                                         "mode, so pass training=self.training to F.dropout")
    return g.value(call.arg("input"))
