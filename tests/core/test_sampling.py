"""Random draws PyTorch makes that ember now makes too: ``multinomial`` and complex ``randn``/``rand``/``normal_``."""
import math

import numpy as np
import pytest

import ember as em


def test_multinomial_without_replacement_never_repeats_and_skips_zero_weights():
    em.manual_seed(0)
    w = em.tensor([[0., 3., 1., 0., 2.], [1., 1., 1., 1., 1.]])
    for _ in range(20):
        s = em.multinomial(w, 3)
        assert s.dtype == em.int64 and s.shape == (2, 3)
        assert sorted(s[0].tolist()) == [1, 2, 4]  # all three non-zero categories, each once
        assert len(set(s[1].tolist())) == 3
    # asking for more than the positive weights: those first, then zero-weight categories (PyTorch's CPU kernel)
    s = em.multinomial(em.tensor([0., 5., 0.]), 3)
    assert s[0].item() == 1 and sorted(s.tolist()) == [0, 1, 2]


def test_multinomial_frequencies_follow_the_weights():
    em.manual_seed(1)
    s = em.multinomial(em.tensor([1., 2., 0., 7.]), 20000, replacement=True)
    freq = np.bincount(s.numpy(), minlength=4) / 20000
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.0, 0.7], atol=0.015)
    assert freq[2] == 0
    # the first draw without replacement is a weighted draw too
    first = [em.multinomial(em.tensor([1., 3.]), 1).item() for _ in range(2000)]
    assert abs(np.mean(first) - 0.75) < 0.04


def test_multinomial_is_seeded_and_has_pytorchs_errors():
    em.manual_seed(3)
    a = em.multinomial(em.ones(10), 5)
    em.manual_seed(3)
    assert em.multinomial(em.ones(10), 5).tolist() == a.tolist()
    assert em.ones(4).multinomial(2).shape == (2,)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        em.multinomial(em.ones(3), 4)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        em.multinomial(em.tensor([1., -1.]), 1)
    with pytest.raises(RuntimeError, match=r"invalid multinomial distribution \(sum of probabilities <= 0\)"):
        em.multinomial(em.zeros(3), 1, replacement=True)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        em.multinomial(em.ones(2, 2, 2), 1)


def test_complex_randn_has_unit_variance_split_evenly():
    em.manual_seed(0)
    z = em.randn(40000, dtype=em.complex64)
    assert z.dtype == em.complex64
    assert abs((z.abs() ** 2).mean().item() - 1) < 0.02
    assert abs(z.real.var().item() - 0.5) < 0.02 and abs(z.imag.var().item() - 0.5) < 0.02
    # each part is a standard normal draw scaled by 1/sqrt(2), taken in (real, imag) pairs from the generator
    em.manual_seed(5)
    z = em.randn(3, dtype=em.complex128)
    em.manual_seed(5)
    pairs = em.randn(3, 2, dtype=em.float64) * math.sqrt(0.5)
    np.testing.assert_array_equal(z.real.numpy(), pairs[:, 0].numpy())
    np.testing.assert_array_equal(z.imag.numpy(), pairs[:, 1].numpy())


def test_complex_rand_and_normal_():
    em.manual_seed(0)
    u = em.rand(1000, dtype=em.complex128)
    assert u.dtype == em.complex128
    for part in (u.real, u.imag):
        assert 0 <= part.min().item() and part.max().item() < 1 and abs(part.mean().item() - 0.5) < 0.05
    w = em.empty(40000, dtype=em.complex128).normal_(1.0, 2.0)
    # mean goes to both parts, std/sqrt(2) to each part: E|w - (1+1j)|^2 = std^2
    assert abs(w.real.mean().item() - 1) < 0.03 and abs(w.imag.mean().item() - 1) < 0.03
    assert abs(((w - (1 + 1j)).abs() ** 2).mean().item() - 4) < 0.1
    assert em.randn_like(u).dtype == em.complex128
