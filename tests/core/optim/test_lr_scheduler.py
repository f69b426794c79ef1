"""Specification of ``ember.optim.lr_scheduler``: every schedule equals its closed form over 25 steps.

The schedulers compute PyTorch's recursive (chainable) forms; each test writes the closed form independently.
"""
import copy
import math
import warnings
from bisect import bisect_right

import numpy as np
import pytest

import ember as em
from ember import optim
from ember.optim import lr_scheduler as S

LR = 0.1


def make_opt(lr=LR, groups=1, cls=optim.SGD, **kwargs):
    params = [{"params": [em.tensor([1.0], requires_grad=True)]} for _ in range(groups)]
    return cls(params, lr=lr, **kwargs)


def trace(opt, scheduler, steps=25, key="lr", group=0):
    """The value of ``key`` in the group at epoch 0 (after construction) and after each of ``steps`` steps."""
    values = [opt.param_groups[group][key]]
    for _ in range(steps):
        opt.step()
        scheduler.step()
        values.append(opt.param_groups[group][key])
    return values


def assert_schedule(got, closed_form):
    want = [closed_form(e) for e in range(len(got))]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_step_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.StepLR(opt, step_size=3, gamma=0.5)), lambda e: LR * 0.5 ** (e // 3))


def test_multi_step_lr_with_repeated_milestone():
    opt = make_opt()
    milestones = [2, 5, 5, 11]
    assert_schedule(trace(opt, S.MultiStepLR(opt, milestones=milestones, gamma=0.5)),
                    lambda e: LR * 0.5 ** sum(m <= e for m in milestones))


def test_exponential_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.ExponentialLR(opt, gamma=0.9)), lambda e: LR * 0.9 ** e)


def test_lambda_lr_with_one_lambda_per_group():
    opt = make_opt(groups=2)
    opt.param_groups[1]["lr"] = 0.2
    sched = S.LambdaLR(opt, lr_lambda=[lambda e: 1 / (1 + e), lambda e: 0.5 ** e])
    values = [[g["lr"] for g in opt.param_groups]]
    for _ in range(25):
        opt.step()
        sched.step()
        values.append([g["lr"] for g in opt.param_groups])
    values = np.array(values)
    assert_schedule(values[:, 0], lambda e: LR / (1 + e))
    assert_schedule(values[:, 1], lambda e: 0.2 * 0.5 ** e)
    assert sched.base_lrs == [LR, 0.2] and sched.get_last_lr() == list(values[-1])


def test_multiplicative_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.MultiplicativeLR(opt, lr_lambda=lambda e: 0.95)), lambda e: LR * 0.95 ** e)


def test_cosine_annealing_lr_is_periodic_beyond_t_max():
    opt = make_opt()
    eta_min, t_max = 0.01, 10
    assert_schedule(trace(opt, S.CosineAnnealingLR(opt, T_max=t_max, eta_min=eta_min)),
                    lambda e: eta_min + (LR - eta_min) * (1 + math.cos(math.pi * e / t_max)) / 2)


def test_cosine_annealing_warm_restarts_with_growing_periods():
    opt = make_opt()
    eta_min = 0.01

    def closed(e):  # periods 5, 10, 20 starting at epochs 0, 5, 15
        start, period = (0, 5) if e < 5 else (5, 10) if e < 15 else (15, 20)
        return eta_min + (LR - eta_min) * (1 + math.cos(math.pi * (e - start) / period)) / 2

    assert_schedule(trace(opt, S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=eta_min)), closed)


def test_cosine_annealing_warm_restarts_fractional_epoch():
    opt = make_opt()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2)
    opt.step()
    sched.step(7.5)  # inside the second period (epochs 5..15): T_cur = 2.5 of T_i = 10
    assert sched.T_i == 10 and sched.T_cur == pytest.approx(2.5) and sched.last_epoch == 7
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * (1 + math.cos(math.pi * 2.5 / 10)) / 2, rel=1e-12)
    sched.step(3.25)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * (1 + math.cos(math.pi * 3.25 / 5)) / 2, rel=1e-12)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


