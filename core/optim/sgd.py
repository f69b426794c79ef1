"""``SGD``: stochastic gradient descent with optional (Nesterov) momentum, as ``torch.optim.SGD``."""
from __future__ import annotations

from .optimizer import Optimizer, as_float, check_lr, check_nonneg, descent_grad, real_view, zeros_state

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Implements stochastic gradient descent (optionally with momentum).

    .. math::
        \begin{aligned}
            &g_t \leftarrow \nabla_\theta f_t(\theta_{t-1}) \quad (\text{negated if maximize}) \\
            &\text{if } \lambda \neq 0:\ g_t \leftarrow g_t + \lambda \theta_{t-1} \\
            &\text{if } \mu \neq 0:\ b_t \leftarrow g_t \text{ if } t = 1 \text{ else } \mu b_{t-1} + (1-\tau) g_t;\quad
                g_t \leftarrow g_t + \mu b_t \text{ if nesterov else } b_t \\
            &\theta_t \leftarrow \theta_{t-1} - \gamma g_t
        \end{aligned}

    Args:
        params (iterable): iterable of parameters or named parameters to optimize, or dicts defining parameter
            groups.
        lr (float, Tensor, optional): learning rate :math:`\gamma` (default: 1e-3).
        momentum (float, optional): momentum factor :math:`\mu` (default: 0).
        dampening (float, optional): dampening for momentum :math:`\tau` (default: 0).
        weight_decay (float, optional): weight decay (L2 penalty) :math:`\lambda` (default: 0).
        nesterov (bool, optional): enables Nesterov momentum (default: False).
        maximize (bool, optional): maximize the objective instead of minimizing it (default: False).
        foreach, differentiable, fused: accepted for PyTorch compatibility; ember has one implementation, so they
            change nothing (``differentiable=True`` is rejected).

    State per parameter: ``momentum_buffer`` (only when ``momentum != 0``).

    Example:
        >>> optimizer = ember.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> optimizer.zero_grad()
        >>> loss_fn(model(input), target).backward()
        >>> optimizer.step()
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize: bool = False, foreach=None, differentiable: bool = False, fused=None):
        check_lr(lr)
        check_nonneg("momentum", momentum, "momentum")
        check_nonneg("weight_decay", weight_decay, "weight_decay")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    def step(self, closure=None):
        """Perform a single optimization step; the optional ``closure`` re-evaluates the model and returns the loss."""
        return self._step_each_param(closure)

    def _group_options(self, group):
        return (as_float(group["lr"]), group["momentum"], group["dampening"], group["weight_decay"],
                group["nesterov"], group["maximize"])

    def _keeps_state(self, group):
        return group["momentum"] != 0  # the momentum buffer is created by the first update: it starts as the grad

    def _update(self, param, grad, state, lr, momentum, dampening, weight_decay, nesterov, maximize):
        buf, first = None, False
        if momentum != 0:
            buf_t = state.get("momentum_buffer")
            if buf_t is None:
                buf_t = state["momentum_buffer"] = zeros_state(param)
                first = True
            buf = real_view(buf_t._data)
        arrays = [real_view(param._data), real_view(grad._data), buf]
        self._run_blocked(_sgd_kernel, arrays, 2, (lr, momentum, dampening, weight_decay, nesterov, maximize, first))
        param._bump_version()


def _sgd_kernel(xp, p, d, buf, s0, s1, lr, momentum, dampening, weight_decay, nesterov, maximize, first):
    d = descent_grad(xp, p, d, s0, s1, weight_decay, maximize)
    free = s1 if d is s0 else s0  # a scratch array not holding d
    if buf is not None:
        if first:  # the buffer starts as the (decayed) gradient itself
            buf[...] = d
        else:
            buf *= momentum
            if dampening != 0:
                xp.multiply(d, 1 - dampening, out=free)
                buf += free
            else:
                buf += d
        if nesterov:
            xp.multiply(buf, momentum, out=free)
            free += d
            d = free
        else:
            d = buf
    target = d if (d is s0 or d is s1) else free
    xp.multiply(d, -lr, out=target)
    p += target
