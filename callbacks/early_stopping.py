"""``EarlyStopping``: stop training when a monitored metric stops improving (or crosses a threshold)."""
from __future__ import annotations

import logging
import math
from enum import Enum
from typing import Any, Dict, Optional, Tuple

from .callback import Callback
from ..trainer.states import TrainerFn
from .checkpoint import _misconfigured

__all__ = ["EarlyStopping", "EarlyStoppingReason"]

log = logging.getLogger("ember.trainer.callbacks")


class EarlyStoppingReason(str, Enum):
    """Why :class:`EarlyStopping` stopped the run (``EarlyStopping.stopping_reason``)."""

    NOT_STOPPED = "not_stopped"
    STOPPING_THRESHOLD = "stopping_threshold"
    DIVERGENCE_THRESHOLD = "divergence_threshold"
    PATIENCE_EXHAUSTED = "patience_exhausted"
    NON_FINITE_METRIC = "non_finite_metric"


class EarlyStopping(Callback):
    r"""Stop training when a monitored metric has stopped improving (Lightning's ``EarlyStopping``).

    Args:
        monitor: the logged quantity to monitor.
        min_delta: the smallest change that counts as an improvement (an absolute change below it does not).
        patience: how many checks without improvement to accept before stopping. A check happens at the end of
            each validation (or training epoch, see ``check_on_train_epoch_end``), so with
            ``check_val_every_n_epoch=2`` patience counts every other epoch.
        verbose: log each improvement as well as the stopping reason.
        mode: ``"min"`` (stop when the quantity stops decreasing) or ``"max"``.
        strict: raise if ``monitor`` was not logged (otherwise warn when ``verbose`` and skip the check).
        check_finite: stop when the monitored value becomes NaN or infinite.
        stopping_threshold: stop as soon as the quantity is better than this.
        divergence_threshold: stop as soon as the quantity is worse than this.
        check_on_train_epoch_end: check at the end of the training epoch (True) or after validation (False).
            ``None`` checks at the training epoch end only when validation runs once per epoch, every epoch.
        log_rank_zero_only: log the messages on rank zero only.

    The Trainer's ``min_epochs``/``min_steps`` keep training going even when this callback asks to stop. Once it
    stops, :attr:`stopping_reason` and :attr:`stopping_reason_message` say why; both are saved in checkpoints.

    Example::

        trainer = em.Trainer(callbacks=[EarlyStopping(monitor="val_loss", patience=3)])
    """

    mode_dict = {"min": "lt", "max": "gt"}
    order_dict = {"min": "<", "max": ">"}
    _monitors_metrics = True

    def __init__(self, monitor: str, min_delta: float = 0.0, patience: int = 3, verbose: bool = False,
                 mode: str = "min", strict: bool = True, check_finite: bool = True,
                 stopping_threshold: Optional[float] = None, divergence_threshold: Optional[float] = None,
                 check_on_train_epoch_end: Optional[bool] = None, log_rank_zero_only: bool = False):
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStopping(monitor={monitor!r}): monitor must be the name of a logged metric")
        if mode not in self.mode_dict:
            raise _misconfigured(f"`mode` can be {', '.join(self.mode_dict.keys())}, got {mode}")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping(patience={patience!r}): expected an int >= 0")
        self.monitor = monitor
        self.mode = mode
        self.patience = patience
        self.verbose = verbose
        self.strict = strict
        self.check_finite = check_finite
        self.stopping_threshold = stopping_threshold
        self.divergence_threshold = divergence_threshold
        self.log_rank_zero_only = log_rank_zero_only
        self._check_on_train_epoch_end = check_on_train_epoch_end
        # the sign of min_delta makes "current - min_delta better than best" mean "better by at least |min_delta|"
        self.min_delta = float(min_delta) * (1 if mode == "max" else -1)
        self.wait_count = 0
        self.stopped_epoch = 0
        self.best_score = math.inf if mode == "min" else -math.inf
        self.stopping_reason = EarlyStoppingReason.NOT_STOPPED
        self.stopping_reason_message: Optional[str] = None

    @property
    def state_key(self) -> str:
        """Built from ``monitor`` and ``mode``, so several EarlyStopping callbacks can coexist in a checkpoint."""
        return self._generate_state_key(monitor=self.monitor, mode=self.mode)

    def monitor_op(self, a: float, b: float) -> bool:
        """``a < b`` in ``"min"`` mode, ``a > b`` in ``"max"`` mode."""
        return a < b if self.mode == "min" else a > b

    # ---------------------------------------------------------------------------------------------- hooks
    def setup(self, trainer, pl_module, stage: str) -> None:
        if self._check_on_train_epoch_end is None:
            self._check_on_train_epoch_end = trainer.val_check_interval == 1.0 and \
                trainer.check_val_every_n_epoch == 1

    def _should_skip_check(self, trainer) -> bool:
        return trainer.state.fn != TrainerFn.FITTING or trainer.sanity_checking

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if not self._check_on_train_epoch_end or self._should_skip_check(trainer):
            return
        self._run_early_stopping_check(trainer)

    def on_validation_end(self, trainer, pl_module) -> None:
        if self._check_on_train_epoch_end or self._should_skip_check(trainer):
            return
        self._run_early_stopping_check(trainer)

    # ------------------------------------------------------------------------------------------------ state
    def state_dict(self) -> Dict[str, Any]:
        """The counters, the best score and the stopping reason."""
        return {"wait_count": self.wait_count, "stopped_epoch": self.stopped_epoch, "best_score": self.best_score,
                "patience": self.patience, "stopping_reason": self.stopping_reason.value,
                "stopping_reason_message": self.stopping_reason_message}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.wait_count = state_dict["wait_count"]
        self.stopped_epoch = state_dict["stopped_epoch"]
        best = state_dict["best_score"]
        self.best_score = float(best.item() if hasattr(best, "item") else best)
        self.patience = state_dict["patience"]
        self.stopping_reason = EarlyStoppingReason(state_dict.get("stopping_reason", "not_stopped"))
        self.stopping_reason_message = state_dict.get("stopping_reason_message")

    # ---------------------------------------------------------------------------------------------- the check
    def _validate_condition_metric(self, logs: Dict[str, Any]) -> bool:
        if logs.get(self.monitor) is not None:
            return True
        message = (f"Early stopping conditioned on metric `{self.monitor}` which is not available. Pass in or modify "
                   "your `EarlyStopping` callback to use any of the following: "
                   f"`{'`, `'.join(list(logs.keys()))}`")
        if self.strict:
            raise RuntimeError(message)
        if self.verbose:
            import warnings
            warnings.warn(message, RuntimeWarning)
        return False

    def _run_early_stopping_check(self, trainer) -> None:
        logs = trainer.callback_metrics
        if trainer.fast_dev_run or not self._validate_condition_metric(logs):
            return
        value = logs[self.monitor]
        current = float(value.item() if hasattr(value, "item") else value)
        should_stop, reason, message = self._evaluate_stopping_criteria(current)
        # any rank that wants to stop stops them all
        should_stop = trainer.strategy.reduce_boolean_decision(should_stop, all=False)
        trainer.should_stop = trainer.should_stop or should_stop
        if should_stop:
            self.stopped_epoch = trainer.current_epoch
            self.stopping_reason = reason if reason is not None else EarlyStoppingReason.PATIENCE_EXHAUSTED
            self.stopping_reason_message = message
            self._log_info(trainer, message)
        elif message and self.verbose:
            self._log_info(trainer, message)

    def _evaluate_stopping_criteria(self, current: float) -> Tuple[bool, Optional[EarlyStoppingReason], Optional[str]]:
        if self.check_finite and not math.isfinite(current):
            return True, EarlyStoppingReason.NON_FINITE_METRIC, (
                f"Monitored metric {self.monitor} = {current} is not finite. Previous best value was "
                f"{self.best_score:.3f}. Signaling Trainer to stop.")
        if self.stopping_threshold is not None and self.monitor_op(current, self.stopping_threshold):
            return True, EarlyStoppingReason.STOPPING_THRESHOLD, (
                f"Stopping threshold reached: {self.monitor} = {current} {self.order_dict[self.mode]} "
                f"{self.stopping_threshold}. Signaling Trainer to stop.")
        if self.divergence_threshold is not None and self.monitor_op(-current, -self.divergence_threshold):
            return True, EarlyStoppingReason.DIVERGENCE_THRESHOLD, (
                f"Divergence threshold reached: {self.monitor} = {current} {self.order_dict[self.mode]} "
                f"{self.divergence_threshold}. Signaling Trainer to stop.")
        if self.monitor_op(current - self.min_delta, self.best_score):
            message = self._improvement_message(current)
            self.best_score = current
            self.wait_count = 0
            return False, None, message
        self.wait_count += 1
        if self.wait_count >= self.patience:
            return True, EarlyStoppingReason.PATIENCE_EXHAUSTED, (
                f"Monitored metric {self.monitor} did not improve in the last {self.wait_count} records. Best score: "
                f"{self.best_score:.3f}. Signaling Trainer to stop.")
        return False, None, None

    def _improvement_message(self, current: float) -> str:
        if math.isfinite(self.best_score):
            return (f"Metric {self.monitor} improved by {abs(self.best_score - current):.3f} >= min_delta = "
                    f"{abs(self.min_delta)}. New best score: {current:.3f}")
        return f"Metric {self.monitor} improved. New best score: {current:.3f}"

    def _log_info(self, trainer, message: str) -> None:
        rank = trainer.global_rank
        if trainer.world_size > 1:
            message = f"[rank: {rank}] {message}"
        if not self.log_rank_zero_only or rank == 0:
            log.info(message)