def _one_cycle_closed(total, pct, max_lr, lo, hi, anneal, three_phase=False):
    """The lr and momentum of 1cycle at step e, from the phase boundaries."""
    initial, final = max_lr / 25.0, max_lr / 25.0 / 1e4

    def interp(a, b, frac):
        if anneal == "cos":
            return b + (a - b) * (1 + math.cos(math.pi * frac)) / 2
        return a + (b - a) * frac

    def at(e):
        up = pct * total - 1
        if three_phase:
            phases = [(0, up, initial, max_lr, hi, lo), (up, 2 * pct * total - 2, max_lr, initial, lo, hi),
                      (2 * pct * total - 2, total - 1, initial, final, hi, hi)]
        else:
            phases = [(0, up, initial, max_lr, hi, lo), (up, total - 1, max_lr, final, lo, hi)]
        for i, (s, end, lr_a, lr_b, m_a, m_b) in enumerate(phases):
            if e <= end or i == len(phases) - 1:
                frac = (e - s) / (end - s)
                return interp(lr_a, lr_b, frac), interp(m_a, m_b, frac)
    return at


@pytest.mark.parametrize("anneal, three_phase", [("cos", False), ("linear", False), ("cos", True)])
def test_one_cycle_lr_and_momentum(anneal, three_phase):
    opt = make_opt(momentum=0.9)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=25, pct_start=0.3, anneal_strategy=anneal,
                         three_phase=three_phase)
    lrs, momenta = [opt.param_groups[0]["lr"]], [opt.param_groups[0]["momentum"]]
    for _ in range(24):
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
        momenta.append(opt.param_groups[0]["momentum"])
    closed = _one_cycle_closed(25, 0.3, 1.0, 0.85, 0.95, anneal, three_phase)
    assert_schedule(lrs, lambda e: closed(e)[0])
    assert_schedule(momenta, lambda e: closed(e)[1])
    assert lrs[0] == pytest.approx(0.04) and lrs[-1] == pytest.approx(0.04 / 1e4)
    opt.step()
    sched.step()  # step 25 is still accepted (PyTorch checks step_num > total_steps)
    with pytest.raises(ValueError, match="Tried to step 26 times. The specified number of total steps is 25"):
        sched.step()


def test_one_cycle_cycles_adam_beta1():
    opt = make_opt(cls=optim.Adam)
    sched = S.OneCycleLR(opt, max_lr=0.5, epochs=5, steps_per_epoch=5)
    betas = trace(opt, sched, steps=24, key="betas")
    closed = _one_cycle_closed(25, 0.3, 0.5, 0.85, 0.95, "cos")
    assert_schedule([b[0] for b in betas], lambda e: closed(e)[1])
    assert all(b[1] == 0.999 for b in betas)


def _triangle(e, up, down):
    """Position in [0, 1] of step e on a triangle wave rising for `up` steps and falling for `down`."""
    k = e % (up + down)
    return k / up if k <= up else (up + down - k) / down


@pytest.mark.parametrize("mode, amplitude", [
    ("triangular", lambda e, cycle: 1.0),
    ("triangular2", lambda e, cycle: 0.5 ** (cycle - 1)),
    ("exp_range", lambda e, cycle: 0.9 ** e),
])
def test_cyclic_lr_policies_and_momentum(mode, amplitude):
    opt = make_opt(momentum=0.9)
    sched = S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4, step_size_down=6, mode=mode, gamma=0.9,
                       base_momentum=0.8, max_momentum=0.9)
    lrs = trace(opt, sched)
    assert_schedule(lrs, lambda e: 0.01 + 0.09 * _triangle(e, 4, 6) * amplitude(e, e // 10 + 1))
    opt2 = make_opt(momentum=0.9)
    momenta = trace(opt2, S.CyclicLR(opt2, 0.01, 0.1, 4, 6, mode=mode, gamma=0.9), key="momentum")
    assert_schedule(momenta, lambda e: 0.9 - 0.1 * _triangle(e, 4, 6) * amplitude(e, e // 10 + 1))


def test_cyclic_lr_needs_momentum_to_cycle_it():
    opt = make_opt(cls=optim.Adagrad)
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        S.CyclicLR(opt, 0.01, 0.1)
    S.CyclicLR(opt, 0.01, 0.1, cycle_momentum=False)


def test_linear_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=8)),
                    lambda e: LR * (0.25 + 0.75 * min(e, 8) / 8))


def test_constant_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.ConstantLR(opt, factor=0.5, total_iters=4)), lambda e: LR * (0.5 if e < 4 else 1))


