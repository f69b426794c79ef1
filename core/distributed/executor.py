"""A per-group FIFO worker thread: how the ``"local"`` backend runs ``async_op=True`` collectives.

Collectives of one group must run in the order they were issued on every rank. Asynchronous ones go to this
queue; a synchronous one runs in the caller's thread when the queue is idle and otherwise queues behind the
pending ones and waits, so issue order is always kept.
"""
from __future__ import annotations

import queue
import threading
from typing import Callable

from .work import ThreadWork

__all__ = ["SerialExecutor"]


class SerialExecutor:
    """Runs submitted calls one at a time, in submission order, on one daemon thread."""

    def __init__(self, name: str):
        self._name = name
        self._queue: "queue.Queue" = queue.Queue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread = None

    def _ensure_thread(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, daemon=True, name=self._name)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            fn, work = self._queue.get()
            try:
                fn()
            except BaseException as exc:  # stored on the work, raised by wait()
                work._complete(exc)
            else:
                work._complete(None)
            finally:
                with self._lock:
                    self._pending -= 1

    def submit(self, fn: Callable[[], None], work: ThreadWork) -> ThreadWork:
        """Queue ``fn``; ``work`` completes when it has run."""
        with self._lock:
            self._pending += 1
            self._ensure_thread()
        self._queue.put((fn, work))
        return work

    def run(self, fn: Callable[[], None], describe: str) -> None:
        """Run ``fn`` now if nothing is queued, else after the queued calls (blocking either way)."""
        with self._lock:
            idle = self._pending == 0
        if idle:
            fn()
            return
        work = ThreadWork(describe=describe)
        self.submit(fn, work)
        work._event.wait()
        if work._thread_error is not None:
            raise work._thread_error
