"""``Join``: training with uneven inputs, where some ranks run out of data before others.

Every iteration, each rank that still has data announces itself with one small collective (a status of
``[active, flag]`` gathered from all ranks). A rank that has run out of data leaves its loop and, in ``Join``'s
``__exit__``, keeps answering that collective with ``[0, 0]``; whenever the table shows ranks still active, it runs
its joinables' :meth:`JoinHook.main_hook`, which *shadows* the collectives those ranks are about to make (for DDP:
the buffer broadcast and the gradient all-reduces, fed with zeros). When a round shows no active rank at all, every
rank leaves, and each :meth:`JoinHook.post_hook` runs (DDP copies the model of the last rank to finish, so all
ranks end with the same weights).

Example::

    with ddp_model.join():            # or Join([ddp_model])
        for batch in loader:           # a different number of batches per rank
            loss = ddp_model(batch).sum()
            loss.backward()
            optimizer.step()
"""
from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

__all__ = ["Join", "Joinable", "JoinHook"]


class JoinHook:
    """What a :class:`Joinable` does while its rank has joined: ``main_hook`` shadows one iteration of the ranks
    still training; ``post_hook`` runs once every rank has joined."""

    def main_hook(self) -> None:
        """Shadow the collectives of one iteration of the ranks that still have data."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Called once, after all ranks joined; ``is_last_joiner`` is True on the rank that finished last."""


class Joinable:
    """Base class of objects that take part in :class:`Join` (``DistributedDataParallel`` is one)."""

    def join_hook(self, **kwargs) -> JoinHook:
        """The hook that shadows this object's collectives while its rank has joined."""
        raise NotImplementedError

    @property
    def join_process_group(self):
        """The process group of the join's status collective."""
        return None

    @property
    def join_device(self):
        """The device of the join's status tensors (the CPU)."""
        from ..device import CPU
        return CPU


class Join:
    """Context manager for uneven inputs across ranks (see the module docstring).

    Args:
        joinables (list): the :class:`Joinable` objects of the training loop (e.g. ``[ddp_model]``).
        enable (bool): ``False`` turns the context manager into a no-op.
        throw_on_early_termination (bool): raise on every rank as soon as one rank runs out of data, instead of
            shadowing (for loops that cannot continue with fewer ranks).
        **kwargs: passed to each joinable's ``join_hook`` (DDP: ``divide_by_initial_world_size``).
    """

    _current: Optional["Join"] = None

    def __init__(self, joinables: List[Joinable], enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs: Any) -> None:
        if not joinables:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = list(joinables)
        self._hooks = [j.join_hook(**kwargs) for j in self._joinables]
        self._enable = enable
        self._throw = throw_on_early_termination
        self._group = self._joinables[0].join_process_group
        self.last_table: Optional[np.ndarray] = None  # the latest status table with an active rank
        for j in self._joinables:
            j._join_config = _JoinConfig(enable, throw_on_early_termination, self)

    # --------------------------------------------------------------------------------------------- protocol
    def _status_round(self, active: bool, flag: bool) -> np.ndarray:
        from .process_group import _resolve
        pg = _resolve(self._group)
        n = pg.size()
        mine = np.array([1 if active else 0, 1 if flag else 0], dtype=np.int64)
        table = np.empty((n, 2), dtype=np.int64)
        from .consistency import make_meta
        pg._impl.all_gather(table, mine, make_meta("all_gather", np.int64, (2,))).wait()
        if table[:, 0].any():
            self.last_table = table.copy()
        if self._throw and not table[:, 0].all():
            raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return table

    @staticmethod
    def notify_join_context(joinable: Joinable, flag: bool = True) -> Optional[np.ndarray]:
        """Called by a joinable at each iteration of a rank that still has data; returns the status table
        (one row ``[active, flag]`` per group rank), or ``None`` outside an enabled join."""
        config = getattr(joinable, "_join_config", None)
        join = config.join if config is not None else None
        if join is None or not join._enable or join is not Join._current:
            return None
        if joinable is not join._joinables[0]:
            return join._table  # only the first joinable runs the status collective
        join._table = join._status_round(True, flag)
        return join._table

    @property
    def table(self) -> Optional[np.ndarray]:
        """The status table of the current round."""
        return getattr(self, "_table", None)

    # --------------------------------------------------------------------------------------------- context
    def __enter__(self) -> "Join":
        if self._enable:
            self._previous = Join._current
            Join._current = self
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._enable:
            return
        try:
            if exc_type is not None:
                return  # the loop failed: do not shadow collectives that will never come
            while True:
                self._table = self._status_round(False, False)
                if not self._table[:, 0].any():
                    break
                for hook in self._hooks:
                    hook.main_hook()
            last = self.last_table
            from .process_group import _resolve
            me = _resolve(self._group).rank()
            last_rank = int(np.flatnonzero(last[:, 0])[-1]) if last is not None else 0
            for hook in self._hooks:
                hook.post_hook(me == last_rank)
        finally:
            Join._current = self._previous
            for j in self._joinables:
                j._join_config = _JoinConfig(False, False, None)

    def last_joiner_rank(self) -> int:
        """The group rank whose model is kept at the end (the highest rank active in the last active round)."""
        last = self.last_table
        return int(np.flatnonzero(last[:, 0])[-1]) if last is not None else 0


class _JoinConfig:
    __slots__ = ("enable", "throw_on_early_termination", "join")

    def __init__(self, enable: bool, throw: bool, join: Optional[Join]):
        self.enable, self.throw_on_early_termination, self.join = enable, throw, join
