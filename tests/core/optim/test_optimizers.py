"""Specification of ``ember.optim``: update formulas, the Optimizer base, state dicts and bad input.

Every trajectory is checked against a reference written here in plain NumPy from the algorithm pseudo-code of
PyTorch's documentation, on the quadratic f(x) = 0.5 * sum(a * x**2) + b.x (gradient a * x + b).
"""
import copy
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember import optim

A = np.array([1.0, 2.0, 0.5, 3.0])
B = np.array([0.5, -1.0, 0.25, 0.0])
X0 = np.array([1.0, -2.0, 0.5, 3.0])


def grad_f(x):
    return A * x + B


@pytest.fixture(autouse=True)
def float64_default():
    # Scalar state (step, NAdam's mu_product) follows the default dtype, as in PyTorch; float64 makes every number
    # in the comparison float64.
    prev = em.get_default_dtype()
    em.set_default_dtype(em.float64)
    yield
    em.set_default_dtype(prev)


def loss_of(x):
    a = em.tensor(A)
    b = em.tensor(B)
    return 0.5 * (a * x * x).sum() + (b * x).sum()


def run(opt_cls, kwargs, steps):
    x = em.tensor(X0.copy(), requires_grad=True)
    opt = opt_cls([x], **kwargs)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss_of(x).backward()
        opt.step()
        out.append(x.detach().numpy().copy())
    return out


# -- references, straight from the documented algorithms ----------------------------------------------------
def sgd_ref(steps, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    x, b, out = X0.copy(), None, []
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            g = g + weight_decay * x
        if momentum:
            b = g.copy() if t == 1 else momentum * b + (1 - dampening) * g
            g = g + momentum * b if nesterov else b
        x = x - lr * g
        out.append(x)
    return out


def adam_ref(steps, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, maximize=False,
             decoupled=False):
    b1, b2 = betas
    x, m, v, vmax, out = X0.copy(), 0 * X0, 0 * X0, 0 * X0, []
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            if decoupled:
                x = x - lr * weight_decay * x
            else:
                g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        m_hat = m / (1 - b1 ** t)
        if amsgrad:
            vmax = np.maximum(vmax, v)
            v_hat = vmax / (1 - b2 ** t)
        else:
            v_hat = v / (1 - b2 ** t)
        x = x - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(x)
    return out


def adagrad_ref(steps, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10, maximize=False):
    x, s, out = X0.copy(), np.full_like(X0, initial_accumulator_value), []
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        clr = lr / (1 + (t - 1) * lr_decay)
        if weight_decay:
            g = g + weight_decay * x
        s = s + g ** 2
        x = x - clr * g / (np.sqrt(s) + eps)
        out.append(x)
    return out


def rmsprop_ref(steps, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, maximize=False):
    x, v, gave, buf, out = X0.copy(), 0 * X0, 0 * X0, 0 * X0, []
    for _ in range(steps):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            g = g + weight_decay * x
        v = alpha * v + (1 - alpha) * g ** 2
        v_tilde = v
        if centered:
            gave = alpha * gave + (1 - alpha) * g
            v_tilde = v - gave ** 2
        if momentum > 0:
            buf = momentum * buf + g / (np.sqrt(v_tilde) + eps)
            x = x - lr * buf
        else:
            x = x - lr * g / (np.sqrt(v_tilde) + eps)
        out.append(x)
    return out


def adadelta_ref(steps, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False):
    x, v, u, out = X0.copy(), 0 * X0, 0 * X0, []
    for _ in range(steps):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            g = g + weight_decay * x
        v = v * rho + g ** 2 * (1 - rho)
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = u * rho + delta ** 2 * (1 - rho)
        x = x - lr * delta
        out.append(x)
    return out


def adamax_ref(steps, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False):
    b1, b2 = betas
    x, m, u, out = X0.copy(), 0 * X0, 0 * X0, []
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)
        x = x - lr * m / ((1 - b1 ** t) * u)
        out.append(x)
    return out


