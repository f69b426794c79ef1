"""The evaluation loop: validation (standalone or inside fit), test, and the sanity check."""
from __future__ import annotations

from typing import Any, Dict, List

from ...core.autograd.grad_mode import no_grad
from ..call import call_callback_hooks, call_module_hook, is_overridden
from ..states import RunningStage
from .progress import BatchProgress

__all__ = ["EvaluationLoop"]


class EvaluationLoop:
    """Runs ``validation_step`` or ``test_step`` over the stage's loaders with Lightning's hooks around it."""

    def __init__(self, trainer, stage: RunningStage):
        self.trainer = trainer
        self.stage = stage
        self.batch_progress = BatchProgress()
        self._loaders: List[Any] = []

    @property
    def _names(self):
        prefix = "test" if self.stage == RunningStage.TESTING else "validation"
        return prefix

    def setup_data(self) -> None:
        """Fetch the loaders (``val_dataloader`` is requested once per fit unless dataloaders are reloaded)."""
        prefix = "test" if self.stage == RunningStage.TESTING else "val"
        self._loaders = self.trainer._data_connector.request(prefix)

    @property
    def has_loaders(self) -> bool:
        return bool(self._loaders)

    def batch_counts(self, stage: RunningStage) -> List[float]:
        """Batches per loader that ``stage`` runs (the sanity check is capped by ``num_sanity_val_steps``)."""
        return self.trainer._data_connector.batch_counts(self._loaders, stage) if self._loaders else []

    def run(self, stage: RunningStage) -> List[Dict[str, float]]:
        """Run one evaluation epoch; return one dict of epoch metrics per dataloader."""
        trainer = self.trainer
        module = trainer.lightning_module
        counts = self.batch_counts(stage)
        if not self._loaders or sum(counts) == 0:
            return []
        sanity = stage == RunningStage.SANITY_CHECKING
        prev_stage = trainer.state.stage
        trainer.state.stage = stage
        name = self._names
        n_loaders = len(self._loaders)
        trainer._logger_connector.on_eval_start(n_loaders)
        self.batch_progress.reset_on_run()
        collect = is_overridden(f"{name}_epoch_end", module, _lightning_module_cls())
        outputs: List[List[Any]] = [[] for _ in self._loaders]
        if trainer.state.fn is not None and trainer.state.fn.value == "fit" and name == "validation" and not sanity:
            call_module_hook(trainer, "on_validation_model_zero_grad")
        call_module_hook(trainer, f"on_{name}_model_eval")
        try:
            with no_grad():
                call_callback_hooks(trainer, f"on_{name}_start")
                call_module_hook(trainer, f"on_{name}_start")
                call_callback_hooks(trainer, f"on_{name}_epoch_start")
                call_module_hook(trainer, f"on_{name}_epoch_start")
                for dl_idx, (loader, count) in enumerate(zip(self._loaders, counts)):
                    self._run_loader(loader, count, dl_idx, n_loaders, name, sanity, collect, outputs[dl_idx])
                if collect:
                    call_module_hook(trainer, f"{name}_epoch_end", outputs[0] if n_loaders == 1 else outputs)
                call_callback_hooks(trainer, f"on_{name}_epoch_end")
                call_module_hook(trainer, f"on_{name}_epoch_end")
                results = trainer._logger_connector.on_eval_end(trainer._logging_step(), sanity)
                call_callback_hooks(trainer, f"on_{name}_end")
                call_module_hook(trainer, f"on_{name}_end")
        finally:
            trainer.state.stage = prev_stage
        call_module_hook(trainer, f"on_{name}_model_train")
        return results

    def _run_loader(self, loader, count, dl_idx, n_loaders, name, sanity, collect, outputs) -> None:
        trainer = self.trainer
        module = trainer.lightning_module
        step_end = is_overridden(f"{name}_step_end", module, _lightning_module_cls())
        extra = (dl_idx,) if n_loaders > 1 else ()
        if count == 0:
            return
        for batch_idx, batch in enumerate(loader):
            if batch_idx >= count:
                break
            self.batch_progress.increment_ready()
            batch = trainer.strategy.batch_to_device(batch, dataloader_idx=dl_idx)
            trainer._logger_connector.on_eval_batch_start(batch, dl_idx)
            call_callback_hooks(trainer, f"on_{name}_batch_start", batch, batch_idx, *extra)
            call_module_hook(trainer, f"on_{name}_batch_start", batch, batch_idx, *extra)
            self.batch_progress.increment_started()
            output = call_module_hook(trainer, f"{name}_step", batch, batch_idx, *extra)
            if step_end:
                output = call_module_hook(trainer, f"{name}_step_end", output)
            self.batch_progress.increment_processed()
            call_callback_hooks(trainer, f"on_{name}_batch_end", output, batch, batch_idx, *extra)
            call_module_hook(trainer, f"on_{name}_batch_end", output, batch, batch_idx, *extra)
            self.batch_progress.increment_completed()
            trainer._logger_connector.on_eval_batch_end(self.batch_progress.total.completed - 1, sanity)
            if collect:
                outputs.append(output)

    def state_dict(self) -> Dict[str, Any]:
        return {"batch_progress": self.batch_progress.state_dict()}

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        if "batch_progress" in state:
            self.batch_progress.load_state_dict(state["batch_progress"])


def _lightning_module_cls():
    from ..module import LightningModule
    return LightningModule
