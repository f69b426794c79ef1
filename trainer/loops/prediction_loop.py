"""The prediction loop: ``predict_step`` over the predict loaders, collecting the outputs."""
from __future__ import annotations

from typing import Any, List

from ...core.autograd.grad_mode import no_grad
from ..call import call_callback_hooks, call_module_hook
from ..states import RunningStage
from .progress import BatchProgress

__all__ = ["PredictionLoop"]


class PredictionLoop:
    """Runs ``predict_step`` and returns the list of batch outputs (a list per loader with several)."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.batch_progress = BatchProgress()
        self._loaders: List[Any] = []

    def setup_data(self) -> None:
        self._loaders = self.trainer._data_connector.request("predict")

    def run(self, return_predictions: bool = True):
        trainer = self.trainer
        counts = trainer._data_connector.batch_counts(self._loaders, RunningStage.PREDICTING)
        if not self._loaders or sum(counts) == 0:
            return [] if return_predictions else None
        n = len(self._loaders)
        predictions: List[List[Any]] = [[] for _ in self._loaders]
        self.batch_progress.reset_on_run()
        call_module_hook(trainer, "on_predict_model_eval")
        with no_grad():
            call_callback_hooks(trainer, "on_predict_start")
            call_module_hook(trainer, "on_predict_start")
            call_callback_hooks(trainer, "on_predict_epoch_start")
            call_module_hook(trainer, "on_predict_epoch_start")
            for dl_idx, (loader, count) in enumerate(zip(self._loaders, counts)):
                extra = (dl_idx,) if n > 1 else ()
                for batch_idx, batch in enumerate(loader):
                    if batch_idx >= count:
                        break
                    self.batch_progress.increment_ready()
                    batch = trainer.strategy.batch_to_device(batch, dataloader_idx=dl_idx)
                    call_callback_hooks(trainer, "on_predict_batch_start", batch, batch_idx, *extra)
                    call_module_hook(trainer, "on_predict_batch_start", batch, batch_idx, *extra)
                    self.batch_progress.increment_started()
                    output = call_module_hook(trainer, "predict_step", batch, batch_idx, *extra)
                    self.batch_progress.increment_processed()
                    call_callback_hooks(trainer, "on_predict_batch_end", output, batch, batch_idx, *extra)
                    call_module_hook(trainer, "on_predict_batch_end", output, batch, batch_idx, *extra)
                    self.batch_progress.increment_completed()
                    if return_predictions:
                        predictions[dl_idx].append(output)
            call_callback_hooks(trainer, "on_predict_epoch_end")
            call_module_hook(trainer, "on_predict_epoch_end")
            call_callback_hooks(trainer, "on_predict_end")
            call_module_hook(trainer, "on_predict_end")
        if not return_predictions:
            return None
        return predictions[0] if n == 1 else predictions
