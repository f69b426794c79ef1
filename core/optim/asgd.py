"""``ASGD`` (averaged stochastic gradient descent), as ``torch.optim.ASGD``."""
from __future__ import annotations

from .optimizer import (Optimizer, _check_number, as_float, bump_step, check_lr, check_nonneg, descent_grad,
                        new_step_tensor, real_view, scalar_tensor, zeros_state)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Implements Averaged Stochastic Gradient Descent (`Acceleration of stochastic approximation by averaging`,
    Polyak and Juditsky, 1992).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda_{wd} \neq 0:\ g_t \leftarrow g_t + \lambda_{wd}\theta_{t-1} \\
            &\theta_t \leftarrow (1 - \lambda \eta_{t-1})\,\theta_{t-1} - \eta_{t-1} g_t \\
            &a_t \leftarrow \theta_t \ \text{if } \mu_{t-1} = 1 \text{ else } a_{t-1} + \mu_{t-1}(\theta_t - a_{t-1})\\
            &\eta_t \leftarrow \gamma / (1 + \lambda \gamma t)^{\alpha} \\
            &\mu_t \leftarrow 1 / \max(1, t - t_0)
        \end{aligned}

    with :math:`\eta_0 = \gamma` and :math:`\mu_0 = 1`. The average :math:`a` (state ``ax``) is what ASGD is for:
    evaluate with it, e.g. by copying ``state['ax']`` into the parameters.

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-2).
        lambd (float, optional): decay term :math:`\lambda` (default: 1e-4).
        alpha (float, optional): power :math:`\alpha` of the eta update (default: 0.75).
        t0 (float, optional): the step :math:`t_0` at which averaging starts (default: 1e6).
        weight_decay (float, optional): weight decay :math:`\lambda_{wd}` (L2 penalty) (default: 0).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, differentiable, capturable: accepted for PyTorch compatibility.

    State per parameter, in PyTorch's order: ``step``, ``eta``, ``mu`` (0-dim tensors) and ``ax``.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        check_lr(lr)
        for name, value in (("lambd", lambd), ("alpha", alpha), ("t0", t0)):
            _check_number(name, value)
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        if foreach is False and capturable:
            raise ValueError("Capturable not supported with single tensor ASGD")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        return (as_float(group["lr"]), group["lambd"], group["alpha"], group["t0"], group["weight_decay"],
                group["maximize"])

    def _init_state(self, p, state, group):
        state["step"] = new_step_tensor()
        state["eta"] = scalar_tensor(as_float(group["lr"]))
        state["mu"] = scalar_tensor(1.0)
        state["ax"] = zeros_state(p)

    def _update(self, param, grad, state, lr, lambd, alpha, t0, weight_decay, maximize):
        step = bump_step(state)
        eta, mu = float(state["eta"]._data), float(state["mu"]._data)
        arrays = [real_view(param._data), real_view(grad._data), real_view(state["ax"]._data)]
        self._run_blocked(_asgd_kernel, arrays, 2, (eta, mu, lambd, weight_decay, maximize))
        param._bump_version()
        # eta and mu for the next step, from this step's count (PyTorch's non-capturable path)
        state["eta"]._data[...] = lr / ((1 + lambd * lr * step) ** alpha)
        state["mu"]._data[...] = 1 / max(1, step - t0)


def _asgd_kernel(xp, p, g, ax, t0, t1, eta, mu, lambd, weight_decay, maximize):
    g = descent_grad(xp, p, g, t0, t1, weight_decay, maximize)
    p *= 1 - lambd * eta
    xp.multiply(g, eta, out=t0)
    p -= t0
    if mu != 1:
        xp.subtract(p, ax, out=t0)
        t0 *= mu
        ax += t0
    else:
        ax[...] = p
