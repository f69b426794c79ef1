"""Datasets: the map-style ``Dataset`` and iterable ``IterableDataset`` bases, and the standard compositions.

A map-style dataset answers ``dataset[i]`` and ``len(dataset)``. It may also implement ``__getitems__(indices)``
to fetch a whole batch in one call; the DataLoader then calls it once per batch instead of ``__getitem__`` once per
sample. :class:`TensorDataset` does this with one fancy-index per tensor, which is the loader's fast path.
"""
from __future__ import annotations

import bisect
import itertools
import math
import numbers
import warnings
from collections.abc import Sequence
from typing import Generic, TypeVar

import numpy as np

from ..autograd.grad_mode import GRAD_ENABLED
from ..tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset",
           "StackDataset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """An abstract map-style dataset: subclasses implement ``__getitem__`` (and usually ``__len__``).

    Subclasses may also implement ``__getitems__(indices)``, which returns the samples for a list of indices in one
    call; :class:`~ember.data.DataLoader` uses it to fetch a batch at once. ``dataset_a + dataset_b`` is a
    :class:`ConcatDataset`.
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """An abstract dataset that is a stream of samples: subclasses implement ``__iter__``.

    With ``num_workers > 0`` every worker process iterates its own copy of the dataset; use
    :func:`~ember.data.get_worker_info` inside ``__iter__`` to give each worker its own share of the stream.
    ``iterable_a + iterable_b`` is a :class:`ChainDataset`.
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: "Dataset") -> "ChainDataset":
        return ChainDataset([self, other])


class _DatasetAssertion(ValueError, AssertionError):
    # PyTorch asserts here; raising an error that is both keeps `except AssertionError` code working and survives
    # `python -O`.
    pass


def _index_array(indices):
    """Indices (list, array, tensor) as an integer array; a sampler's batch already carries one."""
    array = getattr(indices, "array", None)  # sampler._IndexBatch
    if array is not None:
        return array
    if isinstance(indices, Tensor):
        indices = indices._data
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        if idx.size == 0:
            return idx.astype(np.int64)
        raise TypeError(f"TensorDataset: indices must be integers, got an array of {idx.dtype}")
    return idx


def _out_of_range(idx, length, owner):
    idx = np.asarray(idx)
    bad = idx[(idx >= length) | (idx < -length)]
    shown = int(bad[0]) if bad.size else idx.tolist()
    return IndexError(f"{owner}: index {shown} is out of range for a dataset of length {length}")


def _take_rows(t: Tensor, index):
    """``t[index]`` along the first dimension. Tensors that need no graph are indexed directly on their array."""
    if t._requires_grad and GRAD_ENABLED[0]:
        return t[index]  # the differentiable indexing op, so gradients reach the dataset's tensors
    if type(index) is np.ndarray:
        # take() gathers rows faster than fancy indexing and checks the bounds (its IndexError is translated)
        return Tensor._make(t._xp.take(t._data, index, axis=0))
    return Tensor._make(t._data[index])


class _BatchedSamples(Sequence):
    """The samples of one batch of a :class:`TensorDataset`, held as one stacked tensor per column.

    It is a sequence of per-sample tuples (what ``__getitems__`` promises, so a custom ``collate_fn`` works), and
    :func:`~ember.data.default_collate` recognises it and returns the stacked columns without re-stacking.
    """

    __slots__ = ("columns",)

    def __init__(self, columns):
        self.columns = columns

    def __len__(self):
        return len(self.columns[0]._data) if self.columns else 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        return tuple(_take_rows(c, i) for c in self.columns)

    def __repr__(self):
        return f"_BatchedSamples(batch_size={len(self)}, columns={len(self.columns)})"

    def collate(self):
        """The batch as ``default_collate`` would build it from the samples: a list of stacked tensors."""
        return list(self.columns)