def nadam_ref(steps, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
              decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    x, m, v, out = X0.copy(), 0 * X0, 0 * X0, []
    mu = [None] + [b1 * (1 - 0.5 * 0.96 ** (i * momentum_decay)) for i in range(1, steps + 2)]
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            if decoupled_weight_decay:
                x = x - lr * weight_decay * x
            else:
                g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        prod_t = math.prod(mu[1:t + 1])
        prod_next = math.prod(mu[1:t + 2])
        m_hat = mu[t + 1] * m / (1 - prod_next) + (1 - mu[t]) * g / (1 - prod_t)
        v_hat = v / (1 - b2 ** t)
        x = x - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(x)
    return out


def radam_ref(steps, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
              maximize=False):
    b1, b2 = betas
    x, m, v, out = X0.copy(), 0 * X0, 0 * X0, []
    rho_inf = 2 / (1 - b2) - 1
    for t in range(1, steps + 1):
        g = grad_f(x) * (-1 if maximize else 1)
        if weight_decay:
            if decoupled_weight_decay:
                x = x - lr * weight_decay * x
            else:
                g = g + weight_decay * x
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        m_hat = m / (1 - b1 ** t)
        rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
        if rho_t > 5:
            l_t = math.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
            r_t = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            x = x - lr * m_hat * r_t * l_t
        else:
            x = x - lr * m_hat
        out.append(x)
    return out


CASES = [
    # (optimizer, kwargs, reference, steps)
    (optim.SGD, dict(lr=0.1), sgd_ref, 3),
    (optim.SGD, dict(lr=0.1, momentum=0.9), sgd_ref, 3),
    (optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1), sgd_ref, 3),
    (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1), sgd_ref, 3),
    (optim.SGD, dict(lr=0.1, momentum=0.5, nesterov=True, weight_decay=0.2, maximize=True), sgd_ref, 3),
    (optim.Adam, dict(lr=0.1), adam_ref, 3),
    (optim.Adam, dict(lr=0.5, betas=(0.8, 0.5), amsgrad=True), adam_ref, 3),
    (optim.Adam, dict(lr=0.1, weight_decay=0.1, amsgrad=True, maximize=True), adam_ref, 3),
    (optim.Adam, dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True), adam_ref, 3),
    (optim.AdamW, dict(lr=0.1, weight_decay=0.1), adam_ref, 3),
    (optim.AdamW, dict(lr=0.5, betas=(0.8, 0.5), weight_decay=0.2, amsgrad=True), adam_ref, 3),
    (optim.Adagrad, dict(lr=0.1), adagrad_ref, 3),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.5, initial_accumulator_value=0.5, weight_decay=0.1, eps=1e-3),
     adagrad_ref, 3),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1, maximize=True), adagrad_ref, 3),
    (optim.RMSprop, dict(lr=0.01), rmsprop_ref, 3),
    (optim.RMSprop, dict(lr=0.01, alpha=0.9, centered=True, momentum=0.9), rmsprop_ref, 3),
    (optim.RMSprop, dict(lr=0.01, weight_decay=0.1, momentum=0.5, eps=1e-3, maximize=True), rmsprop_ref, 3),
    (optim.Adadelta, dict(), adadelta_ref, 3),
    (optim.Adadelta, dict(lr=0.5, rho=0.5, eps=1e-4, weight_decay=0.1), adadelta_ref, 3),
    (optim.Adadelta, dict(lr=0.5, maximize=True), adadelta_ref, 3),
    (optim.Adamax, dict(lr=0.1), adamax_ref, 3),
    (optim.Adamax, dict(lr=0.1, betas=(0.8, 0.5), eps=1e-2, weight_decay=0.1, maximize=True), adamax_ref, 3),
    (optim.NAdam, dict(lr=0.1), nadam_ref, 3),
    (optim.NAdam, dict(lr=0.1, momentum_decay=0.1, weight_decay=0.1), nadam_ref, 3),
    (optim.NAdam, dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True, maximize=True), nadam_ref, 3),
    (optim.RAdam, dict(lr=0.1), radam_ref, 3),
    # beta2 = 0.8 makes rho_t exceed 5 from step 7 on, so both branches of the rectification run
    (optim.RAdam, dict(lr=0.1, betas=(0.9, 0.8), weight_decay=0.1), radam_ref, 9),
    (optim.RAdam, dict(lr=0.1, betas=(0.9, 0.8), weight_decay=0.1, decoupled_weight_decay=True, maximize=True),
     radam_ref, 9),
]


