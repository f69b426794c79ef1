"""Learning-rate schedulers, as ``torch.optim.lr_scheduler``.

A scheduler rewrites ``group['lr']`` of its optimizer's parameter groups each time ``step()`` is called (after
``optimizer.step()``). Most schedulers are *chainable*: ``get_lr()`` derives the new rate from the current one
(PyTorch's recursive forms), so several schedulers can act on one optimizer; ``step(epoch)`` with an explicit epoch
uses the closed form where one exists. ``state_dict()`` holds every attribute except the optimizer.
"""
from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer

__all__ = [
    "LRScheduler", "_LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
    "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR",
    "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. Please use "
    "`scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from None, the closed "
    "form is used instead of the new chainable form, where available. Please open an issue if you are unable to "
    "replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)

_STEP_ORDER_WARNING = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should call "
    "them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will result in "
    "PyTorch skipping the first value of the learning rate schedule. See more details at "
    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
)


def _check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def _format_param(name: str, optimizer: Optimizer, param) -> list:
    """One value per parameter group: a scalar is repeated, a list/tuple must have one entry per group."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has {len(param)} "
                             f"values, param_groups has {len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class _FlagOn:
    """Set a boolean attribute of a scheduler for the duration of a ``with`` block."""

    def __init__(self, scheduler, name):
        self.scheduler, self.name = scheduler, name

    def __enter__(self):
        setattr(self.scheduler, self.name, True)

    def __exit__(self, *exc):
        setattr(self.scheduler, self.name, False)
        return False


class LRScheduler:
    """Base class of learning-rate schedulers: adjusts ``lr`` of each parameter group of ``optimizer``.

    On construction with ``last_epoch=-1`` it records each group's current rate as ``initial_lr`` (the
    ``base_lrs``) and performs an initial step, so ``last_epoch`` becomes 0 and the first rate of the schedule is
    set. To resume, pass ``last_epoch`` >= 0: the groups must then already hold ``initial_lr``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        last_epoch (int): the index of the last epoch (default: -1, start from scratch).

    Subclasses implement :meth:`get_lr` (the chainable form, computing from the current rates) and optionally
    ``_get_closed_form_lr`` (used by ``step(epoch)``).
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when resuming an "
                                   "optimizer")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Reset the step count and perform the constructor's step (which sets the schedule's first rate)."""
        self._step_count = 0
        with _FlagOn(self, "_is_initial"):
            self.step()

    def state_dict(self) -> dict:
        """The scheduler's state: every attribute except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict` (load the optimizer's state as well)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list:
        """The learning rate of each parameter group as last set by this scheduler."""
        return self._last_lr

    def get_lr(self) -> list:
        """The new learning rate of each group, computed by the scheduler's chainable form (called by
        :meth:`step`; use :meth:`get_last_lr` to read the current rates)."""
        raise NotImplementedError

    def step(self, epoch=None) -> None:
        """Advance the schedule by one epoch (or jump to ``epoch``, deprecated) and write the new rates into the
        optimizer's parameter groups."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn(_STEP_ORDER_WARNING, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None) -> None:
        with _FlagOn(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def _warn_if_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=3)

    def _current_lrs(self) -> list:
        return [group["lr"] for group in self.optimizer.param_groups]


class _LRScheduler(LRScheduler):
    """Deprecated alias of :class:`LRScheduler`, kept for code written against older PyTorch."""


def _lambdas_for(optimizer, lr_lambda) -> list:
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != len(optimizer.param_groups):
            raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
        lambdas = list(lr_lambda)
    else:
        lambdas = [lr_lambda] * len(optimizer.param_groups)
    for fn in lambdas:
        if not callable(fn):
            raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
    return lambdas


class _LambdaScheduler(LRScheduler):
    """What :class:`LambdaLR` and :class:`MultiplicativeLR` share: one ``lr_lambda`` per parameter group, and a
    state dict that saves the lambdas that can be saved."""

    def __init__(self, optimizer: Optimizer, lr_lambda, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_for(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict:
        """The scheduler's state; ``lr_lambdas`` holds ``None`` for functions/lambdas, else the object's
        ``__dict__``."""
        # Functions and lambdas cannot be saved; a callable object's attributes can (PyTorch's rule).
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        lr_lambdas = state_dict.pop("lr_lambdas", None) or []
        self.__dict__.update(state_dict)
        for idx, fn_state in enumerate(lr_lambdas):
            if fn_state is not None:
                self.lr_lambdas[idx].__dict__.update(fn_state)


class LambdaLR(_LambdaScheduler):
    """Set each group's learning rate to its initial lr times ``lr_lambda(epoch)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): a function of the integer epoch returning a multiplicative factor, or one
            such function per parameter group.
        last_epoch (int): the index of the last epoch (default: -1).

    Functions and lambdas are not saved by :meth:`state_dict` (their slots hold ``None``); callable objects have
    their ``__dict__`` saved.

    Example:
        >>> scheduler = LambdaLR(optimizer, lr_lambda=lambda epoch: 0.95 ** epoch)
    """

    def get_lr(self) -> list:
        """``base_lr * lr_lambda(last_epoch)`` for each group."""
        self._warn_if_called_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """Multiply each group's learning rate by ``lr_lambda(epoch)`` at every step.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        lr_lambda (function or list): a function of the integer epoch returning a multiplicative factor, or one
            such function per parameter group.
        last_epoch (int): the index of the last epoch (default: -1).

    Example:
        >>> scheduler = MultiplicativeLR(optimizer, lr_lambda=lambda epoch: 0.95)
    """

    def get_lr(self) -> list:
        """The current rates times ``lr_lambda(last_epoch)`` (unchanged on the constructor's step)."""
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """Decay each group's learning rate by ``gamma`` every ``step_size`` epochs:
    ``lr = initial_lr * gamma ** (epoch // step_size)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        step_size (int): period of learning-rate decay.
        gamma (float): multiplicative factor of learning-rate decay (default: 0.1).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, (int, float)) or step_size <= 0:
            raise ValueError(f"step_size must be a positive int, got {step_size!r}")
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The current rates, times ``gamma`` on multiples of ``step_size``."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Decay each group's learning rate by ``gamma`` each time the epoch reaches one of the ``milestones``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        milestones (list): increasing epoch indices (a repeated milestone decays by ``gamma`` once per repeat).
        gamma (float): multiplicative factor of learning-rate decay (default: 0.1).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The current rates, times ``gamma ** count`` at a milestone."""
        self._warn_if_called_outside_step()
        if self.last_epoch not in self.milestones:
            return self._current_lrs()
        factor = self.gamma ** self.milestones[self.last_epoch]
        return [lr * factor for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """Multiply each group's learning rate by ``factor`` until epoch ``total_iters``, then restore it.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        factor (float): the factor, in [0, 1] (default: 1/3).
        total_iters (int): number of epochs during which the factor applies (default: 5).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """``factor`` times the rate at epoch 0, divided back out at ``total_iters``."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current_lrs()]
        if self.last_epoch != self.total_iters:
            return self._current_lrs()
        return [lr * (1.0 / self.factor) for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale each group's learning rate by a factor moving linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs: ``lr = initial_lr * (start + (end - start) * min(epoch, total_iters) / total_iters)``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        start_factor (float): factor at epoch 0, in (0, 1] (default: 1/3).
        end_factor (float): factor from ``total_iters`` on, in [0, 1] (default: 1.0).
        total_iters (int): number of epochs of the ramp (default: 5).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The recursive form of the linear ramp."""
        self._warn_if_called_outside_step()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current_lrs()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        delta = self.end_factor - self.start_factor
        ratio = 1.0 + delta / (self.total_iters * self.start_factor + (self.last_epoch - 1) * delta)
        return [lr * ratio for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Decay each group's learning rate by ``gamma`` every epoch: ``lr = initial_lr * gamma ** epoch``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        gamma (float): multiplicative factor of learning-rate decay.
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The current rates times ``gamma`` (unchanged on the constructor's step)."""
        self._warn_if_called_outside_step()
        if self._is_initial:
            return self._current_lrs()
        return [lr * self.gamma for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Decay each group's learning rate polynomially to 0 over ``total_iters`` epochs:
    ``lr = initial_lr * (1 - min(epoch, total_iters) / total_iters) ** power``.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        total_iters (int): number of epochs of the decay (default: 5).
        power (float): power of the polynomial (default: 1.0).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The recursive form of the polynomial decay."""
        self._warn_if_called_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current_lrs()
        decay = ((1.0 - self.last_epoch / self.total_iters)
                 / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [lr * decay for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal each group's learning rate along a cosine from its initial value to ``eta_min`` over ``T_max``
    epochs (and back up over the next ``T_max``: the schedule is periodic, without restarts):

    .. math::
        \eta_t = \eta_{min} + \tfrac12(\eta_{max} - \eta_{min})\left(1 + \cos\tfrac{t\pi}{T_{max}}\right)

    It is computed, as in PyTorch, by the recursive form
    :math:`\eta_{t} = \eta_{min} + (\eta_{t-1} - \eta_{min})
    \frac{1 + \cos(t\pi/T_{max})}{1 + \cos((t-1)\pi/T_{max})}`, so other schedulers can change the rate too.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_max (int): half period, in epochs.
        eta_min (float): minimum learning rate (default: 0).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        if T_max <= 0:
            raise ValueError(f"T_max must be positive, got {T_max!r}")
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The recursive cosine step."""
        self._warn_if_called_outside_step()
        t, T, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current_lrs()
        if self._step_count == 1 and t > 0:  # resumed with last_epoch > 0: use the closed form once
            return [eta_min + (base_lr - eta_min) * (1 + math.cos(t * math.pi / T)) / 2 for base_lr in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:  # leaving the bottom, where the ratio below would divide by zero
            return [lr + (base_lr - eta_min) * (1 - math.cos(math.pi / T)) / 2
                    for base_lr, lr in zip(self.base_lrs, self._current_lrs())]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - eta_min) + eta_min for lr in self._current_lrs()]

    def _get_closed_form_lr(self) -> list:
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


def _check_schedulers(owner: str, optimizer, schedulers) -> None:
    for idx, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{owner} at index {idx} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {idx} in the given "
                             "schedulers sequence.")
        if optimizer is not scheduler.optimizer:
            raise ValueError(f"{owner} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(scheduler).__name__} at index {idx} has {scheduler.optimizer}, which is "
                             f"different from {type(optimizer).__name__}.")


def _nested_state(scheduler) -> dict:
    state = {key: value for key, value in scheduler.__dict__.items() if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_nested_state(scheduler, state_dict) -> None:
    state_dict = dict(state_dict)
    nested = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    for sub, sub_state in zip(scheduler._schedulers, nested):
        sub.load_state_dict(sub_state)


class SequentialLR(LRScheduler):
    """Run ``schedulers`` one after another, switching at the epochs in ``milestones``.

    At a milestone the next scheduler starts from its own epoch 0 (closed form), from the groups' initial rates.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        schedulers (list): the schedulers, all on ``optimizer``.
        milestones (list): ``len(schedulers) - 1`` increasing epochs at which to switch.
        last_epoch (int): the index of the last epoch (default: -1).

    Example:
        >>> warmup = LinearLR(optimizer, start_factor=0.1, total_iters=5)
        >>> decay = ExponentialLR(optimizer, gamma=0.9)
        >>> scheduler = SequentialLR(optimizer, schedulers=[warmup, decay], milestones=[5])
    """

    def __init__(self, optimizer: Optimizer, schedulers, milestones, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # Undo the initial steps the sub-schedulers took when they were built, then start the first one afresh.
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo_initial_steps(self)
        self._schedulers[0]._initial_step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def _undo_initial_steps(self, scheduler) -> None:
        """Step back ``last_epoch`` of ``scheduler`` (recursively for nested ones), undoing its initial step."""
        if hasattr(scheduler, "_schedulers"):
            for sub in scheduler._schedulers:
                self._undo_initial_steps(sub)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    recursive_undo = _undo_initial_steps

    def step(self) -> None:
        """Advance by one epoch, delegating to the scheduler whose turn it is."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        """The state, with each wrapped scheduler's state under ``_schedulers``."""
        return _nested_state(self)

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict`, wrapped schedulers included."""
        _load_nested_state(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Step several chainable schedulers at once: each ``step()`` calls every scheduler's ``step()`` in order, so
    their effects multiply.

    Args:
        schedulers (sequence): the chained schedulers, all on one optimizer.
        optimizer (Optimizer, optional): the wrapped optimizer (default: the first scheduler's).
    """

    def __init__(self, schedulers, optimizer: Optimizer = None) -> None:
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, but got no "
                             "scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(type(self).__name__, optimizer, schedulers)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def step(self) -> None:
        """Step every chained scheduler."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self._schedulers[-1].optimizer.param_groups]

    def state_dict(self) -> dict:
        """The state, with each wrapped scheduler's state under ``_schedulers``."""
        return _nested_state(self)

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict`, wrapped schedulers included."""
        _load_nested_state(self, state_dict)


class ReduceLROnPlateau(LRScheduler):
    """Reduce the learning rate when a metric has stopped improving.

    Each ``step(metrics)`` compares the metric with the best seen so far; after more than ``patience`` epochs
    without improvement, every group's rate is multiplied by ``factor`` (not below its ``min_lr``), and
    ``cooldown`` epochs pass before bad epochs are counted again.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        mode (str): ``'min'`` (the metric should decrease) or ``'max'`` (it should increase) (default: 'min').
        factor (float): ``new_lr = lr * factor``, below 1 (default: 0.1).
        patience (int): number of epochs without improvement tolerated before reducing (default: 10).
        threshold (float): minimum change counted as an improvement (default: 1e-4).
        threshold_mode (str): ``'rel'``: improvement means beating ``best * (1 - threshold)`` (min mode) or
            ``best * (1 + threshold)`` (max mode); ``'abs'``: beating ``best - threshold`` / ``best + threshold``
            (default: 'rel').
        cooldown (int): epochs to wait after a reduction before counting bad epochs again (default: 0).
        min_lr (float or list): lower bound of the rate, for all groups or one per group (default: 0).
        eps (float): a reduction smaller than this is skipped (default: 1e-8).

    Example:
        >>> scheduler = ReduceLROnPlateau(optimizer, "min", patience=3)
        >>> for epoch in range(10):
        ...     train(...)
        ...     scheduler.step(validate(...))
    """

    def __init__(self, optimizer: Optimizer, mode: str = "min", factor: float = 0.1, patience: int = 10,
                 threshold: float = 1e-4, threshold_mode: str = "rel", cooldown: int = 0, min_lr=0,
                 eps: float = 1e-8) -> None:
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = self._current_lrs()
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None) -> None:
        """Record the epoch's ``metrics`` (a number or one-element tensor) and reduce the rates if it has
        plateaued."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch

        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1

        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during cooldown do not count

        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0

        self._last_lr = self._current_lrs()

    def _reduce_lr(self, epoch) -> None:
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)})"
                                   f" differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                                   "usually due to a new param group being added to the optimizer. Please modify "
                                   "the `min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self) -> bool:
        """True while the cooldown after a reduction is running."""
        return self.cooldown_counter > 0

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode: str, threshold: float, threshold_mode: str) -> None:
        if mode not in {"min", "max"}:
            raise ValueError("mode " + str(mode) + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + str(threshold_mode) + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict`."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold, threshold_mode=self.threshold_mode)


def _set_momentum(group: dict, use_beta1: bool, momentum: float) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


def _init_cycled_momentum(scheduler, optimizer, base_momentum, max_momentum, last_epoch):
    """Validate and set up the momentum cycling shared by CyclicLR and OneCycleLR; returns (base, max) lists."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    scheduler.use_beta1 = "betas" in optimizer.defaults
    base_momentums = _format_param("base_momentum", optimizer, base_momentum)
    max_momentums = _format_param("max_momentum", optimizer, max_momentum)
    if last_epoch == -1:
        for m_max, m_base, group in zip(max_momentums, base_momentums, optimizer.param_groups):
            _set_momentum(group, scheduler.use_beta1, m_max)
            group["max_momentum"] = m_max
            group["base_momentum"] = m_base
    return base_momentums, max_momentums


class CyclicLR(LRScheduler):
    """Cycle each group's learning rate between ``base_lr`` and ``max_lr`` (cyclical learning rates, Smith 2017).

    A cycle rises for ``step_size_up`` steps and falls for ``step_size_down``; its amplitude is scaled by the
    policy: ``'triangular'`` (constant), ``'triangular2'`` (halved each cycle) or ``'exp_range'`` (times
    ``gamma ** iteration``), or by a custom ``scale_fn``. Momentum is cycled inversely when ``cycle_momentum``.
    Step it after every batch.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        base_lr (float or list): lower learning-rate boundary, per group or for all.
        max_lr (float or list): upper learning-rate boundary, per group or for all.
        step_size_up (int): steps in the rising half of a cycle (default: 2000).
        step_size_down (int): steps in the falling half (default: ``step_size_up``).
        mode (str): ``'triangular'``, ``'triangular2'`` or ``'exp_range'``; ignored with ``scale_fn``
            (default: 'triangular').
        gamma (float): base of the ``'exp_range'`` scaling (default: 1.0).
        scale_fn (function): custom scaling of the amplitude, with ``0 <= scale_fn(x) <= 1`` (default: None).
        scale_mode (str): whether ``scale_fn`` takes the cycle number (``'cycle'``) or the step (``'iterations'``)
            (default: 'cycle').
        cycle_momentum (bool): cycle momentum (or beta1) inversely to the rate (default: True).
        base_momentum (float or list): lower momentum boundary (default: 0.8).
        max_momentum (float or list): upper momentum boundary (default: 0.9).
        last_epoch (int): the index of the last batch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, base_lr, max_lr, step_size_up: int = 2000, step_size_down=None,
                 mode: str = "triangular", gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum=0.8, max_momentum=0.9, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        if step_size_up <= 0 or step_size_down <= 0:
            raise ValueError(f"step_size_up and step_size_down must be positive, got {step_size_up} and "
                             f"{step_size_down}")
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_mode()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.base_momentums, self.max_momentums = _init_cycled_momentum(self, optimizer, base_momentum,
                                                                            max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_mode(self) -> None:
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x) -> float:
        """The amplitude scaling of the policy (or the custom ``scale_fn``) at ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self) -> list:
        """The rate at batch ``last_epoch`` (also sets the cycled momentum when ``cycle_momentum``)."""
        self._warn_if_called_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, m_base, m_max in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums):
                _set_momentum(group, self.use_beta1, m_max - (m_max - m_base) * scale_factor * scale)
        return lrs

    def state_dict(self) -> dict:
        """The scheduler's state; a custom ``scale_fn`` is saved only as a callable object's ``__dict__``."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom", None)
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        """Load a state returned by :meth:`state_dict`."""
        state_dict = dict(state_dict)
        fn_state = state_dict.pop("_scale_fn_custom", None)
        super().load_state_dict(state_dict)
        if fn_state is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(fn_state)
        self._init_scale_mode()


class CosineAnnealingWarmRestarts(LRScheduler):
    r"""Cosine annealing with warm restarts (SGDR): within a period of :math:`T_i` epochs

    .. math::
        \eta_t = \eta_{min} + \tfrac12(\eta_{max} - \eta_{min})\left(1 + \cos\tfrac{T_{cur}\pi}{T_i}\right)

    and the rate jumps back to the initial lr at each restart; periods grow by ``T_mult``.
    ``step(epoch)`` accepts a fractional epoch (e.g. ``epoch + i / iters`` per batch).

    Args:
        optimizer (Optimizer): wrapped optimizer.
        T_0 (int): number of epochs until the first restart.
        T_mult (int): factor by which :math:`T_i` grows after each restart (default: 1).
        eta_min (float): minimum learning rate (default: 0).
        last_epoch (int): the index of the last epoch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, T_0: int, T_mult: int = 1, eta_min: float = 0.0,
                 last_epoch: int = -1) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list:
        """The cosine rate at ``T_cur`` within the current period."""
        self._warn_if_called_outside_step()
        return [self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base_lr in self.base_lrs]

    def step(self, epoch=None) -> None:
        """Advance by one epoch, or go to ``epoch`` (which may be fractional, for per-batch stepping)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        with _FlagOn(self, "_get_lr_called_within_step"):
            values = self.get_lr()
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = self._current_lrs()


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin, "Super-Convergence"): the rate rises from ``max_lr / div_factor`` to
    ``max_lr`` over the first ``pct_start`` of the steps, then anneals to ``initial_lr / final_div_factor``;
    momentum moves inversely. Step it after every batch.

    With ``three_phase=True`` the rate comes back down to the initial rate symmetrically before a third phase
    anneals it to the minimum (the paper's schedule); the default two phases follow fastai.

    Args:
        optimizer (Optimizer): wrapped optimizer.
        max_lr (float or list): peak learning rate, per group or for all.
        total_steps (int): total number of steps; or give ``epochs`` and ``steps_per_epoch`` (default: None).
        epochs (int): number of epochs (default: None).
        steps_per_epoch (int): steps per epoch (default: None).
        pct_start (float): fraction of the steps spent increasing the rate (default: 0.3).
        anneal_strategy (str): ``'cos'`` or ``'linear'`` (default: 'cos').
        cycle_momentum (bool): cycle momentum (or beta1) inversely to the rate (default: True).
        base_momentum (float or list): momentum at the peak rate (default: 0.85).
        max_momentum (float or list): momentum at the start and end (default: 0.95).
        div_factor (float): ``initial_lr = max_lr / div_factor`` (default: 25).
        final_div_factor (float): ``min_lr = initial_lr / final_div_factor`` (default: 1e4).
        three_phase (bool): use the three-phase schedule (default: False).
        last_epoch (int): the index of the last batch (default: -1).
    """

    def __init__(self, optimizer: Optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum=0.85, max_momentum=0.95, div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1) -> None:
        _check_optimizer(optimizer)
        self.optimizer = optimizer
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")

        if three_phase:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"},
            ]
        else:
            self._schedule_phases = [
                {"end_step": float(pct_start * self.total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
            ]

        if not isinstance(pct_start, float) or pct_start < 0 or pct_start > 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy

        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for max_lr_i, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = max_lr_i / div_factor
                group["max_lr"] = max_lr_i
                group["min_lr"] = group["initial_lr"] / final_div_factor

        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            _init_cycled_momentum(self, optimizer, base_momentum, max_momentum, last_epoch)
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> list:
        """The rate at batch ``last_epoch`` (also sets the cycled momentum when ``cycle_momentum``)."""
        self._warn_if_called_outside_step()
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps is "
                             f"{self.total_steps}")
        lrs = []
        last_phase = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == last_phase:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        momentum = self._anneal_func(group[phase["start_momentum"]], group[phase["end_momentum"]],
                                                     pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                _set_momentum(group, self.use_beta1, momentum)
        return lrs
