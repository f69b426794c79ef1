"""``RMSprop``, as ``torch.optim.RMSprop``."""
from __future__ import annotations

from .optimizer import (Optimizer, as_float, bump_step, check_lr, check_nonneg, descent_grad, new_step_tensor,
                        real_view, zeros_state)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""Implements the RMSprop algorithm.

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &v_t \leftarrow \alpha v_{t-1} + (1-\alpha) g_t^2 \\
            &\text{centered:}\ g^{ave}_t \leftarrow \alpha g^{ave}_{t-1} + (1-\alpha) g_t,\quad
                \tilde v_t \leftarrow v_t - (g^{ave}_t)^2 \quad (\text{else } \tilde v_t = v_t) \\
            &\text{if } \mu > 0:\ b_t \leftarrow \mu b_{t-1} + g_t / (\sqrt{\tilde v_t} + \epsilon),\quad
                \theta_t \leftarrow \theta_{t-1} - \gamma b_t \\
            &\text{else}:\ \theta_t \leftarrow \theta_{t-1} - \gamma g_t / (\sqrt{\tilde v_t} + \epsilon)
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        alpha (float, optional): smoothing constant :math:`\alpha` (default: 0.99).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (L2 penalty) (default: 0).
        momentum (float, optional): momentum factor :math:`\mu` (default: 0).
        centered (bool, optional): normalize by an estimate of the gradient's variance instead of its second
            moment (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        capturable, foreach, differentiable: accepted for PyTorch compatibility.

    State per parameter: ``step``, ``square_avg``, ``momentum_buffer`` (if ``momentum > 0``) and ``grad_avg``
    (if ``centered``).
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable: bool = False, foreach=None, maximize: bool = False, differentiable: bool = False):
        check_lr(lr)
        check_nonneg("epsilon", eps, "eps")
        check_nonneg("momentum", momentum, "momentum")
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        check_nonneg("alpha", alpha, "alpha")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        return (as_float(group["lr"]), group["alpha"], group["eps"], group["weight_decay"], group["momentum"],
                group["centered"], group["maximize"])

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["square_avg"] = zeros_state(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            state["grad_avg"] = zeros_state(p)

    def _update(self, param, grad, state, lr, alpha, eps, weight_decay, momentum, centered, maximize):
        bump_step(state)
        arrays = [real_view(param._data), real_view(grad._data), real_view(state["square_avg"]._data),
                  real_view(state["grad_avg"]._data) if centered else None,
                  real_view(state["momentum_buffer"]._data) if momentum > 0 else None]
        self._run_blocked(_rmsprop_kernel, arrays, 2, (lr, alpha, eps, weight_decay, momentum, maximize))
        param._bump_version()


def _rmsprop_kernel(xp, p, g, square_avg, grad_avg, buf, t0, t1, lr, alpha, eps, weight_decay, momentum, maximize):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    xp.multiply(g, g, out=t0)
    t0 *= 1 - alpha
    square_avg *= alpha
    square_avg += t0
    if grad_avg is not None:  # centered: normalize by the variance estimate v - E[g]^2
        xp.subtract(g, grad_avg, out=t0)  # lerp towards g by (1 - alpha)
        t0 *= 1 - alpha
        grad_avg += t0
        xp.multiply(grad_avg, grad_avg, out=t0)
        xp.subtract(square_avg, t0, out=t0)
        xp.sqrt(t0, out=t0)
    else:
        xp.sqrt(square_avg, out=t0)
    t0 += eps  # t0 is the denominator
    xp.divide(g, t0, out=t0)
    if buf is not None:
        buf *= momentum
        buf += t0
        xp.multiply(buf, -lr, out=t0)
    else:
        t0 *= -lr
    p += t0
