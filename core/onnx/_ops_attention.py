"""Attention: ``scaled_dot_product_attention`` (masks, ``is_causal``, ``scale``), decomposed into MatMul and
Softmax so any ONNX consumer runs it. ``MultiheadAttention`` and ``TransformerEncoderLayer`` export through the ops
they call (``linear``, this op, ``layer_norm``...)."""
from __future__ import annotations

import math

import numpy as np

from ._common import result_np_dtype
from ._registry import op

__all__ = []


@op("scaled_dot_product_attention")
def _sdpa(g, call):
    q_t, k_t, v_t = call.arg("query"), call.arg("key"), call.arg("value")
    if call.arg("dropout_p", 0.0) > 0:
        return NotImplemented
    if call.arg("enable_gqa") and q_t.shape[-3] != k_t.shape[-3]:
        return NotImplemented
    dtype = result_np_dtype(call)
    q, k, v = g.value(q_t, dtype), g.value(k_t, dtype), g.value(v_t, dtype)
    scale = call.arg("scale")
    scale = 1.0 / math.sqrt(q_t.shape[-1]) if scale is None else float(scale)
    perm = list(range(k_t.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    scores = g.op("MatMul", [q, g.op("Transpose", [k], perm=perm)])
    scores = g.op("Mul", [scores, g.const(scale, dtype)])
    neg_inf = g.const(-np.inf, dtype)
    if call.arg("is_causal"):
        # (L, S) lower-triangular keep-mask built from the runtime sizes, so a dynamic sequence length works
        size = g.op("Concat", [g.shape_of(q, start=-2, end=-1), g.shape_of(k, start=-2, end=-1)], axis=0)
        ones = g.op("ConstantOfShape", [size], value=_one_tensor())
        keep = g.op("Cast", [g.op("Trilu", [ones], upper=0)], to=9)  # 9: BOOL
        scores = g.op("Where", [keep, scores, neg_inf])
    mask = call.arg("attn_mask")
    if mask is not None:
        if mask._data.dtype == np.bool_:
            scores = g.op("Where", [g.value(mask), scores, neg_inf])
        else:
            scores = g.op("Add", [scores, g.value(mask, dtype)])
    probs = g.op("Softmax", [scores], axis=-1)
    return g.op("MatMul", [probs, v])


def _one_tensor():
    from onnx import helper, TensorProto
    return helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])


