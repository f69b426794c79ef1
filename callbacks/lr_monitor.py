"""``LearningRateMonitor``: log the learning rate (and optionally momentum and weight decay) of each param group."""
from __future__ import annotations

import warnings
from collections import defaultdict
from typing import Any, Dict, List, Optional, Set, Tuple

from .callback import Callback
from .checkpoint import _misconfigured

__all__ = ["LearningRateMonitor"]


class LearningRateMonitor(Callback):
    r"""Log the learning rates during training, with Lightning's key names.

    Keys are ``lr-<OptimizerClass>`` (or the scheduler config's ``name``); a second optimizer of the same class gets
    ``-1`` (then ``-2``...), and an optimizer with several parameter groups gets ``/pg1``, ``/pg2``... (or the
    group's ``"name"``). Momentum and weight decay use the same key plus ``-momentum`` / ``-weight_decay``.

    Args:
        logging_interval: ``"step"`` or ``"epoch"`` to log at that interval for every optimizer; ``None`` follows
            each scheduler's own ``interval`` (optimizers without a scheduler are logged at every step and epoch
            start).
        log_momentum: also log the momentum (``betas[0]`` for Adam-style optimizers; 0 without momentum).
        log_weight_decay: also log the weight decay.
        log_key_prefix: a string put in front of every key (e.g. ``"optim/"`` gives ``optim/lr-Adam``).

    Step values are logged every ``log_every_n_steps`` at the Trainer's logging step. The last values logged are
    also put into ``trainer.callback_metrics``.

    Example::

        trainer = em.Trainer(callbacks=[LearningRateMonitor(logging_interval="step")])
    """

    def __init__(self, logging_interval: Optional[str] = None, log_momentum: bool = False,
                 log_weight_decay: bool = False, log_key_prefix: Optional[str] = None) -> None:
        super().__init__()
        if logging_interval not in (None, "step", "epoch"):
            raise _misconfigured("logging_interval should be `step` or `epoch` or `None`.")
        self.logging_interval = logging_interval
        self.log_momentum = log_momentum
        self.log_weight_decay = log_weight_decay
        self.log_key_prefix = log_key_prefix or ""
        self.lrs: Dict[str, List[float]] = {}
        self.last_momentum_values: Dict[str, Optional[float]] = {}
        self.last_weight_decay_values: Dict[str, Optional[float]] = {}

    # ---------------------------------------------------------------------------------------------- hooks
    def on_train_start(self, trainer, pl_module) -> None:
        if not trainer.loggers:
            raise _misconfigured("Cannot use `LearningRateMonitor` callback with `Trainer` that has no logger.")
        if self.log_momentum:
            def missing(key: str) -> bool:
                if trainer.lr_scheduler_configs:
                    return any(key not in cfg.scheduler.optimizer.defaults for cfg in trainer.lr_scheduler_configs)
                return any(key not in _unwrap(opt).defaults for opt in trainer.optimizers)

            if missing("momentum") and missing("betas"):
                warnings.warn("You have set log_momentum=True, but some optimizers do not have momentum. This will "
                              "log a value 0 for the momentum.", RuntimeWarning)
        sched_names, seen, seen_types = self._find_names_from_schedulers(trainer.lr_scheduler_configs)
        opt_names, _ = self._find_names_from_optimizers(trainer.optimizers, seen, seen_types)
        flat = [name for group in sched_names + opt_names for name in group]
        self.lrs = {name: [] for name in flat}
        self.last_momentum_values = {f"{name}-momentum": None for name in flat}
        self.last_weight_decay_values = {f"{name}-weight_decay": None for name in flat}

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        if not _should_update_logs(trainer) or self.logging_interval == "epoch":
            return
        stats = self._extract_stats(trainer, "step" if self.logging_interval is None else "any")
        self._log(trainer, stats)

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        if self.logging_interval == "step":
            return
        stats = self._extract_stats(trainer, "epoch" if self.logging_interval is None else "any")
        self._log(trainer, stats)

    @staticmethod
    def _log(trainer, stats: Dict[str, float]) -> None:
        if stats and trainer.is_global_zero:
            step = trainer.fit_loop.epoch_loop._batches_that_stepped
            for logger in trainer.loggers:
                logger.log_metrics(stats, step=step)

    # ---------------------------------------------------------------------------------------------- values
    def _extract_stats(self, trainer, interval: str) -> Dict[str, float]:
        stats: Dict[str, float] = {}
        sched_names, seen, seen_types = self._find_names_from_schedulers(trainer.lr_scheduler_configs)
        self._remap_keys(sched_names)
        for names, cfg in zip(sched_names, trainer.lr_scheduler_configs):
            if interval in (cfg.interval, "any"):
                stats.update(self._get_optimizer_stats(cfg.scheduler.optimizer, names))
        opt_names, unscheduled = self._find_names_from_optimizers(trainer.optimizers, seen, seen_types)
        self._remap_keys(opt_names)
        # optimizers without a scheduler are logged at every opportunity (as Lightning does)
        for opt, names in zip(unscheduled, opt_names):
            stats.update(self._get_optimizer_stats(opt, names))
        if stats:
            from ..core.tensor import Tensor
            import numpy as np
            trainer.callback_metrics.update(
                {k: Tensor._make(np.asarray(v, dtype=np.float32)) for k, v in stats.items()})
        return stats

    def _get_optimizer_stats(self, optimizer, names: List[str]) -> Dict[str, float]:
        stats: Dict[str, float] = {}
        use_betas = "betas" in optimizer.defaults
        for group, name in zip(optimizer.param_groups, names):
            lr = float(group["lr"])
            self.lrs.setdefault(name, []).append(lr)
            stats[name] = lr
            if self.log_momentum:
                momentum = group["betas"][0] if use_betas else group.get("momentum", 0)
                self.last_momentum_values[f"{name}-momentum"] = float(momentum)
                stats[f"{name}-momentum"] = float(momentum)
            if self.log_weight_decay:
                decay = float(group.get("weight_decay", 0))
                self.last_weight_decay_values[f"{name}-weight_decay"] = decay
                stats[f"{name}-weight_decay"] = decay
        return stats

    def _remap_keys(self, names: List[List[str]], token: str = "/pg1") -> None:
        # an optimizer that gained param groups (e.g. fine-tuning) renames "lr-SGD" to "lr-SGD/pg1": keep its history
        for group_names in names:
            for new_name in group_names:
                old_name = new_name.replace(token, "")
                if token in new_name and old_name in self.lrs:
                    self.lrs[new_name] = self.lrs.pop(old_name)
                elif new_name not in self.lrs:
                    self.lrs[new_name] = []

    # ----------------------------------------------------------------------------------------------- names
    def _find_names_from_schedulers(self, configs) -> Tuple[List[List[str]], list, Dict[type, int]]:
        names, seen, seen_types = [], [], defaultdict(int)
        for cfg in configs:
            name = cfg.name if cfg.name is not None else "lr-" + type(cfg.scheduler.optimizer).__name__
            names.append(self._check_duplicates_and_update_name(cfg.scheduler.optimizer, name, seen, seen_types, cfg))
        return names, seen, seen_types

    def _find_names_from_optimizers(self, optimizers, seen: list, seen_types) -> Tuple[List[List[str]], list]:
        names, unscheduled = [], []
        for opt in optimizers:
            opt = _unwrap(opt)
            if any(opt is s for s in seen):
                continue
            name = "lr-" + type(opt).__name__
            names.append(self._check_duplicates_and_update_name(opt, name, seen, seen_types, None))
            unscheduled.append(opt)
        return names, unscheduled

    def _check_duplicates_and_update_name(self, optimizer, name: str, seen: list, seen_types, config) -> List[str]:
        seen.append(optimizer)
        cls = type(optimizer)
        if config is None or config.name is None:
            seen_types[cls] += 1
        groups = optimizer.param_groups
        duplicates = _duplicate_param_group_names(groups)
        if duplicates:
            raise _misconfigured("A single `Optimizer` cannot have multiple parameter groups with identical `name` "
                                 f"values. {name} has duplicated parameter group names {duplicates}")
        count = seen_types.get(cls, 0)
        if count > 1:
            name = f"{name}-{count - 1}"
        return [self.log_key_prefix + _add_suffix(name, groups, i) for i in range(len(groups))]


def _unwrap(optimizer):
    return getattr(optimizer, "optimizer", optimizer)


def _add_suffix(name: str, groups: List[Dict[str, Any]], index: int) -> str:
    if len(groups) > 1:
        return f"{name}/{groups[index].get('name', f'pg{index + 1}')}"
    group_name = groups[index].get("name")
    return f"{name}/{group_name}" if group_name else name


def _duplicate_param_group_names(groups) -> Set[str]:
    names = [g.get("name", f"pg{i}") for i, g in enumerate(groups, start=1)]
    return {n for n in names if names.count(n) > 1}


def _should_update_logs(trainer) -> bool:
    """The Trainer logs step values when ``(batches that stepped + 1) % log_every_n_steps == 0``."""
    every = trainer.log_every_n_steps
    stepped = trainer.fit_loop.epoch_loop._batches_that_stepped
    return (every > 0 and (stepped + 1) % every == 0) or trainer.should_stop
