"""The evaluation loop: validation (standalone or inside fit), test, and the sanity check."""
from __future__ import annotations

import math
from typing import Any, Dict, List

from ...core.autograd.grad_mode import no_grad
from ..call import call_hook, call_module_hook, module_overrides
from ..states import RunningStage, TrainerFn
from .fetching import NO_BATCH, batch_to_device, next_batch
from .loop import Loop
from .module_mode import ModuleMode
from .progress import BatchProgress
from .signature import check_dataloader_idx, step_args

__all__ = ["EvaluationLoop"]


class EvaluationLoop(Loop):
    """Runs ``validation_step`` or ``test_step`` over the stage's loaders with Lightning's hooks around it."""

    _progress = ("batch_progress",)

    def __init__(self, trainer, stage: RunningStage):
        super().__init__(trainer)
        self.stage = stage
        self.batch_progress = BatchProgress()
        self._module_mode = ModuleMode()
        self.reset_data()

    @property
    def _name(self) -> str:
        return "test" if self.stage == RunningStage.TESTING else "validation"

    @property
    def loaders(self) -> List[Any]:
        """The loaders requested by the last :meth:`setup_data`."""
        return self._loaders

    def reset_data(self) -> None:
        """Forget the loaders of a previous run."""
        self._loaders = []
        self._requested = False
        self._last_reload_epoch = -math.inf

    def setup_data(self) -> None:
        """Request the stage's loaders, when Lightning does: every standalone run; inside fit once, then again every
        ``reload_dataloaders_every_n_epochs`` epochs. Never with ``limit_*_batches=0`` or without a step method."""
        trainer = self.trainer
        fitting = trainer.state.fn == TrainerFn.FITTING
        if self._requested and fitting and not self._should_reload():
            return
        testing = self.stage == RunningStage.TESTING
        limit = trainer.limit_test_batches if testing else trainer.limit_val_batches
        step = "test_step" if testing else "validation_step"
        if limit == 0 or not _has_step(trainer, step):
            return
        sanity = trainer.state.stage == RunningStage.SANITY_CHECKING
        if fitting and (not sanity or trainer.fit_loop.epoch_loop.should_check_val_epoch()):
            # a sanity check counts as this epoch's request only if this epoch validates
            self._last_reload_epoch = trainer.current_epoch
        self._loaders = trainer.data_connector.request("test" if testing else "val")
        self._requested = True

    def _should_reload(self) -> bool:
        n = self.trainer.reload_dataloaders_every_n_epochs
        return bool(n) and self.trainer.current_epoch - self._last_reload_epoch >= n

    @property
    def requested(self) -> bool:
        """True once :meth:`setup_data` requested this stage's loaders (inside fit: since the last reload)."""
        return self._requested

    @property
    def has_loaders(self) -> bool:
        """True once :meth:`setup_data` found at least one loader."""
        return bool(self._loaders)

    def batch_counts(self, stage: RunningStage) -> List[float]:
        """Batches per loader that ``stage`` runs (the sanity check is capped by ``num_sanity_val_steps``)."""
        return self.trainer.data_connector.batch_counts(self._loaders, stage) if self._loaders else []

    def run(self, stage: RunningStage) -> List[Dict[str, float]]:
        """Run one evaluation epoch; return one dict of epoch metrics per dataloader."""
        trainer = self.trainer
        prev_stage = trainer.state.stage
        trainer.state.stage = stage
        try:
            self.setup_data()
        finally:
            trainer.state.stage = prev_stage
        counts = self.batch_counts(stage)
        if not self._loaders or sum(counts) == 0:
            return []
        sanity = stage == RunningStage.SANITY_CHECKING
        prev_stage = trainer.state.stage
        trainer.state.stage = stage
        name = self._name
        n_loaders = len(self._loaders)
        module = trainer.lightning_module
        check_dataloader_idx(getattr(module, f"{name}_step"), f"{name}_step", "test" if name == "test" else "val",
                             n_loaders)
        connector = trainer.logger_connector
        connector.on_eval_start(n_loaders)
        self.batch_progress.reset_on_run()
        collect = module_overrides(trainer, f"{name}_epoch_end")
        outputs: List[List[Any]] = [[] for _ in self._loaders]
        self._module_mode.capture(module)
        call_module_hook(trainer, f"on_{name}_model_eval")
        try:
            with no_grad():
                call_hook(trainer, f"on_{name}_start")
                call_hook(trainer, f"on_{name}_epoch_start")
                for dl_idx, (loader, count) in enumerate(zip(self._loaders, counts)):
                    self._run_loader(loader, count, dl_idx if n_loaders > 1 else None, sanity, collect,
                                     outputs[dl_idx])
                connector.eval_epoch_end()  # the epoch values are visible in the epoch-end hooks
                if collect:
                    call_module_hook(trainer, f"{name}_epoch_end", outputs[0] if n_loaders == 1 else outputs)
                call_hook(trainer, f"on_{name}_epoch_end")
                results = connector.on_eval_end(trainer.fit_loop.epoch_loop.batches_that_stepped, sanity)
                call_hook(trainer, f"on_{name}_end")
        finally:
            trainer.state.stage = prev_stage
        if module_overrides(trainer, f"on_{name}_model_train"):
            call_module_hook(trainer, f"on_{name}_model_train")
        else:
            self._module_mode.restore(module)
        return results

    def _run_loader(self, loader, count, dl_idx, sanity, collect, outputs) -> None:
        """One loader's batches; ``dl_idx`` is None with a single loader (the hooks then get no index)."""
        if count == 0:
            return
        trainer = self.trainer
        module = trainer.lightning_module
        name = self._name
        step_end = module_overrides(trainer, f"{name}_step_end")
        extra = () if dl_idx is None else (dl_idx,)
        connector = trainer.logger_connector
        seen = 0  # the logger step of this loader's step values: its batches in this run (Lightning)
        # Lightning's fetch action: "val_next" for validation and the sanity check, "test_next" for test
        action = f"[_EvaluationLoop].{'test' if name == 'test' else 'val'}_next"
        iterator = iter(loader)
        batch_idx = -1
        while batch_idx + 1 < count:  # never fetches past the limit
            batch = next_batch(iterator, trainer.profiler, action)
            if batch is NO_BATCH:
                break
            batch_idx += 1
            self.batch_progress.increment_ready()
            batch = batch_to_device(trainer, batch, dl_idx or 0)
            connector.on_eval_batch_start(batch, dl_idx or 0)
            call_hook(trainer, f"on_{name}_batch_start", batch, batch_idx, *extra)
            self.batch_progress.increment_started()
            step = getattr(module, f"{name}_step")
            output = call_module_hook(trainer, f"{name}_step", *step_args(step, batch, batch_idx, dl_idx))
            if step_end:
                output = call_module_hook(trainer, f"{name}_step_end", output)
            self.batch_progress.increment_processed()
            call_hook(trainer, f"on_{name}_batch_end", output, batch, batch_idx, *extra)
            self.batch_progress.increment_completed()
            connector.on_eval_batch_end(seen, sanity)
            seen += 1
            if collect:
                outputs.append(output)


def _has_step(trainer, name: str) -> bool:
    module = trainer.lightning_module
    return getattr(module, name, None) is not None and module_overrides(trainer, name)