def test_polynomial_lr():
    opt = make_opt()
    assert_schedule(trace(opt, S.PolynomialLR(opt, total_iters=10, power=2.0)),
                    lambda e: LR * (1 - min(e, 10) / 10) ** 2)


def test_sequential_lr_switches_at_milestones():
    opt = make_opt()
    warmup = S.LinearLR(opt, start_factor=0.1, total_iters=5)
    decay = S.ExponentialLR(opt, gamma=0.9)
    sched = S.SequentialLR(opt, schedulers=[warmup, decay], milestones=[5])
    assert_schedule(trace(opt, sched), lambda e: LR * (0.1 + 0.9 * e / 5) if e < 5 else LR * 0.9 ** (e - 5))
    assert sched.get_last_lr() == [opt.param_groups[0]["lr"]]


def test_chained_scheduler_multiplies_effects():
    opt = make_opt()
    sched = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=4), S.ExponentialLR(opt, gamma=0.9)])
    assert_schedule(trace(opt, sched), lambda e: LR * 0.9 ** e * (0.5 if e < 4 else 1))


def test_schedulers_of_another_optimizer_are_rejected():
    opt, other = make_opt(), make_opt()
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        S.SequentialLR(opt, [S.ExponentialLR(other, 0.9), S.ExponentialLR(opt, 0.9)], milestones=[3])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        S.ChainedScheduler([S.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="number of milestones"):
        S.SequentialLR(opt, [S.ExponentialLR(opt, 0.9)], milestones=[3])


# -- ReduceLROnPlateau ---------------------------------------------------------------------------------------
def plateau_trace(sched, opt, metrics):
    out = []
    for m in metrics:
        opt.step()
        sched.step(m)
        out.append(opt.param_groups[0]["lr"])
    return out


def test_reduce_on_plateau_reduces_after_patience():
    opt = make_opt(lr=1.0)
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2)
    metrics = [10, 9, 9, 9, 9, 8, 8.5, 8.2, 8.1, 7]
    # bad epochs: 9@3 (1), 9@4 (2), 9@5 (3 > patience) -> halve; 8 improves; then 3 bad -> halve at epoch 9
    assert plateau_trace(sched, opt, metrics) == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25]
    assert sched.get_last_lr() == [0.25] and sched.best == 7 and sched.last_epoch == 10


def test_reduce_on_plateau_relative_and_absolute_thresholds():
    # rel: 9.9995 is not below 10 * (1 - 1e-3); abs: it is not below 10 - 0.5
    for mode_kwargs in (dict(threshold=1e-3, threshold_mode="rel"), dict(threshold=0.5, threshold_mode="abs")):
        opt = make_opt(lr=1.0)
        sched = S.ReduceLROnPlateau(opt, factor=0.1, patience=0, **mode_kwargs)
        assert plateau_trace(sched, opt, [10, 9.9995]) == [1.0, pytest.approx(0.1)]
    opt = make_opt(lr=1.0)
    sched = S.ReduceLROnPlateau(opt, factor=0.1, patience=0, threshold=0.5, threshold_mode="abs")
    assert plateau_trace(sched, opt, [10, 9.4]) == [1.0, 1.0]  # 9.4 < 9.5 is an improvement


