"""``Adam`` and ``AdamW``, as ``torch.optim.Adam`` / ``torch.optim.AdamW``.

The update is fused by hand into in-place NumPy calls on reused scratch buffers (about twelve passes over the
parameter's memory, no allocation), run on cache-sized blocks of large parameters: a step over a million float32
parameters is faster than the same update written by hand with in-place NumPy (``benchmarks/optim_bench.py``).
"""
from __future__ import annotations

import math

from .optimizer import (Optimizer, as_float, bump_step, check_betas, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, update_moments, zeros_state)

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    r"""Implements the Adam algorithm.

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ \theta_{t-1} \leftarrow \theta_{t-1} - \gamma\lambda\theta_{t-1}
                \text{ if decoupled, else } g_t \leftarrow g_t + \lambda\theta_{t-1} \\
            &m_t \leftarrow \beta_1 m_{t-1} + (1-\beta_1) g_t \qquad
             v_t \leftarrow \beta_2 v_{t-1} + (1-\beta_2) g_t^2 \\
            &\widehat{m_t} \leftarrow m_t / (1-\beta_1^t) \qquad
             \widehat{v_t} \leftarrow v_t / (1-\beta_2^t)
                \quad (\text{amsgrad: } v^{max}_t \leftarrow \max(v^{max}_{t-1}, v_t)
                \text{ is used in place of } v_t) \\
            &\theta_t \leftarrow \theta_{t-1} - \gamma\, \widehat{m_t} / (\sqrt{\widehat{v_t}} + \epsilon)
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        betas (Tuple[float, float], optional): coefficients for the running averages of the gradient and its
            square (default: (0.9, 0.999)).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay :math:`\lambda` (L2 penalty) (default: 0).
        amsgrad (bool, optional): use the AMSGrad variant from `On the Convergence of Adam and Beyond`
            (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        decoupled_weight_decay (bool, optional): decay the weights directly, as AdamW does, instead of adding
            :math:`\lambda\theta` to the gradient (default: False).
        foreach, capturable, differentiable, fused: accepted for PyTorch compatibility; ember has one
            implementation, so they change nothing (``differentiable=True`` is rejected).

    State per parameter: ``step`` (a 0-dim float tensor), ``exp_avg``, ``exp_avg_sq`` and, with ``amsgrad``,
    ``max_exp_avg_sq``.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused=None, decoupled_weight_decay: bool = False):
        check_lr(lr)
        check_nonneg("epsilon", eps, "eps")
        check_betas(betas)
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        beta1, beta2 = (as_float(b) for b in group["betas"])
        return (as_float(group["lr"]), beta1, beta2, group["eps"], group["weight_decay"], group["amsgrad"],
                group["maximize"], group.get("decoupled_weight_decay", False))

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["exp_avg"] = zeros_state(p)
        state["exp_avg_sq"] = zeros_state(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_state(p)

    def _update(self, param, grad, state, lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled):
        step = bump_step(state)
        p = real_view(param._data)
        if weight_decay != 0 and decoupled:
            p *= 1 - lr * weight_decay
            weight_decay = 0
        vmax = real_view(state["max_exp_avg_sq"]._data) if amsgrad else None
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** step)
        arrays = [p, real_view(grad._data), real_view(state["exp_avg"]._data), real_view(state["exp_avg_sq"]._data),
                  vmax]
        self._run_blocked(_adam_kernel, arrays, 2,
                          (beta1, beta2, eps, weight_decay, maximize, step_size, bias_correction2_sqrt))
        param._bump_version()


def _adam_kernel(xp, p, g, m, v, vmax, t0, t1, beta1, beta2, eps, weight_decay, maximize, step_size,
                 bias_correction2_sqrt):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    update_moments(xp, g, m, v, t0, beta1, beta2)
    if vmax is not None:
        xp.maximum(vmax, v, out=vmax)
        v = vmax
    # p <- p - step_size * m / (sqrt(v) / sqrt(bc2) + eps), with step_size folded into the denominator so the
    # division produces the update directly (PyTorch's foreach path does the same).
    xp.sqrt(v, out=t0)
    t0 *= -1.0 / (bias_correction2_sqrt * step_size)
    t0 -= eps / step_size
    xp.divide(m, t0, out=t0)
    p += t0


class AdamW(Adam):
    r"""Implements AdamW: Adam with decoupled weight decay (`Decoupled Weight Decay Regularization`).

    Each step first shrinks the weights, :math:`\theta \leftarrow \theta - \gamma\lambda\theta`, then applies the
    Adam update computed from the plain gradient. The arguments are those of :class:`Adam`, except that
    ``weight_decay`` defaults to 1e-2 and the decay is always decoupled.

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate (default: 1e-3).
        betas (Tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): term added to the denominator for numerical stability (default: 1e-8).
        weight_decay (float, optional): weight decay coefficient (default: 1e-2).
        amsgrad (bool, optional): use the AMSGrad variant (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, capturable, differentiable, fused: accepted for PyTorch compatibility.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize: bool = False, foreach=None, capturable: bool = False, differentiable: bool = False,
                 fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
