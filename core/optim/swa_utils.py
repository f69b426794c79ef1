"""``ember.optim.swa_utils``: weight averaging (``torch.optim.swa_utils``).

* :class:`AveragedModel` keeps a copy of a model whose parameters are the running average (SWA, Izmailov et al.
  2018) or an exponential moving average (EMA) of the model's, updated by ``update_parameters(model)``;
* :func:`update_bn` recomputes the batch-norm statistics of the averaged weights in one pass over the data;
* :class:`SWALR` anneals the learning rate to a constant SWA rate.

The averaging functions follow PyTorch's arithmetic: the default SWA update is
``avg + (current - avg) / (n + 1)`` per tensor, and the ``multi`` forms use ``lerp`` (as PyTorch's foreach kernels
do), so an averaged model matches PyTorch's to the last bit on the same weights.
"""
from __future__ import annotations

import copy
import itertools
import math
from typing import Any, Callable, Iterable, List, Optional

import numpy as np

from ..autograd.grad_mode import no_grad
from ..dtypes import int64
from ..nn.modules.module import Module
from ..ops.creation import tensor
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _is_float(t: Tensor) -> bool:
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """The in-place EMA update of lists of tensors, ``ema = lerp(ema, current, 1 - decay)`` (PyTorch's foreach form),
    for ``AveragedModel(multi_avg_fn=...)``."""
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _num_averaged) -> None:
        with no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                if _is_float(p_ema):
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The in-place running-mean update of lists of tensors, ``avg = lerp(avg, current, 1 / (n + 1))`` (PyTorch's
    foreach form), for ``AveragedModel(multi_avg_fn=...)``."""
    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with no_grad():
            if isinstance(num_averaged, Tensor):  # 1 / (n + 1) is then a float32 tensor, as in PyTorch
                weight = float(np.float32(1 / (int(num_averaged.item()) + 1)))
            else:
                weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                if _is_float(p_avg):
                    p_avg.lerp_(p_model, weight)
                else:
                    p_avg.copy_(p_avg + (p_model - p_avg) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """The EMA update of one tensor, ``decay * ema + (1 - decay) * current``, for ``AveragedModel(avg_fn=...)``."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """The running-mean update of one tensor, ``avg + (current - avg) / (n + 1)``: AveragedModel's default."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are the average of the weights passed to :meth:`update_parameters`.

    Args:
        model: the model to average (deep-copied; its weights start the average at the first update).
        device: where to keep the copy (None: where the model is).
        avg_fn: ``avg_fn(averaged, current, n_averaged) -> new averaged`` for one tensor (default: the running
            mean, :func:`get_swa_avg_fn`; :func:`get_ema_avg_fn` gives an EMA).
        multi_avg_fn: an in-place update of lists of tensors instead (:func:`get_ema_multi_avg_fn`,
            :func:`get_swa_multi_avg_fn`); give at most one of the two.
        use_buffers: average the buffers (batch-norm statistics) too, instead of copying the model's.
    """

    def __init__(self, model: Module, device=None, avg_fn: Optional[Callable] = None,
                 multi_avg_fn: Optional[Callable] = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them)."""
        if self.use_buffers:
            mine = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            theirs = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            mine, theirs = list(self.parameters()), list(model.parameters())
        averaged = [p.detach() for p in mine]
        current = [p.detach().to(a.device) for p, a in zip(theirs, averaged)]
        n = self.n_averaged
        with no_grad():
            if int(n.item()) == 0:
                for a, c in zip(averaged, current):
                    a.copy_(c)
            elif self.multi_avg_fn is not None:
                self.multi_avg_fn(averaged, current, n)
            else:
                avg_fn = self.avg_fn if self.avg_fn is not None else get_swa_avg_fn()
                for a, c in zip(averaged, current):
                    a.copy_(avg_fn(a, c, n))
            if not self.use_buffers:  # buffers follow the model (recompute BN statistics with update_bn)
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """Recompute the running statistics of ``model``'s batch-norm layers in one pass over ``loader`` (a cumulative
    average over all batches), as the averaged weights need; a batch that is a list or tuple gives its first item."""
    from ..nn.modules.normalization import _BatchNorm
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps (``"cos"`` or ``"linear"``),
    then keep it constant.

    Args:
        optimizer: the wrapped optimizer.
        swa_lr: the target rate, or one per parameter group.
        anneal_epochs: the number of steps of the annealing (0: jump to ``swa_lr``).
        anneal_strategy: ``"cos"`` or ``"linear"``.
        last_epoch: the index of the last epoch (-1 starts fresh).
    """

    def __init__(self, optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_strategy = anneal_strategy
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def anneal_func(self, t: float) -> float:
        """The fraction of the way to ``swa_lr`` after a fraction ``t`` of the annealing."""
        if self.anneal_strategy == "cos":
            return (1 - math.cos(math.pi * t)) / 2
        return t

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> List[float]:
        """The rates of this step."""
        self._warn_if_called_outside_step()
        # Recover the rate before annealing began from the current one, then move a fraction alpha(t) of the way
        # to swa_lr, t going from 0 to 1 over anneal_epochs steps (PyTorch's formula, so other schedulers' changes
        # to the rate are respected).
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs)]
