"""The fit loop: the train data and its batch counts, the sanity check, then epochs of training (each with its
validation) until a stopping condition holds."""
from __future__ import annotations

import logging
import math
import numbers
import warnings
from typing import Any, Dict, List, Optional

from ...exceptions import PossibleUserWarning
from ..call import call_callback_hooks, call_hook, call_module_hook, module_overrides
from ..exceptions import MisconfigurationException
from ..states import RunningStage
from .loop import Loop
from .progress import Progress
from .schedulers import update_lr_schedulers
from .training_epoch_loop import TrainingEpochLoop

__all__ = ["FitLoop"]

log = logging.getLogger("ember.trainer")


class FitLoop(Loop):
    """Runs training epochs; ``current_epoch`` is the number of completed epochs."""

    _progress = ("epoch_progress",)
    _children = ("epoch_loop",)

    def __init__(self, trainer, min_epochs, max_epochs):
        super().__init__(trainer)
        self.min_epochs = min_epochs
        self.max_epochs = max_epochs
        self.epoch_progress = Progress()
        self.epoch_loop = TrainingEpochLoop(trainer)
        self.train_dataloader = None
        self.num_training_batches: float = math.inf
        self.val_check_batch: Optional[float] = math.inf
        self.val_check_seconds: Optional[float] = None  # a time-based val_check_interval, in seconds
        self._last_train_dl_reload_epoch = -math.inf
        self._outputs: List[Any] = []
        self._stop_reason: Optional[str] = None

    @property
    def current_epoch(self) -> int:
        """The number of completed epochs."""
        return self.epoch_progress.current.completed

    @property
    def can_stop_early(self) -> bool:
        """True once ``min_epochs`` and ``min_steps`` are met, so ``should_stop`` may end the run."""
        trainer = self.trainer
        met_min_epochs = self.epoch_progress.current.processed >= self.min_epochs if self.min_epochs else True
        met_min_steps = self.epoch_loop.global_step >= trainer.min_steps if trainer.min_steps else True
        return met_min_epochs and met_min_steps

    @property
    def done(self) -> bool:
        """True when fit must end (and why, in ``_stop_reason``)."""
        trainer = self.trainer
        if self.num_training_batches == 0:
            self._stop_reason = "No training batches."
            return True
        if self.epoch_loop.max_steps_reached():
            self._stop_reason = f"`max_steps={trainer.max_steps}` reached."
            return True
        if self.max_epochs is not None and self.max_epochs != -1 and self.current_epoch >= self.max_epochs:
            self._stop_reason = f"`max_epochs={self.max_epochs}` reached."
            return True
        if trainer.should_stop and self.can_stop_early:
            self._stop_reason = "signaled to stop."
            return True
        return False

    # ------------------------------------------------------------------------------------------------- data
    def reset_data(self) -> None:
        """Forget the loaders of a previous run (a new ``fit`` call requests them again)."""
        self.train_dataloader = None
        self.num_training_batches = math.inf
        self.val_check_batch = math.inf
        self.val_check_seconds = None
        self._last_train_dl_reload_epoch = -math.inf
        self.epoch_loop.val_loop.reset_data()

    @property
    def _should_reload_train_dl(self) -> bool:
        n = self.trainer.reload_dataloaders_every_n_epochs
        return bool(n) and self.current_epoch - self._last_train_dl_reload_epoch >= n

    def setup_data(self) -> None:
        """Request the train loader (again when ``reload_dataloaders_every_n_epochs`` says so) and compute the
        batch counts ``num_training_batches`` and ``val_check_batch``."""
        if self.train_dataloader is not None and not self._should_reload_train_dl:
            return
        loader = self.trainer.data_connector.request_train()
        if loader is None:
            raise MisconfigurationException("`train_dataloader()` returned None: return a DataLoader (or a list/dict "
                                            "of them) to train on")
        self.train_dataloader = loader
        self._last_train_dl_reload_epoch = self.current_epoch
        self._compute_batch_counts()

    def _compute_batch_counts(self) -> None:
        from ..data_connector import num_batches
        from ..flags import val_check_time_interval
        trainer = self.trainer
        self.num_training_batches = num_batches(self.train_dataloader, trainer.limit_train_batches)
        vci = trainer.val_check_interval
        self.val_check_seconds = val_check_time_interval(vci)
        if self.val_check_seconds is not None:
            self.val_check_batch = None  # validation follows the clock, not the batch count
        elif isinstance(vci, numbers.Integral):
            self.val_check_batch = vci
            if vci > self.num_training_batches and trainer.check_val_every_n_epoch is not None and \
                    self.epoch_loop.validation_enabled():
                raise ValueError(
                    f" `val_check_interval` ({vci}) must be less than or equal to the number of the training batches "
                    f"({self.num_training_batches}). If you want to disable validation set `limit_val_batches` to "
                    "0.0 instead. If you want to validate based on the total training batches, set "
                    "`check_val_every_n_epoch=None`.")
        elif self.num_training_batches == math.inf:
            if vci != 1.0:
                raise MisconfigurationException(
                    f"When using an IterableDataset for `train_dataloader`, `Trainer(val_check_interval)` must be "
                    f"`1.0` or an int (got {vci}). An int k specifies checking validation every k training batches.")
            self.val_check_batch = math.inf
        else:
            self.val_check_batch = max(1, int(self.num_training_batches * vci))
        if trainer.loggers and self.num_training_batches < trainer.log_every_n_steps:
            warnings.warn(f"The number of training batches ({self.num_training_batches}) is smaller than the logging "
                          f"interval Trainer(log_every_n_steps={trainer.log_every_n_steps}). Set a lower value for "
                          "log_every_n_steps if you want to see logs for the training epoch.", PossibleUserWarning)

    # -------------------------------------------------------------------------------------------------- run
    def run_sanity_check(self) -> None:
        """Run ``num_sanity_val_steps`` validation batches before training (not when resuming)."""
        trainer = self.trainer
        val_loop = self.epoch_loop.val_loop
        resumed = self.epoch_loop.batch_progress.total.completed > 0 or self.epoch_progress.total.completed > 0
        if not self.epoch_loop.validation_enabled() or trainer.num_sanity_val_steps == 0 or resumed:
            return
        from ..checkpoint_connector import capture_rng_states, restore_rng_states
        rng = capture_rng_states()  # the sanity check must not change the random streams of training
        trainer.state.stage = RunningStage.SANITY_CHECKING
        call_callback_hooks(trainer, "on_sanity_check_start")
        val_loop.run(RunningStage.SANITY_CHECKING)
        call_callback_hooks(trainer, "on_sanity_check_end")
        restore_rng_states(rng)
        trainer.state.stage = RunningStage.TRAINING
        connector = trainer.logger_connector
        connector.current = connector.train_results

    def run(self) -> None:
        """Set up the train data, then run epochs until :attr:`done`."""
        trainer = self.trainer
        self.setup_data()
        if self.done:
            self._announce_stop()
            return
        _warn_if_modules_in_eval_mode(trainer.lightning_module)
        self.epoch_loop.restart_val_clock()
        connector = trainer.logger_connector
        val_loop = self.epoch_loop.val_loop
        if self.epoch_loop.should_check_val_epoch() and not val_loop.requested:
            val_loop.setup_data()  # Lightning requests them here when no sanity check did (the bar shows their size)
        connector.current = connector.train_results  # on_train_start may log, even before any batch or validation
        call_hook(trainer, "on_train_start")
        while not self.done:
            self._run_epoch()
        self._announce_stop()
        call_hook(trainer, "on_train_end")

    def _announce_stop(self) -> None:
        if self._stop_reason and self.trainer.is_global_zero:
            log.info(f"`Trainer.fit` stopped: {self._stop_reason}")

    def _run_epoch(self) -> None:
        trainer = self.trainer
        epoch_loop = self.epoch_loop
        connector = trainer.logger_connector
        mid_epoch = epoch_loop.batch_progress.current.completed > 0
        if not mid_epoch:
            self.setup_data()
            _set_sampler_epoch(self.train_dataloader, self.current_epoch)
            self.epoch_progress.increment_ready()
            connector.current = connector.train_results
            call_hook(trainer, "on_train_epoch_start")
            self.epoch_progress.increment_started()
        self._outputs = []
        with trainer.profiler.profile("run_training_epoch"):
            epoch_loop.run(self.train_dataloader)
        self.epoch_progress.increment_processed()
        module = trainer.lightning_module
        connector.current = connector.train_results
        connector.epoch_end_reached = True
        if module_overrides(trainer, "training_epoch_end"):
            call_module_hook(trainer, "training_epoch_end", self._outputs)
        # monitoring callbacks (checkpointing, early stopping) run after the module so they can see its epoch-end logs
        call_callback_hooks(trainer, "on_train_epoch_end", monitoring_callbacks=False)
        call_module_hook(trainer, "on_train_epoch_end")
        call_callback_hooks(trainer, "on_train_epoch_end", monitoring_callbacks=True)
        connector.on_train_epoch_end(max(epoch_loop.batches_that_stepped - 1, 0))
        connector.epoch_end_reached = False
        if epoch_loop.stopped_by_batch_start:
            # an epoch ended by ``on_train_batch_start`` returning -1 is still an epoch for its schedulers
            update_lr_schedulers(trainer, "epoch", self.current_epoch + 1)
        if epoch_loop.num_ready_batches_reached() or epoch_loop.stopped_by_batch_start:
            # after the epoch's metrics are published: a plateau scheduler may monitor a train epoch value
            update_lr_schedulers(trainer, "epoch", self.current_epoch + 1, plateau=True)
        self.epoch_progress.increment_completed()
        self._outputs = []
        epoch_loop.batch_progress.reset_on_run()

    def collect_training_outputs(self, outputs) -> None:
        """Keep ``training_step`` outputs (detached) for the 1.x ``training_epoch_end(outputs)`` hook."""
        if not outputs or not module_overrides(self.trainer, "training_epoch_end"):
            return
        for output in outputs:
            if isinstance(output, dict):
                output = {k: (v.detach() if hasattr(v, "detach") else v) for k, v in output.items()}
            elif hasattr(output, "detach"):
                output = output.detach()
            self._outputs.append(output)

    # ----------------------------------------------------------------------------------------------- state
    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Restore the counters; a checkpoint taken at an epoch's end resumes at the next epoch's start."""
        super().load_state_dict(state)
        ep = self.epoch_progress
        bp = self.epoch_loop.batch_progress
        truncated = bp.current.completed > 0 and not bp.is_last_batch
        if ep.current.processed > ep.current.completed and truncated and self.trainer.max_steps != -1:
            # saved at the end of an epoch that max_steps cut short (e.g. the end-of-fit last.ckpt): training is
            # counted in steps, so, as in Lightning, the resumed fit continues that epoch from its next batch
            ep.current.processed, ep.total.processed = ep.current.completed, ep.total.completed
            bp.reset_on_restart()
        elif ep.current.processed > ep.current.completed:
            # saved at the end of an epoch (e.g. by ModelCheckpoint in on_train_epoch_end): that epoch is done
            ep.current.completed = ep.current.processed = max(ep.current.processed, ep.current.completed + 1)
            ep.total.completed = ep.total.processed = max(ep.total.processed, ep.total.completed)
            bp.reset_on_run()
        elif bp.current.completed > 0:
            bp.reset_on_restart()


def _warn_if_modules_in_eval_mode(module) -> None:
    # the Trainer never calls ``model.train()`` (a submodule frozen in eval mode must stay so): say when some are
    in_eval = sum(1 for m in module.modules() if not m.training)
    if in_eval:
        warnings.warn(f"Found {in_eval} module(s) in eval mode at the start of training. This may lead to unexpected "
                      "behavior during training. If this is intentional, you can ignore this warning.", UserWarning)


def _set_sampler_epoch(loader, epoch: int) -> None:
    for inner in getattr(loader, "flattened", None) or [loader]:  # every loader of a CombinedLoader
        _set_one_sampler_epoch(inner, epoch)


def _set_one_sampler_epoch(loader, epoch: int) -> None:
    for sampler in (getattr(loader, "sampler", None), getattr(getattr(loader, "batch_sampler", None), "sampler", None)):
        if sampler is not None and callable(getattr(sampler, "set_epoch", None)):
            sampler.set_epoch(epoch)


def validate_max_epochs(max_epochs, min_epochs):
    """``max_epochs`` as given (None until fit resolves it, -1 for no limit); checked against ``min_epochs``."""
    if max_epochs == math.inf:
        max_epochs = -1
    if min_epochs is not None and max_epochs not in (None, -1) and min_epochs > max_epochs:
        raise MisconfigurationException(f"`max_epochs` ({max_epochs}) must be >= `min_epochs` ({min_epochs})")
    return max_epochs


def resolve_max_epochs(trainer) -> None:
    """Lightning's default at fit start: no ``max_epochs`` and no ``max_steps`` (nor a ``max_time``) means 1000
    epochs, with a warning; with a step or time limit, no epoch limit."""
    fit_loop = trainer.fit_loop
    if fit_loop.max_epochs is not None:
        return
    timed = any(type(cb).__name__ == "Timer" for cb in trainer.callbacks)
    if trainer.max_steps == -1 and not timed:
        warnings.warn("`max_epochs` was not set. Setting it to 1000 epochs. To train without an epoch limit, set "
                      "`max_epochs=-1`.", UserWarning)
        fit_loop.max_epochs = 1000
    else:
        fit_loop.max_epochs = -1
