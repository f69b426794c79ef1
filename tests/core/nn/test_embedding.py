"""Embedding and EmbeddingBag: lookup values, padding_idx, max_norm, from_pretrained, bag modes and gradients."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F


def _w(n=6, d=3, seed=0):
    return em.tensor(np.random.default_rng(seed).standard_normal((n, d)), dtype=em.float64, requires_grad=True)


def test_embedding_lookup_and_gradient_accumulates_repeated_indices():
    w = _w()
    idx = em.tensor([[1, 4, 1], [5, 0, 1]])
    out = F.embedding(idx, w)
    np.testing.assert_array_equal(out.detach().numpy(), w.detach().numpy()[idx.numpy()])
    out.sum().backward()
    counts = np.bincount(idx.numpy().ravel(), minlength=6)
    np.testing.assert_array_equal(w.grad.numpy(), np.repeat(counts[:, None], 3, 1))


def test_embedding_padding_idx_gets_no_gradient_and_starts_at_zero():
    em.manual_seed(0)
    m = nn.Embedding(5, 2, padding_idx=-1)
    assert m.padding_idx == 4
    np.testing.assert_array_equal(m.weight.detach().numpy()[4], [0.0, 0.0])
    m(em.tensor([4, 4, 2])).sum().backward()
    np.testing.assert_array_equal(m.weight.grad.numpy()[4], [0.0, 0.0])
    np.testing.assert_array_equal(m.weight.grad.numpy()[2], [1.0, 1.0])
    assert repr(m) == "Embedding(5, 2, padding_idx=4)"


def test_embedding_max_norm_renormalises_looked_up_rows_in_place():
    w = em.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
    F.embedding(em.tensor([0, 1]), w, max_norm=1.0)
    norms = np.linalg.norm(w.numpy(), axis=1)
    np.testing.assert_allclose(norms[:2], [1.0, 0.5], rtol=1e-5)
    assert norms[2] == pytest.approx(10.0)  # not looked up: untouched


def test_embedding_scale_grad_by_freq():
    w = _w()
    F.embedding(em.tensor([2, 2, 2, 3]), w, scale_grad_by_freq=True).sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[2], [1.0, 1.0, 1.0])
    np.testing.assert_allclose(w.grad.numpy()[3], [1.0, 1.0, 1.0])


def test_embedding_gradcheck_and_double_backward():
    idx = em.tensor([[0, 2], [2, 5]])
    assert gradcheck(lambda w: F.embedding(idx, w), (_w(),))
    assert gradgradcheck(lambda w: F.embedding(idx, w, padding_idx=2), (_w(),))
    assert gradgradcheck(lambda w: F.embedding(idx, w) ** 2, (_w(),))


def test_embedding_from_pretrained_and_errors():
    table = em.tensor([[1.0, 2.0], [3.0, 4.0]])
    m = nn.Embedding.from_pretrained(table)
    assert not m.weight.requires_grad
    np.testing.assert_array_equal(m(em.tensor([1])).numpy(), [[3.0, 4.0]])
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    with pytest.raises(IndexError, match="index out of range in self"):
        m(em.tensor([2]))
    with pytest.raises(IndexError, match="index out of range in self"):
        m(em.tensor([-1]))
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int"):
        m(em.tensor([0.0]))
    with pytest.raises(ValueError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=3)
    with pytest.raises(ValueError, match="2-dimensional"):
        nn.Embedding.from_pretrained(em.ones(3))


def test_embedding_default_init_is_standard_normal():
    em.manual_seed(0)
    w = nn.Embedding(1000, 50).weight.detach().numpy()
    assert abs(w.mean()) < 0.01 and abs(w.std() - 1) < 0.01


def test_embedding_bag_modes_with_offsets_match_manual_reduction():
    w = _w(10, 3)
    wn = w.detach().numpy()
    inp = em.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = em.tensor([0, 4])
    bags = [[1, 2, 4, 5], [4, 3, 2, 9]]
    for mode, red in (("sum", np.sum), ("mean", np.mean), ("max", np.max)):
        out = F.embedding_bag(inp, w, offsets, mode=mode)
        np.testing.assert_allclose(out.detach().numpy(), [red(wn[b], axis=0) for b in bags])
        assert gradcheck(lambda t: F.embedding_bag(inp, t, offsets, mode=mode), (w,))
    assert gradgradcheck(lambda t: F.embedding_bag(inp, t, offsets, mode="mean"), (w,))


def test_embedding_bag_2d_input_per_sample_weights_and_empty_bags():
    w = _w(6, 2)
    wn = w.detach().numpy()
    inp = em.tensor([[0, 1], [2, 2]])
    np.testing.assert_allclose(F.embedding_bag(inp, w, mode="sum").detach().numpy(),
                               [wn[0] + wn[1], 2 * wn[2]])
    psw = em.tensor([0.5, 2.0, 1.0, -1.0], dtype=em.float64, requires_grad=True)
    flat = em.tensor([0, 1, 2, 3])
    out = F.embedding_bag(flat, w, em.tensor([0, 2]), mode="sum", per_sample_weights=psw)
    np.testing.assert_allclose(out.detach().numpy(), [0.5 * wn[0] + 2 * wn[1], wn[2] - wn[3]])
    assert gradcheck(lambda t, s: F.embedding_bag(flat, t, em.tensor([0, 2]), mode="sum",
                                                  per_sample_weights=s), (w, psw))
    empty = F.embedding_bag(em.tensor([1, 2]), w, em.tensor([0, 0, 2]), mode="mean")
    np.testing.assert_allclose(empty.detach().numpy(), [[0, 0], (wn[1] + wn[2]) / 2, [0, 0]])
    mx = F.embedding_bag(em.tensor([1, 2]), w, em.tensor([0, 2, 2]), mode="max")
    np.testing.assert_allclose(mx.detach().numpy(), [np.max(wn[[1, 2]], 0), [0, 0], [0, 0]])
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(flat, w, em.tensor([0, 2]), mode="mean", per_sample_weights=psw)


def test_embedding_bag_module_padding_and_repr():
    em.manual_seed(0)
    bag = nn.EmbeddingBag(5, 2, mode="mean", padding_idx=0)
    assert repr(bag) == "EmbeddingBag(5, 2, mode=mean, padding_idx=0)"
    wn = bag.weight.detach().numpy()
    out = bag(em.tensor([[0, 1, 3], [0, 0, 2]]))
    np.testing.assert_allclose(out.detach().numpy(), [(wn[1] + wn[3]) / 2, wn[2]], rtol=1e-6)


def test_one_hot():
    out = F.one_hot(em.tensor([0, 2, 1]))
    assert out.dtype == em.int64
    np.testing.assert_array_equal(out.numpy(), np.eye(3, dtype=np.int64)[[0, 2, 1]])
    assert F.one_hot(em.tensor([[1], [0]]), num_classes=4).shape == em.Size([2, 1, 4])
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(em.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(em.tensor([1.0]))


def test_normalize_cosine_similarity_pairwise_distance():
    x = em.tensor(np.random.default_rng(0).standard_normal((3, 4)), dtype=em.float64, requires_grad=True)
    y = em.tensor(np.random.default_rng(1).standard_normal((3, 4)), dtype=em.float64, requires_grad=True)
    xn, yn = x.detach().numpy(), y.detach().numpy()
    np.testing.assert_allclose(F.normalize(x).detach().numpy(), xn / np.linalg.norm(xn, axis=1, keepdims=True))
    np.testing.assert_allclose(F.normalize(x, p=1, dim=0).detach().numpy(), xn / np.abs(xn).sum(0))
    cos = (xn * yn).sum(1) / np.linalg.norm(xn, axis=1) / np.linalg.norm(yn, axis=1)
    np.testing.assert_allclose(F.cosine_similarity(x, y).detach().numpy(), cos)
    np.testing.assert_allclose(F.pairwise_distance(x, y).detach().numpy(), np.linalg.norm(xn - yn + 1e-6, axis=1))
    for fn in (F.normalize, lambda a: F.cosine_similarity(a, y), lambda a: F.pairwise_distance(a, y, p=3)):
        assert gradcheck(fn, (x,))
    assert gradgradcheck(lambda a: F.cosine_similarity(a, y), (x,))
    assert F.normalize(em.zeros(2, 3)).numpy().sum() == 0  # eps guards the zero vector


def test_pdist_matches_pairwise_norms():
    x = em.tensor(np.random.default_rng(2).standard_normal((4, 3)), dtype=em.float64, requires_grad=True)
    xn = x.detach().numpy()
    i, j = np.triu_indices(4, 1)
    np.testing.assert_allclose(F.pdist(x).detach().numpy(), np.linalg.norm(xn[i] - xn[j], axis=1))
    assert gradcheck(F.pdist, (x,))


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_grad_fn_is_one_node_in_every_mode(mode):
    bag = nn.EmbeddingBag(6, 3, mode=mode)
    assert type(bag(em.tensor([[1, 2], [3, 3]])).grad_fn).__name__ == "EmbeddingBagBackward0"
    out = F.embedding_bag(em.tensor([1, 2, 4]), bag.weight, em.tensor([0, 1, 1]), mode=mode)  # with an empty bag
    assert type(out.grad_fn).__name__ == "EmbeddingBagBackward0"
    assert repr(out.grad_fn).startswith("<EmbeddingBagBackward0 object")


def test_embedding_bag_single_node_gradients_in_float64():
    w = em.randn(6, 3, dtype=em.float64, requires_grad=True)
    flat, offsets = em.tensor([1, 0, 4, 4, 2]), em.tensor([0, 2, 2])
    for mode in ("sum", "mean", "max"):
        assert gradcheck(lambda t: F.embedding_bag(flat, t, offsets, mode=mode), (w,))
        assert gradcheck(lambda t: F.embedding_bag(flat, t, offsets, mode=mode, padding_idx=4), (w,))
        assert gradgradcheck(lambda t: F.embedding_bag(flat, t, offsets, mode=mode, padding_idx=0) ** 2, (w,))
    psw = em.randn(5, dtype=em.float64, requires_grad=True)
    assert gradcheck(lambda t, s: F.embedding_bag(flat, t, offsets, mode="sum", per_sample_weights=s, padding_idx=4),
                     (w, psw))
    assert gradgradcheck(lambda t, s: F.embedding_bag(flat, t, offsets, mode="sum", per_sample_weights=s) ** 2,
                         (w, psw))
    g = F.embedding_bag(flat, w, offsets, mode="sum", per_sample_weights=psw, padding_idx=4).sum()
    g.backward()
    assert psw.grad[2].item() == 0 and psw.grad[3].item() == 0  # padded positions get no gradient
