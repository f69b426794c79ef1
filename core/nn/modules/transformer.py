"""Attention layers: ``MultiheadAttention`` and the Transformer encoder/decoder stacks.

Parameter names, constructor arguments, defaults, initialisation and the order of operations are PyTorch's, so a
PyTorch ``state_dict`` loads unchanged (``self_attn.in_proj_weight``, ``self_attn.out_proj.weight``,
``linear1.weight``, ``norm1.weight``, ...). The attention itself is the fused
:func:`~ember.nn.functional.scaled_dot_product_attention` kernel: no Python loop over the batch or the heads.
"""
from __future__ import annotations

import copy
import numbers

import numpy as np

from ...ops._base import Tensor, wrap
from ..functional._attention import _canonical_mask, _none_or_dtype, multi_head_attention_forward
from ..parameter import Parameter
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` under PyTorch's name for the type of ``MultiheadAttention.out_proj`` (so ``repr`` matches)."""


def _factory_kwargs(device, dtype):
    kw = {}
    if device is not None:
        kw["device"] = device
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def _empty_param(shape, fk):
    from ... import ops
    return Parameter(ops.empty(*shape, **fk))


# -------------------------------------------------------------------------------------------- MultiheadAttention
class MultiheadAttention(Module):
    r"""Multi-head attention from "Attention Is All You Need".

    .. math::
        \text{MultiHead}(Q, K, V) = \text{Concat}(head_1, \dots, head_h) W^O, \quad
        head_i = \text{Attention}(Q W_i^Q, K W_i^K, V W_i^V)

    Args:
        embed_dim: total dimension of the model.
        num_heads: number of parallel attention heads; ``embed_dim`` is split across them
            (each head has dimension ``embed_dim // num_heads``).
        dropout: dropout probability on the attention weights. Default: ``0.0``.
        bias: add a bias to the input and output projections. Default: ``True``.
        add_bias_kv: add a learned bias to the key and value sequences at dim 0. Default: ``False``.
        add_zero_attn: add a new batch of zeros to the key and value sequences at dim 1. Default: ``False``.
        kdim: total number of features of the keys. Default: ``None`` (``embed_dim``).
        vdim: total number of features of the values. Default: ``None`` (``embed_dim``).
        batch_first: if ``True``, inputs and outputs are ``(batch, seq, feature)``. Default: ``False``.

    Parameters are ``in_proj_weight`` :math:`(3E, E)` (or ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight``
    when ``kdim``/``vdim`` differ from ``embed_dim``), ``in_proj_bias`` :math:`(3E)`, ``out_proj`` (a linear layer)
    and the optional ``bias_k``, ``bias_v`` :math:`(1, 1, E)`.

    Example::

        >>> mha = nn.MultiheadAttention(16, 4)
        >>> q = ember.randn(5, 2, 16)
        >>> out, weights = mha(q, q, q)
    """

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        for name, value in (("embed_dim", embed_dim), ("num_heads", num_heads)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if not isinstance(dropout, numbers.Real) or not 0.0 <= dropout <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout}")
        super().__init__()
        fk = _factory_kwargs(device, dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError(f"embed_dim must be divisible by num_heads, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads}")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty_param((embed_dim, embed_dim), fk)
            self.k_proj_weight = _empty_param((embed_dim, self.kdim), fk)
            self.v_proj_weight = _empty_param((embed_dim, self.vdim), fk)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty_param((3 * embed_dim, embed_dim), fk)
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _empty_param((3 * embed_dim,), fk)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = _empty_param((1, 1, embed_dim), fk)
            self.bias_v = _empty_param((1, 1, embed_dim), fk)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        from .. import init
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        r"""Attend from ``query`` to ``key``/``value``.

        Args:
            query: :math:`(L, E_q)` unbatched, :math:`(L, N, E_q)`, or :math:`(N, L, E_q)` with ``batch_first``.
            key: :math:`(S, E_k)`, :math:`(S, N, E_k)` or :math:`(N, S, E_k)`.
            value: :math:`(S, E_v)`, :math:`(S, N, E_v)` or :math:`(N, S, E_v)`.
            key_padding_mask: :math:`(N, S)` or :math:`(S)`: bool ``True`` marks a key to ignore (padding); a float
                mask is added to the scores.
            need_weights: also return the attention weights. Default: ``True``.
            attn_mask: :math:`(L, S)` or :math:`(N \cdot num\_heads, L, S)`: bool ``True`` means *not* allowed to
                attend; a float mask is added to the scores.
            average_attn_weights: return the weights averaged over heads (else per head). Default: ``True``.
            is_causal: a hint that ``attn_mask`` is the causal mask (``attn_mask`` is still required).

        Returns:
            ``(attn_output, attn_output_weights)``: the output, shaped like ``query`` but with ``embed_dim``
            features, and the weights :math:`(N, L, S)` (or :math:`(N, num\_heads, L, S)`), or ``None`` when
            ``need_weights=False``.
        """
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention: {name} must be a Tensor, got {type(t).__name__}")
        if query.dim() in (2, 3) and query.shape[-1] != self.embed_dim:
            raise RuntimeError(f"MultiheadAttention(embed_dim={self.embed_dim}): query has {query.shape[-1]} "
                               "features")
        is_batched = query.dim() == 3
        key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                           "attn_mask", query.dtype)
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if self.batch_first and is_batched:
            # keep the identity of shared inputs: the packed self-attention path tests `query is key is value`
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        attn_output, attn_output_weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate, q_proj_weight=self.q_proj_weight,
            k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        return attn_output, attn_output_weights


# -------------------------------------------------------------------------------------------------- helpers
def _get_activation_fn(activation):
    from .. import functional as F
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    """A float ``(sz, sz)`` causal mask: ``-inf`` above the diagonal, ``0`` elsewhere."""
    from ... import dtypes as _dt
    from ...device import module_for_device
    dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
    xp = module_for_device(device) if device is not None else np
    return wrap(xp.triu(xp.full((sz, sz), -np.inf, dtype=dt.np), 1))


def _get_seq_len(src, batch_first):
    if src.dim() == 2:
        return src.shape[0]
    return src.shape[1 if batch_first else 0]


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    """True if ``is_causal`` is True, or if it is None and ``mask`` is exactly the square causal float mask."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.shape[-2]
        if tuple(mask.shape) == (sz, sz) and mask.is_floating_point():
            causal = np.triu(np.full((sz, sz), -np.inf), 1)
            make_causal = bool(np.array_equal(np.asarray(mask.detach()._data, dtype=np.float64), causal))
    return make_causal


def _check_layer_args(d_model, nhead, dim_feedforward, dropout):
    for name, value in (("d_model", d_model), ("nhead", nhead), ("dim_feedforward", dim_feedforward)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if not isinstance(dropout, numbers.Real) or not 0.0 <= dropout <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout}")


# ----------------------------------------------------------------------------------------------- encoder
class TransformerEncoderLayer(Module):
    r"""A Transformer encoder layer: self-attention then a feed-forward network, each with a residual and LayerNorm.

    With ``norm_first=False`` (post-norm): ``x = norm1(x + sa(x)); x = norm2(x + ff(x))``; with ``norm_first=True``
    (pre-norm): ``x = x + sa(norm1(x)); x = x + ff(norm2(x))``, where ``ff(x) = linear2(dropout(act(linear1(x))))``.

    Args:
        d_model: the number of expected features in the input.
        nhead: the number of attention heads.
        dim_feedforward: the dimension of the feed-forward network. Default: 2048.
        dropout: the dropout value. Default: 0.1.
        activation: ``"relu"``, ``"gelu"`` or a unary callable. Default: relu.
        layer_norm_eps: the eps of the layer norms. Default: 1e-5.
        batch_first: if ``True``, input and output are ``(batch, seq, feature)``. Default: ``False``.
        norm_first: apply the layer norms before attention and feed-forward. Default: ``False``.
        bias: use biases in the linear layers and layer norms. Default: ``True``.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4)
        >>> out = layer(ember.randn(10, 32, 16))
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        _check_layer_args(d_model, nhead, dim_feedforward, dropout)
        fk = _factory_kwargs(device, dtype)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        r"""Pass the input through the layer.

        Args:
            src: :math:`(S, E)`, :math:`(S, N, E)` or :math:`(N, S, E)` with ``batch_first``.
            src_mask: optional :math:`(S, S)` or :math:`(N \cdot nhead, S, S)` attention mask.
            src_key_padding_mask: optional :math:`(N, S)` mask of padded keys.
            is_causal: a hint that ``src_mask`` is the causal mask.
        """
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask",
                                               _none_or_dtype(src_mask), "src_mask", src.dtype)
        src_mask = _canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    r"""A stack of ``num_layers`` deep copies of ``encoder_layer``, with an optional final norm.

    Args:
        encoder_layer: a :class:`TransformerEncoderLayer` instance (copied, its parameters are not shared).
        num_layers: the number of layers.
        norm: an optional final layer-normalisation module.
        enable_nested_tensor: accepted for compatibility (ember has no nested tensors). Default: ``True``.
        mask_check: accepted for compatibility. Default: ``True``.

    Example::

        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4)
        >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
        >>> out = encoder(ember.randn(10, 32, 16))
    """

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        if not isinstance(encoder_layer, Module):
            raise TypeError(f"encoder_layer must be an nn.Module, got {type(encoder_layer).__name__}")
        if not isinstance(num_layers, numbers.Integral) or isinstance(num_layers, bool) or num_layers < 0:
            raise ValueError(f"num_layers must be a non-negative integer, got {num_layers!r}")
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = False
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        r"""Pass the input through every layer in turn, then the final norm.

        Args:
            src: the input sequence.
            mask: optional attention mask for ``src``.
            src_key_padding_mask: optional :math:`(N, S)` padding mask.
            is_causal: whether ``mask`` is the causal mask; ``None`` detects it by comparing ``mask`` with
                :meth:`Transformer.generate_square_subsequent_mask`.
        """
        src_key_padding_mask = _canonical_mask(src_key_padding_mask, "src_key_padding_mask", _none_or_dtype(mask),
                                               "mask", src.dtype)
        mask = _canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first = self.layers[0] if len(self.layers) else None
        batch_first = first.self_attn.batch_first if first is not None and hasattr(first, "self_attn") else False
        is_causal = _detect_is_causal_mask(mask, is_causal, _get_seq_len(src, batch_first))
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


# ----------------------------------------------------------------------------------------------- decoder
class TransformerDecoderLayer(Module):
    r"""A Transformer decoder layer: self-attention, attention over the encoder memory, then a feed-forward network.

    Post-norm (``norm_first=False``): ``x = norm1(x + sa(x)); x = norm2(x + mha(x, mem)); x = norm3(x + ff(x))``;
    pre-norm applies each norm to the block's input instead.

    Args:
        d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias: as for
            :class:`TransformerEncoderLayer`.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4)
        >>> out = layer(ember.randn(20, 32, 16), ember.randn(10, 32, 16))
    """

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        _check_layer_args(d_model, nhead, dim_feedforward, dropout)
        fk = _factory_kwargs(device, dtype)
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation = activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        r"""Pass the target and the encoder memory through the layer.

        Args:
            tgt: the target sequence. memory: the encoder output.
            tgt_mask, memory_mask: optional attention masks for self- and cross-attention.
            tgt_key_padding_mask, memory_key_padding_mask: optional :math:`(N, T)` / :math:`(N, S)` padding masks.
            tgt_is_causal, memory_is_causal: hints that the corresponding mask is causal.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    r"""A stack of ``num_layers`` deep copies of ``decoder_layer``, with an optional final norm.

    Args:
        decoder_layer: a :class:`TransformerDecoderLayer` instance (copied).
        num_layers: the number of layers.
        norm: an optional final layer-normalisation module.

    Example::

        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4)
        >>> decoder = nn.TransformerDecoder(layer, num_layers=2)
        >>> out = decoder(ember.randn(20, 32, 16), ember.randn(10, 32, 16))
    """

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(decoder_layer, Module):
            raise TypeError(f"decoder_layer must be an nn.Module, got {type(decoder_layer).__name__}")
        if not isinstance(num_layers, numbers.Integral) or isinstance(num_layers, bool) or num_layers < 0:
            raise ValueError(f"num_layers must be a non-negative integer, got {num_layers!r}")
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        r"""Pass the target and memory through every layer in turn, then the final norm.

        ``tgt_is_causal=None`` detects a causal ``tgt_mask`` by comparing it with
        :meth:`Transformer.generate_square_subsequent_mask`.
        """
        first = self.layers[0] if len(self.layers) else None
        batch_first = first.self_attn.batch_first if first is not None and hasattr(first, "self_attn") else False
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, _get_seq_len(tgt, batch_first))
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


# --------------------------------------------------------------------------------------------- Transformer
class Transformer(Module):
    r"""The encoder-decoder Transformer of "Attention Is All You Need".

    Args:
        d_model: the number of expected features in the inputs. Default: 512.
        nhead: the number of attention heads. Default: 8.
        num_encoder_layers: the number of encoder layers. Default: 6.
        num_decoder_layers: the number of decoder layers. Default: 6.
        dim_feedforward: the dimension of the feed-forward networks. Default: 2048.
        dropout: the dropout value. Default: 0.1.
        activation: ``"relu"``, ``"gelu"`` or a unary callable. Default: relu.
        custom_encoder, custom_decoder: modules to use instead of the default stacks. Default: ``None``.
        layer_norm_eps: the eps of the layer norms. Default: 1e-5.
        batch_first: if ``True``, inputs and outputs are ``(batch, seq, feature)``. Default: ``False``.
        norm_first: pre-norm layers. Default: ``False``.
        bias: use biases in linear layers and layer norms. Default: ``True``.

    Weights with more than one dimension are initialised with :func:`~ember.nn.init.xavier_uniform_`.

    Example::

        >>> model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=2, num_decoder_layers=2)
        >>> out = model(ember.randn(10, 32, 16), ember.randn(20, 32, 16))
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        fk = _factory_kwargs(device, dtype)
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **fk)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **fk)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        r"""Encode ``src`` and decode ``tgt`` against the encoding.

        Args:
            src: :math:`(S, E)`, :math:`(S, N, E)` or :math:`(N, S, E)` with ``batch_first``.
            tgt: :math:`(T, E)`, :math:`(T, N, E)` or :math:`(N, T, E)`.
            src_mask, tgt_mask, memory_mask: optional attention masks :math:`(S, S)`, :math:`(T, T)`,
                :math:`(T, S)`.
            src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask: optional padding masks.
            src_is_causal, tgt_is_causal, memory_is_causal: hints that the corresponding mask is causal.

        Returns:
            :math:`(T, N, E)` (or batch first).
        """
        is_batched = src.dim() == 3
        if not self.batch_first and is_batched and src.shape[1] != tgt.shape[1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and is_batched and src.shape[0] != tgt.shape[0]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        r"""A square causal mask for a sequence of length ``sz``: ``-inf`` above the diagonal, ``0.0`` elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        from .. import init
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
