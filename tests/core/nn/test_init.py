"""nn.init: formulas of the bounds/stds, gains, fans, structure of eye/dirac/orthogonal, seeding."""
import math

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.nn import init


def test_calculate_gain_table():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity gelu"):
        init.calculate_gain("gelu")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(em.empty(20, 10)) == (10, 20)
    assert init._calculate_fan_in_and_fan_out(em.empty(16, 6, 5, 5)) == (150, 400)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(em.empty(3))


def _stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.min(), a.max(), a.std()


def test_uniform_normal_constant_ones_zeros():
    em.manual_seed(0)
    t = em.empty(200, 300)
    assert init.uniform_(t, -2.0, 3.0) is t
    lo, hi, _ = _stats(t)
    assert -2.0 <= lo < -1.99 and 2.99 < hi <= 3.0
    init.normal_(t, 1.0, 0.5)
    assert abs(t.numpy().mean() - 1.0) < 0.01 and abs(t.numpy().std() - 0.5) < 0.01
    init.constant_(t, 0.3)
    assert np.all(t.numpy() == np.float32(0.3))
    assert init.ones_(t).numpy().sum() == t.numel()
    assert init.zeros_(t).numpy().sum() == 0


def test_xavier_and_kaiming_follow_their_formulas():
    em.manual_seed(1)
    t = em.empty(300, 200)
    init.xavier_uniform_(t, gain=2.0)
    a = 2.0 * math.sqrt(6 / (200 + 300))
    lo, hi, std = _stats(t)
    assert -a <= lo and hi <= a and abs(std - a / math.sqrt(3)) < 0.02 * a
    init.xavier_normal_(t)
    assert abs(t.numpy().std() - math.sqrt(2 / 500)) < 0.02 * math.sqrt(2 / 500)
    init.kaiming_uniform_(t, a=0, mode="fan_in", nonlinearity="relu")
    bound = math.sqrt(2) * math.sqrt(3 / 200)
    lo, hi, _ = _stats(t)
    assert -bound <= lo and hi <= bound and hi > 0.99 * bound
    init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")
    assert abs(t.numpy().std() - math.sqrt(2 / 300)) < 0.02 * math.sqrt(2 / 300)
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(t, mode="fan_avg")
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        init.kaiming_uniform_(em.empty(0, 3))


def test_trunc_normal_stays_in_range_with_right_moments():
    em.manual_seed(2)
    t = init.trunc_normal_(em.empty(100000), mean=0.5, std=1.0, a=-0.5, b=2.0)
    v = t.numpy()
    assert v.min() >= -0.5 and v.max() <= 2.0
    # moments of N(0.5, 1) truncated to [-1, 1.5] (standardised bounds), shifted back by the mean
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    al, be = -1.0, 1.5
    z = cdf(be) - cdf(al)
    mean = 0.5 + (phi(al) - phi(be)) / z
    assert abs(v.mean() - mean) < 0.01


def test_eye_dirac_orthogonal():
    t = init.eye_(em.empty(3, 5))
    np.testing.assert_array_equal(t.numpy(), np.eye(3, 5))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(em.empty(2, 2, 2))
    w = init.dirac_(em.empty(4, 2, 3, 3), groups=2)
    a = w.numpy()
    assert a.sum() == 4 and a[0, 0, 1, 1] == 1 and a[1, 1, 1, 1] == 1 and a[2, 0, 1, 1] == 1
    em.manual_seed(3)
    q = init.orthogonal_(em.empty(4, 6), gain=2.0).numpy().astype(np.float64)
    np.testing.assert_allclose(q @ q.T, 4.0 * np.eye(4), atol=1e-5)
    q2 = init.orthogonal_(em.empty(6, 2, 2)).numpy().reshape(6, 4).astype(np.float64)
    np.testing.assert_allclose(q2.T @ q2, np.eye(4), atol=1e-5)


def test_init_uses_ember_generators():
    g = em.Generator().manual_seed(11)
    a = init.normal_(em.empty(5), generator=g).numpy().copy()
    g.manual_seed(11)
    b = init.normal_(em.empty(5), generator=g).numpy()
    np.testing.assert_array_equal(a, b)
    em.manual_seed(4)
    c = init.uniform_(em.empty(5)).numpy().copy()
    em.manual_seed(4)
    np.testing.assert_array_equal(c, init.uniform_(em.empty(5)).numpy())


def test_init_inside_module_apply_records_no_graph():
    def weights_init(m):
        if isinstance(m, nn.Linear):
            init.normal_(m.weight, 0.0, 0.02)
            init.zeros_(m.bias)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).apply(weights_init)
    assert net[0].weight.is_leaf and net[0].weight.requires_grad
    assert np.all(net[2].bias.detach().numpy() == 0)
    assert net[0].weight.detach().numpy().std() < 0.05
