"""nn.utils: gradient clipping, parameters <-> vector, weight norm, spectral norm, sequence packing."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import utils
from ember.core.nn.utils import rnn


def _params_with_grads(grads):
    params = []
    for g in grads:
        p = nn.Parameter(em.zeros(*np.shape(g)))
        p.grad = em.tensor(np.asarray(g, dtype=np.float32))
        params.append(p)
    return params


def test_clip_grad_norm_returns_total_norm_and_scales():
    params = _params_with_grads([[3.0, 0.0], [[0.0, 4.0]]])
    total = utils.clip_grad_norm_(params, max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    coef = 1.0 / (5.0 + 1e-6)
    np.testing.assert_allclose(params[0].grad.numpy(), [3 * coef, 0.0], rtol=1e-6)
    np.testing.assert_allclose(params[1].grad.numpy(), [[0.0, 4 * coef]], rtol=1e-6)
    # already small enough: untouched
    params = _params_with_grads([[0.3, 0.4]])
    assert utils.clip_grad_norm_(params, 1.0).item() == pytest.approx(0.5)
    np.testing.assert_allclose(params[0].grad.numpy(), [0.3, 0.4])


def test_clip_grad_norm_inf_and_p_norms_and_single_tensor():
    params = _params_with_grads([[1.0, -7.0], [2.0]])
    assert utils.clip_grad_norm_(params, 100.0, norm_type=math.inf).item() == 7.0
    params = _params_with_grads([[1.0, -2.0], [2.0]])
    assert utils.clip_grad_norm_(params, 100.0, norm_type=1).item() == pytest.approx(5.0)
    p = _params_with_grads([[6.0, 8.0]])[0]
    assert utils.clip_grad_norm_(p, 5.0).item() == pytest.approx(10.0)
    np.testing.assert_allclose(p.grad.numpy(), [3.0, 4.0], rtol=1e-5)
    assert utils.clip_grad_norm_([nn.Parameter(em.ones(2))], 1.0).item() == 0.0


def test_clip_grad_norm_error_if_nonfinite():
    params = _params_with_grads([[float("nan"), 1.0]])
    with pytest.raises(RuntimeError, match="non-finite, so it cannot be clipped"):
        utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    assert math.isnan(utils.clip_grad_norm_(params, 1.0).item())


def test_clip_grad_value():
    params = _params_with_grads([[-3.0, 0.5, 2.0]])
    utils.clip_grad_value_(params, 1.0)
    np.testing.assert_array_equal(params[0].grad.numpy(), [-1.0, 0.5, 1.0])


def test_parameters_to_vector_and_back():
    m = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    vec = utils.parameters_to_vector(m.parameters())
    assert vec.shape == em.Size([13])
    np.testing.assert_array_equal(vec.detach().numpy()[:6], m[0].weight.detach().numpy().ravel())
    (vec * em.arange(13.0)).sum().backward()
    np.testing.assert_array_equal(m[0].bias.grad.numpy(), [6.0, 7.0, 8.0])
    utils.vector_to_parameters(em.arange(13.0), m.parameters())
    np.testing.assert_array_equal(m[1].weight.detach().numpy(), [[9.0, 10.0, 11.0]])
    assert m[1].weight.requires_grad and m[1].weight.is_leaf
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        utils.vector_to_parameters([1.0], m.parameters())
    with pytest.raises(ValueError, match="13 elements"):
        utils.vector_to_parameters(em.zeros(12), m.parameters())


def test_weight_norm_reparametrises_and_removes():
    em.manual_seed(0)
    m = nn.Linear(4, 3)
    w0 = m.weight.detach().numpy().copy()
    utils.weight_norm(m)
    names = sorted(n for n, _ in m.named_parameters())
    assert names == ["bias", "weight_g", "weight_v"]
    np.testing.assert_allclose(m.weight_g.detach().numpy(), np.linalg.norm(w0, axis=1, keepdims=True), rtol=1e-6)
    x = em.randn(2, 4)
    np.testing.assert_allclose(m(x).detach().numpy(), x.numpy() @ w0.T + m.bias.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    m(x).sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    utils.remove_weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-5)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        utils.remove_weight_norm(m)


def test_weight_norm_gradients_are_correct():
    v = em.tensor(np.random.default_rng(0).standard_normal((3, 4)), dtype=em.float64, requires_grad=True)
    g = em.tensor(np.random.default_rng(1).standard_normal((3, 1)), dtype=em.float64, requires_grad=True)
    from ember.core.nn.utils.weight_norm import _weight_norm
    assert gradcheck(lambda a, b: _weight_norm(a, b, 0), (v, g))
    assert gradgradcheck(lambda a, b: _weight_norm(a, b, 0), (v, g))


def test_spectral_norm_divides_by_largest_singular_value():
    em.manual_seed(0)
    m = nn.Linear(5, 4)
    w = m.weight.detach().numpy().astype(np.float64).copy()
    utils.spectral_norm(m, n_power_iterations=50)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight_orig"]
    assert sorted(n for n, _ in m.named_buffers()) == ["weight_u", "weight_v"]
    m(em.randn(1, 5))
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-4)
    m(em.randn(1, 5)).sum().backward()
    assert m.weight_orig.grad is not None
    m.eval()
    before = m.weight_u.numpy().copy()
    m(em.randn(1, 5))
    np.testing.assert_array_equal(m.weight_u.numpy(), before)  # no power iteration in eval mode
    utils.remove_spectral_norm(m)
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-4)
    assert "weight_u" not in m._buffers


def _seqs():
    rng = np.random.default_rng(0)
    return [em.tensor(rng.standard_normal((n, 2)), dtype=em.float64, requires_grad=True) for n in (3, 1, 2)]


def test_pad_sequence_layouts_and_padding_value():
    a, b, c = _seqs()
    p = rnn.pad_sequence([a, b, c], padding_value=-1.0)
    assert p.shape == em.Size([3, 3, 2])
    np.testing.assert_array_equal(p.detach().numpy()[:, 1, 0], [b.detach().numpy()[0, 0], -1.0, -1.0])
    pb = rnn.pad_sequence([a, b, c], batch_first=True, padding_side="left")
    np.testing.assert_array_equal(pb.detach().numpy()[2, 1:], c.detach().numpy())
    np.testing.assert_array_equal(pb.detach().numpy()[2, 0], [0.0, 0.0])
    assert gradcheck(lambda *s: rnn.pad_sequence(list(s), batch_first=True, padding_value=3.0), (a, b, c))
    assert gradgradcheck(lambda *s: rnn.pad_sequence(list(s)) ** 2, (a, b, c))


def test_pack_and_unpack_roundtrip_with_unsorted_lengths():
    a, b, c = _seqs()
    padded = rnn.pad_sequence([a, b, c], batch_first=True)
    packed = rnn.pack_padded_sequence(padded, em.tensor([3, 1, 2]), batch_first=True, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1]
    assert packed.sorted_indices.tolist() == [0, 2, 1] and packed.unsorted_indices.tolist() == [0, 2, 1]
    an, bn, cn = (t.detach().numpy() for t in (a, b, c))
    np.testing.assert_array_equal(packed.data.detach().numpy(), np.stack([an[0], cn[0], bn[0], an[1], cn[1], an[2]]))
    out, lengths = rnn.pad_packed_sequence(packed, batch_first=True, total_length=4)
    assert lengths.tolist() == [3, 1, 2] and out.shape == em.Size([3, 4, 2])
    np.testing.assert_array_equal(out.detach().numpy()[:, :3], padded.detach().numpy())
    seqs = rnn.unpack_sequence(rnn.pack_sequence([a, b, c], enforce_sorted=False))
    for s, orig in zip(seqs, (a, b, c)):
        np.testing.assert_array_equal(s.detach().numpy(), orig.detach().numpy())
    assert gradcheck(lambda *s: rnn.pad_packed_sequence(rnn.pack_sequence(list(s), enforce_sorted=False))[0],
                     (a, b, c))


def test_pack_padded_sequence_errors():
    x = em.zeros(3, 2, 1)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        rnn.pack_padded_sequence(x, [1, 3])
    with pytest.raises(RuntimeError, match="has to be greater than 0"):
        rnn.pack_padded_sequence(x, [3, 0])
    packed = rnn.pack_padded_sequence(x, [3, 2])
    with pytest.raises(ValueError, match="total_length=2 and max sequence length being 3"):
        rnn.pad_packed_sequence(packed, total_length=2)