class TensorDataset(Dataset):
    """A dataset wrapping tensors: sample ``i`` is ``tuple(t[i] for t in tensors)``.

    All tensors must have the same size in the first dimension. ``__getitems__`` fetches a batch with one
    fancy-index per tensor, so a :class:`~ember.data.DataLoader` over a TensorDataset never touches single samples.

    Args:
        *tensors (Tensor): tensors that have the same size of the first dimension.
    """

    def __init__(self, *tensors):
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {i} must be a Tensor, got {type(t).__name__}")
            if t.dim() == 0:
                raise ValueError(f"TensorDataset: argument {i} is a 0-d tensor; every tensor needs a first "
                                 "dimension to index samples by")
        if tensors and any(len(tensors[0]) != len(t) for t in tensors):
            sizes = [len(t) for t in tensors]
            raise _DatasetAssertion(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        n = len(self)
        if isinstance(index, (numbers.Integral, np.integer)) and not isinstance(index, bool):
            if not -n <= index < n:
                raise IndexError(f"TensorDataset: index {index} is out of range for a dataset of length {n}")
            index = int(index)
        elif not isinstance(index, slice):
            return tuple(self.__getitems__(index).collate())
        return tuple(_take_rows(t, index) for t in self.tensors)

    def __getitems__(self, indices):
        """The samples at ``indices`` as a sequence of tuples, fetched with one fancy-index per tensor."""
        idx = _index_array(indices)
        try:
            return _BatchedSamples(tuple(_take_rows(t, idx) for t in self.tensors))
        except IndexError:
            raise _out_of_range(idx, len(self), "TensorDataset") from None

    def __len__(self):
        return len(self.tensors[0]) if self.tensors else 0


class StackDataset(Dataset):
    """Zip datasets of equal length: sample ``i`` is a tuple (positional form) or a dict (keyword form).

    Example::

        images = ImageDataset(); texts = TextDataset()
        StackDataset(images, texts)[0]             # (image_0, text_0)
        StackDataset(image=images, text=texts)[0]  # {"image": image_0, "text": text_0}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or ``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError(f"Size mismatch between datasets: lengths are {[len(d) for d in parts]}")
        self.datasets = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list):
        """The samples at ``indices``; parts that implement ``__getitems__`` are fetched a batch at a time."""
        named = isinstance(self.datasets, dict)
        items = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, d in items:
            getitems = getattr(d, "__getitems__", None)
            col = getitems(indices) if callable(getitems) else [d[i] for i in indices]
            if len(col) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(col)}")
            columns[key] = col
        if named:
            return [{k: columns[k][j] for k in columns} for j in range(len(indices))]
        return [tuple(columns[k][j] for k in columns) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """The concatenation of several map-style datasets.

    Args:
        datasets (iterable): the datasets to concatenate, in order.

    Attributes:
        cumulative_sizes (list[int]): the running total of the parts' lengths.
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of the lengths of ``sequence``'s datasets."""
        out, total = [], 0
        for d in sequence:
            total += len(d)
            out.append(total)
        return out

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise _DatasetAssertion("datasets should not be an empty iterable")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError(f"ConcatDataset does not support IterableDataset (part {i} is "
                                f"{type(d).__name__}); use ChainDataset to chain iterable datasets")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = n + idx
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is out of range for a dataset of length {n}")
        part = bisect.bisect_right(self.cumulative_sizes, idx)
        offset = self.cumulative_sizes[part - 1] if part > 0 else 0
        return self.datasets[part][idx - offset]


class ChainDataset(IterableDataset):
    """Chain several :class:`IterableDataset` s: iterating yields all of the first, then all of the second, ...

    Args:
        datasets (iterable of IterableDataset): the datasets to chain.
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset only supports IterableDataset, got {type(d).__name__}")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset only supports IterableDataset, got {type(d).__name__}")
            total += len(d)
        return total


class Subset(Dataset):
    """The part of ``dataset`` at ``indices``: ``Subset(ds, idx)[i]`` is ``ds[idx[i]]``.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): the indices of the subset within ``dataset``.
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list):
        """The samples at ``indices``; uses the base dataset's ``__getitems__`` when it has one."""
        mapped = [self.indices[i] for i in indices]
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(mapped)
        return [self.dataset[i] for i in mapped]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """Randomly split ``dataset`` into non-overlapping :class:`Subset` s of the given lengths.

    ``lengths`` are either counts that sum to ``len(dataset)`` or fractions that sum to 1. Fractions become
    ``floor(len(dataset) * frac)`` items each, and the remainder is handed out one item at a time, round-robin from
    the first split (so ``[0.5, 0.5]`` of 5 items gives lengths ``[3, 2]``).

    Args:
        dataset (Dataset): the dataset to split.
        lengths (sequence): lengths or fractions of the splits.
        generator (Generator): the generator of the permutation (default: ember's global generator).

    Example::

        train, val = random_split(range(10), [0.8, 0.2], generator=em.Generator().manual_seed(42))
    """
    from ..ops.creation import randperm

    lengths = list(lengths)
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        n = len(dataset)
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.",
                              stacklevel=2)
    for i, length in enumerate(lengths):
        if not isinstance(length, (numbers.Integral, np.integer)) or length < 0:
            raise ValueError(f"random_split: lengths must be non-negative integers or fractions summing to 1, got "
                             f"{length!r} at index {i}")
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(sum(lengths), generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
