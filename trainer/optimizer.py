"""Parsing ``configure_optimizers`` and the ``LightningOptimizer`` wrapper used in manual optimization."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, fields
from typing import Any, List, Optional, Tuple

from .exceptions import MisconfigurationException

__all__ = ["LRSchedulerConfig", "LightningOptimizer", "configure_optimizers", "validate_scheduler_api"]


@dataclass
class LRSchedulerConfig:
    """How the Trainer steps one scheduler: ``interval`` ("epoch" or "step"), ``frequency``, ``monitor``..."""

    scheduler: Any
    name: Optional[str] = None
    interval: str = "epoch"
    frequency: int = 1
    reduce_on_plateau: bool = False
    monitor: Optional[str] = None
    strict: bool = True


class LightningOptimizer:
    """Wraps an optimizer for manual optimization: ``step`` fires ``on_before_optimizer_step`` and counts towards
    ``global_step``; everything else is forwarded to the wrapped optimizer (``.optimizer``)."""

    def __init__(self, optimizer, trainer=None):
        self._optimizer = optimizer
        self._trainer = trainer

    @property
    def optimizer(self):
        """The wrapped optimizer."""
        return self._optimizer

    def __getattr__(self, name):
        return getattr(self._optimizer, name)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """``optimizer.zero_grad``."""
        self._optimizer.zero_grad(set_to_none=set_to_none)

    def step(self, closure=None, **kwargs):
        """Step the optimizer: runs ``closure`` (if given), then ``on_before_optimizer_step``, then the update."""
        trainer = self._trainer

        loop = trainer.fit_loop.epoch_loop.optimization if trainer is not None else None

        def wrapped():
            result = closure() if closure is not None else None
            if loop is not None:
                loop.before_optimizer_step(self)
            return result

        if closure is None:
            result = wrapped()
            out = self._optimizer.step(**kwargs)
            result = out if out is not None else result
        else:
            result = self._optimizer.step(closure=wrapped, **kwargs)
        if loop is not None:
            loop.after_optimizer_step()
        return result

    def __repr__(self):
        return f"LightningOptimizer({self._optimizer!r})"


_CONFIG_KEYS = {f.name for f in fields(LRSchedulerConfig)}


def _is_optimizer(obj) -> bool:
    from ..core.optim import Optimizer
    return isinstance(obj, Optimizer)


# In manual optimization the user steps the schedulers; these keys only matter to the Trainer's stepping
_MANUAL_IGNORED_KEYS = ("reduce_on_plateau", "monitor", "strict")


def _manual_scheduler_config(entry) -> LRSchedulerConfig:
    if not isinstance(entry, dict):
        return LRSchedulerConfig(entry)
    ignored = [k for k in entry if k in _MANUAL_IGNORED_KEYS]
    if ignored:
        warnings.warn(f"The lr scheduler dict contains the key(s) {ignored}, but the keys will be ignored. You need "
                      "to call `lr_scheduler.step()` manually in manual optimization.", RuntimeWarning)
    if "scheduler" not in entry:
        raise MisconfigurationException('The lr scheduler dict must have the key "scheduler" with its item being '
                                        "an lr scheduler")
    # ``interval`` stays: LearningRateMonitor reads it to know when to log
    return LRSchedulerConfig(**{k: v for k, v in entry.items() if k in _CONFIG_KEYS and k not in _MANUAL_IGNORED_KEYS})


def _scheduler_config(entry, default_monitor=None, automatic: bool = True) -> LRSchedulerConfig:
    from ..core.optim.lr_scheduler import ReduceLROnPlateau
    if not automatic:
        return _manual_scheduler_config(entry)
    if isinstance(entry, dict):
        if "scheduler" not in entry:
            raise MisconfigurationException('The lr scheduler dict must have the key "scheduler" with its item being '
                                            "an lr scheduler")
        unknown = set(entry) - _CONFIG_KEYS
        if unknown:
            warnings.warn(f"Found unsupported keys in the lr scheduler dict: {sorted(unknown)}. HINT: remove them "
                          "from the output of `configure_optimizers`.", RuntimeWarning)
        cfg = LRSchedulerConfig(**{k: v for k, v in entry.items() if k in _CONFIG_KEYS})
        if "monitor" not in entry and default_monitor is not None:
            cfg.monitor = default_monitor
    else:
        cfg = LRSchedulerConfig(entry, monitor=default_monitor)
    if cfg.interval not in ("step", "epoch"):
        raise MisconfigurationException(f'The "interval" key in lr scheduler dict must be "step" or "epoch" but is '
                                        f'"{cfg.interval}"')
    if not isinstance(cfg.frequency, int) or cfg.frequency < 1:
        raise MisconfigurationException(f'The "frequency" key in lr scheduler dict must be a positive int, got '
                                        f"{cfg.frequency!r}")
    cfg.reduce_on_plateau = isinstance(cfg.scheduler, ReduceLROnPlateau)
    if cfg.reduce_on_plateau and cfg.monitor is None:
        raise MisconfigurationException(
            "`configure_optimizers` must include a monitor when a `ReduceLROnPlateau` scheduler is used. For example:"
            ' {"optimizer": optimizer, "lr_scheduler": scheduler, "monitor": "metric_to_track"}')
    return cfg


def configure_optimizers(output, automatic: bool = True) -> Tuple[List[Any], List[LRSchedulerConfig]]:
    """Turn any of Lightning's ``configure_optimizers`` return forms into (optimizers, scheduler configs).

    In manual optimization (``automatic=False``) schedulers need no ``monitor``: the Trainer never steps them.
    """
    optimizers: List[Any] = []
    configs: List[LRSchedulerConfig] = []
    if output is None:
        warnings.warn("`LightningModule.configure_optimizers` returned `None`, this fit will run with no optimizer",
                      UserWarning)
        return [], []
    if _is_optimizer(output):
        return [output], []
    if isinstance(output, dict):
        output = [output]
    if isinstance(output, (list, tuple)):
        if len(output) == 2 and isinstance(output[0], (list, tuple)) and all(_is_optimizer(o) for o in output[0]):
            optimizers = list(output[0])
            scheds = output[1] if isinstance(output[1], (list, tuple)) else [output[1]]
            configs = [_scheduler_config(s, automatic=automatic) for s in scheds]
        elif all(isinstance(o, dict) for o in output) and output:
            for entry in output:
                if "optimizer" not in entry:
                    raise MisconfigurationException(
                        f'A dict returned by `configure_optimizers` must have the key "optimizer", got keys '
                        f"{sorted(entry)}")
                extra = set(entry) - {"optimizer", "lr_scheduler", "monitor"}
                if extra:
                    warnings.warn(f"Found unsupported keys in the optimizer configuration: {sorted(extra)}",
                                  RuntimeWarning)
                optimizers.append(entry["optimizer"])
                if entry.get("lr_scheduler") is not None:
                    configs.append(_scheduler_config(entry["lr_scheduler"], entry.get("monitor"), automatic))
        elif all(_is_optimizer(o) for o in output) and output:
            optimizers = list(output)
        else:
            raise MisconfigurationException(f"Unknown configuration for model optimizers: {output!r}. Return an "
                                            "optimizer, a list of them, ([optimizers], [schedulers]), a dict with "
                                            '"optimizer" (and "lr_scheduler", "monitor"), or a list of such dicts.')
    else:
        raise MisconfigurationException(f"Unknown configuration for model optimizers: {output!r}")
    for cfg in configs:
        opt = getattr(cfg.scheduler, "optimizer", None)
        if opt is not None and not any(opt is o for o in optimizers):
            raise MisconfigurationException("Some schedulers are attached with an optimizer that wasn't returned "
                                            "from `configure_optimizers`.")
    return optimizers, configs


def validate_scheduler_api(configs: List[LRSchedulerConfig], module) -> None:
    """Lightning's checks: a scheduler must be stateful (checkpoints save it), and one that is not an
    ``LRScheduler`` needs ``lr_scheduler_step`` overridden in automatic optimization (the Trainer cannot know how to
    step it)."""
    from ..core.optim.lr_scheduler import LRScheduler
    from .call import is_overridden
    from .module import LightningModule
    for config in configs:
        scheduler = config.scheduler
        name = type(scheduler).__name__
        if not (callable(getattr(scheduler, "state_dict", None)) and
                callable(getattr(scheduler, "load_state_dict", None))):
            raise TypeError(f"The provided lr scheduler `{name}` is invalid. It should have `state_dict` and "
                            "`load_state_dict` methods defined.")
        if not isinstance(scheduler, LRScheduler) and module.automatic_optimization and \
                not is_overridden("lr_scheduler_step", module, LightningModule):
            raise MisconfigurationException(
                f"The provided lr scheduler `{name}` doesn't follow PyTorch's LRScheduler API. You should override the "
                "`LightningModule.lr_scheduler_step` hook with your own logic if you are using a custom LR scheduler.")
