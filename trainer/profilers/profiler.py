"""``Profiler``: the base of the Trainer's profilers, as ``lightning.pytorch.profilers.Profiler``.

The Trainer wraps each hook, step and loop phase in ``profiler.profile(action_name)`` with Lightning's action names
(``[LightningModule]Model.optimizer_step``, ``[Callback]ModelCheckpoint{...}.on_validation_end``,
``[Strategy]SingleDeviceStrategy.training_step``, ``run_training_epoch``, ``run_training_batch``,
``[_TrainingEpochLoop].train_dataloader_next``, ...). At the end of each ``fit``/``validate``/``test``/``predict`` the
summary goes to ``dirpath/<stage>-<filename>[-<local_rank>].txt`` when a ``filename`` is given, else to the log.
"""
from __future__ import annotations

import contextlib
import logging
import os
from abc import ABC, abstractmethod
from typing import Dict, Optional

__all__ = ["Profiler"]

log = logging.getLogger("ember.trainer.profilers")


class Profiler(ABC):
    """Subclass this to write a profiler: implement :meth:`start`, :meth:`stop` and :meth:`summary`.

    Args:
        dirpath: where ``filename`` is written; ``None`` uses ``trainer.log_dir``.
        filename: write the summary to ``<stage>-<filename>.txt`` (``-<local_rank>`` added under several processes)
            instead of printing it.
    """

    records = True  # False only for PassThroughProfiler: the Trainer then skips wrapping its hooks

    def __init__(self, dirpath=None, filename: Optional[str] = None) -> None:
        self.dirpath = os.fspath(dirpath) if dirpath is not None else None
        self.filename = filename
        self._stage: Optional[str] = None
        self._local_rank: Optional[int] = None
        self._lightning_module = None

    @abstractmethod
    def start(self, action_name: str) -> None:
        """Start timing ``action_name``."""

    @abstractmethod
    def stop(self, action_name: str) -> None:
        """Stop timing ``action_name`` (started by :meth:`start`)."""

    def summary(self) -> str:
        """The report of what was recorded."""
        return ""

    @contextlib.contextmanager
    def profile(self, action_name: str):
        """Time the block as ``action_name``: ``with trainer.profiler.profile("load data"): ...``."""
        try:
            self.start(action_name)
            yield action_name
        finally:
            self.stop(action_name)

    @property
    def local_rank(self) -> int:
        """This process's rank on its machine (0 in a single process)."""
        return 0 if self._local_rank is None else self._local_rank

    def setup(self, stage: str, local_rank: Optional[int] = None, log_dir: Optional[str] = None) -> None:
        """Called by the Trainer before a run: the stage (``"fit"``, ...), the rank when there are several
        processes, and the log directory to use when no ``dirpath`` was given."""
        self._stage = stage
        self._local_rank = local_rank
        self.dirpath = self.dirpath or log_dir

    def teardown(self, stage: Optional[str]) -> None:
        """Called after the summary is written: release what the run used."""

    def describe(self) -> None:
        """Write the summary: to ``dirpath/<stage>-<filename>.txt`` (appended), or to the log on rank zero."""
        summary = self.summary()
        if summary:
            if self.filename and self.dirpath:
                from ...core.serialization import atomic_write
                path = os.path.join(self.dirpath, self._prepare_filename())
                os.makedirs(self.dirpath, exist_ok=True)
                previous = b""
                if os.path.exists(path):  # Lightning appends: a second fit adds its report below the first
                    with open(path, "rb") as fh:
                        previous = fh.read()
                data = previous + summary.encode("utf-8")
                atomic_write(path, lambda fh: fh.write(data))
            elif self._local_rank in (None, 0):
                log.info(summary)
        self.teardown(stage=self._stage)

    def _prepare_filename(self, action_name: Optional[str] = None, extension: str = ".txt",
                          split_token: str = "-") -> str:
        parts = [p for p in (self._stage, self.filename) if p]
        if self._local_rank is not None:
            parts.append(str(self._local_rank))
        if action_name is not None:
            parts.append(action_name)
        return split_token.join(parts) + extension

    def _stats_to_str(self, stats: Dict[str, str]) -> str:
        stage = f"{self._stage.upper()} " if self._stage is not None else ""
        output = [stage + "Profiler Report"]
        for action, value in stats.items():
            header = f"Profile stats for: {action}"
            if self._local_rank is not None:
                header += f" rank: {self._local_rank}"
            output.append(header)
            output.append(value)
        return os.linesep.join(output)
