"""Specification of MultiheadAttention and the Transformer layers.

The references re-implement PyTorch's documented math in NumPy: the packed in-projection split into q, k, v, heads
of size E / num_heads, softmax(q k^T / sqrt(head_dim) + masks) v, the output projection, residuals and LayerNorm.
"""
import math

import numpy as np
import pytest

import ember as em
import ember.nn as nn
from ember.autograd import gradcheck


def _np(t):
    return t.detach().numpy()


def _x(*shape, seed=0):
    return em.tensor(np.random.default_rng(seed).standard_normal(shape))


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_mha(mha, query, key, value, attn_mask=None, key_padding_mask=None, average=True):
    """Sequence-first (L, N, E) multi-head attention from the module's parameters, in NumPy."""
    p = {k: _np(v) for k, v in mha.named_parameters()}
    E, H = mha.embed_dim, mha.num_heads
    D = E // H
    if "in_proj_weight" in p:
        wq, wk, wv = p["in_proj_weight"][:E], p["in_proj_weight"][E:2 * E], p["in_proj_weight"][2 * E:]
    else:
        wq, wk, wv = p["q_proj_weight"], p["k_proj_weight"], p["v_proj_weight"]
    b = p.get("in_proj_bias", np.zeros(3 * E))
    q = query @ wq.T + b[:E]
    k = key @ wk.T + b[E:2 * E]
    v = value @ wv.T + b[2 * E:]
    if mha.bias_k is not None:  # learned bias appended to the key/value sequences
        N = query.shape[1]
        k = np.concatenate([k, np.broadcast_to(p["bias_k"], (1, N, E))], 0)
        v = np.concatenate([v, np.broadcast_to(p["bias_v"], (1, N, E))], 0)
    L, N, _ = q.shape

    def heads(x):
        return x.reshape(x.shape[0], N, H, D).transpose(1, 2, 0, 3)  # (N, H, S, D)
    q, k, v = heads(q), heads(k), heads(v)
    if mha.add_zero_attn:
        k = np.concatenate([k, np.zeros((N, H, 1, D))], 2)
        v = np.concatenate([v, np.zeros((N, H, 1, D))], 2)
    S = k.shape[2]
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(D)
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        m = m.reshape(N, H, L, -1) if m.ndim == 3 else m
        m = np.pad(m, [(0, 0)] * (m.ndim - 1) + [(0, S - m.shape[-1])])  # extra keys are never masked
        s = np.where(m, -np.inf, s) if m.dtype == bool else s + m
    if key_padding_mask is not None:
        kpm = np.pad(np.asarray(key_padding_mask), [(0, 0), (0, S - key_padding_mask.shape[-1])])
        s = np.where(kpm[:, None, None, :], -np.inf, s)
    w = softmax(s)
    out = (w @ v).transpose(2, 0, 1, 3).reshape(L, N, E)
    out = out @ p["out_proj.weight"].T + p.get("out_proj.bias", 0.0)
    return out, (w.mean(1) if average else w)


def ref_layer_norm(x, weight, bias, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * weight + bias


# ------------------------------------------------------------------------------------------ MultiheadAttention
def test_mha_self_attention_matches_reference():
    mha = nn.MultiheadAttention(8, 2, dtype=em.float64)
    x = _x(5, 3, 8, seed=1)
    out, w = mha(x, x, x)
    ro, rw = ref_mha(mha, _np(x), _np(x), _np(x))
    assert out.shape == (5, 3, 8) and w.shape == (3, 5, 5)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w).sum(-1), 1.0, rtol=1e-12)


def test_mha_cross_attention_per_head_weights_and_no_weights():
    mha = nn.MultiheadAttention(6, 3, dtype=em.float64)
    q, kv = _x(4, 2, 6, seed=2), _x(7, 2, 6, seed=3)
    out, w = mha(q, kv, kv, average_attn_weights=False)
    ro, rw = ref_mha(mha, _np(q), _np(kv), _np(kv), average=False)
    assert w.shape == (2, 3, 4, 7)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)
    v = _x(7, 2, 6, seed=4)  # distinct key and value tensors
    out2, none = mha(q, kv, v, need_weights=False)
    assert none is None
    np.testing.assert_allclose(_np(out2), ref_mha(mha, _np(q), _np(kv), _np(v))[0], rtol=1e-10, atol=1e-12)


