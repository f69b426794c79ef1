"""``HistogramLogger``: weight and gradient histograms in TensorBoard every few epochs."""
from __future__ import annotations

import warnings

import numpy as np

from .callback import Callback

__all__ = ["HistogramLogger"]


class HistogramLogger(Callback):
    r"""Write a histogram of every parameter (``weights/<name>``) and of its gradient (``gradients/<name>``) at the
    end of every ``every_n_epochs``-th training epoch, through the first logger whose ``experiment`` has
    ``add_histogram`` (the :class:`~ember.loggers.TensorBoardLogger`).

    The gradients are those of the epoch's last optimizer step (the Trainer zeroes gradients at the start of each
    step, so they are still there at the end of the epoch). The step of the histograms is ``trainer.global_step``.

    Args:
        every_n_epochs: log every this many epochs.
        log_weights: log the parameters.
        log_gradients: log the gradients (parameters without a gradient are skipped).
        bins: the binning passed to ``add_histogram`` (``"tensorflow"``, ``"auto"``, an int, ...).

    Example::

        trainer = em.Trainer(callbacks=[HistogramLogger(every_n_epochs=5)])
    """

    def __init__(self, every_n_epochs: int = 1, log_weights: bool = True, log_gradients: bool = True,
                 bins="tensorflow") -> None:
        super().__init__()
        if isinstance(every_n_epochs, bool) or not isinstance(every_n_epochs, int) or every_n_epochs < 1:
            raise ValueError(f"HistogramLogger(every_n_epochs={every_n_epochs!r}): expected an int >= 1")
        self.every_n_epochs = every_n_epochs
        self.log_weights = log_weights
        self.log_gradients = log_gradients
        self.bins = bins
        self._warned = False

    def _writer(self, trainer):
        for logger in trainer.loggers:
            experiment = getattr(logger, "experiment", None)
            if callable(getattr(experiment, "add_histogram", None)):
                return experiment
        if not self._warned:
            warnings.warn("HistogramLogger needs a logger whose `experiment` has `add_histogram` (e.g. "
                          "TensorBoardLogger); no histograms will be written", UserWarning)
            self._warned = True
        return None

    def on_train_epoch_end(self, trainer, pl_module) -> None:
        if (trainer.current_epoch + 1) % self.every_n_epochs != 0 or not trainer.is_global_zero:
            return
        writer = self._writer(trainer)
        if writer is None:
            return
        step = trainer.global_step
        for name, param in pl_module.named_parameters():
            if self.log_weights:
                writer.add_histogram(f"weights/{name}", _numpy(param), step, bins=self.bins)
            if self.log_gradients and param.grad is not None:
                writer.add_histogram(f"gradients/{name}", _numpy(param.grad), step, bins=self.bins)


def _numpy(t) -> np.ndarray:
    data = t.detach()._data
    return np.asarray(data if type(data) is np.ndarray else data.get(), dtype=np.float64).ravel()
