"""``optim.ASGD``: PyTorch's update formulas (single-tensor path), its averaging and its state layout.

The reference below is written from the algorithm in PyTorch's documentation, on the quadratic
f(x) = 0.5 * sum(a * x**2) + b.x; closed forms check what the averaging means.
"""
import numpy as np
import pytest

import ember as em
from ember import optim

A = np.array([1.0, 2.0, 0.5, 3.0])
B = np.array([0.5, -1.0, 0.25, 0.0])
X0 = np.array([1.0, -2.0, 0.5, 3.0])


@pytest.fixture(autouse=True)
def float64_default():
    prev = em.get_default_dtype()
    em.set_default_dtype(em.float64)
    yield
    em.set_default_dtype(prev)


def run(steps, **kwargs):
    x = em.tensor(X0.copy(), requires_grad=True)
    opt = optim.ASGD([x], **kwargs)
    xs, axs = [], []
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * (em.tensor(A) * x * x).sum() + (em.tensor(B) * x).sum()).backward()
        opt.step()
        xs.append(x.detach().numpy().copy())
        axs.append(opt.state[x]["ax"].numpy().copy())
    return xs, axs, opt, x


def asgd_ref(steps, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, maximize=False):
    x, ax, eta, mu, xs, axs = X0.copy(), np.zeros(4), lr, 1.0, [], []
    for t in range(1, steps + 1):
        g = (A * x + B) * (-1 if maximize else 1)
        if weight_decay:
            g = g + weight_decay * x
        x = x * (1 - lambd * eta) - eta * g
        ax = x.copy() if mu == 1 else ax + mu * (x - ax)
        eta = lr / (1 + lambd * lr * t) ** alpha
        mu = 1 / max(1, t - t0)
        xs.append(x)
        axs.append(ax)
    return xs, axs


@pytest.mark.parametrize("kwargs", [
    dict(),
    dict(lr=0.1, lambd=0.5, alpha=0.5, t0=2),
    dict(lr=0.05, lambd=0.1, t0=1, weight_decay=0.2, maximize=True),
])
def test_trajectory_and_average_match_the_documented_formula(kwargs):
    xs, axs, _, _ = run(6, **kwargs)
    want_x, want_ax = asgd_ref(6, **kwargs)
    np.testing.assert_allclose(xs, want_x, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(axs, want_ax, rtol=1e-12, atol=1e-14)


def test_without_decay_it_is_sgd_and_ax_is_the_running_mean_after_t0():
    xs, axs, _, _ = run(5, lr=0.1, lambd=0.0, t0=0)
    x = X0.copy()
    for t in range(5):  # eta stays lr when lambd = 0: plain gradient descent
        x = x - 0.1 * (A * x + B)
        np.testing.assert_allclose(xs[t], x, rtol=1e-13)
    # mu_t = 1/max(1, t): the average restarts at step 2 and is the plain mean of the iterates since then
    np.testing.assert_allclose(axs[-1], np.mean(xs[1:], axis=0), rtol=1e-13)


def test_eta_and_mu_closed_forms_and_state_layout():
    _, _, opt, x = run(3, lr=0.1, lambd=0.5, alpha=0.75, t0=1)
    state = opt.state_dict()["state"][0]
    assert list(state) == ["step", "eta", "mu", "ax"]
    assert state["step"].item() == 3.0 and state["step"].shape == ()
    assert state["eta"].item() == pytest.approx(0.1 / (1 + 0.5 * 0.1 * 3) ** 0.75, rel=1e-14)
    assert state["mu"].item() == 0.5  # 1 / max(1, 3 - 1)
    group = opt.state_dict()["param_groups"][0]
    assert {k: group[k] for k in ("lr", "lambd", "alpha", "t0", "weight_decay", "maximize")} == dict(
        lr=0.1, lambd=0.5, alpha=0.75, t0=1, weight_decay=0, maximize=False)


def test_state_dict_round_trip_continues_exactly():
    _, _, opt, x = run(2, lr=0.1, lambd=0.2, t0=0)
    x2 = em.tensor(x.detach().numpy().copy(), requires_grad=True)
    opt2 = optim.ASGD([x2], lr=0.1, lambd=0.2, t0=0)
    opt2.load_state_dict(opt.state_dict())
    for p, o in ((x, opt), (x2, opt2)):
        o.zero_grad()
        (0.5 * (em.tensor(A) * p * p).sum()).backward()
        o.step()
    np.testing.assert_array_equal(x.detach().numpy(), x2.detach().numpy())
    np.testing.assert_array_equal(opt.state[x]["ax"].numpy(), opt2.state[x2]["ax"].numpy())


def test_bad_arguments():
    p = [em.zeros(2, requires_grad=True)]
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.ASGD(p, lr=-1)
    with pytest.raises(ValueError, match="Invalid weight_decay value: -0.5"):
        optim.ASGD(p, weight_decay=-0.5)
    with pytest.raises(ValueError, match="Capturable not supported with single tensor ASGD"):
        optim.ASGD(p, foreach=False, capturable=True)
