"""``Adagrad``, as ``torch.optim.Adagrad``."""
from __future__ import annotations

from .optimizer import (Optimizer, as_float, bump_step, check_lr, check_nonneg, descent_grad, new_step_tensor,
                        real_view, zeros_state)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Implements the Adagrad algorithm.

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\tilde\gamma \leftarrow \gamma / (1 + (t-1)\eta) \\
            &\text{if } \lambda \neq 0:\ g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &s_t \leftarrow s_{t-1} + g_t^2 \\
            &\theta_t \leftarrow \theta_{t-1} - \tilde\gamma\, g_t / (\sqrt{s_t} + \epsilon)
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        lr_decay (float, optional): learning rate decay :math:`\eta` (default: 0).
        weight_decay (float, optional): weight decay :math:`\lambda` (L2 penalty) (default: 0).
        initial_accumulator_value (float, optional): initial value of the sum of squares :math:`s_0`
            (default: 0).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-10).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, differentiable, fused: accepted for PyTorch compatibility.

    State per parameter, created at construction as PyTorch does: ``step`` and ``sum``.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False, fused=None):
        check_lr(lr)
        check_nonneg("lr_decay", lr_decay, "lr_decay")
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        check_nonneg("initial_accumulator_value", initial_accumulator_value, "initial_accumulator_value")
        check_nonneg("epsilon", eps, "eps")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, self.state[p], group)

    def _init_state(self, p, state, group):
        # Called eagerly by __init__, and by step() for a parameter added later through add_param_group.
        state["step"] = new_step_tensor()
        state["sum"] = zeros_state(p, group["initial_accumulator_value"])

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        return as_float(group["lr"]), group["lr_decay"], group["weight_decay"], group["eps"], group["maximize"]

    def _update(self, param, grad, state, lr, lr_decay, weight_decay, eps, maximize):
        step = bump_step(state)
        clr = lr / (1 + (step - 1) * lr_decay)
        arrays = [real_view(param._data), real_view(grad._data), real_view(state["sum"]._data)]
        self._run_blocked(_adagrad_kernel, arrays, 2, (clr, weight_decay, eps, maximize))
        param._bump_version()


def _adagrad_kernel(xp, p, g, acc, t0, t1, clr, weight_decay, eps, maximize):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    xp.multiply(g, g, out=t0)
    acc += t0
    xp.sqrt(acc, out=t0)
    t0 += eps
    xp.divide(g, t0, out=t0)
    t0 *= -clr
    p += t0
