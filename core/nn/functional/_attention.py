"""Attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

``scaled_dot_product_attention`` is one fused op. Its forward is a handful of batched NumPy calls (``q @ k^T``,
scale, mask, a max-shifted softmax that gives zeros for fully masked rows, dropout, ``@ v``) with no Python loop
over the batch or the heads, and it saves the attention probabilities for backward. The backward rule is written
with ember ops: without ``create_graph`` it reuses the saved probabilities; with ``create_graph`` it recomputes
them with differentiable ember ops first, so second-order gradients are right too.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, record_multi, sum_to, wrap
from ...random import _gen

__all__ = ["scaled_dot_product_attention"]


# ------------------------------------------------------------------------------------------------------- helpers
def _causal_keep(L: int, S: int, xp):
    """Bool (L, S) matrix, True where query i may attend key j (j <= i): PyTorch's top-left aligned causal mask."""
    return xp.tril(xp.ones((L, S), dtype=bool))


def _safe_softmax_(s, xp):
    """Softmax over the last axis, in place. Rows that are entirely ``-inf`` become zeros (PyTorch's SDPA)."""
    m = s.max(axis=-1, keepdims=True)
    m[~xp.isfinite(m)] = 0  # all -inf row: shift by 0 so exp gives zeros instead of nan
    s -= m
    xp.exp(s, out=s)
    z = s.sum(axis=-1, keepdims=True)
    z[z == 0] = 1
    s /= z
    return s


def _composed_probs(q, k, scale, mask_t, const_mask):
    """The attention probabilities from differentiable ember ops (used for double backward)."""
    s = (q @ k.mT) * scale
    if mask_t is not None:
        s = s + mask_t
    if const_mask is not None:
        s = s + wrap(const_mask)
    xp = s._xp
    m = s._data.max(axis=-1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)  # a constant shift: softmax does not depend on it, so no gradient needed
    e = (s - wrap(m)).exp()
    z = e.sum(-1, keepdim=True)
    empty = (z._data == 0)
    if empty.any():
        z = z + wrap(empty.astype(z._data.dtype))
    return e / z


# ---------------------------------------------------------------------------------------------------- the node
class ScaledDotProductAttentionBackward0(Node):
    """Backward of the fused attention op; outputs are ``(attn_output, attn_weights)``, inputs ``(q, k, v, mask)``.

    With probabilities ``p``, dropout factors ``d`` (``keep / (1 - p_drop)``) and ``pd = p * d``:
    ``dv = pd^T @ dO``, ``dpd = dO @ v^T + dW``, ``dp = dpd * d``, ``ds = p * (dp - sum(dp * p))`` and
    ``dq = scale * ds @ k``, ``dk = scale * ds^T @ q``, ``dmask = ds``.
    """

    __slots__ = ()
    n_outputs = 2

    def apply(self, grad_out, grad_weights=None):
        q, k, v, mask_t = self.saved_tensors
        probs, drop, scale, const_mask = self._ctx
        if GRAD_ENABLED[0]:  # create_graph: the probabilities must be a differentiable function of q, k, mask
            p = _composed_probs(q, k, scale, mask_t, const_mask)
        else:
            p = wrap(probs)
        pd = p if drop is None else p * wrap(drop)
        dpd = None
        gv = None
        if grad_out is not None:
            dpd = grad_out @ v.mT
            if self.next_functions[2] is not None:
                gv = sum_to(pd.mT @ grad_out, v.shape)
        if grad_weights is not None:
            dpd = grad_weights if dpd is None else dpd + grad_weights
        if dpd is None:
            return None, None, None, None
        dp = dpd if drop is None else dpd * wrap(drop)
        ds = p * (dp - (dp * p).sum(-1, keepdim=True))
        gq = gk = gm = None
        if self.next_functions[0] is not None:
            gq = sum_to((ds @ k) * scale, q.shape)
        if self.next_functions[1] is not None:
            gk = sum_to((ds.mT @ q) * scale, k.shape)
        if self.next_functions[3] is not None:
            gm = sum_to(ds, mask_t.shape)
        return gq, gk, gv, gm

    def _release(self):
        Node._release(self)
        self._ctx = None  # the probability matrix is the big saved buffer: free it with the graph


