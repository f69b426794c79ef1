"""Trainer state: which entry point runs (``fn``), which loop is active (``stage``) and how the run ended (``status``)."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional

__all__ = ["TrainerFn", "RunningStage", "TrainerStatus", "TrainerState"]


class TrainerFn(str, Enum):
    """The user-facing entry point: ``fit``, ``validate``, ``test`` or ``predict``."""

    FITTING = "fit"
    VALIDATING = "validate"
    TESTING = "test"
    PREDICTING = "predict"

    def __str__(self) -> str:  # "fit", so ``f"{stage}"`` and paths built from it read as the string (Lightning)
        return self.value

    __format__ = str.__format__


class RunningStage(str, Enum):
    """The loop that is running right now (the sanity check is a stage of its own)."""

    TRAINING = "train"
    SANITY_CHECKING = "sanity_check"
    VALIDATING = "validate"
    TESTING = "test"
    PREDICTING = "predict"

    @property
    def evaluating(self) -> bool:
        """True for the validation, sanity-check and test stages."""
        return self in (RunningStage.VALIDATING, RunningStage.TESTING, RunningStage.SANITY_CHECKING)

    @property
    def dataloader_prefix(self) -> Optional[str]:
        """The prefix of the stage's dataloader hooks (``val`` for validation and the sanity check)."""
        if self in (RunningStage.VALIDATING, RunningStage.SANITY_CHECKING):
            return "val"
        return self.value


class TrainerStatus(str, Enum):
    """How far a run got: initializing, running, finished, or interrupted (Ctrl-C or an exception)."""

    INITIALIZING = "initializing"
    RUNNING = "running"
    FINISHED = "finished"
    INTERRUPTED = "interrupted"

    @property
    def stopped(self) -> bool:
        """True once the run has finished or been interrupted."""
        return self in (TrainerStatus.FINISHED, TrainerStatus.INTERRUPTED)


@dataclass
class TrainerState:
    """The trainer's ``state``: ``status``, ``fn`` and ``stage``."""

    status: TrainerStatus = TrainerStatus.INITIALIZING
    fn: Optional[TrainerFn] = None
    stage: Optional[RunningStage] = None

    @property
    def finished(self) -> bool:
        """True if the last run completed normally."""
        return self.status == TrainerStatus.FINISHED

    @property
    def stopped(self) -> bool:
        """True if the last run finished or was interrupted."""
        return self.status.stopped
