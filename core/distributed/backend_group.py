"""The interface every backend's process group implements (``LocalGroup``, ``MPIGroup``).

The public functions of :mod:`.collectives` validate their arguments, turn tensors into contiguous NumPy arrays
(float16 upcast, bool as bytes, AVG as SUM) and call these methods. Rank arguments are *group* ranks, except the
``send``/``recv`` peers, which are global ranks. Every method returns a :class:`~.work.Work`; with
``async_op=False`` it has completed when the method returns. ``meta`` is the call's description
(:func:`.consistency.make_meta`), checked across ranks unless ``check=False``.
"""
from __future__ import annotations

from typing import List, Optional

import numpy as np

from .reduce_op import ReduceOp
from .work import Work

__all__ = ["BackendGroup"]


class BackendGroup:
    """A backend's process group: ``rank`` and ``size`` within the group, ``ranks`` (global), ``timeout`` (s)."""

    backend_name = ""
    rank: int
    size: int
    ranks: List[int]
    timeout: float
    name: str

    def barrier(self, meta, async_op: bool = False) -> Work:
        """Wait until every rank of the group has arrived."""
        raise NotImplementedError

    def broadcast(self, arr: np.ndarray, root: int, meta, async_op: bool = False, check: bool = True) -> Work:
        """Copy ``arr`` of group rank ``root`` into ``arr`` everywhere."""
        raise NotImplementedError

    def all_reduce(self, arr: np.ndarray, op: ReduceOp, meta, async_op: bool = False, check: bool = True) -> Work:
        """Replace ``arr`` on every rank with the reduction (``SUM``, ``PRODUCT``, ``MIN``, ``MAX``) of all."""
        raise NotImplementedError

    def reduce(self, arr: np.ndarray, root: int, op: ReduceOp, meta, async_op: bool = False) -> Work:
        """The reduction of every rank's ``arr`` into ``arr`` of group rank ``root``."""
        raise NotImplementedError

    def all_gather(self, out: np.ndarray, arr: np.ndarray, meta, async_op: bool = False) -> Work:
        """``out[i] = arr`` of group rank ``i``, on every rank (``out`` has shape ``(size, *arr.shape)``)."""
        raise NotImplementedError

    def gather(self, out: Optional[np.ndarray], arr: np.ndarray, root: int, meta, async_op: bool = False) -> Work:
        """``out[i] = arr`` of group rank ``i``, on ``root`` only (``out`` is None elsewhere)."""
        raise NotImplementedError

    def scatter(self, out: np.ndarray, src: Optional[np.ndarray], root: int, meta, async_op: bool = False) -> Work:
        """``out = src[rank]`` of group rank ``root`` (``src`` has shape ``(size, *out.shape)`` on ``root``)."""
        raise NotImplementedError

    def reduce_scatter(self, out: np.ndarray, inp: np.ndarray, op: ReduceOp, meta, async_op: bool = False) -> Work:
        """``out`` = the reduction over the ranks of their ``inp[rank]`` (``inp``: ``(size, *out.shape)``)."""
        raise NotImplementedError

    def all_to_all(self, out: np.ndarray, inp: np.ndarray, meta, async_op: bool = False) -> Work:
        """``out[i] = inp[rank]`` of group rank ``i`` (both of shape ``(size, ...)``)."""
        raise NotImplementedError

    def send(self, arr: np.ndarray, dst: int, tag: int, async_op: bool = False) -> Work:
        """Send ``arr`` to global rank ``dst`` under ``tag``."""
        raise NotImplementedError

    def recv(self, arr: np.ndarray, src: Optional[int], tag: int, async_op: bool = False) -> Work:
        """Receive into ``arr`` from global rank ``src`` (any rank if None); the work's ``source_rank()`` tells
        who sent it."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the group's resources (shared memory, communicators)."""
