"""``Adamax``, as ``torch.optim.Adamax``."""
from __future__ import annotations

from .optimizer import (Optimizer, as_float, bump_step, check_betas, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, zeros_state)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Implements Adamax, the infinity-norm variant of Adam (`Adam: A Method for Stochastic Optimization`).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &m_t \leftarrow \beta_1 m_{t-1} + (1-\beta_1) g_t \\
            &u_t \leftarrow \max(\beta_2 u_{t-1}, |g_t| + \epsilon) \\
            &\theta_t \leftarrow \theta_{t-1} - \frac{\gamma\, m_t}{(1-\beta_1^t)\, u_t}
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 2e-3).
        betas (Tuple[float, float], optional): coefficients for the running average of the gradient and the
            exponentially weighted infinity norm (default: (0.9, 0.999)).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (L2 penalty) (default: 0).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, differentiable, capturable: accepted for PyTorch compatibility.

    State per parameter: ``step``, ``exp_avg`` (:math:`m`) and ``exp_inf`` (:math:`u`).
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        check_lr(lr)
        check_nonneg("epsilon", eps, "eps")
        check_betas(betas)
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        beta1, beta2 = (as_float(b) for b in group["betas"])
        return as_float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"], group["maximize"]

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["exp_avg"] = zeros_state(p)
        state["exp_inf"] = zeros_state(p)

    def _update(self, param, grad, state, lr, beta1, beta2, eps, weight_decay, maximize):
        step = bump_step(state)
        clr = lr / (1 - beta1 ** step)
        arrays = [real_view(param._data), real_view(grad._data), real_view(state["exp_avg"]._data),
                  real_view(state["exp_inf"]._data)]
        self._run_blocked(_adamax_kernel, arrays, 2, (clr, beta1, beta2, eps, weight_decay, maximize))
        param._bump_version()


def _adamax_kernel(xp, p, g, m, u, t0, t1, clr, beta1, beta2, eps, weight_decay, maximize):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    xp.subtract(g, m, out=t0)  # lerp towards g by (1 - beta1)
    t0 *= 1 - beta1
    m += t0
    xp.absolute(g, out=t0)
    t0 += eps
    u *= beta2
    xp.maximum(u, t0, out=u)
    xp.divide(m, u, out=t0)
    t0 *= -clr
    p += t0
