"""``Adadelta``, as ``torch.optim.Adadelta``."""
from __future__ import annotations

from .optimizer import (Optimizer, _check_number, as_float, bump_step, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, zeros_state)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Implements the Adadelta algorithm (`ADADELTA: An Adaptive Learning Rate Method`).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &v_t \leftarrow \rho v_{t-1} + (1-\rho) g_t^2 \\
            &\Delta x_t \leftarrow \frac{\sqrt{u_{t-1} + \epsilon}}{\sqrt{v_t + \epsilon}}\, g_t \\
            &u_t \leftarrow \rho u_{t-1} + (1-\rho) \Delta x_t^2 \\
            &\theta_t \leftarrow \theta_{t-1} - \gamma \Delta x_t
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): coefficient :math:`\gamma` that scales delta before it is applied to the
            parameters (default: 1.0).
        rho (float, optional): coefficient :math:`\rho` of the running averages of squared gradients and squared
            updates (default: 0.9).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-6).
        weight_decay (float, optional): weight decay :math:`\lambda` (L2 penalty) (default: 0).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, capturable, differentiable: accepted for PyTorch compatibility.

    State per parameter: ``step``, ``square_avg`` (:math:`v`) and ``acc_delta`` (:math:`u`).
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable: bool = False, maximize: bool = False, differentiable: bool = False):
        check_lr(lr)
        _check_number("rho", rho)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonneg("epsilon", eps, "eps")
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        return as_float(group["lr"]), group["rho"], group["eps"], group["weight_decay"], group["maximize"]

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["square_avg"] = zeros_state(p)
        state["acc_delta"] = zeros_state(p)

    def _update(self, param, grad, state, lr, rho, eps, weight_decay, maximize):
        bump_step(state)
        arrays = [real_view(param._data), real_view(grad._data), real_view(state["square_avg"]._data),
                  real_view(state["acc_delta"]._data)]
        self._run_blocked(_adadelta_kernel, arrays, 3, (lr, rho, eps, weight_decay, maximize))
        param._bump_version()


def _adadelta_kernel(xp, p, g, square_avg, acc_delta, t0, t1, t2, lr, rho, eps, weight_decay, maximize):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    xp.multiply(g, g, out=t0)
    t0 *= 1 - rho
    square_avg *= rho
    square_avg += t0
    # delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g
    xp.add(square_avg, eps, out=t0)
    xp.sqrt(t0, out=t0)
    xp.add(acc_delta, eps, out=t2)
    xp.sqrt(t2, out=t2)
    t2 /= t0
    t2 *= g
    xp.multiply(t2, t2, out=t0)
    t0 *= 1 - rho
    acc_delta *= rho
    acc_delta += t0
    t2 *= -lr
    p += t2
