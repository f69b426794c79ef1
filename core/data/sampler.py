"""Samplers: the order in which a DataLoader visits a map-style dataset's indices.

Every sampler here is resumable. ``state_dict()`` records how the current epoch's order was drawn (a seed or a
generator state, never the order itself) and how many indices were handed out; after ``load_state_dict`` the next
``iter()`` replays that epoch's order and continues where it stopped. Between epochs the state describes how the
next epoch will be drawn, so a restored sampler also continues later epochs identically.

All randomness comes from ember generators: ``generator=`` when given, else ember's global generator.
"""
from __future__ import annotations

import numbers
import warnings
from itertools import islice
from typing import Generic, Iterator, TypeVar

import numpy as np

from ..random import Generator, default_generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def _draw_seed(generator=None) -> int:
    """A fresh 63-bit seed drawn from ``generator`` (ember's global generator when None), as PyTorch draws one."""
    from ..ops.creation import randint
    return int(randint(0, 2 ** 63 - 1, (), generator=generator).item())


def _check_generator(generator, owner):
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{owner}: generator must be an ember.Generator or None, got {type(generator).__name__}")


def _require_len(data_source, owner):
    if not hasattr(data_source, "__len__"):
        raise TypeError(f"{owner}: data_source must be a sized (map-style) dataset that defines __len__, but "
                        f"{type(data_source).__name__} has no __len__. Pass an IterableDataset to the DataLoader "
                        "without a sampler, or give the dataset a __len__.")


def _check_state(state, keys, owner):
    if not isinstance(state, dict):
        raise TypeError(f"{owner}.load_state_dict: expected a dict, got {type(state).__name__}")
    missing = [k for k in keys if k not in state]
    if missing:
        raise KeyError(f"{owner}.load_state_dict: the state is missing {missing}; expected the keys {list(keys)} "
                       f"as returned by {owner}.state_dict()")
    yielded = state.get("yielded", 0)
    if not isinstance(yielded, (numbers.Integral, np.integer)) or yielded < 0:
        raise ValueError(f"{owner}.load_state_dict: 'yielded' must be a non-negative int, got {yielded!r}")
    return dict(state)


class _IndexBatch(list):
    """A batch of indices: a plain list (what samplers promise) that also carries them as an int64 array, so a
    dataset's ``__getitems__`` can index with it without converting the list back."""

    __slots__ = ("array",)


class _IndexIterator:
    """Iterator over an epoch's precomputed indices that counts what it handed out (for ``state_dict``).

    ``take(n)`` returns the next ``n`` indices as one list, so a BatchSampler does not step index by index. When the
    indices were drawn as an array, ``take`` returns an :class:`_IndexBatch` carrying that array's slice.
    """

    __slots__ = ("_indices", "_array", "pos", "done")

    def __init__(self, indices, pos=0):
        if isinstance(indices, np.ndarray):
            self._array, self._indices = indices, indices.tolist()
        else:
            self._array, self._indices = None, indices
        self.pos = min(int(pos), len(self._indices))
        self.done = False  # set once the end was signalled, not merely reached (as a for loop would see it)

    def __iter__(self):
        return self

    def __next__(self):
        pos = self.pos
        if pos >= len(self._indices):
            self.done = True
            raise StopIteration
        self.pos = pos + 1
        return self._indices[pos]

    def __length_hint__(self):
        return len(self._indices) - self.pos

    def take(self, n):
        start, stop = self.pos, self.pos + n
        chunk = self._indices[start:stop]
        if not chunk:
            self.done = True
        self.pos += len(chunk)
        batch = _IndexBatch(chunk)
        if self._array is not None:
            batch.array = self._array[start:stop]
        elif type(chunk) is range:
            batch.array = np.arange(chunk.start, chunk.stop, chunk.step, dtype=np.int64)
        else:
            return chunk
        return batch


def _epoch_generator(generator, pending, draw_seed):
    """The generator for this epoch's draws, and the state that replays them.

    ``pending`` is a loaded state. A user's ``generator`` was already set to the loaded state by
    ``load_state_dict``; without one, a ``generator`` state or a ``seed`` is replayed on a private generator, so
    replaying never touches ember's global generator (whose state the caller restores separately, e.g. the
    Trainer's checkpoint).
    """
    if pending is not None:
        seed, state = pending.get("seed"), pending.get("generator")
        if seed is not None:  # the epoch was drawn by a generator seeded with it
            return Generator().manual_seed(seed), {"seed": int(seed), "generator": None}
        if state is not None and generator is None:
            g = Generator()
            g.set_state(state)
            return g, {"seed": None, "generator": state}
    if generator is None:
        if draw_seed:  # RandomSampler: PyTorch seeds a fresh generator from the global one every epoch
            seed = _draw_seed(None)
            return Generator().manual_seed(seed), {"seed": seed, "generator": None}
        return default_generator, {"seed": None, "generator": default_generator.get_state()}
    return generator, {"seed": None, "generator": generator.get_state()}


