"""The training epoch loop: fetch batches, optimize, step schedulers, log, and validate when it is time."""
from __future__ import annotations

import math
import time
import warnings
from typing import Any, Dict, Optional

from ..call import call_hook, call_module_hook, module_overrides
from ..checkpoint_connector import snapshot_rng_states
from ..exceptions import MisconfigurationException
from ..states import RunningStage
from ..utilities.combined_loader import CombinedLoader
from .evaluation_loop import EvaluationLoop
from .fetching import NO_BATCH, batch_to_device, next_batch
from .loop import Loop
from .optimization import AutomaticOptimization, ManualOptimization
from .progress import BatchProgress
from .schedulers import update_lr_schedulers

__all__ = ["TrainingEpochLoop"]

_NO_BATCH = NO_BATCH
_FETCH_ACTION = "[_TrainingEpochLoop].train_dataloader_next"  # Lightning's profiler action for a batch fetch


class TrainingEpochLoop(Loop):
    """One pass over the training loader (or until ``max_steps``, early stop, or ``on_train_batch_start`` -> -1)."""

    _progress = ("batch_progress",)
    _children = ("automatic_optimization", "manual_optimization", "val_loop")
    _fields = ("_batches_that_stepped", "_total_batch_idx", "_val_pending", "_stepped_after_val")

    def __init__(self, trainer):
        super().__init__(trainer)
        self.batch_progress = BatchProgress()
        self.batch_start_rng: Optional[tuple] = None  # see interrupted_batch_rng_states
        self._snapshot_rng = False  # set per run: whether an exception may write a checkpoint
        self.automatic_optimization = AutomaticOptimization(trainer)
        self.manual_optimization = ManualOptimization(trainer)
        self.val_loop = EvaluationLoop(trainer, RunningStage.VALIDATING)
        self._batches_that_stepped = 0
        self._total_batch_idx = 0
        self._stop_epoch = False
        self._loader_state: Optional[Dict[str, Any]] = None
        self._current_batch_stepped = False
        self._val_pending = False
        self._stepped_after_val = 0  # a resumed pending validation logs at the step before its batch is counted
        self._last_val_time = 0.0
        self._prefetched = False  # an unsized loader is read one batch ahead to know which batch is the last
        self._multi_optimizer_step = False  # 1.x ``training_step(batch, batch_idx, optimizer_idx)``

    # -------------------------------------------------------------------------------------------------- status
    @property
    def optimization(self):
        """The optimization loop of the running module (automatic or manual)."""
        module = self.trainer.lightning_module
        if module is not None and not module.automatic_optimization:
            return self.manual_optimization
        return self.automatic_optimization

    @property
    def global_step(self) -> int:
        """Optimizer steps so far (every ``optimizer.step`` in manual mode)."""
        return self.optimization.optimizer_steps

    @property
    def batches_that_stepped(self) -> int:
        """Batches that stepped an optimizer: the logger's step (Lightning's ``_batches_that_stepped``)."""
        return self._batches_that_stepped

    @property
    def batch_idx(self) -> int:
        """Index of the current batch within the epoch."""
        return self.batch_progress.current.ready - 1

    def max_steps_reached(self) -> bool:
        """True once ``global_step`` reached ``Trainer(max_steps=...)``."""
        max_steps = self.trainer.max_steps
        return max_steps != -1 and self.global_step >= max_steps

    def num_ready_batches_reached(self) -> bool:
        """True when the epoch's last batch has been fetched."""
        return self.batch_progress.current.ready >= self.trainer.num_training_batches or \
            self.batch_progress.is_last_batch

    @property
    def done(self) -> bool:
        """True when the epoch must end."""
        trainer = self.trainer  # asked twice per batch: the checks of max_steps_reached written out
        if self._stop_epoch or (trainer.max_steps != -1 and self.global_step >= trainer.max_steps):
            return True
        if self.batch_progress.current.ready >= trainer.fit_loop.num_training_batches:
            return True
        if trainer.should_stop and trainer.fit_loop.can_stop_early:
            return True
        return False

    @property
    def stopped_by_batch_start(self) -> bool:
        """True when ``on_train_batch_start`` returned -1 and so ended this epoch."""
        return self._stop_epoch

    def _should_accumulate(self, batch_idx: int, is_last_batch: bool) -> bool:
        k = self.trainer.accumulate_grad_batches
        return not ((batch_idx + 1) % k == 0 or is_last_batch)

    # --------------------------------------------------------------------------------------------------- epoch
    def run(self, loader) -> None:
        """Run the rest of the current epoch over ``loader`` (restored mid-epoch if a checkpoint said so)."""
        restarting = self.batch_progress.current.completed > 0
        if not restarting:
            self.batch_progress.reset_on_run()
        self._stop_epoch = False
        self._multi_optimizer_step = _step_takes_optimizer_idx(self.trainer.lightning_module)
        self._snapshot_rng = _may_save_on_exception(self.trainer)
        if restarting and self._loader_state is not None and hasattr(loader, "load_state_dict"):
            loader.load_state_dict(self._loader_state)
        elif restarting and hasattr(loader, "__len__") and not hasattr(loader, "load_state_dict"):
            warnings.warn("You're resuming from a checkpoint that ended before the epoch ended and your dataloader is "
                          "not resumable (no `state_dict`): the epoch restarts from its first batch.")
        self._loader_state = None
        if self._val_pending:
            self._val_pending = False
            self.run_validation(zero_grad=True)
            self._batches_that_stepped += self._stepped_after_val
            self._stepped_after_val = 0
        if self.done:
            return  # resumed after the epoch's last batch: nothing left to fetch (and no RNG to consume)
        limit = self.trainer.num_training_batches
        lookahead = limit == math.inf  # an unsized loader: read one batch ahead to see the end coming
        iterator = iter(loader)
        if isinstance(loader, CombinedLoader):  # it yields (batch, batch_idx, dataloader_idx)
            iterator = (batch for batch, _, _ in iterator)
        profiler = self.trainer.profiler
        upcoming = next_batch(iterator, profiler, _FETCH_ACTION) if lookahead else _NO_BATCH
        while not self.done:
            batch_idx = self.batch_progress.current.ready
            if lookahead:
                batch = upcoming
                if batch is _NO_BATCH:
                    break
                upcoming = next_batch(iterator, profiler, _FETCH_ACTION)
                self._prefetched = upcoming is not _NO_BATCH
                is_last = not self._prefetched
            else:
                batch = next_batch(iterator, profiler, _FETCH_ACTION)
                if batch is _NO_BATCH:
                    self.batch_progress.is_last_batch = True
                    break
                is_last = batch_idx + 1 >= limit
            self.batch_progress.is_last_batch = is_last
            self._advance(batch, batch_idx, is_last)
        self._prefetched = False
        del iterator  # an abandoned worker iterator shuts its workers down
        if self.batch_progress.current.ready == 0 and 0 < limit < math.inf and not self._stop_epoch:
            raise MisconfigurationException("The training dataloader yielded no batches although it reported "
                                            f"{limit} batches: check its `__len__` and `__iter__`")

    def _advance(self, batch, batch_idx: int, is_last: bool) -> None:
        trainer = self.trainer
        module = trainer.lightning_module
        connector = trainer.logger_connector
        if self._snapshot_rng:  # an exception checkpoint written mid-batch resumes from here (~30 us: only if needed)
            self.batch_start_rng = snapshot_rng_states()
        self.batch_progress.increment_ready()
        connector.on_train_batch_start(batch)
        batch = batch_to_device(trainer, batch, dataloader_idx=0)
        response = call_hook(trainer, "on_train_batch_start", batch, batch_idx)
        if response == -1:
            self.batch_progress.increment_processed()
            self._stop_epoch = True
            return
        self.batch_progress.increment_started()
        automatic = module.automatic_optimization
        profiler = trainer.profiler
        if profiler.records:
            with profiler.profile("run_training_batch"):
                loop, outputs, should_step = self._optimize(batch, batch_idx, is_last, automatic)
        else:  # no context to enter and leave every batch
            loop, outputs, should_step = self._optimize(batch, batch_idx, is_last, automatic)
        trainer.fit_loop.collect_training_outputs(loop.raw_outputs)
        self._current_batch_stepped = should_step
        self.batch_progress.increment_processed()
        schedulers = trainer.lr_scheduler_configs  # most runs have none: skip the calls
        if schedulers and should_step:
            update_lr_schedulers(trainer, "step", batch_idx + 1)
        if schedulers and is_last:
            update_lr_schedulers(trainer, "epoch", trainer.current_epoch + 1)
        call_hook(trainer, "on_train_batch_end", outputs, batch, batch_idx)
        self.batch_progress.increment_completed()
        connector.on_train_batch_end(self._should_log(should_step), self._batches_that_stepped)
        if self.should_check_val(batch_idx, is_last):
            self.run_validation(zero_grad=should_step or not automatic)
        if schedulers and should_step:  # plateau schedulers step after the metrics they monitor are logged
            update_lr_schedulers(trainer, "step", batch_idx + 1, plateau=True)
        if should_step:
            self._batches_that_stepped += 1
        self._total_batch_idx += 1
        trainer.signal_connector.at_safe_point()

    def _optimize(self, batch, batch_idx: int, is_last: bool, automatic: bool):
        """Run the optimization loop on the batch: (that loop, what ``on_train_batch_end`` gets, whether it
        stepped)."""
        if automatic:
            should_step = not self._should_accumulate(batch_idx, is_last)
            window_start = batch_idx % self.trainer.accumulate_grad_batches == 0
            loop = self.automatic_optimization
            return loop, loop.run(batch, batch_idx, should_step, window_start, self._multi_optimizer_step), should_step
        loop = self.manual_optimization
        return loop, loop.run(batch, batch_idx, self._multi_optimizer_step), True

    def _should_log(self, should_step: bool) -> bool:
        """Lightning's logging step: batches that stepped an optimizer, counted before this one is added."""
        trainer = self.trainer
        every = trainer.log_every_n_steps
        return should_step and ((every > 0 and (self._batches_that_stepped + 1) % every == 0) or trainer.should_stop
                                or bool(trainer.fast_dev_run))

    # ---------------------------------------------------------------------------------------------- validation
    def validation_enabled(self) -> bool:
        """Validation runs inside fit: a val source exists, ``limit_val_batches`` is not 0, and the module has a
        ``validation_step``."""
        trainer = self.trainer
        module = trainer.lightning_module
        return trainer.data_connector.has_loaders("val") and trainer.limit_val_batches != 0 and \
            getattr(module, "validation_step", None) is not None and module_overrides(trainer, "validation_step")

    def should_check_val_epoch(self) -> bool:
        """Whether this epoch validates (``check_val_every_n_epoch``)."""
        every = self.trainer.check_val_every_n_epoch
        return self.validation_enabled() and (every is None or (self.trainer.current_epoch + 1) % every == 0)

    def should_check_val(self, batch_idx: int, is_last: bool) -> bool:
        """Whether validation runs after batch ``batch_idx`` (``val_check_interval``, epoch end, early stop)."""
        # asked every batch: first whether validation is due, then (rarely) whether this epoch validates at all
        trainer = self.trainer
        fit_loop = trainer.fit_loop
        if trainer.should_stop and fit_loop.can_stop_early:
            due = True
        elif fit_loop.val_check_seconds is not None:  # a time-based interval: once that much time has passed
            due = time.monotonic() - self._last_val_time >= fit_loop.val_check_seconds
        elif fit_loop.val_check_batch == math.inf:
            due = is_last
        else:
            current = self._total_batch_idx if trainer.check_val_every_n_epoch is None else batch_idx
            due = (current + 1) % fit_loop.val_check_batch == 0
        return due and self.should_check_val_epoch()

    def run_validation(self, zero_grad: bool) -> None:
        """Validate inside fit; ``zero_grad`` is False inside an accumulation window, whose gradients must stay."""
        trainer = self.trainer
        val_loop = self.val_loop
        val_loop.setup_data()  # before the zero_grad hook, as in Lightning
        if zero_grad:
            call_module_hook(trainer, "on_validation_model_zero_grad")
        val_loop.run(RunningStage.VALIDATING)
        self.restart_val_clock()
        trainer.state.stage = RunningStage.TRAINING
        connector = trainer.logger_connector
        connector.current = connector.train_results

    def restart_val_clock(self) -> None:
        """Start the period of a time-based ``val_check_interval`` (at train start and after each validation)."""
        self._last_val_time = time.monotonic()

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
        state = super().state_dict()
        bp = self.batch_progress
        progress, own = state["batch_progress"], state["state_dict"]
        if bp.current.processed > bp.current.completed:
            for tracker in (progress["current"], progress["total"]):
                tracker["ready"] = tracker["started"] = tracker["completed"] = tracker["processed"]
            stepped = 1 if self._current_batch_stepped else 0
            own["_total_batch_idx"] += 1
            own["_val_pending"] = self.should_check_val(self.batch_idx, bp.is_last_batch)
            if own["_val_pending"]:  # as in Lightning, the batch counts for the logger after its validation
                own["_stepped_after_val"] = stepped
            else:
                own["_batches_that_stepped"] += stepped
        state["dataloader_state"] = self._dataloader_state(progress, bp)
        return state

    def _dataloader_state(self, progress, bp) -> Optional[Dict[str, Any]]:
        loader = self.trainer.fit_loop.train_dataloader
        mid_epoch = progress["current"]["completed"] > 0 and not bp.is_last_batch
        loader_state = loader.state_dict() if mid_epoch and hasattr(loader, "state_dict") else None
        if loader_state and loader_state.get("epoch_in_progress"):
            # batches fetched but not run yet run again on resume: one fetched but unprocessed (saved on an
            # exception), one read ahead from an unsized loader
            unrun = (1 if bp.current.ready > bp.current.processed else 0) + (1 if self._prefetched else 0)
            if unrun and "num_yielded" in loader_state:
                loader_state["num_yielded"] -= unrun
        return loader_state

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Restore the counters and remember the loader position for the resumed epoch."""
        super().load_state_dict(state)
        self._loader_state = state.get("dataloader_state")


def _may_save_on_exception(trainer) -> bool:
    """Whether an exception can write a checkpoint: a callback that says so (``saves_on_exception``), or one that
    overrides ``on_exception`` and does not say, or a module that overrides it."""
    from ...callbacks.callback import Callback
    for cb in trainer.callbacks:
        if getattr(cb, "saves_on_exception", type(cb).on_exception is not Callback.on_exception):
            return True
    return module_overrides(trainer, "on_exception")


def _step_takes_optimizer_idx(module) -> bool:
    from ..module import _step_takes_optimizer_idx as takes
    return takes(module)
