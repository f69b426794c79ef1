"""The fit loop: epochs of training (each with its validation) until a stopping condition holds."""
from __future__ import annotations

import logging
import math
from typing import Any, Dict, List

from ..call import call_callback_hooks, call_module_hook, is_overridden
from ..exceptions import MisconfigurationException
from .progress import Progress
from .training_epoch_loop import TrainingEpochLoop

__all__ = ["FitLoop"]

log = logging.getLogger("ember.trainer")


class FitLoop:
    """Runs training epochs; ``current_epoch`` is the number of completed epochs."""

    def __init__(self, trainer, min_epochs, max_epochs):
        self.trainer = trainer
        self.min_epochs = min_epochs
        self.max_epochs = max_epochs
        self.epoch_progress = Progress()
        self.epoch_loop = TrainingEpochLoop(trainer)
        self._outputs: List[Any] = []
        self._restarted_mid_epoch = False
        self._stop_reason = None

    @property
    def current_epoch(self) -> int:
        return self.epoch_progress.current.completed

    @property
    def _can_stop_early(self) -> bool:
        trainer = self.trainer
        met_min_epochs = self.epoch_progress.current.processed >= self.min_epochs if self.min_epochs else True
        met_min_steps = self.epoch_loop.global_step >= trainer.min_steps if trainer.min_steps else True
        return met_min_epochs and met_min_steps

    @property
    def done(self) -> bool:
        trainer = self.trainer
        if trainer.num_training_batches == 0:
            self._stop_reason = "No training batches."
            return True
        if self.epoch_loop.max_steps_reached():
            self._stop_reason = f"`max_steps={trainer.max_steps}` reached."
            return True
        if self.max_epochs is not None and self.max_epochs != -1 and self.current_epoch >= self.max_epochs:
            self._stop_reason = f"`max_epochs={self.max_epochs}` reached."
            return True
        if trainer.should_stop and self._can_stop_early:
            self._stop_reason = "signaled to stop."
            return True
        return False

    def run(self) -> None:
        trainer = self.trainer
        if self.done:
            self._announce_stop()
            return
        call_callback_hooks(trainer, "on_train_start")
        call_module_hook(trainer, "on_train_start")
        while not self.done:
            self._run_epoch()
        self._announce_stop()
        call_callback_hooks(trainer, "on_train_end")
        call_module_hook(trainer, "on_train_end")

    def _announce_stop(self) -> None:
        if self._stop_reason and self.trainer.is_global_zero:
            log.info(f"`Trainer.fit` stopped: {self._stop_reason}")

    def _run_epoch(self) -> None:
        trainer = self.trainer
        mid_epoch = self.epoch_loop.batch_progress.current.completed > 0
        if not mid_epoch:
            trainer._reload_train_dataloader_if_needed()
            _set_sampler_epoch(trainer.train_dataloader, self.current_epoch)
            self.epoch_progress.increment_ready()
            trainer._logger_connector.current = trainer._logger_connector.train_results
            call_callback_hooks(trainer, "on_train_epoch_start")
            call_module_hook(trainer, "on_train_epoch_start")
            self.epoch_progress.increment_started()
        self._outputs = []
        with trainer.profiler.profile("run_training_epoch"):
            self.epoch_loop.run(trainer.train_dataloader)
        self.epoch_progress.increment_processed()
        module = trainer.lightning_module
        connector = trainer._logger_connector
        connector.current = connector.train_results
        connector.epoch_end_reached = True
        if is_overridden("training_epoch_end", module, _lightning_module_cls()):
            call_module_hook(trainer, "training_epoch_end", self._outputs)
        # monitoring callbacks (checkpointing, early stopping) run after the module so they can see its epoch-end logs
        call_callback_hooks(trainer, "on_train_epoch_end", monitoring_callbacks=False)
        call_module_hook(trainer, "on_train_epoch_end")
        call_callback_hooks(trainer, "on_train_epoch_end", monitoring_callbacks=True)
        epoch_loop = self.epoch_loop
        connector.on_train_epoch_end(max(epoch_loop._batches_that_stepped - 1, 0))
        connector.epoch_end_reached = False
        self.epoch_progress.increment_completed()
        self._outputs = []
        if module.automatic_optimization and epoch_loop._num_ready_batches_reached():
            epoch_loop._update_lr_schedulers("epoch", epoch_loop.batch_idx, plateau=True)
        epoch_loop.batch_progress.reset_on_run()

    # ----------------------------------------------------------------------------------------------- state
    def state_dict(self) -> Dict[str, Any]:
        return {"epoch_progress": self.epoch_progress.state_dict(), "epoch_loop": self.epoch_loop.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.epoch_progress.load_state_dict(state["epoch_progress"])
        self.epoch_loop.load_state_dict(state["epoch_loop"])
        ep = self.epoch_progress
        bp = self.epoch_loop.batch_progress
        if ep.current.processed > ep.current.completed:
            # saved at the end of an epoch (e.g. by ModelCheckpoint in on_train_epoch_end): that epoch is done
            ep.current.completed = ep.current.processed = max(ep.current.processed, ep.current.completed + 1)
            ep.total.completed = ep.total.processed = max(ep.total.processed, ep.total.completed)
            bp.reset_on_run()
        elif bp.current.completed > 0:
            bp.reset_on_restart()


def _set_sampler_epoch(loader, epoch: int) -> None:
    for sampler in (getattr(loader, "sampler", None), getattr(getattr(loader, "batch_sampler", None), "sampler", None)):
        if sampler is not None and callable(getattr(sampler, "set_epoch", None)):
            sampler.set_epoch(epoch)


def _lightning_module_cls():
    from ..module import LightningModule
    return LightningModule


def validate_max_epochs(max_epochs, min_epochs, max_steps):
    """Lightning's defaults: neither max_epochs nor max_steps given means 1000 epochs; -1 means infinite."""
    if max_epochs is None:
        max_epochs = 1000 if max_steps == -1 else -1
    if min_epochs is not None and max_epochs != -1 and min_epochs > max_epochs:
        raise MisconfigurationException(f"`max_epochs` ({max_epochs}) must be >= `min_epochs` ({min_epochs})")
    return max_epochs if max_epochs != math.inf else -1