def test_mha_batch_first_and_unbatched():
    mha = nn.MultiheadAttention(8, 4, batch_first=True, dtype=em.float64)
    x = _x(3, 5, 8, seed=5)  # (N, L, E)
    out, w = mha(x, x, x)
    xs = _np(x).transpose(1, 0, 2)
    ro, rw = ref_mha(mha, xs, xs, xs)
    np.testing.assert_allclose(_np(out), ro.transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)
    single = x[0]  # unbatched (L, E)
    out1, w1 = mha(single, single, single)
    assert out1.shape == (5, 8) and w1.shape == (5, 5)
    np.testing.assert_allclose(_np(out1), _np(out)[0], rtol=1e-12, atol=1e-14)


def test_mha_masks_bool_true_means_masked_out():
    mha = nn.MultiheadAttention(4, 2, dtype=em.float64)
    q, kv = _x(3, 2, 4, seed=6), _x(5, 2, 4, seed=7)
    attn_mask = np.zeros((3, 5), dtype=bool)
    attn_mask[0, 4] = attn_mask[2, 0] = True
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[1, 3] = True
    out, w = mha(q, kv, kv, attn_mask=em.tensor(attn_mask), key_padding_mask=em.tensor(kpm))
    ro, rw = ref_mha(mha, _np(q), _np(kv), _np(kv), attn_mask, kpm)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)
    assert _np(w)[0, 0, 4] == 0 and _np(w)[1, 0, 3] == 0  # masked keys get zero weight
    # the same through the SDPA path (need_weights=False)
    out2, _ = mha(q, kv, kv, attn_mask=em.tensor(attn_mask), key_padding_mask=em.tensor(kpm), need_weights=False)
    np.testing.assert_allclose(_np(out2), ro, rtol=1e-10, atol=1e-12)


def test_mha_float_and_per_head_masks():
    mha = nn.MultiheadAttention(4, 2, dtype=em.float64)
    x = _x(3, 2, 4, seed=8)
    fmask = np.random.default_rng(0).standard_normal((3, 3))
    out, w = mha(x, x, x, attn_mask=em.tensor(fmask))
    ro, rw = ref_mha(mha, _np(x), _np(x), _np(x), fmask)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)
    mask3 = np.random.default_rng(1).standard_normal((2 * 2, 3, 3))  # (N * num_heads, L, S)
    out, w = mha(x, x, x, attn_mask=em.tensor(mask3), average_attn_weights=False)
    ro, rw = ref_mha(mha, _np(x), _np(x), _np(x), mask3, average=False)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)


