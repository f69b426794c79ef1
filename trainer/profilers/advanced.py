"""``AdvancedProfiler``: Python's cProfile per action, as Lightning's."""
from __future__ import annotations

import cProfile
import io
import os
import pstats
from typing import Dict, List, Optional

from .profiler import Profiler

__all__ = ["AdvancedProfiler"]


class AdvancedProfiler(Profiler):
    """Run Python's ``cProfile`` inside every action; the summary prints, per action, the functions sorted by
    cumulative time. Verbose: use it to find which function inside a slow hook is slow.

    Args:
        dirpath: where ``filename`` (and the ``.prof`` dumps) are written (default: ``trainer.log_dir``).
        filename: write the report to ``<stage>-<filename>.txt`` instead of printing it.
        line_count_restriction: how many functions to list per action: an int, or a fraction (0.0-1.0) of them.
        dump_stats: also write each action's raw stats to ``dirpath/<stage>-<filename>-<action>.prof``
            (readable with ``pstats`` or snakeviz).

    Raises:
        ValueError: when an action is stopped without being started.
    """

    def __init__(self, dirpath=None, filename: Optional[str] = None, line_count_restriction: float = 1.0,
                 dump_stats: bool = False) -> None:
        super().__init__(dirpath=dirpath, filename=filename)
        self.profiled_actions: Dict[str, cProfile.Profile] = {}
        self.line_count_restriction = line_count_restriction
        self.dump_stats = dump_stats
        self._running: List[str] = []  # only one cProfile can run at a time: the innermost action's

    def start(self, action_name: str) -> None:
        """Pause the enclosing action's cProfile and start ``action_name``'s."""
        if self._running:
            self.profiled_actions[self._running[-1]].disable()
        profile = self.profiled_actions.get(action_name)
        if profile is None:
            profile = self.profiled_actions[action_name] = cProfile.Profile()
        self._running.append(action_name)
        profile.enable()

    def stop(self, action_name: str) -> None:
        """Stop ``action_name``'s cProfile and resume the enclosing action's."""
        profile = self.profiled_actions.get(action_name)
        if profile is None or action_name not in self._running:
            raise ValueError(f"Attempting to stop recording an action ({action_name}) which was never started.")
        profile.disable()
        index = len(self._running) - 1 - self._running[::-1].index(action_name)
        del self._running[index]
        if self._running and index == len(self._running):
            self.profiled_actions[self._running[-1]].enable()

    def summary(self) -> str:
        """Per action, pstats' listing sorted by cumulative time (limited by ``line_count_restriction``)."""
        recorded = {}
        for action_name, profile in self.profiled_actions.items():
            if self.dump_stats:
                self._dump(action_name, profile)
            stream = io.StringIO()
            stats = pstats.Stats(profile, stream=stream).strip_dirs().sort_stats("cumulative")
            stats.print_stats(self.line_count_restriction)
            recorded[action_name] = stream.getvalue()
        return self._stats_to_str(recorded)

    def _dump(self, action_name: str, profile: cProfile.Profile) -> None:
        if not self.dirpath:
            raise ValueError("AdvancedProfiler(dump_stats=True) needs a `dirpath` (or a Trainer log_dir)")
        os.makedirs(self.dirpath, exist_ok=True)
        path = os.path.join(self.dirpath, self._prepare_filename(action_name=action_name, extension=".prof"))
        from ...core.serialization import atomic_write
        import marshal
        profile.create_stats()
        data = marshal.dumps(profile.stats)  # the format pstats.Stats(path) reads, as profile.dump_stats writes
        atomic_write(path, lambda fh: fh.write(data))

    def teardown(self, stage: Optional[str]) -> None:
        """Forget the recorded actions (a next run starts afresh)."""
        super().teardown(stage=stage)
        self.profiled_actions.clear()
        self._running.clear()
