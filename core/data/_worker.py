"""What runs inside a DataLoader worker process, and ``get_worker_info``.

A worker receives ``(task_index, indices)`` on its own index queue, fetches and collates the batch, and puts
``(task_index, pickled_batch)`` on the result queue it shares with the other workers. ``None`` on the index queue
means "exit"; a ``_ResumeIteration`` starts a new epoch of a persistent worker. An exception is sent back as an
``ExceptionWrapper`` carrying the formatted traceback, and the main process re-raises it.
"""
from __future__ import annotations

import os
import pickle
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from ._fetch import _DatasetKind

__all__ = ["get_worker_info", "WorkerInfo", "ExceptionWrapper"]

# How often (seconds) a worker waiting for work checks that its parent is still alive.
MP_STATUS_CHECK_INTERVAL = 1.0

_worker_info = None


class WorkerInfo:
    """Information about the current DataLoader worker process (read-only).

    Attributes:
        id (int): this worker's id, in ``[0, num_workers)``.
        num_workers (int): the total number of workers.
        seed (int): the seed of this worker's random generators (``base_seed + id``).
        dataset: this worker's copy of the dataset.
    """

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    """Information about the current DataLoader worker, or ``None`` in the main process.

    In a worker it returns a :class:`WorkerInfo` with ``id``, ``num_workers``, ``seed`` and ``dataset`` (the
    worker's own copy). Use it in an :class:`~ember.data.IterableDataset` to split the stream between workers, or
    in a ``worker_init_fn`` to configure each copy of the dataset.
    """
    return _worker_info


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback as text."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the exception in the current process, its message holding the original traceback."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError quotes its message when printed; keep the traceback readable
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # the exception type needs other constructor arguments
            exception = RuntimeError(msg)
        try:
            raise exception
        finally:
            # no local may point at the exception: its traceback holds this frame, and the cycle would keep the
            # loader iterator (and its worker processes) alive until the garbage collector runs
            del exception


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's copy of an IterableDataset is exhausted."""
    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Start a new epoch in a persistent worker."""


class _ParentWatchdog:
    """Notices when the main process died, so an orphaned worker exits instead of waiting forever."""

    def __init__(self):
        self.parent_pid = os.getppid()

    def is_alive(self) -> bool:
        return os.getppid() == self.parent_pid


def _seed_worker(base_seed, worker_id):
    """Seed ember, ``random`` and NumPy's global generator of this worker from ``base_seed + worker_id``."""
    from ..random import manual_seed
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    # NumPy's legacy seeding takes 32-bit words: derive four from (base_seed, worker_id) with a SeedSequence
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    return seed


def _pack(result, worker_id):
    """Pickle a result here, so that an unpicklable batch becomes a readable error instead of a lost message."""
    try:
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        idx, data = result
        if isinstance(data, ExceptionWrapper):  # the exception type itself cannot be pickled
            data.exc_type = RuntimeError
            return pickle.dumps((idx, data), protocol=pickle.HIGHEST_PROTOCOL)
        wrapper = ExceptionWrapper(where=f"in DataLoader worker process {worker_id} while sending a batch to the "
                                         "main process (the batch must be picklable)")
        return pickle.dumps((idx, wrapper), protocol=pickle.HIGHEST_PROTOCOL)


def _worker_loop(dataset_kind, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                 base_seed, init_fn, worker_id, num_workers, persistent_workers, seed_workers):
    """The body of a worker process (see the module docstring for the protocol)."""
    global _worker_info
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            elif seed_workers:  # seed_everything(workers=True): Lightning's per-worker seeding
                from ..seed import pl_worker_init_function
                pl_worker_init_function(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")

        iteration_end = False
        watchdog = _ParentWatchdog()
        while watchdog.is_alive():
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(r, _ResumeIteration):
                data_queue.put(_pack((r, None), worker_id))
                iteration_end = False
                if init_exception is None:
                    fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # drain stale work until the exit signal arrives
            idx, index = r
            if init_exception is not None:
                data, init_exception = init_exception, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if dataset_kind != _DatasetKind.Iterable:  # only an iterable dataset ends by StopIteration
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                    else:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put(_pack((idx, data), worker_id))
            del data, idx, index, r  # free the batch before blocking for the next task
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
