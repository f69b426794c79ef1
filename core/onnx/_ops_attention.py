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




def _project(g, x, weight, bias, rows, dtype):
    """``x @ weight[rows].T + bias[rows]``: one slice of a packed in-projection."""
    w = g.value(weight, dtype)
    lo, hi = rows
    if (lo, hi) != (0, weight.shape[0]):
        w = g.op("Slice", [w, g.ints([lo]), g.ints([hi]), g.ints([0])])
    y = g.op("MatMul", [x, g.op("Transpose", [w], perm=[1, 0])])
    if bias is None:
        return y
    b = g.value(bias, dtype)
    if (lo, hi) != (0, bias.shape[0]):
        b = g.op("Slice", [b, g.ints([lo]), g.ints([hi]), g.ints([0])])
    return g.op("Add", [y, b])


def _mask_scores(g, scores, mask, dtype, neg_inf):
    """Apply a PyTorch MultiheadAttention mask: bool ``True`` = masked out, float = added to the scores."""
    if mask._data.dtype == np.bool_:
        return g.op("Where", [g.value(mask), neg_inf, scores])
    return g.op("Add", [scores, g.value(mask, dtype)])


@op("multi_head_attention_forward")
def _mha(g, call):
    a = call.bound()
    if a.get("bias_k") is not None or a.get("add_zero_attn") or a.get("static_k") is not None \
            or a.get("static_v") is not None or (a.get("training") and a.get("dropout_p", 0) > 0):
        return NotImplemented
    query, key, value = a["query"], a["key"], a["value"]
    dtype = result_np_dtype(call)
    heads, embed = int(a["num_heads"]), int(a["embed_dim_to_check"])
    head_dim = embed // heads
    batched = query.ndim == 3
    q_in, k_in, v_in = (g.value(t, dtype) for t in (query, key, value))
    if not batched:
        q_in, k_in, v_in = (g.op("Unsqueeze", [n, g.ints([1])]) for n in (q_in, k_in, v_in))
    bias = a.get("in_proj_bias")
    thirds = [(0, embed), (embed, 2 * embed), (2 * embed, 3 * embed)]
    if a.get("use_separate_proj_weight"):
        weights = [(a["q_proj_weight"], (0, embed)), (a["k_proj_weight"], (0, embed)), (a["v_proj_weight"], (0, embed))]
        parts = [_project(g, x, w, None, rows, dtype) for x, (w, rows) in zip((q_in, k_in, v_in), weights)]
        if bias is not None:
            parts = [g.op("Add", [p, g.op("Slice", [g.value(bias, dtype), g.ints([lo]), g.ints([hi]), g.ints([0])])])
                     for p, (lo, hi) in zip(parts, thirds)]
    else:
        parts = [_project(g, x, a["in_proj_weight"], bias, rows, dtype) for x, rows in zip((q_in, k_in, v_in), thirds)]
    # (S, N, E) -> (N, heads, S, head_dim); the zeros copy the runtime sequence and batch sizes
    q, k, v = (g.op("Transpose", [g.reshape(p, [0, 0, heads, head_dim])], perm=[1, 2, 0, 3]) for p in parts)
    scores = g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])])
    scores = g.op("Mul", [scores, g.const(1.0 / math.sqrt(head_dim), dtype)])
    neg_inf = g.const(-np.inf, dtype)
    attn_mask, kpm = a.get("attn_mask"), a.get("key_padding_mask")
    if attn_mask is not None:
        m = attn_mask
        if attn_mask.ndim == 3:  # (N * heads, L, S) -> (N, heads, L, S)
            shape = g.op("Concat", [g.ints([-1, heads]), g.shape_of(g.value(attn_mask), start=1)], axis=0)
            name = g.reshape(g.value(attn_mask), shape)
            scores = g.op("Where", [name, neg_inf, scores]) if m._data.dtype == np.bool_ else \
                g.op("Add", [scores, g.cast(name, dtype) if m._data.dtype != dtype else name])
        else:
            scores = _mask_scores(g, scores, attn_mask, dtype, neg_inf)
    if kpm is not None:
        name = g.value(kpm) if kpm._data.dtype == np.bool_ else g.value(kpm, dtype)
        name = g.op("Unsqueeze", [name, g.ints([0] if not batched else [1, 2])])
        if not batched:
            name = g.op("Unsqueeze", [name, g.ints([1, 2])])
        scores = g.op("Where", [name, neg_inf, scores]) if kpm._data.dtype == np.bool_ else \
            g.op("Add", [scores, name])
    elif attn_mask is None and a.get("is_causal"):
        return NotImplemented
    probs = g.op("Softmax", [scores], axis=-1)
    out = g.op("MatMul", [probs, v])                                  # (N, heads, L, head_dim)
    out = g.reshape(g.op("Transpose", [out], perm=[2, 0, 1, 3]), [0, 0, -1])  # (L, N, E)
    out = _project(g, out, a["out_proj_weight"], a.get("out_proj_bias"),
                   (0, a["out_proj_weight"].shape[0]), dtype)
    weights = None
    if a.get("need_weights"):
        weights = g.reduce("ReduceMean", probs, [1], False) if a.get("average_attn_weights", True) else probs
    if not batched:
        out = g.op("Squeeze", [out, g.ints([1])])
        weights = g.op("Squeeze", [weights, g.ints([0])]) if weights is not None else None
    return (out, weights)