def test_reduce_on_plateau_max_mode_cooldown_min_lr_and_eps():
    opt = make_opt(lr=1.0, groups=2)
    sched = S.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=0, cooldown=2, min_lr=[0.3, 0.0])
    metrics = [1, 0, 0, 0, 0, 0, 0]
    lrs = []
    for m in metrics:
        opt.step()
        sched.step(m)
        lrs.append([g["lr"] for g in opt.param_groups])
    # reduce at epoch 2; cooldown swallows epochs 3-4; reduce at 5 (group 0 floored at min_lr 0.3); cooldown again
    assert lrs == [[1.0, 1.0], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.3, 0.25], [0.3, 0.25], [0.3, 0.25]]
    opt = make_opt(lr=1e-8)
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=0, eps=1e-8)
    assert plateau_trace(sched, opt, [1, 2]) == [1e-8, 1e-8]  # a change below eps is skipped


def test_reduce_on_plateau_bad_arguments_and_state_round_trip():
    opt = make_opt()
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode fastest is unknown!"):
        S.ReduceLROnPlateau(opt, mode="fastest")
    with pytest.raises(ValueError, match="threshold mode sideways is unknown!"):
        S.ReduceLROnPlateau(opt, threshold_mode="sideways")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        S.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])
    sched = S.ReduceLROnPlateau(opt, patience=1)
    plateau_trace(sched, opt, [3.0, 4.0])
    twin = S.ReduceLROnPlateau(opt)
    twin.load_state_dict(copy.deepcopy(sched.state_dict()))
    assert (twin.best, twin.num_bad_epochs, twin.patience, twin.last_epoch) == (3.0, 1, 1, 2)
    assert "optimizer" not in sched.state_dict()


# -- base behaviour ------------------------------------------------------------------------------------------
def test_warning_when_scheduler_steps_before_optimizer():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before `optimizer.step\(\)`"):
        sched.step()
    opt = make_opt()
    sched = S.StepLR(opt, step_size=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        sched.step()


def test_get_lr_outside_step_warns_and_get_last_lr_does_not():
    opt = make_opt()
    sched = S.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    assert sched.get_last_lr() == [LR]


def test_initial_lr_is_recorded_and_required_to_resume():
    opt = make_opt()
    S.StepLR(opt, step_size=2)
    assert opt.param_groups[0]["initial_lr"] == LR
    with pytest.raises(KeyError, match=r"param 'initial_lr' is not specified in param_groups\[0\] when resuming"):
        S.StepLR(make_opt(), step_size=2, last_epoch=3)


def test_state_dict_excludes_optimizer_and_resumes_exactly():
    opt = make_opt()
    sched = S.CosineAnnealingLR(opt, T_max=7, eta_min=0.001)
    trace(opt, sched, steps=5)
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 5 and sd["base_lrs"] == [LR]
    opt2 = make_opt()
    opt2.load_state_dict(copy.deepcopy(opt.state_dict()))
    sched2 = S.CosineAnnealingLR(opt2, T_max=7)
    sched2.load_state_dict(copy.deepcopy(sd))
    assert trace(opt, sched, steps=10) == trace(opt2, sched2, steps=10)


def test_lambda_state_dict_skips_functions_but_saves_callable_objects():
    class Decay:
        def __init__(self):
            self.rate = 0.5

        def __call__(self, epoch):
            return self.rate ** epoch

    opt = make_opt(groups=2)
    decay = Decay()
    sched = S.LambdaLR(opt, [lambda e: 1.0, decay])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [None, {"rate": 0.5}] and "optimizer" not in sd
    other = Decay()
    other.rate = 0.1
    twin = S.LambdaLR(make_opt(groups=2), [lambda e: 1.0, other])
    twin.load_state_dict(sd)
    assert other.rate == 0.5 and sd["lr_lambdas"] == [None, {"rate": 0.5}]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        S.LambdaLR(opt, [lambda e: 1.0])


def test_step_with_epoch_is_deprecated_and_uses_the_closed_form():
    opt = make_opt()
    sched = S.StepLR(opt, step_size=3, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        sched.step(7)
    assert opt.param_groups[0]["lr"] == pytest.approx(LR * 0.5 ** 2) and sched.last_epoch == 7


def test_legacy_alias_and_type_check():
    assert issubclass(S._LRScheduler, S.LRScheduler) and S._LRScheduler.__name__ == "_LRScheduler"
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        S.StepLR([], step_size=1)
    assert em.optim.lr_scheduler.StepLR is S.StepLR
