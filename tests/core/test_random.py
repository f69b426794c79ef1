"""Random number generation: seeding repeats bit for bit, explicit generators are independent streams, and the
RNG state round-trips."""
import numpy as np
import pytest

import ember as em


def draws(generator=None):
    """One of every random factory, as plain arrays."""
    return [em.rand(3, generator=generator).numpy(), em.randn(2, 2, generator=generator).numpy(),
            em.randint(0, 100, (4,), generator=generator).numpy(), em.randperm(6, generator=generator).numpy()]


def assert_same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.dtype == y.dtype
        np.testing.assert_array_equal(x, y)


def test_manual_seed_repeats_exactly():
    em.manual_seed(123)
    first = draws()
    em.manual_seed(123)
    assert_same(first, draws())
    em.manual_seed(124)
    assert not np.array_equal(first[0], em.rand(3).numpy())


def test_manual_seed_returns_the_default_generator_and_records_the_seed():
    g = em.manual_seed(7)
    assert isinstance(g, em.Generator)
    assert g is em.random.default_generator
    assert em.initial_seed() == 7
    em.manual_seed(-1)  # negative seeds wrap like PyTorch's uint64 cast
    assert em.initial_seed() == 2 ** 64 - 1
    with pytest.raises(RuntimeError, match="Overflow"):
        em.manual_seed(2 ** 64)


def test_like_factories_draw_from_the_default_generator():
    src = em.zeros(5)
    em.manual_seed(3)
    a = em.rand_like(src).numpy(), em.randn_like(src).numpy(), em.randint_like(src, 10).numpy()
    em.manual_seed(3)
    b = em.rand_like(src).numpy(), em.randn_like(src).numpy(), em.randint_like(src, 10).numpy()
    assert_same(list(a), list(b))


def test_generator_is_independent_of_the_global_stream():
    em.manual_seed(0)
    expected_global = draws()
    g = em.Generator().manual_seed(99)
    em.manual_seed(0)
    em.rand(10, generator=g)  # drawing from g ...
    assert_same(expected_global, draws())  # ... does not advance the global stream
    g1 = em.Generator().manual_seed(5)
    g2 = em.Generator().manual_seed(5)
    assert_same(draws(g1), draws(g2))
    assert g1.initial_seed() == 5
    assert g1.device == "cpu"


def test_global_draws_do_not_advance_a_generator():
    g = em.Generator().manual_seed(11)
    first = em.rand(4, generator=g).numpy()
    g.manual_seed(11)
    em.rand(100)
    np.testing.assert_array_equal(em.rand(4, generator=g).numpy(), first)


def test_rng_state_round_trip():
    em.manual_seed(2024)
    em.rand(5)
    state = em.get_rng_state()
    assert state.dtype == em.uint8 and state.ndim == 1
    after = draws()
    em.rand(17)  # move on
    em.set_rng_state(state)
    assert_same(after, draws())


def test_generator_state_round_trip_and_validation():
    g = em.Generator().manual_seed(1)
    state = g.get_state()
    a = em.randn(3, generator=g).numpy()
    g.set_state(state)
    np.testing.assert_array_equal(em.randn(3, generator=g).numpy(), a)
    with pytest.raises(RuntimeError, match="not a generator state"):
        g.set_state(em.tensor([1, 2, 3], dtype=em.uint8))


def test_fork_rng_restores_the_state():
    em.manual_seed(8)
    with em.random.fork_rng():
        em.rand(50)
    after_fork = em.rand(3).numpy()
    em.manual_seed(8)
    np.testing.assert_array_equal(em.rand(3).numpy(), after_fork)


def test_seed_is_nondeterministic_but_reported():
    s = em.seed()
    assert em.initial_seed() == s
    a = em.rand(3).numpy()
    em.manual_seed(s)
    np.testing.assert_array_equal(em.rand(3).numpy(), a)


def test_seeded_draws_repeat_in_float64_and_float16_works():
    em.manual_seed(4)
    a = em.randn(4, dtype=em.float64).numpy()
    em.manual_seed(4)
    b = em.randn(4, dtype=em.float64).numpy()
    np.testing.assert_array_equal(a, b)
    assert em.randn(4, dtype=em.float16).dtype == em.float16
