"""The prediction loop: ``predict_step`` over the predict loaders, collecting the outputs."""
from __future__ import annotations

from typing import Any, List

from ...core.autograd.grad_mode import no_grad
from ..call import call_hook, call_module_hook
from ..states import RunningStage
from .fetching import NO_BATCH, batch_to_device, next_batch
from .loop import Loop
from .module_mode import ModuleMode
from .progress import BatchProgress
from .signature import check_dataloader_idx, step_args

__all__ = ["PredictionLoop"]


class PredictionLoop(Loop):
    """Runs ``predict_step`` and returns the list of batch outputs (a list per loader with several)."""

    _progress = ("batch_progress",)

    def __init__(self, trainer):
        super().__init__(trainer)
        self.batch_progress = BatchProgress()
        self._loaders: List[Any] = []
        self._module_mode = ModuleMode()

    @property
    def loaders(self) -> List[Any]:
        """The loaders requested by the last :meth:`setup_data`."""
        return self._loaders

    def setup_data(self) -> None:
        """Request the predict loaders."""
        self._loaders = self.trainer.data_connector.request("predict")

    def batch_counts(self) -> List[float]:
        """Batches per loader under ``limit_predict_batches``."""
        return self.trainer.data_connector.batch_counts(self._loaders, RunningStage.PREDICTING)

    def run(self, return_predictions: bool = True):
        """Predict over every loader; the outputs (a list per loader with several), or None."""
        trainer = self.trainer
        counts = self.batch_counts()
        if not self._loaders or sum(counts) == 0:
            return [] if return_predictions else None
        n = len(self._loaders)
        predictions: List[List[Any]] = [[] for _ in self._loaders]
        self.batch_progress.reset_on_run()
        module = trainer.lightning_module
        check_dataloader_idx(module.predict_step, "predict_step", "predict", n)
        self._module_mode.capture(module)
        call_module_hook(trainer, "on_predict_model_eval")
        with no_grad():
            call_hook(trainer, "on_predict_start")
            call_hook(trainer, "on_predict_epoch_start")
            for dl_idx, (loader, count) in enumerate(zip(self._loaders, counts)):
                extra = (dl_idx,) if n > 1 else ()
                iterator = iter(loader)
                batch_idx = -1
                while batch_idx + 1 < count:  # never fetches past the limit
                    batch = next_batch(iterator, trainer.profiler, "[_PredictionLoop].predict_next")
                    if batch is NO_BATCH:
                        break
                    batch_idx += 1
                    self.batch_progress.increment_ready()
                    batch = batch_to_device(trainer, batch, dl_idx)
                    call_hook(trainer, "on_predict_batch_start", batch, batch_idx, *extra)
                    self.batch_progress.increment_started()
                    output = call_module_hook(trainer, "predict_step", *step_args(
                        module.predict_step, batch, batch_idx, dl_idx if n > 1 else None))
                    self.batch_progress.increment_processed()
                    call_hook(trainer, "on_predict_batch_end", output, batch, batch_idx, *extra)
                    self.batch_progress.increment_completed()
                    if return_predictions:
                        predictions[dl_idx].append(output)
            call_hook(trainer, "on_predict_epoch_end")
            call_hook(trainer, "on_predict_end")
        self._module_mode.restore(module)
        if not return_predictions:
            return None
        return predictions[0] if n == 1 else predictions
