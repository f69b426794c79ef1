"""Linear, Bilinear, Identity, Flatten, Unflatten and F.linear / F.bilinear."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F


def _d(*shape, seed=0):
    rng = np.random.default_rng(seed)
    return em.tensor(rng.standard_normal(shape), dtype=em.float64, requires_grad=True)


def test_linear_matches_numpy_and_shapes():
    m = nn.Linear(4, 3)
    x = em.randn(2, 5, 4)
    y = m(x)
    assert y.shape == em.Size([2, 5, 3])
    expected = x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert nn.Linear(4, 3, bias=False).bias is None
    assert m(em.randn(4)).shape == em.Size([3])


def test_linear_default_init_bounds_are_pytorchs():
    em.manual_seed(0)
    m = nn.Linear(400, 120)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)) == U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound
    # the variance of U(-a, a) is a^2 / 3
    assert abs(w.var() - bound ** 2 / 3) < 0.05 * bound ** 2 / 3
    assert m.weight.dtype == em.float32 and m.weight.requires_grad


def test_linear_is_reproducible_under_manual_seed():
    em.manual_seed(3)
    a = nn.Linear(3, 3).weight.detach().numpy().copy()
    em.manual_seed(3)
    b = nn.Linear(3, 3).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def test_linear_wrong_feature_count_names_layer_expected_and_actual():
    m = nn.Linear(400, 120)
    with pytest.raises(RuntimeError, match=r"Linear\(in_features=400\): input has 256 features, expected 400 "
                                           r"\(input shape \[128, 256\]"):
        m(em.randn(128, 256))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(128x256 and 400x120\)"):
        F.linear(em.randn(128, 256), m.weight)
    with pytest.raises(TypeError, match="argument 'input'"):
        m([1.0] * 400)
    with pytest.raises(RuntimeError, match="same dtype"):
        m(em.randn(2, 400, dtype=em.float64))


def test_linear_constructor_validation():
    with pytest.raises(TypeError, match="in_features must be an int"):
        nn.Linear(2.5, 3)
    with pytest.raises(ValueError, match="out_features must be non-negative"):
        nn.Linear(2, -1)


def test_linear_gradcheck_and_gradgradcheck():
    x, w, b = _d(3, 4), _d(2, 4, seed=1), _d(2, seed=2)
    assert gradcheck(F.linear, (x, w, b))
    assert gradgradcheck(F.linear, (x, w, b))
    assert gradcheck(lambda x, w: F.linear(x, w), (_d(2, 3, 4), w))
    assert gradgradcheck(lambda x, w: F.linear(x, w), (_d(2, 3, 4), w))
    m = nn.Linear(4, 2).double()
    assert gradgradcheck(lambda x: m(x), (x,))


def test_linear_grad_fn_names():
    w = nn.Parameter(em.randn(2, 3))
    assert F.linear(em.randn(4, 3), w, em.zeros(2)).grad_fn.name() == "AddmmBackward0"
    assert F.linear(em.randn(4, 3), w).grad_fn.name() == "MmBackward0"


def test_bilinear_matches_einsum_and_gradchecks():
    m = nn.Bilinear(3, 4, 2)
    x1, x2 = em.randn(5, 3), em.randn(5, 4)
    expected = np.einsum("bi,oij,bj->bo", x1.numpy(), m.weight.detach().numpy(), x2.numpy()) + \
        m.bias.detach().numpy()
    np.testing.assert_allclose(m(x1, x2).detach().numpy(), expected, rtol=1e-5, atol=1e-5)
    bound = 1 / math.sqrt(3)
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    assert repr(m) == "Bilinear(in1_features=3, in2_features=4, out_features=2, bias=True)"
    a, b, w, bias = _d(2, 3), _d(2, 4, seed=1), _d(2, 3, 4, seed=2), _d(2, seed=3)
    assert gradcheck(F.bilinear, (a, b, w, bias))
    assert gradgradcheck(F.bilinear, (a, b, w, bias))
    with pytest.raises(RuntimeError, match="input1 size does not match weight size"):
        m(em.randn(5, 2), x2)


def test_identity_flatten_unflatten():
    x = em.randn(2, 3, 4, 5)
    assert nn.Identity(54, unused="x")(x) is x
    assert nn.Flatten()(x).shape == em.Size([2, 60])
    assert nn.Flatten(0, 2)(x).shape == em.Size([24, 5])
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    u = nn.Unflatten(1, (3, 20))
    assert u(nn.Flatten()(x)).shape == em.Size([2, 3, 20])
    assert repr(u) == "Unflatten(dim=1, unflattened_size=(3, 20))"
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, (3, 2.0))
    xd = _d(2, 6)
    assert gradcheck(lambda t: nn.Unflatten(1, (2, 3))(t), (xd,))
    assert gradcheck(lambda t: nn.Flatten(0)(t), (_d(2, 3, 2),))
