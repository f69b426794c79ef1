"""``DataLoader``: batches from a dataset, in the main process or in worker processes, resumable mid-epoch.

Each ``iter(loader)`` is one epoch. The index sampler (a :class:`BatchSampler` when batching automatically) runs in
the main process; the batches are fetched either right there (``num_workers=0``) or by worker processes that get
lists of indices on their own queues and return collated batches on one shared queue. Batches are delivered in
sampler order whatever order the workers finish in.

A dataset with ``__getitems__`` is fetched one batch per call. :class:`TensorDataset` implements it with one
fancy-index per tensor and hands back stacked columns that ``default_collate`` passes through, so an epoch over
in-memory tensors costs a few array copies.

Resuming: :meth:`DataLoader.state_dict` records how many batches of the current epoch were handed out, the worker
base seed and the index sampler's state at the start of the epoch (how its order was drawn, not the order).
After :meth:`DataLoader.load_state_dict`, the next ``iter()`` replays the sampler's order, skips the batches that were
already consumed (indices only, no data is fetched for map-style datasets) and continues; later epochs are
identical to an uninterrupted run as long as ember's global RNG is restored too (the Trainer's checkpoint does it).
An IterableDataset is replayed from its start and the consumed batches are fetched and dropped.
"""
from __future__ import annotations

import copy
import itertools
import math
import multiprocessing
import multiprocessing.context
import numbers
import os
import pickle
import queue
import warnings
from typing import Generic, TypeVar

from ..random import Generator
from ._fetch import _DatasetKind
from ._worker import (MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, _IterableDatasetStopIteration, _ResumeIteration,
                      _worker_loop)
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, _draw_seed

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)

_STATE_KEYS = ("epoch_in_progress", "num_yielded", "base_seed", "sampler")


class _InfiniteConstantSampler(Sampler):
    """The index sampler of an IterableDataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class _EpochProgress:
    """What the loader's state_dict needs about the current epoch; updated by the live iterator."""

    __slots__ = ("in_progress", "num_yielded", "base_seed", "sampler")

    def __init__(self, num_yielded, base_seed, sampler):
        self.in_progress = True
        self.num_yielded = num_yielded
        self.base_seed = base_seed
        self.sampler = sampler


