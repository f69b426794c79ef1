"""``NAdam``, as ``torch.optim.NAdam``."""
from __future__ import annotations

import math

from .optimizer import (Optimizer, as_float, bump_step, check_betas, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, scalar_tensor, update_moments, zeros_state)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""Implements NAdam: Adam with Nesterov momentum (`Incorporating Nesterov Momentum into Adam`).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ \theta_{t-1} \leftarrow \theta_{t-1} - \gamma\lambda\theta_{t-1}
                \text{ if decoupled, else } g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &\mu_t \leftarrow \beta_1 \big(1 - \tfrac12 0.96^{t\psi}\big) \qquad
             \mu_{t+1} \leftarrow \beta_1 \big(1 - \tfrac12 0.96^{(t+1)\psi}\big) \\
            &m_t \leftarrow \beta_1 m_{t-1} + (1-\beta_1) g_t \qquad
             v_t \leftarrow \beta_2 v_{t-1} + (1-\beta_2) g_t^2 \\
            &\widehat{m_t} \leftarrow \mu_{t+1} m_t / (1 - \textstyle\prod_{i=1}^{t+1}\mu_i)
                + (1-\mu_t) g_t / (1 - \textstyle\prod_{i=1}^{t}\mu_i) \\
            &\widehat{v_t} \leftarrow v_t / (1-\beta_2^t) \\
            &\theta_t \leftarrow \theta_{t-1} - \gamma\, \widehat{m_t} / (\sqrt{\widehat{v_t}} + \epsilon)
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (default: 0).
        momentum_decay (float, optional): momentum decay :math:`\psi` (default: 4e-3).
        decoupled_weight_decay (bool, optional): decay the weights directly (NAdamW) instead of adding
            :math:`\lambda\theta` to the gradient (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, capturable, differentiable: accepted for PyTorch compatibility.

    State per parameter: ``step``, ``mu_product`` (a 0-dim tensor, :math:`\prod_i \mu_i`), ``exp_avg`` and
    ``exp_avg_sq``.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        check_lr(lr)
        check_nonneg("epsilon", eps, "eps")
        check_betas(betas)
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        check_nonneg("momentum_decay", momentum_decay, "momentum_decay")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        beta1, beta2 = (as_float(b) for b in group["betas"])
        return (as_float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"], group["momentum_decay"],
                group["decoupled_weight_decay"], group["maximize"])

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["mu_product"] = scalar_tensor(1.0)
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)

    def _update(self, param, grad, state, lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize):
        step = bump_step(state)
        p = real_view(param._data)
        if weight_decay != 0 and decoupled:
            p *= 1 - lr * weight_decay
            weight_decay = 0
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product_arr = state["mu_product"]._data
        mu_product_arr *= mu  # kept in the scalar dtype, as PyTorch keeps it
        mu_product = float(mu_product_arr)
        grad_coef = -lr * (1.0 - mu) / (1.0 - mu_product)
        avg_coef = -lr * mu_next / (1.0 - mu_product * mu_next)
        arrays = [p, real_view(grad._data), real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data)]
        self._run_blocked(_nadam_kernel, arrays, 3, (beta1, beta2, eps, weight_decay, maximize,
                                                     1.0 / math.sqrt(1 - beta2 ** step), grad_coef, avg_coef))
        param._bump_version()


def _nadam_kernel(xp, p, g, m, v, t0, t1, t2, beta1, beta2, eps, weight_decay, maximize, inv_bc2_sqrt, grad_coef,
                  avg_coef):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    update_moments(xp, g, m, v, t0, beta1, beta2)
    # denominator sqrt(v / (1 - beta2^t)) + eps
    xp.sqrt(v, out=t0)
    t0 *= inv_bc2_sqrt
    t0 += eps
    xp.divide(g, t0, out=t2)
    t2 *= grad_coef
    p += t2
    xp.divide(m, t0, out=t2)
    t2 *= avg_coef
    p += t2