def _ref_kwargs(opt_cls, kwargs):
    kw = dict(kwargs)
    if opt_cls is optim.AdamW:
        kw.setdefault("weight_decay", 1e-2)
        kw["decoupled"] = True
    if opt_cls is optim.Adam and kw.pop("decoupled_weight_decay", False):
        kw["decoupled"] = True
    return kw


@pytest.mark.parametrize("opt_cls, kwargs, ref, steps", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_trajectory_matches_documented_formula(opt_cls, kwargs, ref, steps):
    got = run(opt_cls, kwargs, steps)
    want = ref(steps, **_ref_kwargs(opt_cls, kwargs))
    for t, (g, w) in enumerate(zip(got, want), 1):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14, err_msg=f"step {t}")
    assert not np.allclose(got[-1], X0)  # the optimizer moved


@pytest.mark.parametrize("case", [0, 2, 4, 7, 8, 10, 13, 15, 16, 19, 21, 24, 27])
def test_large_parameters_updated_in_blocks_equal_the_small_case(case):
    # 80004 float64 elements exceed two 256 KiB blocks (the last one partial), so the blocked kernel path runs; the
    # update is element-wise, so each element must follow exactly the small run's trajectory.
    opt_cls, kwargs, _, steps = CASES[case]
    reps = 20001
    a, b = em.tensor(np.tile(A, reps)), em.tensor(np.tile(B, reps))
    x = em.tensor(np.tile(X0, reps), requires_grad=True)
    opt = opt_cls([x], **kwargs)
    for _ in range(steps):
        opt.zero_grad()
        (0.5 * (a * x * x).sum() + (b * x).sum()).backward()
        opt.step()
    small = run(opt_cls, kwargs, steps)[-1]
    np.testing.assert_array_equal(x.detach().numpy(), np.tile(small, reps))


def test_amsgrad_case_really_exercises_the_max():
    # The amsgrad parametrization above is meaningful only if v_t decreases somewhere in those 3 steps.
    plain = adam_ref(3, lr=0.5, betas=(0.8, 0.5))
    ams = adam_ref(3, lr=0.5, betas=(0.8, 0.5), amsgrad=True)
    assert not np.allclose(plain[-1], ams[-1])


def test_radam_case_really_rectifies():
    b2 = 0.8
    rho_inf = 2 / (1 - b2) - 1
    rho = [rho_inf - 2 * t * b2 ** t / (1 - b2 ** t) for t in range(1, 10)]
    assert rho[0] <= 5 < rho[-1]


