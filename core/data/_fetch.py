"""Fetchers: how one batch of indices becomes one collated batch, for map-style and iterable datasets.

Used both by the DataLoader in the main process and by its worker processes (``_worker.py``), so it sits below both.
"""
from __future__ import annotations

import itertools

__all__ = []  # private to ember.core.data


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _MapDatasetFetcher:
    """Fetches a batch of a map-style dataset: one ``__getitems__`` call when available, else one per sample."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        getitems = getattr(dataset, "__getitems__", None)
        self._getitems = getitems if callable(getitems) else None

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self._getitems is not None:
            return self.collate_fn(self._getitems(index))
        dataset = self.dataset
        return self.collate_fn([dataset[i] for i in index])


class _IterableDatasetFetcher:
    """Pulls the next ``len(index)`` samples from an IterableDataset's iterator."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = list(itertools.islice(self.dataset_iter, len(index)))
        if len(data) < len(index):
            self.ended = True
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)
