"""Fetching a batch and moving it to the device, timed under Lightning's profiler action names.

Every loop gets its batches through :func:`next_batch` (``[_TrainingEpochLoop].train_dataloader_next``,
``[_EvaluationLoop].val_next``/``test_next``, ``[_PredictionLoop].predict_next``) and moves them with
:func:`batch_to_device` (``[Strategy]SingleDeviceStrategy.batch_to_device``), so ``Trainer(profiler="simple")``
shows where data loading time goes in every stage, as Lightning's report does.
"""
from __future__ import annotations

from typing import Any

__all__ = ["NO_BATCH", "next_batch", "batch_to_device"]

NO_BATCH = object()  # what next_batch returns when the iterator is exhausted


def next_batch(iterator, profiler, action: str) -> Any:
    """The next batch of ``iterator``, or :data:`NO_BATCH` at its end, timed as the profiler action ``action``."""
    if profiler.records:
        with profiler.profile(action):
            return next(iterator, NO_BATCH)
    return next(iterator, NO_BATCH)  # no context to enter and leave every batch


def batch_to_device(trainer, batch, dataloader_idx: int) -> Any:
    """``trainer.strategy.batch_to_device(batch)``, timed as ``[Strategy]<StrategyClass>.batch_to_device``."""
    strategy = trainer.strategy
    profiler = trainer.profiler
    if profiler.records:
        with profiler.profile(f"[Strategy]{type(strategy).__name__}.batch_to_device"):
            return strategy.batch_to_device(batch, dataloader_idx=dataloader_idx)
    return strategy.batch_to_device(batch, dataloader_idx=dataloader_idx)