def test_float32_parameters_keep_their_dtype_and_match():
    em.set_default_dtype(em.float32)
    x = em.tensor(X0.astype(np.float32), requires_grad=True)
    opt = optim.Adam([x], lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        loss_of(x).backward()
        opt.step()
    assert x.dtype == em.float32
    state = opt.state[x]
    assert state["exp_avg"].dtype == em.float32 and state["step"].dtype == em.float32
    np.testing.assert_allclose(x.detach().numpy(), adam_ref(3, lr=0.1, amsgrad=True)[-1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opt_cls", [optim.SGD, optim.Adam, optim.RMSprop, optim.Adagrad, optim.NAdam])
def test_complex_parameter_is_optimized_as_its_real_and_imaginary_parts(opt_cls):
    kwargs = dict(lr=0.1, momentum=0.9) if opt_cls is optim.SGD else dict(lr=0.1)
    z0 = np.array([1.0 - 2.0j, 0.5 + 3.0j])
    z = em.tensor(z0, requires_grad=True)
    r = em.tensor(np.stack([z0.real, z0.imag], -1).reshape(-1), requires_grad=True)
    opt_z, opt_r = opt_cls([z], **kwargs), opt_cls([r], **kwargs)
    g = np.array([0.3 + 0.7j, -1.0 + 0.2j])
    for _ in range(3):
        z.grad = em.tensor(g)
        r.grad = em.tensor(np.stack([g.real, g.imag], -1).reshape(-1))
        opt_z.step()
        opt_r.step()
    got = z.detach().numpy()
    np.testing.assert_allclose(np.stack([got.real, got.imag], -1).reshape(-1), r.detach().numpy(), rtol=1e-12)


# -- LBFGS ---------------------------------------------------------------------------------------------------
def _lbfgs_closure(opt, x):
    def closure():
        opt.zero_grad()
        loss = loss_of(x)
        loss.backward()
        return loss
    return closure


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_converges_on_quadratic(line_search_fn):
    x = em.tensor(X0.copy(), requires_grad=True)
    # tight tolerances: the defaults stop once the loss changes by less than 1e-9, about 1e-5 from the optimum here
    opt = optim.LBFGS([x], lr=1, max_iter=50, history_size=5, tolerance_grad=1e-12, tolerance_change=1e-15,
                      line_search_fn=line_search_fn)
    closure = _lbfgs_closure(opt, x)
    first = opt.step(closure)
    assert float(first) == pytest.approx(float(loss_of(em.tensor(X0))))
    np.testing.assert_allclose(x.detach().numpy(), -B / A, atol=1e-9)
    state = opt.state[x]
    assert state["n_iter"] >= 1 and state["func_evals"] >= state["n_iter"]
    assert set(state) >= {"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"}


def test_lbfgs_first_iteration_is_a_scaled_gradient_step():
    # With no history the first direction is -g and the step length min(1, 1/|g|_1) * lr.
    x = em.tensor(X0.copy(), requires_grad=True)
    opt = optim.LBFGS([x], lr=0.5, max_iter=1)
    opt.step(_lbfgs_closure(opt, x))
    g = grad_f(X0)
    np.testing.assert_allclose(x.detach().numpy(), X0 - min(1.0, 1.0 / np.abs(g).sum()) * 0.5 * g, rtol=1e-12)


def test_lbfgs_strong_wolfe_minimizes_rosenbrock():
    x = em.tensor(np.array([-1.2, 1.0]), requires_grad=True)
    opt = optim.LBFGS([x], lr=1, max_iter=200, max_eval=400, tolerance_grad=1e-10, tolerance_change=1e-14,
                      line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        a, b = x[0], x[1]
        loss = (1 - a) ** 2 + 100 * (b - a * a) ** 2
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 1.0], atol=1e-8)
    assert opt.state[x]["n_iter"] < 100  # quasi-Newton speed, far from gradient descent's thousands


def test_lbfgs_rejects_groups_and_missing_closure():
    a = em.tensor([1.0], requires_grad=True)
    b = em.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        optim.LBFGS([{"params": [a]}, {"params": [b]}])
    with pytest.raises(TypeError, match="requires a closure"):
        optim.LBFGS([a]).step()


# -- the Optimizer base --------------------------------------------------------------------------------------
def params(n=3, size=2):
    return [em.tensor(np.arange(size, dtype=np.float64) + i, requires_grad=True) for i in range(n)]


def test_param_groups_fill_defaults_per_group():
    p = params()
    opt = optim.SGD([{"params": p[:2], "lr": 0.5}, {"params": [p[2]], "momentum": 0.9}], lr=0.1)
    g0, g1 = opt.param_groups
    assert g0["lr"] == 0.5 and g0["momentum"] == 0
    assert g1["lr"] == 0.1 and g1["momentum"] == 0.9
    assert g0["params"][0] is p[0] and g1["params"][0] is p[2]


def test_add_param_group_and_parameter_in_two_groups():
    p = params()
    opt = optim.Adam(p[:2], lr=0.1)
    opt.add_param_group({"params": p[2], "lr": 0.01})
    assert opt.param_groups[1]["params"] == [p[2]] and opt.param_groups[1]["betas"] == (0.9, 0.999)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [p[0]]})
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {em.tensor([1.0], requires_grad=True)}})


def test_named_parameters_are_accepted_and_names_kept():
    p = params(2)
    opt = optim.SGD([("w", p[0]), ("b", p[1])], lr=0.1)
    assert opt.param_groups[0]["params"] == [p[0], p[1]] or all(
        a is b for a, b in zip(opt.param_groups[0]["params"], p))
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]


