"""``CombinedLoader``: iterate over a collection (list, tuple, dict, nested) of iterables as one, in Lightning's
modes.

- ``"min_size"`` (the default): one batch from each iterable per step, until the shortest is exhausted.
- ``"max_size_cycle"`` (what ``Trainer.fit`` uses for several train loaders): until the longest is exhausted; shorter
  ones start over.
- ``"max_size"``: until the longest is exhausted; exhausted ones give ``None``.
- ``"sequential"`` (evaluation): the iterables one after the other.

Iterating yields ``(batch, batch_idx, dataloader_idx)``. In the first three modes ``batch`` has the structure of the
collection (a dict of batches for a dict of loaders) and ``dataloader_idx`` is 0; in ``"sequential"`` it is one
iterable's batch and the index of that iterable. The position, including each iterable's own, is in
:meth:`state_dict`, so a resumed fit continues with the very next batch.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator, List, Optional, Tuple

__all__ = ["CombinedLoader"]

_MODES = ("min_size", "max_size_cycle", "max_size", "sequential")


def _flatten(obj) -> Tuple[List[Any], Callable[[List[Any]], Any]]:
    """The leaves of a nested list/tuple/dict, and a function that rebuilds the structure from new leaves."""
    if isinstance(obj, dict):
        keys = list(obj)
        parts = [_flatten(obj[k]) for k in keys]
        sizes = [len(leaves) for leaves, _ in parts]

        def rebuild(values):
            out, start = {}, 0
            for k, (_, sub), n in zip(keys, parts, sizes):
                out[k] = sub(values[start:start + n])
                start += n
            return out
        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    if isinstance(obj, (list, tuple)):
        parts = [_flatten(v) for v in obj]
        sizes = [len(leaves) for leaves, _ in parts]
        kind = type(obj)

        def rebuild(values):
            items, start = [], 0
            for (_, sub), n in zip(parts, sizes):
                items.append(sub(values[start:start + n]))
                start += n
            return kind(*items) if hasattr(obj, "_fields") else kind(items)
        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    return [obj], lambda values: values[0]


def _length(iterable) -> float:
    try:
        return len(iterable)
    except (TypeError, NotImplementedError):
        return float("inf")


class CombinedLoader:
    """Combines a collection of iterables (usually dataloaders) into one, in mode ``mode``.

    Example::

        loader = CombinedLoader({"a": DataLoader(ds_a, batch_size=4), "b": DataLoader(ds_b, batch_size=2)},
                                mode="max_size_cycle")
        for batch, batch_idx, dataloader_idx in loader:
            batch["a"], batch["b"]
    """

    def __init__(self, iterables: Any, mode: str = "min_size") -> None:
        if mode not in _MODES:
            raise ValueError(f"Unsupported mode {mode!r}, please select one of: {list(_MODES)}.")
        self._iterables = iterables
        self._flattened, self._rebuild = _flatten(iterables)
        self._mode = mode
        self.limits: Optional[List[float]] = None
        self._iterators: List[Iterator] = []
        self._exhausted: List[bool] = []
        self._num_yielded = 0
        self._in_progress = False
        self._history: dict = {}  # num_yielded -> positions of the iterables before that batch was fetched
        self._resume: Optional[dict] = None

    @property
    def iterables(self) -> Any:
        """The collection of iterables, as given."""
        return self._iterables

    @property
    def flattened(self) -> List[Any]:
        """The iterables as a flat list (dict values in insertion order, nested collections depth first)."""
        return list(self._flattened)

    @property
    def mode(self) -> str:
        """The combination mode."""
        return self._mode

    @property
    def sampler(self) -> Any:
        """The ``sampler`` of each iterable, in the collection's structure."""
        return self._rebuild([getattr(dl, "sampler", None) for dl in self._flattened])

    @property
    def batch_sampler(self) -> Any:
        """The ``batch_sampler`` of each iterable, in the collection's structure."""
        return self._rebuild([getattr(dl, "batch_sampler", None) for dl in self._flattened])

    def _lengths(self) -> List[float]:
        lengths = [_length(dl) for dl in self._flattened]
        if self.limits is not None:
            lengths = [min(n, limit) for n, limit in zip(lengths, self.limits)]
        return lengths

    def __len__(self) -> int:
        """Batches per pass: the min (``min_size``), max (``max_size*``) or sum (``sequential``) of the lengths."""
        lengths = self._lengths()
        if not lengths:
            return 0
        total = {"min_size": min, "max_size_cycle": max, "max_size": max, "sequential": sum}[self._mode](lengths)
        if total == float("inf"):
            raise TypeError("CombinedLoader has no length: one of its iterables has none")
        return int(total)

    # ------------------------------------------------------------------------------------------------ iterate
    def __iter__(self):
        resume, self._resume = self._resume, None
        flat = self._flattened
        self._iterators = [self._start(i) for i in range(len(flat))]
        self._exhausted = [False] * len(flat)
        self._num_yielded = 0
        self._history = {}
        if resume is not None and resume.get("epoch_in_progress"):
            self._num_yielded = resume["num_yielded"]
            self._exhausted = list(resume.get("exhausted", self._exhausted))
            for i, done in enumerate(self._exhausted):
                if done and self._mode == "max_size":
                    self._iterators[i] = iter(())
        self._in_progress = True
        if self._mode == "sequential":
            return self._sequential()
        return self._combined()

    def _start(self, i: int):
        it = iter(self._flattened[i])
        if self.limits is not None and self.limits[i] != float("inf"):
            it = itertools.islice(it, int(self.limits[i]))
        return it

    def _remember_positions(self) -> None:
        # the position before each fetch, for the last few batches: a checkpoint may need to rewind to a batch that
        # was fetched but not yet run (see TrainingEpochLoop.state_dict)
        n = self._num_yielded
        self._history[n] = self._positions()
        self._history.pop(n - 3, None)

    def _positions(self) -> dict:
        return {"loaders": [dl.state_dict() if hasattr(dl, "state_dict") else None for dl in self._flattened],
                "exhausted": list(self._exhausted)}

    def _combined(self):
        flat = self._flattened
        stateful = any(hasattr(dl, "state_dict") for dl in flat)
        while True:
            if stateful:
                self._remember_positions()
            out = [None] * len(flat)
            if self._mode == "min_size":
                try:
                    out = [next(it) for it in self._iterators]
                except StopIteration:
                    break
            elif self._mode == "max_size_cycle":
                stop = False
                for i in range(len(flat)):
                    try:
                        out[i] = next(self._iterators[i])
                    except StopIteration:
                        self._exhausted[i] = True
                        if all(self._exhausted):
                            stop = True
                            break
                        self._iterators[i] = self._start(i)  # a shorter iterable starts over
                        out[i] = next(self._iterators[i])
                if stop:
                    break
            else:  # max_size
                fetched = False
                for i in range(len(flat)):
                    try:
                        out[i] = next(self._iterators[i])
                        fetched = True
                    except StopIteration:
                        self._exhausted[i] = True
                if not fetched:
                    break
            index = self._num_yielded
            self._num_yielded += 1
            yield self._rebuild(out), index, 0
        self._in_progress = False

    def _sequential(self):
        skip = self._num_yielded
        for dl_idx, it in enumerate(self._iterators):
            for batch_idx, batch in enumerate(it):
                if skip:
                    skip -= 1
                    continue
                self._num_yielded += 1
                yield batch, batch_idx, dl_idx
        self._in_progress = False

    # --------------------------------------------------------------------------------------------------- state
    def state_dict(self) -> dict:
        """The position in the pass and in every iterable, as plain data (for checkpoints)."""
        n = self._num_yielded
        positions = {str(k): v for k, v in self._history.items() if k >= n - 2}
        positions[str(n)] = self._positions()
        return {"mode": self._mode, "epoch_in_progress": self._in_progress, "num_yielded": n,
                "positions": positions}

    def load_state_dict(self, state: dict) -> None:
        """Restore a :meth:`state_dict`; the next ``iter()`` continues where that pass was."""
        if state.get("mode", self._mode) != self._mode:
            raise ValueError(f"CombinedLoader.load_state_dict: the state was saved in mode {state['mode']!r}, this "
                             f"loader runs in mode {self._mode!r}")
        n = state["num_yielded"]
        position = state.get("positions", {}).get(str(n))
        if position is None:
            raise ValueError(f"CombinedLoader.load_state_dict: the state has no position for batch {n}")
        if len(position["loaders"]) != len(self._flattened):
            raise ValueError(f"CombinedLoader.load_state_dict: the state has {len(position['loaders'])} iterables, "
                             f"this loader has {len(self._flattened)}")
        for dl, dl_state in zip(self._flattened, position["loaders"]):
            if dl_state is not None and hasattr(dl, "load_state_dict"):
                dl.load_state_dict(dl_state)
        self._resume = {"epoch_in_progress": state.get("epoch_in_progress", False), "num_yielded": n,
                        "exhausted": position["exhausted"]}
