"""Specification of ``F.scaled_dot_product_attention`` and a causal self-attention block built on it."""
import math

import numpy as np
import pytest

import ember as em
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from op_testing import leaf as _rand, npy as _np


def _t(a, requires_grad=False):
    return em.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def reference_sdpa(q, k, v, mask=None, is_causal=False, scale=None):
    """softmax(Q K^T * scale + mask) V written out with NumPy, independently of ember."""
    q, k, v = (np.asarray(x, dtype=np.float64) for x in (q, k, v))
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    L, S = s.shape[-2:]
    if is_causal:
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, -np.inf)
    if mask is not None:
        mask = np.asarray(mask)
        s = np.where(mask, s, -np.inf) if mask.dtype == bool else s + mask
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v


# -------------------------------------------------------------------------------------------------- values
def test_hand_computed_single_query():
    # scores [1, 0] -> weights [e, 1] / (e + 1); output is the weighted mix of the value rows
    q, k, v = _t([[1.0, 0.0]]), _t([[1.0, 0.0], [0.0, 1.0]]), _t([[1.0, 2.0], [3.0, 4.0]])
    out = F.scaled_dot_product_attention(q, k, v, scale=1.0)
    w0 = math.e / (math.e + 1)
    np.testing.assert_allclose(_np(out), [[w0 * 1 + (1 - w0) * 3, w0 * 2 + (1 - w0) * 4]], rtol=1e-12)


def test_default_scale_is_inverse_sqrt_of_embedding_size():
    q, k, v = _rand(2, 3, 4, seed=1), _rand(2, 5, 4, seed=2), _rand(2, 5, 6, seed=3)
    out = F.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v)), rtol=1e-10)
    out = F.scaled_dot_product_attention(q, k, v, scale=0.3)
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v), scale=0.3), rtol=1e-10)


def test_is_causal_equals_explicit_masked_softmax():
    q, k, v = _rand(2, 3, 5, 4, seed=4), _rand(2, 3, 5, 4, seed=5), _rand(2, 3, 5, 4, seed=6)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    # explicit: scores above the diagonal are -inf before the softmax
    s = _np(q) @ np.swapaxes(_np(k), -1, -2) / 2.0
    s[..., np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] = -np.inf
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(_np(out), p @ _np(v), rtol=1e-10)
    # and the same as passing the lower-triangular bool mask
    tril = em.tensor(np.tril(np.ones((5, 5), dtype=bool)))
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=tril).detach().numpy(), _np(out),
                               rtol=1e-12)
    # the first query can only see the first key: its output is exactly v[..., 0, :]
    np.testing.assert_allclose(_np(out)[..., 0, :], _np(v)[..., 0, :], rtol=1e-12)


def test_is_causal_with_more_keys_than_queries_is_top_left_aligned():
    q, k, v = _rand(2, 3, 4, seed=7), _rand(2, 5, 4, seed=8), _rand(2, 5, 2, seed=9)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v), is_causal=True),
                               rtol=1e-10)


def test_bool_mask_true_means_take_part():
    q, k, v = _rand(2, 4, 3, seed=10), _rand(2, 6, 3, seed=11), _rand(2, 6, 5, seed=12)
    mask = np.random.default_rng(0).random((4, 6)) > 0.4
    mask[:, 0] = True
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=em.tensor(mask))
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v), mask), rtol=1e-10)
    # a key masked out for every query does not influence the output
    mask[:, 3] = False
    k2, v2 = _np(k).copy(), _np(v).copy()
    k2[:, 3], v2[:, 3] = 100.0, -100.0
    a = F.scaled_dot_product_attention(q, k, v, attn_mask=em.tensor(mask)).detach().numpy()
    b = F.scaled_dot_product_attention(q, _t(k2), _t(v2), attn_mask=em.tensor(mask)).detach().numpy()
    np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("mask_shape", [(6,), (1, 6), (4, 6), (2, 4, 6)])
def test_bool_masks_of_every_broadcastable_shape(mask_shape):
    # the fused kernel adds the mask to transposed scores: a 1-D or row mask must still mean "per key"
    q, k, v = _rand(2, 4, 3, seed=40), _rand(2, 6, 3, seed=41), _rand(2, 6, 5, seed=42)
    mask = np.random.default_rng(2).random(mask_shape) > 0.4
    mask[..., 0] = True
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=em.tensor(mask))
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v), mask), rtol=1e-10)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=em.tensor(mask)), (q, k, v))


def test_float_mask_is_added_to_the_scores():
    q, k, v = _rand(1, 2, 3, 4, seed=13), _rand(1, 2, 5, 4, seed=14), _rand(1, 2, 5, 4, seed=15)
    mask = np.random.default_rng(1).standard_normal((2, 3, 5))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=_t(mask))
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v), mask), rtol=1e-10)


