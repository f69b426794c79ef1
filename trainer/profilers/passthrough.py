"""``PassThroughProfiler``: the Trainer's default, which records nothing."""
from __future__ import annotations

import contextlib

from .profiler import Profiler

__all__ = ["PassThroughProfiler"]


class PassThroughProfiler(Profiler):
    """A profiler that does nothing (``Trainer(profiler=None)``); user code may still call ``profile(...)``."""

    records = False  # the Trainer skips wrapping hooks in profile() for this one

    def start(self, action_name: str) -> None:
        """Do nothing."""

    def stop(self, action_name: str) -> None:
        """Do nothing."""

    def profile(self, action_name: str):
        """A no-op context (cheaper than the base class's generator: the loops ask for one every batch)."""
        return contextlib.nullcontext(action_name)
