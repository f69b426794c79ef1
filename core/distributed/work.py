"""Work handles: what ``async_op=True`` collectives and ``isend``/``irecv`` return.

A ``Work`` completes in the background; ``wait()`` blocks until it has, re-raises its error if it failed, and only
then are the output tensors valid (for a CPU backend ``wait`` is also where results are copied back into tensors
that needed a temporary buffer).
"""
from __future__ import annotations

import threading
from typing import Callable, List, Optional

__all__ = ["Work"]


class Work:
    """A pending communication, as ``torch.distributed.Work``.

    Example::

        work = dist.all_reduce(t, async_op=True)
        ...                       # overlap with computation
        work.wait()               # t holds the result from here on
    """

    def __init__(self, tensors: Optional[list] = None, source: int = -1) -> None:
        self._tensors = tensors if tensors is not None else []
        self._callbacks: List[Callable[[], None]] = []
        self._finished = False
        self._error: Optional[BaseException] = None
        self._source = source

    # -- to be provided by backends
    def _poll(self) -> bool:
        """True once the backend has finished (successfully or not); never blocks."""
        return True

    def _block(self, timeout: Optional[float]) -> None:
        """Block until the backend has finished; raise on failure or after ``timeout`` seconds."""

    # -- public API
    def wait(self, timeout=None) -> bool:
        """Block until the operation completes; raise its error if it failed. Returns ``True``.

        Args:
            timeout (float or timedelta, optional): give up after this long (the group's timeout applies anyway).
        """
        if self._finished:
            if self._error is not None:
                raise self._error
            return True
        if timeout is not None and hasattr(timeout, "total_seconds"):
            timeout = timeout.total_seconds()
        try:
            self._block(timeout)
            for fn in self._callbacks:
                fn()
        except BaseException as exc:
            self._error = exc
            self._finished = True
            raise
        self._finished = True
        return True

    def is_completed(self) -> bool:
        """True once the operation has finished (call :meth:`wait` to get the results into the tensors)."""
        return self._finished or self._poll()

    def is_success(self) -> bool:
        """True if the operation completed without error (waits for it)."""
        try:
            self.wait()
        except Exception:
            return False
        return True

    def exception(self) -> Optional[BaseException]:
        """The error the operation failed with, or ``None``."""
        return self._error

    def result(self) -> list:
        """The output tensors of the operation (valid after :meth:`wait`)."""
        self.wait()
        return list(self._tensors)

    def source_rank(self) -> int:
        """For ``irecv``: the global rank the message came from (after :meth:`wait`)."""
        self.wait()
        return self._source

    def _then(self, fn: Callable[[], None]) -> "Work":
        self._callbacks.append(fn)
        return self


class CompletedWork(Work):
    """A work that finished synchronously (or had nothing to do)."""

    def __init__(self, tensors=None, source: int = -1) -> None:
        super().__init__(tensors, source)


class ThreadWork(Work):
    """A work completed by a background thread (the local backend's executor or receiver threads)."""

    def __init__(self, tensors=None, describe: str = "operation") -> None:
        super().__init__(tensors)
        self._event = threading.Event()
        self._thread_error: Optional[BaseException] = None
        self._describe = describe
        self._blocker: Optional[Callable[[Optional[float]], None]] = None

    def _complete(self, error: Optional[BaseException] = None, source: int = -1) -> None:
        self._thread_error = error
        if source >= 0:
            self._source = source
        self._event.set()

    def _poll(self) -> bool:
        return self._event.is_set()

    def _block(self, timeout) -> None:
        if self._blocker is not None:
            self._blocker(timeout)
        elif not self._event.wait(timeout):
            from .errors import DistBackendError
            raise DistBackendError(f"Work.wait(timeout={timeout}) expired before the {self._describe} completed")
        if self._thread_error is not None:
            raise self._thread_error