def test_mha_causal_hint():
    mha = nn.MultiheadAttention(4, 2, dtype=em.float64)
    x = _x(4, 2, 4, seed=9)
    causal = nn.Transformer.generate_square_subsequent_mask(4, dtype=em.float64)
    ref = ref_mha(mha, _np(x), _np(x), _np(x), _np(causal))[0]
    out, _ = mha(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        mha(x, x, x, is_causal=True)


def test_mha_kdim_vdim_bias_kv_zero_attn():
    mha = nn.MultiheadAttention(4, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, dtype=em.float64)
    assert list(mha.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "bias_k",
                                      "bias_v", "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_weight is None and mha.k_proj_weight.shape == (4, 3) and mha.v_proj_weight.shape == (4, 5)
    q, k, v = _x(2, 3, 4, seed=10), _x(6, 3, 3, seed=11), _x(6, 3, 5, seed=12)
    kpm = np.zeros((3, 6), dtype=bool)
    kpm[0, 5] = True
    out, w = mha(q, k, v, key_padding_mask=em.tensor(kpm))
    ro, rw = ref_mha(mha, _np(q), _np(k), _np(v), key_padding_mask=kpm)
    assert w.shape == (3, 2, 8)  # 6 keys + bias_k + the zero key
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_np(w), rw, rtol=1e-10, atol=1e-12)


def test_mha_state_dict_init_and_repr():
    em.manual_seed(0)
    mha = nn.MultiheadAttention(16, 4)
    assert list(mha.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_weight.shape == (48, 16) and mha.out_proj.weight.shape == (16, 16)
    assert np.all(_np(mha.in_proj_bias) == 0) and np.all(_np(mha.out_proj.bias) == 0)
    bound = math.sqrt(6 / (16 + 48))  # xavier_uniform_ on the (3E, E) packed weight
    w = _np(mha.in_proj_weight)
    assert np.abs(w).max() <= bound and w.std() == pytest.approx(bound / math.sqrt(3), rel=0.1)
    assert repr(mha) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=16, "
                         "out_features=16, bias=True)\n)")
    no_bias = nn.MultiheadAttention(16, 4, bias=False)
    assert list(no_bias.state_dict()) == ["in_proj_weight", "out_proj.weight"]


def test_mha_dropout_only_in_training():
    em.manual_seed(1)
    mha = nn.MultiheadAttention(8, 2, dropout=0.5, dtype=em.float64)
    x = _x(6, 2, 8, seed=13)
    train_out, train_w = mha(x, x, x)
    assert np.any(_np(train_w) == 0)  # some weights dropped...
    mha.eval()
    out, w = mha(x, x, x)
    ro, rw = ref_mha(mha, _np(x), _np(x), _np(x))
    np.testing.assert_allclose(_np(out), ro, rtol=1e-10, atol=1e-12)  # ...but none in eval
    assert not np.allclose(_np(train_out), ro)


def test_mha_gradcheck():
    mha = nn.MultiheadAttention(4, 2, dtype=em.float64)
    q, k = _x(3, 2, 4, seed=14).requires_grad_(), _x(5, 2, 4, seed=15).requires_grad_()
    mask = em.tensor(np.array([[False, False, True, False, False]] * 3))
    params = tuple(mha.parameters())
    assert gradcheck(lambda q, k, *ps: mha(q, k, k, attn_mask=mask), (q, k, *params))
    assert gradcheck(lambda q, *ps: mha(q, q, q, need_weights=False)[0], (q, *params))


def test_mha_errors():
    with pytest.raises(ValueError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 1)
    mha = nn.MultiheadAttention(4, 2)
    x = em.randn(3, 2, 4)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(3, 2\), but should be \(3, 3\)"):
        mha(x, x, x, attn_mask=em.zeros(3, 2))
    with pytest.raises(RuntimeError, match="expecting key_padding_mask shape of"):
        mha(x, x, x, key_padding_mask=em.zeros(2, 4, dtype=em.bool))
    with pytest.raises(RuntimeError, match="query has 5 features"):
        mha(em.randn(3, 2, 5), x, x)
    with pytest.raises(RuntimeError, match="expected `key` and `value` to be 3-D"):
        mha(x, x[0], x[0])


# ------------------------------------------------------------------------------------------ Transformer layers
def ref_encoder_layer(layer, x, norm_first=False):
    p = {k: _np(v) for k, v in layer.named_parameters()}

    def ln(y, name):
        return ref_layer_norm(y, p[f"{name}.weight"], p[f"{name}.bias"])

    def sa(y):
        return ref_mha(layer.self_attn, y, y, y)[0]

    def ff(y):
        return np.maximum(y @ p["linear1.weight"].T + p["linear1.bias"], 0) @ p["linear2.weight"].T + \
            p["linear2.bias"]
    if norm_first:
        x = x + sa(ln(x, "norm1"))
        return x + ff(ln(x, "norm2"))
    x = ln(x + sa(x), "norm1")
    return ln(x + ff(x), "norm2")


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_reference(norm_first):
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, norm_first=norm_first, dtype=em.float64).eval()
    with em.no_grad():  # non-trivial LayerNorm affine parameters
        layer.norm1.weight.copy_(_x(8, seed=20))
        layer.norm2.bias.copy_(_x(8, seed=21))
    x = _x(5, 3, 8, seed=22)
    np.testing.assert_allclose(_np(layer(x)), ref_encoder_layer(layer, _np(x), norm_first), rtol=1e-9, atol=1e-10)


def test_encoder_layer_state_dict_keys_and_repr():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    assert list(layer.state_dict()) == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
        "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias",
        "norm2.weight", "norm2.bias"]
    assert [name for name, _ in layer.named_children()] == ["self_attn", "linear1", "dropout", "linear2", "norm1",
                                                            "norm2", "dropout1", "dropout2"]
    assert "(linear1): Linear(in_features=8, out_features=16, bias=True)" in repr(layer)