class DataLoader(Generic[T_co]):
    """Combines a dataset and a sampler, and iterates over batches of the dataset.

    Args:
        dataset (Dataset): a map-style dataset (``__getitem__``/``__len__``, optionally ``__getitems__``) or an
            :class:`~ember.data.IterableDataset`.
        batch_size (int, optional): samples per batch; ``None`` disables automatic batching. Default: ``1``.
        shuffle (bool, optional): reshuffle the data every epoch. Default: ``False``.
        sampler (Sampler or Iterable, optional): the order of the indices; excludes ``shuffle``.
        batch_sampler (Sampler or Iterable, optional): yields lists of indices; excludes ``batch_size``,
            ``shuffle``, ``sampler`` and ``drop_last``.
        num_workers (int): worker processes that load batches; ``0`` loads in the main process. Default: ``0``.
        collate_fn (Callable, optional): merges a list of samples into a batch. Default: :func:`default_collate`
            (:func:`default_convert` without automatic batching).
        pin_memory (bool): accepted for compatibility; there is nothing to pin on the CPU.
        drop_last (bool): drop the last incomplete batch. Default: ``False``.
        timeout (numeric): seconds to wait for a batch from the workers before raising; ``0`` waits forever.
        worker_init_fn (Callable, optional): called as ``worker_init_fn(worker_id)`` in each worker after seeding.
        multiprocessing_context (str or context, optional): the start method of the workers (``"fork"``,
            ``"spawn"``, ``"forkserver"``) or a multiprocessing context. Default: the platform's default.
        generator (Generator, optional): draws the shuffle order (through ``RandomSampler``) and the workers' base
            seed. Default: ember's global generator.
        prefetch_factor (int, optional): batches loaded in advance by each worker. Default: ``2`` with workers.
        persistent_workers (bool): keep the worker processes alive between epochs. Default: ``False``.
        pin_memory_device (str): accepted for compatibility and ignored.

    Each worker seeds ember's generator, Python's ``random`` and NumPy's global generator from
    ``base_seed + worker_id``, where ``base_seed`` is drawn from ``generator`` (or the global generator) once per
    iterator; :func:`~ember.data.get_worker_info` reports it as ``seed``.

    Example::

        loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)
        for xb, yb in loader:
            ...
    """

    _DataLoader__initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device=""):
        if not isinstance(num_workers, (numbers.Integral,)) or isinstance(num_workers, bool):
            raise TypeError(f"num_workers option should be an int, but got num_workers={num_workers!r}")
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if not isinstance(timeout, numbers.Real) or timeout < 0:
            raise ValueError(f"timeout option should be non-negative, but got timeout={timeout!r}")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and (not isinstance(prefetch_factor, numbers.Integral)
                                              or prefetch_factor < 1):
            raise ValueError(f"prefetch_factor option should be a positive integer, but got "
                             f"prefetch_factor={prefetch_factor!r}")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator should be an ember.Generator or None, but got {type(generator).__name__}")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            if not hasattr(dataset, "__getitem__") and not hasattr(dataset, "__getitems__"):
                raise TypeError(f"DataLoader: dataset must be a map-style dataset (with __getitem__ and __len__) or "
                                f"an ember.data.IterableDataset, but got {type(dataset).__name__}")
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None  # the persistent iterator (persistent_workers=True only)
        self._progress = None  # the latest epoch's progress, for state_dict
        self._resume = None  # a loaded state, applied by the next iter()
        self._IterableDataset_len_called = None
        self.__initialized = True
        self.check_worker_number_rationality()

    # -- configuration ---------------------------------------------------------------------------------------
    @property
    def multiprocessing_context(self):
        """The multiprocessing context the workers are started with (``None``: the platform default)."""
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    valid = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid:
                        raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                         f"{valid!r}, but got multiprocessing_context={multiprocessing_context!r}")
                    multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                    raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                    f"specifying the start method, but got "
                                    f"multiprocessing_context={multiprocessing_context}")
            else:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the main process iterates: batches of indices when batching automatically, else single indices
        return self.batch_sampler if self._auto_collation else self.sampler

    def check_worker_number_rationality(self) -> None:
        """Warn when more workers are requested than this process may use CPUs."""
        if self.num_workers == 0:
            return
        try:
            max_workers = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            max_workers = os.cpu_count()
        if max_workers is not None and self.num_workers > max_workers:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. Our suggested "
                          f"max number of worker in current system is {max_workers}, which is smaller than what "
                          "this DataLoader is going to create. Please be aware that excessive worker creation might "
                          "get DataLoader running slow or even freeze, lower the worker number to avoid potential "
                          "slowness/freeze if necessary.", UserWarning, stacklevel=3)

    # -- iteration -------------------------------------------------------------------------------------------
    def _get_iterator(self):
        resume, self._resume = self._resume, None
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self, resume)
        return _MultiProcessingDataLoaderIter(self, resume)

    def __iter__(self):
        """An iterator over one epoch of batches (the persistent one when ``persistent_workers=True``)."""
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                resume, self._resume = self._resume, None
                self._iterator._reset(self, resume)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        """The number of batches in an epoch (the dataset's length for an IterableDataset, if it has one)."""
        if self._dataset_kind == _DatasetKind.Iterable:
            if not hasattr(self.dataset, "__len__"):
                raise TypeError(f"object of type '{type(self.dataset).__name__}' has no len(): an IterableDataset "
                                "has a length only if it defines __len__")
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    # -- resumable state -------------------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """The loader's position, as plain Python values (plus small uint8 generator-state tensors).

        Keys: ``epoch_in_progress`` (an epoch was started and has not ended), ``num_yielded`` (batches of it
        already handed out), ``base_seed`` (the workers' base seed to reuse, or None to draw a new one),
        ``sampler`` (the index sampler's state at the start of the epoch in progress, else its current state) and,
        between epochs, ``generator`` (the state of the loader's ``generator``, which the next epoch draws from).
        """
        if self._resume is not None:
            return copy.deepcopy(self._resume)
        progress = self._progress
        if progress is not None and progress.in_progress:
            return copy.deepcopy({"epoch_in_progress": True, "num_yielded": progress.num_yielded,
                                  "base_seed": progress.base_seed, "sampler": progress.sampler})
        sampler = self._index_sampler
        persistent = self._iterator
        return {"epoch_in_progress": False, "num_yielded": 0,
                "base_seed": persistent._base_seed if persistent is not None else None,
                "sampler": copy.deepcopy(sampler.state_dict()) if hasattr(sampler, "state_dict") else None,
                "generator": self.generator.get_state() if self.generator is not None else None}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state from :meth:`state_dict`; the next ``iter()`` yields the batches that were still to come
        in that epoch, and later epochs continue as they would have."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"DataLoader.load_state_dict: expected a dict, got {type(state_dict).__name__}")
        missing = [k for k in _STATE_KEYS if k not in state_dict]
        if missing:
            raise KeyError(f"DataLoader.load_state_dict: the state is missing {missing}; expected the keys "
                           f"{list(_STATE_KEYS)} as returned by DataLoader.state_dict()")
        k = state_dict["num_yielded"]
        if not isinstance(k, numbers.Integral) or k < 0:
            raise ValueError(f"DataLoader.load_state_dict: num_yielded must be a non-negative int, got {k!r}")
        state = copy.deepcopy(dict(state_dict))
        # Generators are restored now, before the next iter() draws the workers' base seed from them, so that every
        # draw happens in the order of the original run.
        sampler = self._index_sampler
        if state["sampler"] is not None and hasattr(sampler, "load_state_dict"):
            sampler.load_state_dict(state["sampler"])
        if state.get("generator") is not None and self.generator is not None:
            self.generator.set_state(state["generator"])
        self._resume = state


class _BaseDataLoaderIter:
    """One epoch of a DataLoader; subclasses fetch in the main process or in workers."""

    def __init__(self, loader, resume):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        if resume is not None and resume.get("base_seed") is not None:
            self._base_seed = int(resume["base_seed"])
        else:
            self._base_seed = _draw_seed(loader.generator)
        self._sampler_iter = None
        self._num_yielded = 0
        self._discard = 0
        self._progress = None

    def _start_epoch(self, loader, resume):
        """Start the sampler's epoch, or replay a restored one and skip the batches already consumed."""
        sampler = self._index_sampler
        stateful = hasattr(sampler, "state_dict") and hasattr(sampler, "load_state_dict")
        self._sampler_iter = iter(sampler)  # a restored sampler replays its epoch (see load_state_dict)
        snapshot = sampler.state_dict() if stateful else None
        skip = int(resume["num_yielded"]) if resume is not None and resume.get("epoch_in_progress") else 0
        self._num_yielded = skip
        self._discard = 0
        if skip and self._dataset_kind == _DatasetKind.Map:
            for _ in itertools.islice(self._sampler_iter, skip):
                pass
        elif skip:
            self._discard = skip  # an iterable dataset can only be replayed: fetch and drop
        self._progress = loader._progress = _EpochProgress(skip, self._base_seed, snapshot)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            while self._discard:
                self._next_data()
                self._discard -= 1
            data = self._next_data()
        except StopIteration:
            self._progress.in_progress = False
            raise
        self._num_yielded += 1
        self._progress.num_yielded = self._num_yielded
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{self.__class__.__name__} cannot be pickled")

    def _next_data(self):
        raise NotImplementedError


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Fetches every batch in the main process."""

    def __init__(self, loader, resume):
        super().__init__(loader, resume)
        self._start_epoch(loader, resume)
        self._fetcher = _DatasetKind.create_fetcher(self._dataset_kind, self._dataset, self._auto_collation,
                                                    self._collate_fn, self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(next(self._sampler_iter))


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Fetches batches in ``num_workers`` processes, keeping ``prefetch_factor`` batches per worker in flight.

    Task ``i`` goes to the index queue of the next live worker (round-robin); results arrive on one shared queue
    in any order and are buffered until their turn, so batches come out in sampler order.
    """

    def __init__(self, loader, resume):
        super().__init__(loader, resume)
        self._shutdown = False
        self._workers = []
        self._index_queues = []
        self._workers_status = []
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_result_queue = ctx.Queue()
        self._workers_done_event = ctx.Event()
        # seed_everything(workers=True) asks for Lightning's worker seeding; read it here, where it was set
        seed_workers = os.environ.get("PL_SEED_WORKERS", "0") == "1"
        try:
            for worker_id in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # never block interpreter exit on undelivered indices
                w = ctx.Process(target=_worker_loop, daemon=True,
                                args=(self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                                      self._workers_done_event, self._auto_collation, self._collate_fn,
                                      self._drop_last, self._base_seed, loader.worker_init_fn, worker_id,
                                      self._num_workers, self._persistent_workers, seed_workers))
                w.start()
                self._index_queues.append(index_queue)
                self._workers.append(w)
                self._workers_status.append(True)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            self._shutdown_workers()
            if "pickle" not in str(exc).lower():
                raise
            method = ctx.get_start_method()
            raise RuntimeError(f"DataLoader could not start its workers with the '{method}' start method: {exc}. "
                               f"'{method}' pickles the dataset, collate_fn and worker_init_fn, so they must be "
                               "defined at module level (not inside a function, not lambdas).") from exc
        except BaseException:
            self._shutdown_workers()
            raise
        self._reset(loader, resume, first_iter=True)

    def _reset(self, loader, resume, first_iter=False):
        self._start_epoch(loader, resume)
        self._send_idx = 0  # next task index to send
        self._rcvd_idx = 0  # next task index to yield
        self._task_info = {}  # task index -> (worker_id,) while pending, (worker_id, data) once received
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # a new epoch of persistent workers: wait until each has acknowledged, which also drains stale results
            for q in self._index_queues:
                q.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # -- task bookkeeping ------------------------------------------------------------------------------------
    def _try_put_index(self):
        if self._shutdown:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next live worker, round-robin
            worker_id = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_id]:
                break
        else:
            return  # every worker's iterable dataset is exhausted
        self._index_queues[worker_id].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_id,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _try_get_data(self, timeout=MP_STATUS_CHECK_INTERVAL):
        try:
            payload = self._worker_result_queue.get(timeout=timeout)
        except queue.Empty:
            failed = [w for wid, w in enumerate(self._workers) if self._workers_status[wid] and not w.is_alive()]
            if failed:
                for w in failed:
                    self._mark_worker_as_unavailable(self._workers.index(w))
                pids = ", ".join(str(w.pid) for w in failed)
                codes = ", ".join(str(w.exitcode) for w in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly (exit code(s) {codes})"
                                   ) from None
            return False, None
        return True, pickle.loads(payload)

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if ok:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _next_data(self):
        while True:
            # skip tasks of workers whose iterable dataset ended (their results will never come)
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # arrived earlier, out of order
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1])

            idx, data = self._get_data()
            if isinstance(idx, _ResumeIteration):
                continue
            self._tasks_outstanding -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if idx in self._task_info:
                    self._task_info[idx] += (data,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    # -- shutdown --------------------------------------------------------------------------------------------
    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # the worker exits once it reads None; during shutdown every worker gets it
        if self._workers_status[worker_id] or shutdown:
            try:
                self._index_queues[worker_id].put(None)
            except (ValueError, OSError):  # queue already closed
                pass
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        if getattr(self, "_shutdown", True):
            return
        self._shutdown = True
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for w in self._workers:
                w.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._worker_result_queue.cancel_join_thread()
            self._worker_result_queue.close()
        finally:
            for w in self._workers:
                if w.is_alive():  # stuck in user code: do not wait for it
                    w.terminate()
                    w.join(timeout=MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # interpreter shutdown: modules may already be gone
            pass
