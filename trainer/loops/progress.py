"""Progress counters (Lightning's ``ready``/``started``/``processed``/``completed``, for ``total`` and ``current``)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict

__all__ = ["Tracker", "Progress", "BatchProgress"]


@dataclass
class Tracker:
    """How many items reached each phase."""

    ready: int = 0
    started: int = 0
    processed: int = 0
    completed: int = 0

    def reset(self) -> None:
        self.ready = self.started = self.processed = self.completed = 0

    def reset_on_restart(self) -> None:
        # an item that was started but not completed when the checkpoint was taken runs again
        self.ready = self.started = self.processed = self.completed


@dataclass
class Progress:
    """Counters over the whole run (``total``) and the current loop run (``current``)."""

    total: Tracker = field(default_factory=Tracker)
    current: Tracker = field(default_factory=Tracker)

    def increment_ready(self) -> None:
        self.total.ready += 1
        self.current.ready += 1

    def increment_started(self) -> None:
        self.total.started += 1
        self.current.started += 1

    def increment_processed(self) -> None:
        self.total.processed += 1
        self.current.processed += 1

    def increment_completed(self) -> None:
        self.total.completed += 1
        self.current.completed += 1

    def reset_on_run(self) -> None:
        self.current.reset()

    def reset_on_restart(self) -> None:
        self.total.reset_on_restart()
        self.current.reset_on_restart()

    def state_dict(self) -> Dict[str, Any]:
        return asdict(self)

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        self.total = Tracker(**state["total"])
        self.current = Tracker(**state["current"])


@dataclass
class BatchProgress(Progress):
    """Batch counters plus whether the last fetched batch was the epoch's last."""

    is_last_batch: bool = False

    def reset_on_run(self) -> None:
        super().reset_on_run()
        self.is_last_batch = False

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.is_last_batch = state.get("is_last_batch", False)