def test_encoder_stack_copies_layers_and_applies_final_norm():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, dtype=em.float64)
    enc = nn.TransformerEncoder(layer, num_layers=2, norm=nn.LayerNorm(8, dtype=em.float64))
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    np.testing.assert_array_equal(_np(enc.layers[0].linear1.weight), _np(enc.layers[1].linear1.weight))
    with em.no_grad():
        enc.layers[1].linear1.weight.mul_(2.0)
    assert "layers.1.self_attn.in_proj_weight" in enc.state_dict() and "norm.weight" in enc.state_dict()
    x = _x(4, 2, 8, seed=23)
    y = ref_encoder_layer(enc.layers[1], ref_encoder_layer(enc.layers[0], _np(x)))
    y = ref_layer_norm(y, _np(enc.norm.weight), _np(enc.norm.bias))
    np.testing.assert_allclose(_np(enc(x)), y, rtol=1e-9, atol=1e-10)


def test_encoder_with_causal_mask_and_padding():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0, batch_first=True, dtype=em.float64)
    enc = nn.TransformerEncoder(layer, num_layers=1)
    x = _x(2, 5, 4, seed=24)
    mask = nn.Transformer.generate_square_subsequent_mask(5, dtype=em.float64)
    out = enc(x, mask=mask)
    # causality: changing the last position leaves earlier outputs unchanged
    x2 = x.detach().clone()
    with em.no_grad():
        x2[:, 4] = 10.0
    np.testing.assert_allclose(_np(enc(x2, mask=mask))[:, :4], _np(out)[:, :4], rtol=1e-10)
    kpm = em.tensor(np.array([[False] * 5, [False, False, False, True, True]]))
    out_p = enc(x, src_key_padding_mask=kpm)
    x3 = x.detach().clone()
    with em.no_grad():
        x3[1, 3:] = -7.0  # padded positions do not influence the others
    np.testing.assert_allclose(_np(enc(x3, src_key_padding_mask=kpm))[1, :3], _np(out_p)[1, :3], rtol=1e-10)


def test_generate_square_subsequent_mask():
    m = nn.Transformer.generate_square_subsequent_mask(3)
    assert m.dtype == em.float32
    expected = np.array([[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]], dtype=np.float32)
    np.testing.assert_array_equal(m.numpy(), expected)


def test_decoder_layer_matches_reference():
    layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dtype=em.float64).eval()
    assert [name for name, _ in layer.named_children()] == [
        "self_attn", "multihead_attn", "linear1", "dropout", "linear2", "norm1", "norm2", "norm3", "dropout1",
        "dropout2", "dropout3"]
    tgt, mem = _x(3, 2, 4, seed=25), _x(5, 2, 4, seed=26)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=em.float64)
    p = {k: _np(v) for k, v in layer.named_parameters()}

    def ln(y, name):
        return ref_layer_norm(y, p[f"{name}.weight"], p[f"{name}.bias"])
    x = _np(tgt)
    x = ln(x + ref_mha(layer.self_attn, x, x, x, _np(tgt_mask))[0], "norm1")
    x = ln(x + ref_mha(layer.multihead_attn, x, _np(mem), _np(mem))[0], "norm2")
    ff = np.maximum(x @ p["linear1.weight"].T + p["linear1.bias"], 0) @ p["linear2.weight"].T + p["linear2.bias"]
    x = ln(x + ff, "norm3")
    np.testing.assert_allclose(_np(layer(tgt, mem, tgt_mask=tgt_mask)), x, rtol=1e-9, atol=1e-10)


def test_transformer_end_to_end_shapes_keys_and_errors():
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=16)
    keys = list(model.state_dict())
    assert "encoder.layers.1.self_attn.in_proj_weight" in keys and "decoder.layers.0.multihead_attn.in_proj_bias" \
        in keys and "encoder.norm.weight" in keys and "decoder.norm.bias" in keys
    src, tgt = em.randn(6, 3, 8), em.randn(4, 3, 8)
    out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
    assert out.shape == (4, 3, 8)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(src, em.randn(4, 2, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        model(em.randn(6, 3, 4), em.randn(4, 3, 4))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")


def test_encoder_layer_gradcheck_and_gelu():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0, activation="gelu", norm_first=True,
                                       dtype=em.float64)
    x = _x(3, 2, 4, seed=27).requires_grad_()
    assert gradcheck(lambda x, *ps: layer(x), (x, *layer.parameters()))


def test_decoder_stack_trains_params():
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, dim_feedforward=8), num_layers=2)
    out = dec(em.randn(3, 2, 4), em.randn(5, 2, 4))
    out.pow(2).sum().backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in dec.parameters())
