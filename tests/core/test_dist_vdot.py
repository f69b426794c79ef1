"""``dist`` (p-norm of a difference), ``vdot`` (conjugating inner product) and ``is_inference_mode_enabled``."""
import math

import pytest

import ember as em
from ember.autograd import gradcheck


def test_dist_is_the_p_norm_of_the_broadcast_difference():
    a = em.tensor([[1., 2.], [3., 4.]])
    b = em.tensor([1., 0.])
    assert em.dist(a, b).item() == pytest.approx(math.sqrt(0 + 4 + 4 + 16))
    assert em.dist(a, b, 1).item() == 8.0
    assert em.dist(a, b, float("inf")).item() == 4.0
    assert em.dist(a, b, 0).item() == 3.0
    assert a.dist(b, 3).item() == pytest.approx((8 + 8 + 64) ** (1 / 3))
    with pytest.raises(TypeError, match="dist\\(\\): argument 'other' must be Tensor, not list"):
        em.dist(a, [1, 0])


def test_dist_gradcheck():
    a = em.randn(3, 4, dtype=em.float64, requires_grad=True)
    b = em.randn(4, dtype=em.float64, requires_grad=True)
    for p in (2, 1.5, 3):
        assert gradcheck(lambda a, b: em.dist(a, b, p), (a, b))


def test_vdot_conjugates_the_first_argument():
    x = em.tensor([1 + 2j, 3 - 1j])
    y = em.tensor([2 - 1j, 1j])
    assert em.vdot(x, y).item() == pytest.approx((1 - 2j) * (2 - 1j) + (3 + 1j) * 1j)
    assert em.vdot(em.tensor([1., 2.]), em.tensor([3., 4.])).item() == 11.0
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        em.vdot(em.ones(1, 2), em.ones(2))
    with pytest.raises(RuntimeError, match="vdot : expected both vectors to have same dtype, but found Float and Long"):
        em.vdot(em.ones(2), em.ones(2, dtype=em.int64))


def test_vdot_gradcheck_real_and_complex():
    a = em.randn(5, dtype=em.float64, requires_grad=True)
    b = em.randn(5, dtype=em.float64, requires_grad=True)
    assert gradcheck(em.vdot, (a, b))
    c = em.randn(3, dtype=em.complex128, requires_grad=True)
    d = em.randn(3, dtype=em.complex128, requires_grad=True)
    assert gradcheck(lambda c, d: em.vdot(c, d).abs(), (c, d))


def test_is_inference_mode_enabled():
    assert em.is_inference_mode_enabled() is False
    with em.inference_mode():
        assert em.is_inference_mode_enabled() is True
        with em.inference_mode(False):
            assert em.is_inference_mode_enabled() is False
    assert em.is_inference_mode_enabled() is False