def test_fully_masked_row_gives_zeros_not_nan():
    q, k, v = _rand(3, 2, seed=16), _rand(4, 2, seed=17), _rand(4, 2, seed=18)
    mask = np.ones((3, 4), dtype=bool)
    mask[1] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=em.tensor(mask))
    assert np.all(_np(out)[1] == 0)
    np.testing.assert_allclose(_np(out)[[0, 2]], reference_sdpa(_np(q), _np(k), _np(v))[[0, 2]],
                               rtol=1e-10)
    out.sum().backward()
    assert np.all(np.isfinite(_np(q.grad))) and np.all(_np(q.grad)[1] == 0)


def test_batch_dims_broadcast():
    q, k, v = _rand(2, 3, 4, 5, seed=19), _rand(1, 3, 6, 5, seed=20), _rand(6, 2)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 4, 2)
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(k), _np(v)), rtol=1e-10)


def test_grouped_query_attention_shares_key_value_heads():
    q, k, v = _rand(2, 6, 3, 4, seed=21), _rand(2, 2, 5, 4, seed=22), _rand(2, 2, 5, 3, seed=23)
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    # query heads 0-2 use key/value head 0, heads 3-5 use head 1 (repeat_interleave on the head axis)
    ref = reference_sdpa(_np(q), np.repeat(_np(k), 3, axis=1), np.repeat(_np(v), 3, axis=1))
    assert out.shape == (2, 6, 3, 3)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-10)
    mask = np.random.default_rng(2).standard_normal((6, 3, 5))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=_t(mask), enable_gqa=True)
    ref = reference_sdpa(_np(q), np.repeat(_np(k), 3, axis=1), np.repeat(_np(v), 3, axis=1), mask)
    np.testing.assert_allclose(_np(out), ref, rtol=1e-10)


def test_float32_stays_float32():
    q = em.randn(2, 3, 4)
    out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert out.dtype == em.float32
    np.testing.assert_allclose(_np(out), reference_sdpa(_np(q), _np(q), _np(q), is_causal=True),
                               rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------------- dropout
def test_dropout_zero_probability_changes_nothing_and_one_zeroes_everything():
    q, k, v = _rand(2, 3, 4, seed=24), _rand(2, 5, 4, seed=25), _rand(2, 5, 3, seed=26)
    ref = reference_sdpa(_np(q), _np(k), _np(v))
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, dropout_p=0.0).detach().numpy(), ref, rtol=1e-12)
    assert np.all(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).detach().numpy() == 0)


def test_dropout_drops_weights_and_rescales_the_survivors():
    # with v = 1 every output element is sum_j keep_j * p_j / (1 - p): each kept weight is scaled by 2 at p=0.5
    em.manual_seed(0)
    q = em.zeros(1, 4000, 1, dtype=em.float64)
    k = em.zeros(1, 2, 1, dtype=em.float64)  # uniform weights 1/2, 1/2
    v = em.ones(1, 2, 1, dtype=em.float64)
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).detach().numpy().ravel()
    assert set(np.round(out, 12)) <= {0.0, 1.0, 2.0}  # 0, 1 or 2 of the two weights (1/2 each, x2) kept
    assert abs(out.mean() - 1.0) < 0.05  # unbiased
    counts = np.bincount(np.round(out).astype(int), minlength=3) / out.size
    np.testing.assert_allclose(counts, [0.25, 0.5, 0.25], atol=0.03)


def test_dropout_is_reproducible_under_a_seed():
    q = em.randn(2, 5, 4)
    em.manual_seed(3)
    a = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3).detach().numpy()
    em.manual_seed(3)
    b = F.scaled_dot_product_attention(q, q, q, dropout_p=0.3).detach().numpy()
    np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------------------------------ gradients
def test_gradcheck_plain_and_scaled():
    q, k, v = _rand(2, 3, 4, seed=30), _rand(2, 5, 4, seed=31), _rand(2, 5, 3, seed=32)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), (q, k, v))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, scale=0.7), (q, k, v))


def test_gradcheck_causal():
    q, k, v = _rand(1, 2, 4, 3, seed=33), _rand(1, 2, 4, 3, seed=34), _rand(1, 2, 4, 2, seed=35)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))


def test_gradcheck_bool_mask_with_a_fully_masked_row():
    q, k, v = _rand(2, 3, 4, seed=36), _rand(2, 5, 4, seed=37), _rand(2, 5, 3, seed=38)
    mask = np.random.default_rng(3).random((3, 5)) > 0.5
    mask[0] = False
    mask[1, 1] = True
    m = em.tensor(mask)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=m), (q, k, v))


def test_gradcheck_float_mask_requiring_grad():
    q, k, v = _rand(2, 3, 4, seed=39), _rand(2, 5, 4, seed=40), _rand(2, 5, 3, seed=41)
    m = _rand(3, 5, seed=42)  # broadcast over the batch: its gradient is summed over it
    assert gradcheck(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), (q, k, v, m))


