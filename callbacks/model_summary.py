"""``ModelSummary``: prints the layer table when fit starts."""
from __future__ import annotations

from .callback import Callback

__all__ = ["ModelSummary"]


class ModelSummary(Callback):
    """Print a summary of the LightningModule at the start of fit (rank zero only).

    Args:
        max_depth: how many levels of submodules to list (-1 for all, 0 for none).
    """

    def __init__(self, max_depth: int = 1):
        if not isinstance(max_depth, int) or max_depth < -1:
            raise ValueError(f"ModelSummary(max_depth={max_depth!r}): expected -1, 0 or a positive int")
        self._max_depth = max_depth

    def on_fit_start(self, trainer, pl_module) -> None:
        if self._max_depth == 0 or not trainer.is_global_zero:
            return
        from ..trainer.summary import ModelSummaryTable
        print(ModelSummaryTable(pl_module, max_depth=self._max_depth))
