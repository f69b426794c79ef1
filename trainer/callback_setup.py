"""The Trainer's default callbacks: checkpointing, progress bar, model summary and the ``max_time`` timer."""
from __future__ import annotations

from typing import Any, List

from .exceptions import MisconfigurationException

__all__ = ["configure_callbacks"]


def _has(callbacks, name: str) -> bool:
    return any(any(k.__name__ == name for k in type(c).__mro__) for c in callbacks)


def configure_callbacks(trainer, callbacks, enable_checkpointing, enable_progress_bar, enable_model_summary,
                        max_time) -> List[Any]:
    """The user's callbacks plus the defaults Lightning adds (each can be switched off by its ``enable_*`` flag)."""
    from .. import callbacks as cb
    if callbacks is None:
        callbacks = []
    elif not isinstance(callbacks, (list, tuple)):
        callbacks = [callbacks]
    callbacks = list(callbacks)
    for c in callbacks:
        if not isinstance(c, cb.Callback):
            raise MisconfigurationException(f"`Trainer(callbacks=...)` got {type(c).__name__}, which is not a "
                                            "Callback")
    if enable_checkpointing is False and _has(callbacks, "Checkpoint"):
        raise MisconfigurationException("Trainer was configured with `enable_checkpointing=False` but found "
                                        "`ModelCheckpoint` in callbacks list.")
    if enable_checkpointing is not False and not _has(callbacks, "Checkpoint") and not trainer.fast_dev_run:
        callbacks.append(cb.ModelCheckpoint())
    if enable_progress_bar is False and _has(callbacks, "ProgressBar"):
        raise MisconfigurationException("Trainer was configured with `enable_progress_bar=False` but found a progress "
                                        "bar callback in the callbacks list.")
    if enable_progress_bar is not False and not _has(callbacks, "ProgressBar"):
        callbacks.append(cb.TQDMProgressBar())
    if enable_model_summary is not False and not _has(callbacks, "ModelSummary") and not trainer.fast_dev_run:
        callbacks.append(cb.ModelSummary(max_depth=1))
    if max_time is not None:
        callbacks = [c for c in callbacks if not _has([c], "Timer")] + [cb.Timer(duration=max_time,
                                                                                 interval="step")]
    return callbacks