def test_bad_params_are_rejected():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts"):
        optim.SGD(em.tensor([1.0], requires_grad=True), lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        optim.SGD([1, 2], lr=0.1)
    x = em.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([x * 2], lr=0.1)


@pytest.mark.parametrize("opt_cls", [optim.SGD, optim.Adam, optim.AdamW, optim.Adagrad, optim.RMSprop,
                                     optim.Adadelta, optim.Adamax, optim.NAdam, optim.RAdam, optim.LBFGS])
def test_negative_lr_is_rejected_naming_the_learning_rate(opt_cls):
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        opt_cls(params(1), lr=-0.1)


@pytest.mark.parametrize("make, message", [
    (lambda p: optim.SGD(p, lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (lambda p: optim.SGD(p, lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    (lambda p: optim.SGD(p, lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (lambda p: optim.Adam(p, betas=(1.0, 0.999)), "Invalid beta parameter at index 0: 1.0"),
    (lambda p: optim.AdamW(p, betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    (lambda p: optim.Adam(p, eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (lambda p: optim.Adadelta(p, rho=1.5), "Invalid rho value: 1.5"),
    (lambda p: optim.Adagrad(p, lr_decay=-1), "Invalid lr_decay value: -1"),
    (lambda p: optim.RMSprop(p, alpha=-0.1), "Invalid alpha value: -0.1"),
    (lambda p: optim.NAdam(p, momentum_decay=-1), "Invalid momentum_decay value: -1"),
    (lambda p: optim.Adam(p, lr="fast"), "lr must be a number"),
])
def test_bad_options_are_rejected_with_pytorch_messages(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make(params(1))


def test_zero_grad_to_none_or_to_zeros():
    p = params(2)
    opt = optim.SGD(p, lr=0.1)
    for q in p:
        q.grad = em.ones(2, dtype=em.float64)
    opt.zero_grad(set_to_none=False)
    assert all(q.grad is not None and np.array_equal(q.grad.numpy(), [0.0, 0.0]) for q in p)
    opt.zero_grad()
    assert all(q.grad is None for q in p)


def test_step_skips_params_without_grad_and_builds_no_graph():
    p = params(2)
    opt = optim.Adam(p, lr=0.1)
    p[0].grad = em.ones(2, dtype=em.float64)
    version = p[0]._version_number
    before = p[1].detach().numpy().copy()
    opt.step()
    assert p[1] not in opt.state and np.array_equal(p[1].detach().numpy(), before)
    assert p[0].grad_fn is None and p[0].is_leaf and p[0].requires_grad
    assert p[0]._version_number > version  # the in-place update is visible to autograd's version check
    assert list(opt.state_dict()["state"]) == [0]


def test_closure_runs_with_grad_enabled_and_its_loss_is_returned():
    x = em.tensor(X0.copy(), requires_grad=True)
    opt = optim.SGD([x], lr=0.1)
    seen = []

    def closure():
        seen.append(em.is_grad_enabled())
        opt.zero_grad()
        loss = loss_of(x)
        loss.backward()
        return loss

    with em.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and float(loss) == pytest.approx(float(loss_of(em.tensor(X0))))
    np.testing.assert_allclose(x.detach().numpy(), sgd_ref(1, lr=0.1)[0], rtol=1e-12)
    assert em.is_grad_enabled()


def test_step_hooks_run_around_step_and_can_be_removed():
    x = em.tensor([1.0], requires_grad=True)
    opt = optim.SGD([x], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt, x.item())))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o is opt, x.item())))
    x.grad = em.tensor([1.0])
    opt.step()
    assert calls == [("pre", True, 1.0), ("post", True, pytest.approx(0.9))]
    pre.remove()
    opt.step()
    assert [c[0] for c in calls] == ["pre", "post", "post"]


def test_global_step_hooks_and_unsupported_differentiable():
    x = em.tensor([1.0], requires_grad=True)
    opt = optim.Adam([x])
    seen = []
    handle = optim.register_optimizer_step_pre_hook(lambda o, args, kwargs: seen.append(type(o).__name__))
    try:
        opt.step()
    finally:
        handle.remove()
    opt.step()
    assert seen == ["Adam"]
    with pytest.raises(ValueError, match="differentiable=True is not supported"):
        optim.SGD([x], lr=0.1, differentiable=True)


def test_repr_lists_each_group():
    opt = optim.SGD(params(1), lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (") and "Parameter Group 0" in text and "momentum: 0.9" in text


# -- state_dict ----------------------------------------------------------------------------------------------
def _step_all(opt, ps, n=1):
    for _ in range(n):
        for i, q in enumerate(ps):
            data = q.detach().numpy()
            q.grad = em.tensor((0.5 * data + 1.0 + i).astype(data.dtype))  # grad of a quadratic, per parameter
        opt.step()


def test_sgd_state_dict_layout_matches_pytorch():
    p = params(3)
    opt = optim.SGD([{"params": p[:2], "lr": 0.1}, {"params": [p[2]]}], lr=0.01, momentum=0.9)
    _step_all(opt, p)
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert list(sd["state"]) == [0, 1, 2]
    assert all(list(s) == ["momentum_buffer"] for s in sd["state"].values())
    assert isinstance(sd["state"][0]["momentum_buffer"], em.Tensor)
    common = {"momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False,
              "foreach": None, "differentiable": False, "fused": None}
    assert sd["param_groups"] == [dict(lr=0.1, **common, params=[0, 1]), dict(lr=0.01, **common, params=[2])]
    assert all(list(g)[-1] == "params" for g in sd["param_groups"])


def test_sgd_without_momentum_keeps_no_state():
    p = params(2)
    opt = optim.SGD(p, lr=0.1)
    _step_all(opt, p)
    assert opt.state_dict()["state"] == {}


def test_adam_state_dict_layout_matches_pytorch():
    em.set_default_dtype(em.float32)
    p = [em.tensor([1.0, 2.0], requires_grad=True), em.tensor([[3.0]], requires_grad=True)]
    opt = optim.Adam(p)
    _step_all(opt, p, n=3)
    sd = opt.state_dict()
    assert sd["param_groups"] == [{
        "lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0, "amsgrad": False, "maximize": False,
        "foreach": None, "capturable": False, "differentiable": False, "fused": None,
        "decoupled_weight_decay": False, "params": [0, 1]}]
    assert list(sd["state"]) == [0, 1]
    for i, q in enumerate(p):
        s = sd["state"][i]
        assert list(s) == ["step", "exp_avg", "exp_avg_sq"]
        assert s["step"].shape == () and s["step"].dtype == em.float32 and s["step"].item() == 3.0
        assert s["exp_avg"].shape == q.shape and s["exp_avg_sq"].dtype == em.float32
    ams = optim.Adam(p, amsgrad=True)
    _step_all(ams, p)
    assert list(ams.state_dict()["state"][0]) == ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]


@pytest.mark.parametrize("opt_cls, kwargs, keys", [
    (optim.AdamW, {}, ["step", "exp_avg", "exp_avg_sq"]),
    (optim.Adagrad, {}, ["step", "sum"]),
    (optim.RMSprop, dict(momentum=0.9, centered=True), ["step", "square_avg", "momentum_buffer", "grad_avg"]),
    (optim.Adadelta, {}, ["step", "square_avg", "acc_delta"]),
    (optim.Adamax, {}, ["step", "exp_avg", "exp_inf"]),
    (optim.NAdam, {}, ["step", "mu_product", "exp_avg", "exp_avg_sq"]),
    (optim.RAdam, {}, ["step", "exp_avg", "exp_avg_sq"]),
])
def test_state_keys_match_pytorch(opt_cls, kwargs, keys):
    p = params(2)
    opt = opt_cls(p, **kwargs)
    _step_all(opt, p)
    assert [list(s) for s in opt.state_dict()["state"].values()] == [keys, keys]


def test_adamw_group_records_decoupled_decay():
    group = optim.AdamW(params(1)).state_dict()["param_groups"][0]
    assert group["weight_decay"] == 1e-2 and group["decoupled_weight_decay"] is True


def _roundtrip(sd, tmp_path):
    try:
        from ember.core import serialization
        save, load = serialization.save, serialization.load
    except (ImportError, AttributeError):
        return copy.deepcopy(sd)
    path = tmp_path / "optim.pt"
    save(sd, str(path))
    return load(str(path))


@pytest.mark.parametrize("opt_cls, kwargs", [
    (optim.SGD, dict(lr=0.1, momentum=0.9, nesterov=True)),
    (optim.Adam, dict(lr=0.1, amsgrad=True, weight_decay=0.01)),
    (optim.RMSprop, dict(lr=0.01, momentum=0.5, centered=True)),
    (optim.NAdam, dict(lr=0.1)),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1)),
])
def test_state_dict_round_trip_continues_the_trajectory_exactly(opt_cls, kwargs, tmp_path):
    p = params(2, size=4)
    opt = opt_cls([{"params": [p[0]]}, {"params": [p[1]], "lr": 0.05}], **kwargs)
    _step_all(opt, p, n=3)
    sd = _roundtrip(opt.state_dict(), tmp_path)

    q = [em.tensor(x.detach().numpy().copy(), requires_grad=True) for x in p]
    resumed = opt_cls([{"params": [q[0]]}, {"params": [q[1]]}], **kwargs)
    resumed.load_state_dict(sd)
    assert resumed.param_groups[1]["lr"] == 0.05
    _step_all(opt, p, n=3)
    _step_all(resumed, q, n=3)
    for a, b in zip(p, q):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())
    # the loaded state is a copy: stepping one optimizer leaves the other's buffers alone
    key = next(k for k in resumed.state[q[0]] if k != "step")
    assert resumed.state[q[0]][key] is not opt.state[p[0]][key]


def test_load_state_dict_casts_state_to_parameter_dtype_but_keeps_step():
    p64 = [em.tensor([1.0, 2.0], requires_grad=True)]
    opt = optim.Adam(p64, lr=0.1)
    _step_all(opt, p64, n=2)
    p32 = [em.tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)]
    opt32 = optim.Adam(p32, lr=0.1)
    opt32.load_state_dict(opt.state_dict())
    state = opt32.state[p32[0]]
    assert state["exp_avg"].dtype == em.float32 and state["step"].dtype == em.float64
    np.testing.assert_allclose(state["exp_avg"].numpy(), opt.state[p64[0]]["exp_avg"].numpy(), rtol=1e-6)


def test_load_state_dict_validates_groups():
    p = params(3)
    opt = optim.SGD([{"params": p[:2]}, {"params": [p[2]]}], lr=0.1)
    with pytest.raises(ValueError, match="loaded state dict has a different number of parameter groups"):
        optim.SGD(p, lr=0.1).load_state_dict(opt.state_dict())
    with pytest.raises(ValueError, match="loaded state dict contains a parameter group that doesn't match the size "
                                         "of optimizer's group"):
        optim.SGD([{"params": [p[0]]}, {"params": p[1:]}], lr=0.1).load_state_dict(opt.state_dict())


def test_state_dict_from_older_pytorch_gets_missing_options_and_tensor_step():
    p = params(1)
    old = {"state": {0: {"step": 2, "exp_avg": em.zeros(2, dtype=em.float64),
                         "exp_avg_sq": em.zeros(2, dtype=em.float64)}},
           "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0, "amsgrad": False,
                             "params": [0]}]}
    opt = optim.Adam(p)
    opt.load_state_dict(old)
    assert opt.param_groups[0]["maximize"] is False and opt.param_groups[0]["lr"] == 0.1
    assert isinstance(opt.state[p[0]]["step"], em.Tensor) and opt.state[p[0]]["step"].item() == 2.0
    p[0].grad = em.ones(2, dtype=em.float64)
    opt.step()
    assert opt.state[p[0]]["step"].item() == 3.0


def test_deepcopy_of_an_optimizer_is_independent():
    p = params(1)
    opt = optim.Adam(p, lr=0.1)
    _step_all(opt, p)
    twin = copy.deepcopy(opt)
    assert twin.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _step_all(twin, twin.param_groups[0]["params"])
    assert opt.state[p[0]]["step"].item() == 1.0


def test_complex_parameter_state_keeps_its_dtypes_after_loading():
    p = em.tensor([1 + 1j, 2 - 1j], dtype=em.complex128, requires_grad=True)
    first = em.optim.NAdam([p], lr=0.1)
    (p.abs() ** 2).sum().backward()
    first.step()
    second = em.optim.NAdam([p], lr=0.1)
    second.load_state_dict(first.state_dict())
    assert second.state[p]["mu_product"].dtype == first.state[p]["mu_product"].dtype
    second.step()  # a real mu_product cast to complex used to make this raise