class Sampler(Generic[T_co]):
    """Base class of samplers: an iterable over dataset indices (or lists of indices, for batch samplers).

    Subclasses implement ``__iter__`` and usually ``__len__``. Override ``state_dict``/``load_state_dict`` to make
    a custom sampler resumable mid-epoch; the defaults describe a stateless sampler.
    """

    def __init__(self, data_source=None) -> None:
        if data_source is not None:
            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.", UserWarning, stacklevel=2)

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError

    def state_dict(self) -> dict:
        """The sampler's resumable state (empty for a stateless sampler)."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state returned by :meth:`state_dict`."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.load_state_dict: expected a dict, got "
                            f"{type(state_dict).__name__}")


class _ResumableSampler(Sampler):
    """Shared bookkeeping: the live epoch iterator, its replay snapshot and a pending loaded state."""

    _it = None
    _snapshot = None
    _pending = None

    def _start(self, indices, snapshot, pending):
        self._snapshot = snapshot
        self._it = _IndexIterator(indices, pending.get("yielded", 0) if pending else 0)
        return self._it

    def _fresh_state(self) -> dict:
        return {"seed": None, "generator": None}

    def state_dict(self) -> dict:
        """How the current epoch's order was drawn and how many indices were yielded; between epochs, how the next
        epoch will be drawn (``yielded`` is 0)."""
        if self._pending is not None:
            return dict(self._pending)
        if self._it is not None and not self._it.done:
            return dict(self._snapshot, yielded=self._it.pos)
        return dict(self._fresh_state(), yielded=0)

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state from :meth:`state_dict`: the next ``iter()`` replays that epoch from where it stopped.

        A user's ``generator`` is set to the saved state right away, so draws made before the next ``iter()`` (the
        DataLoader's worker seed) happen exactly as they did in the original run.
        """
        state = _check_state(state_dict, ("yielded",), type(self).__name__)
        generator = getattr(self, "generator", None)
        if generator is not None and state.get("generator") is not None:
            generator.set_state(state["generator"])
        self._pending = state

    def _take_pending(self):
        pending, self._pending = self._pending, None
        return pending


