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

from ... import threads
from ...autograd.graph import Node
from ...ops._base import GRAD_ENABLED, Tensor, record, record_multi, sum_to, wrap
from ...random import _gen

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


# ------------------------------------------------------------------------------------------------------- helpers
def _causal_keep(L: int, S: int, xp):
    """Bool (L, S) matrix, True where query i may attend key j (j <= i): PyTorch's top-left aligned causal mask."""
    return xp.tril(xp.ones((L, S), dtype=bool))


def _row_sums(x, xp):
    """Sums over the last axis as a product with a ones vector: one BLAS call per matrix instead of NumPy's
    reduction, which is slow on short rows (about 5x on 64-element rows). Each row's sum depends only on that row."""
    return xp.matmul(x, xp.ones((x.shape[-1], 1), dtype=x.dtype))


def _safe_softmax_(s, xp):
    """Softmax over the last axis, in place, with the row sums taken by :func:`_row_sums`. Rows that are entirely
    ``-inf`` become zeros (PyTorch's SDPA)."""
    m = s.max(axis=-1, keepdims=True)
    m[~xp.isfinite(m)] = 0  # all -inf row: shift by 0 so exp gives zeros instead of nan
    s -= m
    xp.exp(s, out=s)
    z = _row_sums(s, xp)
    z[z == 0] = 1
    s /= z
    return s


def _fusable(qa, ka, va, const_mask):
    """Whether the chunked NumPy kernels apply: equal stacks of matrices and a mask shared by all of them."""
    return (type(qa) is np.ndarray and qa.ndim >= 3 and qa.shape[:-2] == ka.shape[:-2] == va.shape[:-2]
            and (const_mask is None or const_mask.ndim <= 2 or all(d == 1 for d in const_mask.shape[:-2])))


def _column_softmax_(s, xp):
    """Softmax over axis -2, in place: :func:`_safe_softmax_` for scores stored transposed (keys along axis -2).
    NumPy's max over the last axis of short rows is slow (1.0-1.2 ms for gpt's 128 matrices of 64x64, more than
    their ``exp``); over axis -2 it is an elementwise maximum across rows, 0.4 ms. The attention forward on gpt's
    shapes went from 4.2 to 3.5 ms this way (1 thread)."""
    m = s.max(axis=-2, keepdims=True)
    m[~xp.isfinite(m)] = 0  # all -inf column: shift by 0 so exp gives zeros instead of nan
    s -= m
    xp.exp(s, out=s)
    z = xp.matmul(xp.ones((1, s.shape[-2]), dtype=s.dtype), s)  # column sums: one BLAS call per matrix
    z[z == 0] = 1
    s /= z
    return s