def test_gradcheck_broadcast_batch_and_gqa():
    q, k, v = _rand(2, 4, 3, 2, seed=43), _rand(1, 2, 3, 2, seed=44), _rand(1, 2, 3, 2, seed=45)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), (q, k, v))
    q, k, v = _rand(2, 3, 4, seed=46), _rand(1, 5, 4, seed=47), _rand(5, 3, seed=48)
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v), (q, k, v))


def test_gradcheck_dropout_with_fixed_seed():
    q, k, v = _rand(2, 3, 4, seed=49), _rand(2, 5, 4, seed=50), _rand(2, 5, 3, seed=51)

    def f(q, k, v):
        em.manual_seed(7)  # the same dropout mask on every evaluation
        return F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    assert gradcheck(f, (q, k, v))


def test_gradgradcheck():
    q, k, v = _rand(1, 3, 2, seed=52), _rand(1, 4, 2, seed=53), _rand(1, 4, 2, seed=54)
    m = _rand(3, 4, seed=55)
    assert gradgradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v))
    assert gradgradcheck(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m), (q, k, v, m))


def test_one_fused_node_no_loop_over_batch_or_heads():
    # the whole computation is one graph node fed directly by q, k and v, whatever the batch and head counts
    q, k, v = (em.randn(4, 8, 16, 8, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert type(out.grad_fn).__name__ == "ScaledDotProductAttentionBackward0"
    assert [e[0].variable for e in out.grad_fn.next_functions[:3]] == [q, k, v]
    out.sum().backward()
    assert q.grad.shape == q.shape and k.grad.shape == k.shape and v.grad.shape == v.shape


def test_no_graph_without_grad():
    q = em.randn(2, 3, 4, requires_grad=True)
    with em.no_grad():
        out = F.scaled_dot_product_attention(q, q, q)
    assert out.grad_fn is None and not out.requires_grad


# ---------------------------------------------------------------------------------------------------- errors
def test_errors_name_the_problem():
    q = em.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="attn_mask should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=em.ones(3, 3, dtype=em.bool), is_causal=True)
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=em.ones(3, 3, dtype=em.int64))
    with pytest.raises(RuntimeError, match="embedding size"):
        F.scaled_dot_product_attention(q, em.randn(2, 3, 5), q)
    with pytest.raises(RuntimeError, match="sequence length"):
        F.scaled_dot_product_attention(q, q, em.randn(2, 4, 4))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=em.zeros(3, 2))
    with pytest.raises(ValueError, match="dropout probability"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)
    with pytest.raises(TypeError, match="query"):
        F.scaled_dot_product_attention(np.zeros((2, 3)), q, q)
    with pytest.raises(RuntimeError, match="divide the number of heads"):
        F.scaled_dot_product_attention(em.randn(1, 3, 2, 4), em.randn(1, 2, 2, 4), em.randn(1, 2, 2, 4),
                                       enable_gqa=True)


# ------------------------------------------------------------------------------------ a causal attention block
class CausalSelfAttention(nn.Module):
    """GPT-style block: fused qkv projection, heads split with view/transpose, causal SDPA, output projection."""

    def __init__(self, n_embd, n_head, dropout=0.1):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd, self.dropout = n_head, n_embd, dropout

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, dropout_p=self.dropout if self.training else 0.0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


class CopyPrevious(nn.Module):
    def __init__(self, vocab, seq_len, n_embd, n_head):
        super().__init__()
        self.tok = nn.Embedding(vocab, n_embd)
        self.pos = nn.Embedding(seq_len, n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.head = nn.Linear(n_embd, vocab)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(em.arange(idx.shape[1]))
        return self.head(x + self.attn(x))


def test_causal_self_attention_learns_to_copy_the_previous_token():
    # position t must output token t-1: only attention to the previous position can solve it
    em.manual_seed(0)
    vocab, seq_len = 6, 8
    model = CopyPrevious(vocab, seq_len, n_embd=32, n_head=4)
    opt = em.optim.Adam(model.parameters(), lr=1e-2)

    def loss_of(idx):
        logits = model(idx)
        return F.cross_entropy(logits[:, 1:].reshape(-1, vocab), idx[:, :-1].reshape(-1))
    first = None
    for _ in range(60):
        loss = loss_of(em.randint(0, vocab, (32, seq_len)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert first > 1.5  # about ln(6) at the start
    model.eval()
    with em.no_grad():
        final = loss_of(em.randint(0, vocab, (64, seq_len))).item()
    assert final < 0.05 * first
    # the causal mask is respected: changing a later token does not change earlier predictions
    idx = em.randint(0, vocab, (1, seq_len))
    idx2 = idx.clone()
    idx2[0, -1] = (idx[0, -1].item() + 1) % vocab
    with em.no_grad():
        np.testing.assert_allclose(model(idx).numpy()[0, :-1], model(idx2).numpy()[0, :-1], rtol=1e-6)