class SequentialSampler(_ResumableSampler):
    """Yields ``0, 1, ..., len(data_source) - 1`` in order.

    Args:
        data_source (Dataset): the dataset to sample from (must define ``__len__``).
    """

    def __init__(self, data_source) -> None:
        _require_len(data_source, "SequentialSampler")
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return self._start(range(len(self.data_source)), {"seed": None, "generator": None}, self._take_pending())

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(_ResumableSampler):
    """Samples elements randomly: a permutation without replacement, or ``num_samples`` draws with replacement.

    Without a ``generator``, each epoch draws a fresh seed from ember's global generator, as PyTorch does. The
    orders differ from PyTorch's for the same seed (a different random number generator).

    Args:
        data_source (Dataset): the dataset to sample from (must define ``__len__``).
        replacement (bool): draw with replacement. Default: ``False``.
        num_samples (int): number of samples to draw. Default: ``len(data_source)``. Without replacement a larger
            value chains several permutations.
        generator (Generator): the generator of the draws.
    """

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        _require_len(data_source, "RandomSampler")
        _check_generator(generator, "RandomSampler")
        n = self.num_samples
        if not isinstance(n, (numbers.Integral, np.integer)) or isinstance(n, bool) or n <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={n}")

    @property
    def num_samples(self) -> int:
        """The number of indices one epoch yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def _fresh_state(self) -> dict:
        return {"seed": None, "generator": None if self.generator is None else self.generator.get_state()}

    def __iter__(self) -> Iterator[int]:
        from ..ops.creation import randint, randperm

        pending = self._take_pending()
        g, snapshot = _epoch_generator(self.generator, pending, draw_seed=True)
        n, total = len(self.data_source), int(self.num_samples)
        if self.replacement:
            indices = randint(0, n, (total,), generator=g)._data
        else:
            # whole permutations, then part of one more (drawn only when needed, unlike PyTorch's loop)
            parts = [randperm(n, generator=g)._data for _ in range(total // n)]
            if total % n:
                parts.append(randperm(n, generator=g)._data[:total % n])
            indices = np.concatenate(parts) if len(parts) > 1 else parts[0]
        return self._start(indices.astype(np.int64, copy=False), snapshot, pending)

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(_ResumableSampler):
    """Samples the given ``indices`` in a random order, without replacement.

    Args:
        indices (sequence): the indices to sample from.
        generator (Generator): the generator of the permutation (default: ember's global generator).
    """

    def __init__(self, indices, generator=None) -> None:
        _require_len(indices, "SubsetRandomSampler")
        _check_generator(generator, "SubsetRandomSampler")
        self.indices = indices
        self.generator = generator

    def _fresh_state(self) -> dict:
        return {"seed": None, "generator": None if self.generator is None else self.generator.get_state()}

    def __iter__(self) -> Iterator[int]:
        from ..ops.creation import randperm

        pending = self._take_pending()
        g, snapshot = _epoch_generator(self.generator, pending, draw_seed=False)
        order = randperm(len(self.indices), generator=g)._data
        as_array = np.asarray(self.indices) if not isinstance(self.indices, range) else None
        if as_array is not None and as_array.ndim == 1 and as_array.dtype.kind in "iu":
            return self._start(as_array[order].astype(np.int64, copy=False), snapshot, pending)
        return self._start([self.indices[i] for i in order.tolist()], snapshot, pending)

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(_ResumableSampler):
    """Samples ``0 .. len(weights) - 1`` with probabilities proportional to ``weights``.

    Args:
        weights (sequence): non-negative weights, not necessarily summing to one.
        num_samples (int): number of samples to draw per epoch.
        replacement (bool): draw with replacement. Without it an index is drawn at most once per epoch.
        generator (Generator): the generator of the draws (default: ember's global generator).

    Example::

        >>> list(WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 3.0, 0.6], 5, replacement=True))  # doctest: +SKIP
        [4, 4, 1, 4, 5]
    """

    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None) -> None:
        if not isinstance(num_samples, (numbers.Integral, np.integer)) or isinstance(num_samples, bool) or \
                num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        _check_generator(generator, "WeightedRandomSampler")
        w = np.asarray(weights._data if hasattr(weights, "_data") else weights, dtype=np.float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("WeightedRandomSampler: weights must be finite and non-negative (invalid multinomial "
                             "distribution)")
        if w.sum() <= 0:
            raise ValueError("WeightedRandomSampler: invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > np.count_nonzero(w):
            raise ValueError(f"WeightedRandomSampler: cannot sample num_samples={num_samples} indices without "
                             f"replacement from {np.count_nonzero(w)} non-zero weights")
        from ..ops.creation import tensor
        self.weights = tensor(w, dtype="float64")
        self.num_samples = int(num_samples)
        self.replacement = replacement
        self.generator = generator

    def _fresh_state(self) -> dict:
        return {"seed": None, "generator": None if self.generator is None else self.generator.get_state()}

    def __iter__(self) -> Iterator[int]:
        pending = self._take_pending()
        g, snapshot = _epoch_generator(self.generator, pending, draw_seed=False)
        w = self.weights._data
        indices = g.np.choice(len(w), size=self.num_samples, replace=self.replacement, p=w / w.sum())
        return self._start(indices.astype(np.int64, copy=False), snapshot, pending)

    def __len__(self) -> int:
        return self.num_samples


class _BatchIterator:
    """Groups a sampler iterator's indices into lists of ``batch_size``; counts the batches it yielded."""

    __slots__ = ("_inner", "_take", "_bs", "_drop_last", "pos", "done")

    def __init__(self, inner, batch_size, drop_last):
        self._inner = inner
        self._take = inner.take if type(inner) is _IndexIterator else None
        self._bs = batch_size
        self._drop_last = drop_last
        self.pos = 0
        self.done = False

    def __iter__(self):
        return self

    def __next__(self):
        bs = self._bs
        batch = self._take(bs) if self._take is not None else list(islice(self._inner, bs))
        if not batch or (self._drop_last and len(batch) < bs):
            self.done = True
            raise StopIteration
        self.pos += 1
        return batch


class BatchSampler(Sampler):
    """Wraps another sampler to yield lists of ``batch_size`` indices.

    Args:
        sampler (Sampler or Iterable): the base sampler.
        batch_size (int): size of a mini-batch.
        drop_last (bool): drop the last batch if it is smaller than ``batch_size``.

    Example::

        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=False))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
        >>> list(BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=True))
        [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    """

    def __init__(self, sampler, batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, (numbers.Integral, np.integer)) or isinstance(batch_size, bool) or \
                batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.drop_last = drop_last
        self._it = None
        self._snapshot = None
        self._pending = None

    def __iter__(self) -> Iterator[list]:
        pending, self._pending = self._pending, None
        has_state = hasattr(self.sampler, "state_dict") and hasattr(self.sampler, "load_state_dict")
        inner = iter(self.sampler)
        self._snapshot = self.sampler.state_dict() if has_state else None
        it = self._it = _BatchIterator(inner, self.batch_size, self.drop_last)
        for _ in range(pending.get("yielded", 0) if pending else 0):
            try:
                next(it)
            except StopIteration:
                break
        return it

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size

    def state_dict(self) -> dict:
        """The base sampler's state at the start of the current epoch and the number of batches yielded."""
        if self._pending is not None:
            return dict(self._pending)
        if self._it is not None and not self._it.done:
            return {"sampler": self._snapshot, "yielded": self._it.pos}
        inner = self.sampler.state_dict() if hasattr(self.sampler, "state_dict") else None
        return {"sampler": inner, "yielded": 0}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore a state from :meth:`state_dict`: the next ``iter()`` continues after the yielded batches."""
        state = _check_state(state_dict, ("sampler", "yielded"), "BatchSampler")
        if state["sampler"] is not None and hasattr(self.sampler, "load_state_dict"):
            self.sampler.load_state_dict(state["sampler"])
        self._pending = state