def _attention(query, key, value, float_mask, const_mask, dropout_p, scale, need_weights):
    """Fused attention on validated, equally typed tensors. Returns ``(output, weights or None)``.

    ``float_mask`` is a float tensor added to the scores (it may require grad); ``const_mask`` an additive array
    (0 / -inf) built from bool and causal masks.
    """
    xp = query._xp
    qa, ka, va = query._data, key._data, value._data
    s = qa @ xp.swapaxes(ka, -1, -2)
    s *= scale
    if float_mask is not None:
        s = s + float_mask._data
    if const_mask is not None:
        s = s + const_mask
    p = _safe_softmax_(s, xp)
    drop = None
    if dropout_p > 0.0:
        if dropout_p >= 1.0:
            drop = xp.zeros(p.shape, dtype=p.dtype)
        else:
            keep = _gen(None).random(p.shape, dtype=np.float64 if p.dtype == np.float64 else np.float32)
            drop = xp.asarray((keep >= dropout_p).astype(p.dtype) * p.dtype.type(1.0 / (1.0 - dropout_p)))
        pd = p * drop
    else:
        pd = p
    out = wrap(pd @ va)
    weights = wrap(pd) if need_weights else None
    mask_grad = float_mask is not None and float_mask._requires_grad
    if GRAD_ENABLED[0] and (query._requires_grad or key._requires_grad or value._requires_grad or mask_grad):
        node = ScaledDotProductAttentionBackward0()
        mask_in = float_mask if mask_grad else None
        node.save(query, key, value, mask_in)
        if float_mask is not None and not mask_grad:  # fold a constant float mask into the constant part
            const_mask = float_mask._data if const_mask is None else const_mask + float_mask._data
        node._ctx = (p, drop, scale, const_mask)
        if need_weights:
            record_multi(node, (out, weights), query, key, value, mask_in)
        else:
            record(node, out, query, key, value, mask_in)
    return out, weights


