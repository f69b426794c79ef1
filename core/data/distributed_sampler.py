"""``DistributedSampler``: each of ``num_replicas`` processes visits its own share of a dataset.

The arithmetic is PyTorch's, so every rank sees the same indices as under ``torch.utils.data.DistributedSampler``:

- without ``drop_last``, every rank gets ``ceil(N / R)`` indices and the index list is padded to ``R`` times that
  by repeating its start;
- with ``drop_last`` and ``N % R != 0``, every rank gets ``ceil((N - R) / R)`` indices and the tail is cut;
- rank ``r`` takes every ``R``-th index starting at ``r``.

With ``shuffle=False`` the indices equal PyTorch's exactly. With ``shuffle=True`` the order is a permutation drawn
from an ember generator seeded with ``seed + epoch``; it is deterministic and identical on every rank, but it is
not the permutation PyTorch draws (a different random number generator).
"""
from __future__ import annotations

import math
import numbers
from typing import Iterator

import numpy as np

from .sampler import Sampler, _check_state, _IndexIterator

__all__ = ["DistributedSampler"]


def _world(num_replicas, rank):
    """Fill in a missing ``num_replicas``/``rank`` from ``ember.distributed``, or explain what to pass."""
    missing = [name for name, v in (("num_replicas", num_replicas), ("rank", rank)) if v is None]
    try:  # imported lazily: distributed is optional and must not load with ember.data
        from .. import distributed as dist
        available = bool(getattr(dist, "is_available", lambda: False)())
        initialized = available and bool(getattr(dist, "is_initialized", lambda: False)())
    except ImportError:
        available = initialized = False
    if not initialized:
        reason = ("Requires distributed package to be available" if not available else
                  "Default process group has not been initialized, please make sure to call init_process_group.")
        given = " and ".join(f"{m}=None" for m in missing)
        raise RuntimeError(f"{reason.rstrip('.')}: DistributedSampler got {given} and ember.distributed is not "
                           f"initialized. Pass {' and '.join(missing)} explicitly, or call "
                           "ember.distributed.init_process_group() first.")
    if num_replicas is None:
        num_replicas = dist.get_world_size()
    if rank is None:
        rank = dist.get_rank()
    return num_replicas, rank


class DistributedSampler(Sampler):
    """Restricts sampling to one process's share of the dataset, for distributed data parallel training.

    Call :meth:`set_epoch` at the start of every epoch when ``shuffle=True``; otherwise every epoch uses the same
    order.

    .. note::
        With ``shuffle=False`` the indices are exactly PyTorch's. With ``shuffle=True`` they come from an ember
        generator seeded with ``seed + epoch``: the same on every rank and in every run, but a different
        permutation from the one PyTorch draws for the same seed.

    Args:
        dataset (Dataset): the dataset to sample from (must define ``__len__``).
        num_replicas (int, optional): number of processes. Default: the world size of ``ember.distributed``.
        rank (int, optional): this process's rank in ``[0, num_replicas)``. Default: ``ember.distributed``'s rank.
        shuffle (bool): shuffle the indices. Default: ``True``.
        seed (int): the shuffle seed; must be the same on every process. Default: ``0``.
        drop_last (bool): drop the tail so the data divides evenly instead of padding with repeated indices.
            Default: ``False``.

    Example::

        >>> sampler = DistributedSampler(dataset, num_replicas=3, rank=1, shuffle=False)  # len(dataset) == 10
        >>> list(sampler)
        [1, 4, 7, 0]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle: bool = True, seed: int = 0,
                 drop_last: bool = False) -> None:
        if not hasattr(dataset, "__len__"):
            raise TypeError(f"DistributedSampler: dataset must define __len__, but {type(dataset).__name__} "
                            "has no __len__")
        if num_replicas is None or rank is None:
            num_replicas, rank = _world(num_replicas, rank)
        for name, v in (("num_replicas", num_replicas), ("rank", rank), ("seed", seed)):
            if not isinstance(v, (numbers.Integral, np.integer)) or isinstance(v, bool):
                raise TypeError(f"DistributedSampler: {name} must be an int, got {v!r}")
        if num_replicas <= 0:
            raise ValueError(f"DistributedSampler: num_replicas must be positive, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = int(num_replicas)
        self.rank = int(rank)
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % self.num_replicas != 0:
            # the smallest even split that needs no padding
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = int(seed)
        self._it = None
        self._pending = None

    def _indices(self) -> list:
        n = len(self.dataset)
        if self.shuffle:
            from ..ops.creation import randperm
            from ..random import Generator
            order = randperm(n, generator=Generator().manual_seed(self.seed + self.epoch))._data.tolist()
        else:
            order = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(order)
            if pad <= len(order):
                order += order[:pad]
            else:
                order += (order * math.ceil(pad / len(order)))[:pad]
        else:
            order = order[:self.total_size]
        return order[self.rank:self.total_size:self.num_replicas]

    def __iter__(self) -> Iterator[int]:
        pending, self._pending = self._pending, None
        self._it = _IndexIterator(self._indices(), pending["yielded"] if pending else 0)
        return self._it

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch; with ``shuffle=True`` it reseeds the order so that every epoch differs."""
        self.epoch = epoch

    def state_dict(self) -> dict:
        """The epoch and the number of indices yielded in it (0 between epochs)."""
        if self._pending is not None:
            return dict(self._pending)
        live = self._it is not None and not self._it.done
        return {"epoch": self.epoch, "yielded": self._it.pos if live else 0}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the epoch; the next ``iter()`` continues after the yielded indices."""
        state = _check_state(state_dict, ("epoch", "yielded"), "DistributedSampler")
        self.epoch = state["epoch"]
        self._pending = state
