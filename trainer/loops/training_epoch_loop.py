"""The training epoch loop: fetch batches, optimize, step schedulers, log, and validate when it is time."""
from __future__ import annotations

import math
from typing import Any, Dict, Optional

from ..call import call_callback_hooks, call_module_hook
from ..checkpoint_connector import snapshot_rng_states
from ..exceptions import MisconfigurationException
from ..states import RunningStage
from .evaluation_loop import EvaluationLoop
from .optimization import AutomaticOptimization, ManualOptimization
from .progress import BatchProgress

__all__ = ["TrainingEpochLoop"]


class TrainingEpochLoop:
    """One pass over the training loader (or until ``max_steps``, early stop, or ``on_train_batch_start`` -> -1)."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.batch_progress = BatchProgress()
        self.batch_start_rng: Optional[tuple] = None  # see interrupted_batch_rng_states
        self.automatic_optimization = AutomaticOptimization(trainer)
        self.manual_optimization = ManualOptimization(trainer)
        self.val_loop = EvaluationLoop(trainer, RunningStage.VALIDATING)
        self._batches_that_stepped = 0
        self._total_batch_idx = 0
        self._stop_epoch = False
        self._loader_state: Optional[Dict[str, Any]] = None
        self._current_batch_stepped = False
        self._val_pending = False

    # -------------------------------------------------------------------------------------------------- status
    @property
    def global_step(self) -> int:
        """Optimizer steps so far (every ``optimizer.step`` in manual mode)."""
        if self.trainer.lightning_module is not None and not self.trainer.lightning_module.automatic_optimization:
            return self.manual_optimization.optimizer_steps
        return self.automatic_optimization.optimizer_steps

    @property
    def batch_idx(self) -> int:
        """Index of the current batch within the epoch."""
        return self.batch_progress.current.ready - 1

    def max_steps_reached(self) -> bool:
        max_steps = self.trainer.max_steps
        return max_steps != -1 and self.global_step >= max_steps

    def _num_ready_batches_reached(self) -> bool:
        return self.batch_progress.current.ready >= self.trainer.num_training_batches or \
            self.batch_progress.is_last_batch

    @property
    def done(self) -> bool:
        if self.max_steps_reached() or self._stop_epoch:
            return True
        if self.batch_progress.current.ready >= self.trainer.num_training_batches:
            return True
        if self.trainer.should_stop and self.trainer.fit_loop._can_stop_early:
            return True
        return False

    def _should_accumulate(self, batch_idx: int, is_last_batch: bool) -> bool:
        k = self.trainer.accumulate_grad_batches
        return not ((batch_idx + 1) % k == 0 or is_last_batch)

    # --------------------------------------------------------------------------------------------------- epoch
    def run(self, loader) -> None:
        """Run the rest of the current epoch over ``loader`` (restored mid-epoch if a checkpoint said so)."""
        trainer = self.trainer
        restarting = self.batch_progress.current.completed > 0
        if not restarting:
            self.batch_progress.reset_on_run()
        self._stop_epoch = False
        if restarting and self._loader_state is not None and hasattr(loader, "load_state_dict"):
            loader.load_state_dict(self._loader_state)
        elif restarting and hasattr(loader, "__len__") and not hasattr(loader, "load_state_dict"):
            import warnings
            warnings.warn("You're resuming from a checkpoint that ended before the epoch ended and your dataloader is "
                          "not resumable (no `state_dict`): the epoch restarts from its first batch.")
        self._loader_state = None
        if self._val_pending:
            self._val_pending = False
            trainer._run_validation_in_fit()
        limit = trainer.num_training_batches
        if self.done:
            return  # resumed after the epoch's last batch: nothing left to fetch (and no RNG to consume)
        iterator = iter(loader)
        while not self.done:
            batch_idx = self.batch_progress.current.ready
            try:
                batch = next(iterator)
            except StopIteration:
                self.batch_progress.is_last_batch = True
                break
            is_last = (batch_idx + 1 >= limit) if limit != math.inf else False
            self.batch_progress.is_last_batch = is_last
            self._advance(batch, batch_idx, is_last)
        del iterator  # an abandoned worker iterator shuts its workers down
        if self.batch_progress.current.ready == 0 and trainer.num_training_batches > 0 and not self._stop_epoch:
            raise MisconfigurationException("The training dataloader yielded no batches")

    def _advance(self, batch, batch_idx: int, is_last: bool) -> None:
        trainer = self.trainer
        module = trainer.lightning_module
        self.batch_start_rng = snapshot_rng_states()  # an exception checkpoint written mid-batch resumes from here
        self.batch_progress.increment_ready()
        trainer._logger_connector.on_train_batch_start(batch)
        batch = trainer.strategy.batch_to_device(batch, dataloader_idx=0)
        call_callback_hooks(trainer, "on_train_batch_start", batch, batch_idx)
        response = call_module_hook(trainer, "on_train_batch_start", batch, batch_idx)
        if response == -1:
            self.batch_progress.increment_processed()
            self._stop_epoch = True
            return
        self.batch_progress.increment_started()
        automatic = module.automatic_optimization
        if automatic:
            should_step = not self._should_accumulate(batch_idx, is_last)
            window_start = batch_idx % trainer.accumulate_grad_batches == 0
            outputs = self.automatic_optimization.run(batch, batch_idx, should_step, window_start)
        else:
            should_step = True
            outputs = self.manual_optimization.run(batch, batch_idx)
        self._current_batch_stepped = should_step
        self.batch_progress.increment_processed()
        if automatic and should_step:
            self._update_lr_schedulers("step", batch_idx, plateau=False)
            if is_last:
                self._update_lr_schedulers("epoch", batch_idx, plateau=False)
        call_callback_hooks(trainer, "on_train_batch_end", outputs, batch, batch_idx)
        call_module_hook(trainer, "on_train_batch_end", outputs, batch, batch_idx)
        self.batch_progress.increment_completed()
        # Lightning's logging step: batches that stepped an optimizer, counted before this one is added
        every = trainer.log_every_n_steps
        should_log = should_step and (
            (every > 0 and (self._batches_that_stepped + 1) % every == 0) or trainer.should_stop
            or bool(trainer.fast_dev_run))
        trainer._logger_connector.on_train_batch_end(should_log, self._batches_that_stepped)
        # validation inside the epoch
        if self._should_check_val(batch_idx, is_last):
            trainer._run_validation_in_fit()
            if automatic:
                self._update_lr_schedulers("step", batch_idx, plateau=True)
        if should_step:
            self._batches_that_stepped += 1
        self._total_batch_idx += 1
        trainer.signal_connector.at_safe_point(training_done=self.done)

    def _should_check_val(self, batch_idx: int, is_last: bool) -> bool:
        trainer = self.trainer
        if not trainer._validation_enabled():
            return False
        every = trainer.check_val_every_n_epoch
        if every is not None and (trainer.current_epoch + 1) % every != 0:
            return False
        if trainer.should_stop and trainer.fit_loop._can_stop_early:
            return True
        vcb = trainer.val_check_batch
        if vcb == math.inf:
            return is_last
        current = self._total_batch_idx if every is None else batch_idx
        return (current + 1) % vcb == 0

    # ------------------------------------------------------------------------------------------------ schedulers
    def _update_lr_schedulers(self, interval: str, batch_idx: int, plateau: bool) -> None:
        trainer = self.trainer
        for config in trainer.lr_scheduler_configs:
            if config.interval != interval or config.reduce_on_plateau != plateau:
                continue
            current = (batch_idx if interval == "step" else trainer.current_epoch) + 1
            if current % config.frequency != 0:
                continue
            metric = None
            if config.reduce_on_plateau:
                metric = trainer.callback_metrics.get(config.monitor)
                if metric is None:
                    if config.strict:
                        available = sorted(k for k in trainer.callback_metrics)
                        raise MisconfigurationException(
                            f"ReduceLROnPlateau conditioned on metric {config.monitor} which is not available. "
                            f"Available metrics are: {available}. Condition can be set using `monitor` key in lr "
                            "scheduler dict")
                    import warnings
                    warnings.warn(f"ReduceLROnPlateau conditioned on metric {config.monitor} which is not "
                                  "available but strict is set to `False`. Skipping learning rate update.",
                                  RuntimeWarning)
                    continue
                metric = metric.item() if hasattr(metric, "item") else float(metric)
            call_module_hook(trainer, "lr_scheduler_step", config.scheduler, metric)

    # -------------------------------------------------------------------------------------------------- state
    def interrupted_batch_rng_states(self) -> Optional[tuple]:
        """The RNG snapshot of the start of the batch in progress, if a batch was fetched but not processed."""
        bp = self.batch_progress
        return self.batch_start_rng if bp.current.ready > bp.current.processed else None

    def state_dict(self) -> Dict[str, Any]:
        """The loop state as of the end of the last processed batch.

        A checkpoint written while a batch's end hooks run (e.g. by ModelCheckpoint in ``on_train_batch_end``)
        counts that batch as finished: its optimizer step happened, so resuming must continue with the next one
        (running first the validation that was due after it).
        """
        progress = self.batch_progress.state_dict()
        stepped, total_idx = self._batches_that_stepped, self._total_batch_idx
        val_pending = False
        bp = self.batch_progress
        if bp.current.processed > bp.current.completed:
            for tracker in (progress["current"], progress["total"]):
                tracker["ready"] = tracker["started"] = tracker["completed"] = tracker["processed"]
            stepped += 1 if self._current_batch_stepped else 0
            total_idx += 1
            val_pending = self._should_check_val(self.batch_idx, bp.is_last_batch)
        loader = self.trainer.train_dataloader
        mid_epoch = progress["current"]["completed"] > 0 and not bp.is_last_batch
        loader_state = loader.state_dict() if mid_epoch and hasattr(loader, "state_dict") else None
        if loader_state and bp.current.ready > bp.current.processed and loader_state.get("epoch_in_progress"):
            # saved between fetching a batch and processing it (e.g. on an exception): that batch runs again
            loader_state["num_yielded"] -= 1
        return {
            "batch_progress": progress,
            "automatic_optimization": self.automatic_optimization.state_dict(),
            "manual_optimization": self.manual_optimization.state_dict(),
            "val_loop": self.val_loop.state_dict(),
            "state_dict": {"_batches_that_stepped": stepped, "_total_batch_idx": total_idx,
                           "_val_pending": val_pending},
            "dataloader_state": loader_state,
        }

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.batch_progress.load_state_dict(state["batch_progress"])
        self.automatic_optimization.load_state_dict(state.get("automatic_optimization", {}))
        self.manual_optimization.load_state_dict(state.get("manual_optimization", {}))
        self.val_loop.load_state_dict(state.get("val_loop", {}))
        inner = state.get("state_dict", {})
        self._batches_that_stepped = inner.get("_batches_that_stepped", 0)
        self._total_batch_idx = inner.get("_total_batch_idx", 0)
        self._val_pending = inner.get("_val_pending", False)
        self._loader_state = state.get("dataloader_state")
