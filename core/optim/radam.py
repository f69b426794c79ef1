"""``RAdam``, as ``torch.optim.RAdam``."""
from __future__ import annotations

import math

from .optimizer import (Optimizer, as_float, bump_step, check_betas, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, update_moments, zeros_state)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""Implements RAdam: Adam with a rectified adaptive learning rate (`On the Variance of the Adaptive Learning
    Rate and Beyond`).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ \theta_{t-1} \leftarrow \theta_{t-1} - \gamma\lambda\theta_{t-1}
                \text{ if decoupled, else } g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &m_t \leftarrow \beta_1 m_{t-1} + (1-\beta_1) g_t \qquad
             v_t \leftarrow \beta_2 v_{t-1} + (1-\beta_2) g_t^2 \\
            &\widehat{m_t} \leftarrow m_t / (1-\beta_1^t) \\
            &\rho_\infty \leftarrow 2/(1-\beta_2) - 1 \qquad
             \rho_t \leftarrow \rho_\infty - 2t\beta_2^t / (1-\beta_2^t) \\
            &\text{if } \rho_t > 5:\ l_t \leftarrow \sqrt{1-\beta_2^t} / (\sqrt{v_t} + \epsilon),\
                r_t \leftarrow \sqrt{\frac{(\rho_t-4)(\rho_t-2)\rho_\infty}{(\rho_\infty-4)(\rho_\infty-2)\rho_t}},\
                \theta_t \leftarrow \theta_{t-1} - \gamma \widehat{m_t} r_t l_t \\
            &\text{else}:\ \theta_t \leftarrow \theta_{t-1} - \gamma \widehat{m_t}
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (default: 0).
        decoupled_weight_decay (bool, optional): decay the weights directly (RAdamW) instead of adding
            :math:`\lambda\theta` to the gradient (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, capturable, differentiable: accepted for PyTorch compatibility.

    State per parameter: ``step``, ``exp_avg`` and ``exp_avg_sq``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        check_lr(lr)
        check_nonneg("epsilon", eps, "eps")
        check_betas(betas)
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        beta1, beta2 = (as_float(b) for b in group["betas"])
        return (as_float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"],
                group["decoupled_weight_decay"], group["maximize"])

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, param, grad, state, lr, beta1, beta2, eps, weight_decay, decoupled, maximize):
        step = bump_step(state)
        p = real_view(param._data)
        if weight_decay != 0 and decoupled:
            p *= 1 - lr * weight_decay
            weight_decay = 0
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:  # the variance of the adaptive rate is tractable: rectify it
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            coef = -lr * rect * math.sqrt(bias_correction2) / bias_correction1
        else:  # too early: plain momentum SGD on the bias-corrected average
            rect, coef = None, -lr / bias_correction1
        arrays = [p, real_view(grad._data), real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data)]
        self._run_blocked(_radam_kernel, arrays, 2, (beta1, beta2, eps, weight_decay, maximize, rect is not None,
                                                     coef))
        param._bump_version()


def _radam_kernel(xp, p, g, m, v, t0, t1, beta1, beta2, eps, weight_decay, maximize, adaptive, coef):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    update_moments(xp, g, m, v, t0, beta1, beta2)
    if adaptive:  # update = coef * m / (sqrt(v) + eps)
        xp.sqrt(v, out=t0)
        t0 += eps
        xp.divide(m, t0, out=t0)
        t0 *= coef
    else:
        xp.multiply(m, coef, out=t0)
    p += t0