# ------------------------------------------------------------------------------------------------ public SDPA
def _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
        if t.ndim < 2:
            raise RuntimeError(f"scaled_dot_product_attention(): {name} must have at least 2 dimensions "
                               f"(..., seq_len, embed_dim), got shape {list(t.shape)}")
    if not (query.dtype == key.dtype == value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype.scalar_name} key.dtype: {key.dtype.scalar_name} and value.dtype: "
                           f"{value.dtype.scalar_name} instead.")
    if not query.is_floating_point():
        raise RuntimeError(f"scaled_dot_product_attention(): query, key and value must be floating point, got "
                           f"{query.dtype.scalar_name}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention(): query and key must have the same embedding size "
                           f"(last dim), got query {list(query.shape)} and key {list(key.shape)}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention(): key and value must have the same sequence length "
                           f"(dim -2), got key {list(key.shape)} and value {list(value.shape)}")
    if not isinstance(dropout_p, numbers.Real) or not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if scale is not None and not isinstance(scale, numbers.Real):
        raise TypeError(f"scaled_dot_product_attention(): argument 'scale' must be a float or None, not "
                        f"{type(scale).__name__}")
    if attn_mask is not None:
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument 'attn_mask' must be Tensor or None, not "
                            f"{type(attn_mask).__name__}")
        if attn_mask.dtype.name != "bool" and attn_mask.dtype != query.dtype:
            raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {attn_mask.dtype.scalar_name} and query.dtype: "
                               f"{query.dtype.scalar_name} instead.")
        L, S = query.shape[-2], key.shape[-2]
        ms = tuple(attn_mask.shape)
        if len(ms) < 1 or (len(ms) >= 2 and ms[-2] not in (1, L)) or ms[-1] not in (1, S):
            raise RuntimeError(f"scaled_dot_product_attention(): attn_mask of shape {list(ms)} cannot be "
                               f"broadcast to the attention shape (..., L={L}, S={S})")
    if enable_gqa:
        if query.ndim < 3 or key.ndim < 3 or value.ndim < 3:
            raise RuntimeError("scaled_dot_product_attention(): enable_gqa=True needs query, key and value of "
                               "shape (..., num_heads, seq_len, embed_dim)")
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hk != hv or hq % hk != 0:
            raise RuntimeError(f"Number of heads in key and value must divide the number of heads in query, got "
                               f"query heads {hq}, key heads {hk} and value heads {hv}")


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    r"""Compute scaled dot-product attention, ``softmax(Q K^T * scale + mask) V``, with optional dropout.

    Args:
        query: :math:`(N, ..., H_q, L, E)`.
        key: :math:`(N, ..., H, S, E)`.
        value: :math:`(N, ..., H, S, E_v)`.
        attn_mask: optional mask broadcastable to :math:`(N, ..., L, S)`. A bool mask marks with ``True`` the
            positions that take part in attention; a float mask (same dtype as ``query``) is added to the scores.
        dropout_p: dropout probability on the attention weights; applied whenever it is positive (pass ``0.0``
            in evaluation).
        is_causal: apply a lower-triangular (top-left aligned) causal mask; an error if ``attn_mask`` is set.
        scale: the scaling factor; defaults to :math:`1/\sqrt{E}`.
        enable_gqa: grouped-query attention: ``H_q`` may be a multiple of the key/value heads ``H``, each group of
            ``H_q / H`` query heads sharing one key/value head.

    Returns:
        The attention output, :math:`(N, ..., H_q, L, E_v)`.

    A query row whose keys are all masked out gives zeros (not ``nan``), as in PyTorch's implementation. The
    computation is batched: there is no Python loop over the batch or the heads.

    Example::

        >>> q = k = v = ember.randn(2, 4, 8, 16)
        >>> out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        >>> out.shape
        ember.Size([2, 4, 8, 16])
    """
    _check_attention_inputs(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)
    xp = query._xp
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    float_mask = const_mask = None
    if is_causal:
        const_mask = xp.where(_causal_keep(L, S, xp), 0, -np.inf).astype(query._data.dtype)
    elif attn_mask is not None:
        if attn_mask.dtype.name == "bool":
            const_mask = xp.where(attn_mask._data, 0, -np.inf).astype(query._data.dtype)
        else:
            float_mask = attn_mask
    heads_q = query.shape[-3] if query.ndim >= 3 else 1
    heads_k = key.shape[-3] if key.ndim >= 3 else 1
    if enable_gqa and heads_q != heads_k:
        # group the query heads as (H, G) and give key/value a size-1 group axis: broadcasting shares each
        # key/value head across its group without copying, and sum_to in backward adds the group's gradients
        group = heads_q // heads_k
        lead = tuple(query.shape[:-3])
        q5 = query.reshape(lead + (heads_k, group, L, query.shape[-1]))
        k5, v5 = key.unsqueeze(-3), value.unsqueeze(-3)
        if float_mask is not None:
            float_mask = _group_mask(float_mask, heads_q, heads_k, group)
        if const_mask is not None:
            const_mask = _group_mask(wrap(const_mask), heads_q, heads_k, group)._data
        out, _ = _attention(q5, k5, v5, float_mask, const_mask, float(dropout_p), scale, False)
        return out.reshape(tuple(out.shape[:-4]) + (heads_q, L, value.shape[-1]))
    out, _ = _attention(query, key, value, float_mask, const_mask, float(dropout_p), scale, False)
    return out


def _group_mask(mask, heads_q, heads_k, group):
    """Reshape a mask broadcastable to (..., H_q, L, S) to broadcast against the grouped (..., H, G, L, S)."""
    if mask.ndim >= 3 and mask.shape[-3] == heads_q and heads_q > 1:
        return mask.reshape(tuple(mask.shape[:-3]) + (heads_k, group) + tuple(mask.shape[-2:]))
    if mask.ndim >= 3:
        return mask.unsqueeze(-3)
    return mask
