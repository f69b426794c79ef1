"""``Loop``: the small base every loop builds its ``state_dict`` from, so exact resume is a property of the base.

A loop declares what it is made of: ``_progress`` (its :class:`Progress` counters), ``_children`` (the loops it
runs) and ``_fields`` (plain values such as ``_batches_that_stepped``). ``state_dict``/``load_state_dict`` walk those
declarations, so a counter added to a loop is checkpointed by listing its name, never by writing save/load code.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

__all__ = ["Loop"]


class Loop:
    """Base of the fit, training-epoch, optimization, evaluation and prediction loops."""

    _progress: Tuple[str, ...] = ()
    _children: Tuple[str, ...] = ()
    _fields: Tuple[str, ...] = ()

    def __init__(self, trainer) -> None:
        self.trainer = trainer

    def state_dict(self) -> Dict[str, Any]:
        """The loop's counters, its children's state and its own fields (``"state_dict"``), as plain data."""
        state: Dict[str, Any] = {name: getattr(self, name).state_dict() for name in self._progress + self._children}
        if self._fields:
            state["state_dict"] = {name: getattr(self, name) for name in self._fields}
        return state

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        """Restore what :meth:`state_dict` saved; keys missing from an older checkpoint keep their defaults."""
        for name in self._progress + self._children:
            if name in state:
                getattr(self, name).load_state_dict(state[name])
        own = state.get("state_dict", {})
        for name in self._fields:
            if name in own:
                setattr(self, name, own[name])
