"""Exceptions raised by ``ember.distributed``, named as in ``torch.distributed``.

``DistBackendError`` is what a collective raises when the job cannot go on: a peer died, a peer aborted, the
operation timed out, or the ranks called collectives that do not match. The process group is unusable afterwards.
"""
from __future__ import annotations

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """Base class of the errors of ``ember.distributed``."""


class DistBackendError(DistError):
    """A collective or point-to-point operation failed (peer lost, timeout, mismatch across ranks)."""


class DistNetworkError(DistError):
    """A network problem during initialisation (address unreachable, port taken)."""


class DistStoreError(DistError):
    """The rendezvous did not complete (ranks missing, inconsistent ``world_size`` or ``rank``)."""
