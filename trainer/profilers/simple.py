"""``SimpleProfiler``: the duration of every action, as Lightning's table."""
from __future__ import annotations

import os
import time
from collections import defaultdict
from typing import Dict, List, Optional

from .profiler import Profiler

__all__ = ["SimpleProfiler"]


class SimpleProfiler(Profiler):
    """Record how long each action takes; the summary lists the mean duration, the number of calls, the total time
    and the share of the run's time of every action (``extended=False``: mean and total only).

    Args:
        dirpath: where ``filename`` is written (default: ``trainer.log_dir``).
        filename: write the report to ``<stage>-<filename>.txt`` instead of printing it.
        extended: add the columns "Num calls" and "Percentage %" and a "Total" row.

    Raises:
        ValueError: when an action is started twice, or stopped without being started.
    """

    def __init__(self, dirpath=None, filename: Optional[str] = None, extended: bool = True) -> None:
        super().__init__(dirpath=dirpath, filename=filename)
        self.current_actions: Dict[str, float] = {}
        self.recorded_durations: Dict[str, List[float]] = defaultdict(list)
        self.extended = extended
        self.start_time = time.monotonic()

    def start(self, action_name: str) -> None:
        """Start the clock of ``action_name``."""
        if action_name in self.current_actions:
            raise ValueError(f"Attempted to start {action_name} which has already started.")
        self.current_actions[action_name] = time.monotonic()

    def stop(self, action_name: str) -> None:
        """Stop the clock of ``action_name`` and record the duration."""
        end = time.monotonic()
        if action_name not in self.current_actions:
            raise ValueError(f"Attempting to stop recording an action ({action_name}) which was never started.")
        self.recorded_durations[action_name].append(end - self.current_actions.pop(action_name))

    def summary(self) -> str:
        """Lightning's table: one row per action, the slowest first."""
        sep = os.linesep
        out = (f"{self._stage.upper()} " if self._stage is not None else "") + f"Profiler Report{sep}"
        if not self.recorded_durations:
            return out + sep
        width = max(len(k) for k in self.recorded_durations)
        if self.extended:
            def row(action, mean, calls, total, share):
                return f"{sep}|  {action:<{width}s}\t|  {mean:<15}\t|  {calls:<15}\t|  {total:<15}\t|  {share:<15}\t|"
            header = row("Action", "Mean duration (s)", "Num calls", "Total time (s)", "Percentage %")
            line = f"{sep}{'-' * len(header.expandtabs())}"
            total_time = time.monotonic() - self.start_time
            report = [(a, sum(d) / len(d), len(d), sum(d), 100.0 * sum(d) / total_time)
                      for a, d in self.recorded_durations.items()]
            report.sort(key=lambda r: r[4], reverse=True)
            out += line + header + line
            out += row("Total", "-", f"{sum(r[2] for r in report)}", f"{total_time:.5}", "100 %") + line
            for action, mean, calls, total, share in report:
                out += row(action, f"{mean:.5}", f"{calls}", f"{total:.5}", f"{share:.5}")
            out += line
        else:
            def row(action, mean, total):
                return f"{sep}|  {action:<{width}s}\t|  {mean:<15}\t|  {total:<15}\t|"
            header = row("Action", "Mean duration (s)", "Total time (s)")
            line = f"{sep}{'-' * len(header.expandtabs())}"
            report = [(a, sum(d) / len(d), sum(d)) for a, d in self.recorded_durations.items()]
            report.sort(key=lambda r: r[1], reverse=True)
            out += line + header + line
            for action, mean, total in report:
                out += row(action, f"{mean:.5}", f"{total:.5}")
            out += line
        return out + sep
