"""Dropout family: train vs eval, the 1/(1-p) scaling, channel-wise masks, alpha dropout statistics."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F


def test_dropout_train_zeroes_and_scales_eval_is_identity():
    em.manual_seed(0)
    m = nn.Dropout(p=0.25)
    x = em.ones(20000)
    y = m(x).numpy()
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)  # survivors are scaled by 1/(1-p)
    assert abs(kept.mean() - 0.75) < 0.02
    m.eval()
    assert m(x) is x


def test_dropout_gradient_uses_the_same_mask():
    em.manual_seed(1)
    x = em.tensor(np.random.default_rng(0).standard_normal((4, 5)), dtype=em.float64, requires_grad=True)
    y = F.dropout(x, 0.5)
    y.backward(em.ones(4, 5, dtype=em.float64))
    np.testing.assert_array_equal(x.grad.numpy(), (y.detach().numpy() != 0) * 2.0)


def test_dropout_gradcheck_and_gradgradcheck_with_fixed_seed():
    x = em.tensor(np.random.default_rng(0).standard_normal((3, 4)), dtype=em.float64, requires_grad=True)

    def fn(t):
        em.manual_seed(7)  # the same mask on every evaluation
        return F.dropout(t, 0.3)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_dropout_extremes_and_validation():
    x = em.ones(10)
    assert F.dropout(x, 0.0) is x
    assert F.dropout(x, 1.0).numpy().sum() == 0
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    with pytest.raises(ValueError, match="but got -0.1"):
        F.dropout(x, -0.1)


def test_dropout_inplace_and_repr():
    em.manual_seed(0)
    x = em.ones(100)
    y = nn.Dropout(0.5, inplace=True)(x)
    assert y is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    assert repr(nn.Dropout()) == "Dropout(p=0.5, inplace=False)"
    assert repr(nn.Dropout2d(0.1)) == "Dropout2d(p=0.1, inplace=False)"


def test_dropout2d_and_1d_drop_whole_channels():
    em.manual_seed(3)
    y = nn.Dropout2d(0.5)(em.ones(8, 16, 3, 3)).numpy()
    per_channel = y.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert 0 < (per_channel == 0).all(-1).mean() < 1
    y1 = nn.Dropout1d(0.5)(em.ones(4, 6, 5)).numpy()
    assert np.all((y1 == 0).all(-1) | (y1 == 2.0).all(-1))
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(em.ones(1, 2, 3, 4))


def test_alpha_dropout_keeps_zero_mean_unit_variance():
    em.manual_seed(5)
    x = em.randn(200000)
    m = nn.AlphaDropout(0.2)
    y = m(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    # dropped units all take the same value a * alpha' * (p - 1)
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha ** 2 * 0.2 + 1) * 0.8)
    dropped = a * alpha * (0.2 - 1)
    assert abs((np.isclose(y, dropped, atol=1e-6)).mean() - 0.2) < 0.01
    m.eval()
    assert m(x) is x


@pytest.mark.parametrize("fn", [lambda t: F.dropout2d(t, 0.4), lambda t: F.alpha_dropout(t, 0.3, training=True),
                                lambda t: F.feature_alpha_dropout(t, 0.3, training=True)])
def test_channel_and_alpha_dropout_gradcheck(fn):
    x = em.tensor(np.random.default_rng(1).standard_normal((2, 3, 2, 2)), dtype=em.float64, requires_grad=True)

    def seeded(t):
        em.manual_seed(11)
        return fn(t)
    assert gradcheck(seeded, (x,))
