"""The ``Logger`` interface every experiment logger implements, and ``rank_zero_experiment``."""
from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import Any, Dict, Optional, Union

__all__ = ["Logger", "DummyLogger", "rank_zero_experiment"]


def rank_zero_experiment(fn):
    """Decorator for ``experiment`` properties: other ranks get a do-nothing object."""
    @functools.wraps(fn)
    def experiment(self):
        if getattr(self, "_rank", 0) != 0:
            return _DummyExperiment()
        return fn(self)
    return experiment


class _DummyExperiment:
    def __getattr__(self, _):
        return lambda *args, **kwargs: None


class Logger(ABC):
    """Base class of experiment loggers. Only rank zero writes."""

    _rank = 0

    @property
    @abstractmethod
    def name(self) -> Optional[str]:
        """The experiment name."""

    @property
    @abstractmethod
    def version(self) -> Optional[Union[int, str]]:
        """The experiment version."""

    @property
    def save_dir(self) -> Optional[str]:
        """The root directory logs are written under."""
        return None

    @property
    def root_dir(self) -> Optional[str]:
        """``save_dir/name``."""
        return None

    @property
    def log_dir(self) -> Optional[str]:
        """The directory of this run's files."""
        return None

    @abstractmethod
    def log_metrics(self, metrics: Dict[str, float], step: Optional[int] = None) -> None:
        """Record scalar metrics at ``step``."""

    @abstractmethod
    def log_hyperparams(self, params: Dict[str, Any], *args: Any, **kwargs: Any) -> None:
        """Record hyperparameters."""

    def log_graph(self, model, input_array=None) -> None:
        """Record the model's computational graph (if the logger supports it)."""

    def save(self) -> None:
        """Flush what is buffered."""

    def finalize(self, status: str) -> None:
        """Called at the end of a run with "success", "failed" or "finished"."""
        self.save()

    def after_save_checkpoint(self, checkpoint_callback) -> None:
        """Called after a checkpoint was saved."""


class DummyLogger(Logger):
    """A logger that records nothing (used by ``fast_dev_run``)."""

    @property
    def name(self) -> str:
        return ""

    @property
    def version(self) -> str:
        return ""

    def log_metrics(self, metrics, step=None) -> None:
        pass

    def log_hyperparams(self, params, *args, **kwargs) -> None:
        pass