def _fused_forward(qa, ka, va, const_mask, scale, out, xp):
    """Probabilities and output of attention without dropout or a float mask, in parts of the leading axis spread
    over ember's threads (each part is a few large NumPy calls; matrices never straddle parts, so the result does
    not depend on the split). Writes into ``out`` and returns the probabilities, a ``(..., L, S)`` view of a
    C-contiguous ``(..., S, L)`` array: the scores are computed transposed (``k @ q^T``) so that the softmax
    reduces over axis -2 (:func:`_column_softmax_`)."""
    L, S = qa.shape[-2], ka.shape[-2]
    probs_t = xp.empty(qa.shape[:-2] + (S, L), dtype=qa.dtype)
    mask_t = None
    if const_mask is not None:  # (L, S), (1, S), (S,) ...: as 2-D, then transposed like the scores
        mask_t = xp.ascontiguousarray(
            const_mask.reshape((1,) * max(0, 2 - const_mask.ndim) + const_mask.shape[-2:]).T)

    def part(lo, hi):
        s = probs_t[lo:hi]
        xp.matmul(ka[lo:hi], xp.swapaxes(qa[lo:hi], -1, -2), out=s)
        s *= scale
        if mask_t is not None:
            s += mask_t
        _column_softmax_(s, xp)
        xp.matmul(xp.swapaxes(s, -1, -2), va[lo:hi], out=out[lo:hi])
    per = probs_t[:1].size + out[:1].size
    threads.parallel_for(qa.shape[0], part, grain=max(1, threads.ELEMENTWISE_GRAIN // per))
    return xp.swapaxes(probs_t, -1, -2)


def _fused_backward(grad_out, q, k, v, probs, scale, xp):
    """``(dq, dk, dv)`` of :func:`_fused_forward` from the saved probabilities (its transposed layout), in parts of
    the leading axis; the score gradient is computed transposed too, ``ds^T = p^T * (v g^T - colsum)``."""
    gq, gk, gv = xp.empty(q.shape, q.dtype), xp.empty(k.shape, k.dtype), xp.empty(v.shape, v.dtype)
    probs_t = xp.swapaxes(probs, -1, -2)  # C-contiguous (..., S, L)
    ones = xp.ones((1, probs_t.shape[-2]), dtype=probs_t.dtype)

    def part(lo, hi):
        p, g = probs_t[lo:hi], grad_out[lo:hi]
        xp.matmul(p, g, out=gv[lo:hi])
        ds = xp.matmul(v[lo:hi], xp.swapaxes(g, -1, -2))  # d probs, transposed
        t = ds * p
        ds -= xp.matmul(ones, t)
        ds *= p  # d scores: p * (dp - sum(dp * p)), transposed
        xp.matmul(xp.swapaxes(ds, -1, -2), k[lo:hi], out=gq[lo:hi])
        gq[lo:hi] *= scale
        xp.matmul(ds, q[lo:hi], out=gk[lo:hi])
        gk[lo:hi] *= scale
    per = probs_t[:1].size * 3
    threads.parallel_for(q.shape[0], part, grain=max(1, threads.ELEMENTWISE_GRAIN // per))
    return gq, gk, gv


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
        if (not GRAD_ENABLED[0] and drop is None and mask_t is None and grad_weights is None
                and grad_out is not None and _fusable(q._data, k._data, v._data, None)
                and grad_out._data.shape == q._data.shape[:-1] + v._data.shape[-1:]):
            gq, gk, gv = _fused_backward(grad_out._data, q._data, k._data, v._data, probs, scale, q._xp)
            nf = self.next_functions
            return (wrap(gq) if nf[0] is not None else None, wrap(gk) if nf[1] is not None else None,
                    wrap(gv) if nf[2] is not None else None, None)
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


def _empty_in_layout(ref, shape, xp):
    """An uninitialised array of ``shape`` whose axes lie in memory in the order of ``ref``'s (outermost first), as
    PyTorch's fused kernel allocates its output: a query that is a transposed view gives an output whose transpose
    back is contiguous."""
    order = sorted(range(ref.ndim), key=lambda i: (-abs(ref.strides[i]), i))
    buf = xp.empty([shape[i] for i in order], dtype=ref.dtype)
    return buf.transpose(np.argsort(order))


def _attention(query, key, value, float_mask, const_mask, dropout_p, scale, need_weights, like_query=False):
    """Fused attention on validated, equally typed tensors. Returns ``(output, weights or None)``.

    ``float_mask`` is a float tensor added to the scores (it may require grad); ``const_mask`` an additive array
    (0 / -inf) built from bool and causal masks. With ``like_query`` the output has the query's memory layout.
    """
    xp = query._xp
    qa, ka, va = query._data, key._data, value._data
    if dropout_p == 0.0 and float_mask is None and not need_weights and _fusable(qa, ka, va, const_mask):
        shape = qa.shape[:-1] + va.shape[-1:]
        if like_query and not qa.flags.c_contiguous:
            buf = _empty_in_layout(qa, shape, xp)
        else:
            buf = xp.empty(shape, dtype=qa.dtype)
        p = _fused_forward(qa, ka, va, const_mask, scale, buf, xp)
        out = wrap(buf)
        if GRAD_ENABLED[0] and (query._requires_grad or key._requires_grad or value._requires_grad):
            node = ScaledDotProductAttentionBackward0()
            node.save(query, key, value, None)
            node._ctx = (p, None, scale, const_mask)
            record(node, out, query, key, value, None)
        return out, None
    s = qa @ xp.ascontiguousarray(xp.swapaxes(ka, -1, -2))  # a transposed view makes NumPy's batched matmul slow
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
    if like_query and not qa.flags.c_contiguous and qa.ndim == pd.ndim:
        buf = _empty_in_layout(qa, pd.shape[:-1] + va.shape[-1:], xp)
        out = wrap(xp.matmul(pd, va, out=buf))
    else:
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


def _math_attention(query, key, value, float_mask, const_mask, dropout_p, scale):
    """The reference implementation (``SDPBackend.MATH``): composed ember ops, so its graph is ordinary nodes."""
    probs = _composed_probs(query, key, scale, float_mask, const_mask)
    if dropout_p > 0.0:
        from ._dropout import dropout
        probs = dropout(probs, dropout_p, training=True)
    return probs @ value


def _sdpa(query, key, value, float_mask, const_mask, dropout_p, scale):
    """Run the implementation :func:`ember.nn.attention.sdpa_kernel` allows (the fused one by default)."""
    from ..attention import SDPBackend, _select
    if _select() is SDPBackend.MATH:
        return _math_attention(query, key, value, float_mask, const_mask, dropout_p, scale)
    return _attention(query, key, value, float_mask, const_mask, dropout_p, scale, False, like_query=True)[0]


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

    :func:`ember.nn.attention.sdpa_kernel` chooses the implementation: the fused kernel (``FLASH_ATTENTION``, the
    default) returns its output in the query's memory layout, as PyTorch's fused kernel does, so for a query made by
    ``x.view(B, T, H, D).transpose(1, 2)`` the output's ``.transpose(1, 2)`` is contiguous and ``.view(B, T, H * D)``
    works; ``MATH`` composes ember ops and returns a contiguous output.

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
        out = _sdpa(q5, k5, v5, float_mask, const_mask, float(dropout_p), scale)
        return out.reshape(tuple(out.shape[:-4]) + (heads_q, L, value.shape[-1]))
    return _sdpa(query, key, value, float_mask, const_mask, float(dropout_p), scale)


def _group_mask(mask, heads_q, heads_k, group):
    """Reshape a mask broadcastable to (..., H_q, L, S) to broadcast against the grouped (..., H, G, L, S)."""
    if mask.ndim >= 3 and mask.shape[-3] == heads_q and heads_q > 1:
        return mask.reshape(tuple(mask.shape[:-3]) + (heads_k, group) + tuple(mask.shape[-2:]))
    if mask.ndim >= 3:
        return mask.unsqueeze(-3)
    return mask


# ------------------------------------------------------------------------------------- multi-head attention
def _none_or_dtype(mask):
    """The dtype of an optional mask (used to warn about mismatched mask types)."""
    if mask is None:
        return None
    if isinstance(mask, Tensor):
        return mask.dtype
    raise RuntimeError("input to _canonical_mask is not a Tensor or None")


def _canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """Turn a bool mask (``True`` = masked out) into an additive float mask (``-inf`` there, ``0`` elsewhere).

    Float masks are returned as they are (cast to ``target_type``); other dtypes are refused.
    """
    if mask is None:
        return None
    if not isinstance(mask, Tensor):
        raise TypeError(f"{mask_name} must be a Tensor or None, got {type(mask).__name__}")
    if mask.dtype.name == "bool":
        xp = mask._xp
        out = wrap(xp.where(mask._data, -np.inf, 0.0).astype(target_type.np))
    elif mask.is_floating_point():
        out = mask if mask.dtype == target_type else mask.to(target_type)
    else:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", UserWarning, stacklevel=3)
    return out


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """Check the ranks of the inputs and masks; returns whether the input is batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise RuntimeError(f"For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                               f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise RuntimeError(f"For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                               f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise RuntimeError(f"For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                               f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise RuntimeError(f"For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                               f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise RuntimeError(f"For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                               f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise RuntimeError(f"For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                   f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise RuntimeError(f"Expected `attn_mask` shape to be {expected} but got "
                                       f"{tuple(attn_mask.shape)}")
        return False
    raise RuntimeError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                       "tensor")


def _linear(x, weight, bias):
    """``x @ weight^T + bias`` over the last dim, as one 2-D matmul."""
    lead = tuple(x.shape[:-1])
    out = x.reshape(-1, x.shape[-1]) @ weight.mT
    if bias is not None:
        out = out + bias
    return out.reshape(lead + (weight.shape[0],))


def _pad_last(mask, value=0.0):
    """Append one column of ``value`` to a float mask (for the extra bias_k / zero-attention key)."""
    from ... import ops
    col = wrap(mask._xp.full(tuple(mask.shape[:-1]) + (1,), value, dtype=mask._data.dtype))
    return ops.cat([mask, col], -1)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    r"""The computation of :class:`~ember.nn.MultiheadAttention` (sequence-first layout).

    Args:
        query: :math:`(L, E)` or :math:`(L, N, E)`. key, value: :math:`(S, E_k)` / :math:`(S, N, E_k)`.
        embed_dim_to_check: the expected ``E``; num_heads: the number of heads (``E`` divisible by it).
        in_proj_weight, in_proj_bias: the packed ``(3E, E)`` / ``(3E)`` input projection (q, k, v stacked).
        bias_k, bias_v: optional ``(1, 1, E)`` biases appended to the key and value sequences.
        add_zero_attn: append a zero key and value to the sequences.
        dropout_p: dropout on the attention weights (only when ``training``).
        out_proj_weight, out_proj_bias: the output projection.
        key_padding_mask: :math:`(N, S)` (or :math:`(S)`): ``True`` (or a float added to the scores) marks keys
            to ignore.
        need_weights: also return the attention weights.
        attn_mask: :math:`(L, S)` or :math:`(N \cdot num\_heads, L, S)`; bool ``True`` = not allowed to attend,
            float = added to the scores.
        use_separate_proj_weight: use ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` (for ``kdim`` /
            ``vdim`` different from ``E``) instead of ``in_proj_weight``.
        static_k, static_v: precomputed keys/values, :math:`(N \cdot num\_heads, S, E / num\_heads)`.
        average_attn_weights: average the returned weights over the heads.
        is_causal: a hint that ``attn_mask`` is the causal mask.

    Returns:
        ``(attn_output, attn_weights)``: :math:`(L, N, E)` and, if ``need_weights``, :math:`(N, L, S)` (averaged) or
        :math:`(N, num\_heads, L, S)`, else ``None``. Unbatched inputs give unbatched outputs.
    """
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    target_type = query.dtype
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       target_type)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # trust the hint: the fused kernel builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", target_type, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise RuntimeError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise RuntimeError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise RuntimeError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                               f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise RuntimeError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    # input projections, in the (seq, batch, embed) layout
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise RuntimeError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:  # self-attention: one matmul for q, k and v
            q, k, v = _linear(query, in_proj_weight, in_proj_bias).reshape(tgt_len, bsz, 3, embed_dim).unbind(2)
        else:
            w_q, w_kv = in_proj_weight[:embed_dim], in_proj_weight[embed_dim:]
            b_q = b_kv = None
            if in_proj_bias is not None:
                b_q, b_kv = in_proj_bias[:embed_dim], in_proj_bias[embed_dim:]
            q = _linear(query, w_q, b_q)
            if key is value:
                k, v = _linear(key, w_kv, b_kv).reshape(src_len, bsz, 2, embed_dim).unbind(2)
            else:
                k = _linear(key, w_kv[:embed_dim], None if b_kv is None else b_kv[:embed_dim])
                v = _linear(value, w_kv[embed_dim:], None if b_kv is None else b_kv[embed_dim:])
    else:
        for name, w in (("q_proj_weight", q_proj_weight), ("k_proj_weight", k_proj_weight),
                        ("v_proj_weight", v_proj_weight)):
            if w is None:
                raise RuntimeError(f"use_separate_proj_weight is True but {name} is None")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = (in_proj_bias[:embed_dim], in_proj_bias[embed_dim:2 * embed_dim],
                             in_proj_bias[2 * embed_dim:])
        q = _linear(query, q_proj_weight, b_q)
        k = _linear(key, k_proj_weight, b_k)
        v = _linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    from ... import ops
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise RuntimeError("bias cannot be added to static key/value.")
        k = ops.cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = ops.cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    elif (bias_k is None) != (bias_v is None):
        raise RuntimeError("bias_k and bias_v must both be given or both be None")

    # split heads: (seq, batch, embed) -> (batch, heads, seq, head_dim)
    q = q.reshape(tgt_len, bsz, num_heads, head_dim).permute(1, 2, 0, 3)
    k = _heads(k, static_k, "static_k", bsz, num_heads, head_dim)
    v = _heads(v, static_v, "static_v", bsz, num_heads, head_dim)
    if add_zero_attn:
        zeros = wrap(k._xp.zeros((bsz, num_heads, 1, head_dim), dtype=k._data.dtype))
        k = ops.cat([k, zeros], 2)
        v = ops.cat([v, zeros], 2)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.shape[2]

    mask = None
    if attn_mask is not None:
        mask = attn_mask.reshape(bsz, num_heads, tgt_len, src_len) if attn_mask.dim() == 3 else attn_mask
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise RuntimeError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                               f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len)
        mask = kpm if mask is None else mask + kpm
    if not training:
        dropout_p = 0.0
    const_mask = None
    if is_causal and mask is None:
        const_mask = q._xp.where(_causal_keep(tgt_len, src_len, q._xp), 0, -np.inf).astype(q._data.dtype)
    out, weights = _attention(q, k, v, mask, const_mask, float(dropout_p), 1.0 / math.sqrt(head_dim),
                              need_weights)
    # (batch, heads, L, head_dim) -> (L, batch, embed)
    out = out.permute(2, 0, 1, 3).reshape(tgt_len, bsz, embed_dim)
    out = _linear(out, out_proj_weight, out_proj_bias)
    if weights is not None and average_attn_weights:
        weights = weights.mean(dim=1)
    if not is_batched:
        out = out.squeeze(1)
        if weights is not None:
            weights = weights.squeeze(0)
    return out, weights


def _heads(x, static, name, bsz, num_heads, head_dim):
    """(S, N, E) -> (N, heads, S, head_dim), or the given static keys/values (N * heads, S, head_dim)."""
    if static is None:
        return x.reshape(x.shape[0], bsz, num_heads, head_dim).permute(1, 2, 0, 3)
    if static.shape[0] != bsz * num_heads:
        raise RuntimeError(f"expecting {name}.size(0) of {bsz * num_heads}, but got {static.shape[0]}")
    if static.shape[2] != head_dim:
        raise RuntimeError(f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}")
    return static.reshape(bsz, num_heads, static.shape[1], head_dim)
