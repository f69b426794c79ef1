"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, with PyTorch's semantics.

A child that raises writes its traceback to a file of its own and exits with code 1. The parent waits for the
children; at the first failure it stops the others (SIGTERM, then SIGKILL after a grace period) and raises
:class:`ProcessRaisedException` carrying the child's traceback, or :class:`ProcessExitedException` for a child that
died without one (an exit code or a signal).
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import warnings
from typing import List, Optional

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException", "ProcessRaisedException",
           "ProcessExitedException"]


class ProcessException(Exception):
    """A spawned process failed: ``error_index`` is its index, ``pid`` its process id."""

    def __init__(self, msg: str, error_index: int, pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code or was killed by a signal, without a Python exception."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: Optional[str] = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn, i: int, args: tuple, error_file: str) -> None:
    """The child's entry point: ``fn(i, *args)``; an exception's traceback goes to ``error_file``."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is stopping the job; it reports the cause
    except Exception:
        import traceback
        with open(error_file, "w") as f:
            f.write(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by :func:`start_processes` (returned when ``join=False``)."""

    def __init__(self, processes: List, error_files: List[str]) -> None:
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> List[int]:
        """The process ids of the children."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: Optional[float] = None, grace_period: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds for a child to finish; True once all finished successfully.

        Raises :class:`ProcessRaisedException` or :class:`ProcessExitedException` (after stopping the other
        children, waiting ``grace_period`` seconds for them to exit before killing them) when a child failed.
        """
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(list(self.sentinels), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            done = not self.sentinels
            if done:
                self._remove_error_files()
            return done
        self._stop_all(grace_period)
        process = self.processes[failed]
        trace = self._read(self.error_files[failed])
        self._remove_error_files()
        if not trace:
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed} terminated with signal {name}", error_index=failed,
                                             error_pid=process.pid, exit_code=code, signal_name=name)
            raise ProcessExitedException(f"process {failed} terminated with exit code {code}", error_index=failed,
                                         error_pid=process.pid, exit_code=code)
        msg = f"\n\n-- Process {failed} terminated with the following error:\n{trace}"
        raise ProcessRaisedException(msg, failed, process.pid)

    def _stop_all(self, grace_period: Optional[float]) -> None:
        for p in self.processes:
            if p.is_alive():
                p.terminate()
        deadline = time.monotonic() + (grace_period if grace_period is not None else 5.0)
        for p in self.processes:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self.processes:
            if p.is_alive():
                p.kill()
            p.join()
        self.sentinels.clear()

    @staticmethod
    def _read(path: str) -> str:
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return ""

    def _remove_error_files(self) -> None:
        for path in self.error_files:
            try:
                os.unlink(path)
            except OSError:
                pass


def start_processes(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False,
                    start_method: str = "spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)`` with ``start_method`` (``"spawn"``, ``"fork"`` or
    ``"forkserver"``). With ``join=True`` wait for all (re-raising a failure); else return a
    :class:`ProcessContext`."""
    if not isinstance(nprocs, int) or isinstance(nprocs, bool) or nprocs < 1:
        raise ValueError(f"nprocs must be a positive int, got {nprocs!r}")
    if not isinstance(args, tuple):
        raise TypeError(f"args must be a tuple (the arguments after the process index), got {type(args).__name__}"
                        f"; write args=({args!r},) for a single argument")
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="ember-spawn-", suffix=".err")
        os.close(fd)
        error_files.append(path)
        process = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        process.start()
        processes.append(process)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs: int = 1, join: bool = True, daemon: bool = False, start_method: str = "spawn"):
    """Spawn ``nprocs`` processes running ``fn(i, *args)``, ``i`` in ``range(nprocs)``, as
    ``torch.multiprocessing.spawn``.

    Args:
        fn: a function defined at the top level of a module (it is pickled by reference).
        args (tuple): the arguments after the process index.
        nprocs (int): how many processes.
        join (bool): wait for all of them (the default); otherwise return a :class:`ProcessContext`.
        daemon (bool): make the children daemonic.
        start_method (str): must be ``"spawn"`` (use :func:`start_processes` for others).

    Raises:
        ProcessRaisedException: a child raised; the message names its index and shows its traceback.
        ProcessExitedException: a child exited with a non-zero code or was killed by a signal.
    """
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\nTo use a different "
                      "start_method use:\n\t\t ember.multiprocessing.start_processes(...)", FutureWarning,
                      stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
