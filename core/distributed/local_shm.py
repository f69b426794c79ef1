"""Shared-memory slots of the ``"local"`` backend: where large collective payloads travel.

Each rank of a group owns two slots, used alternately: files in ``/dev/shm`` (or the temp directory where there is
none) mapped into memory. A collective copies this rank's contribution into its slot once; the peers read it
straight from their own mapping of the same pages, so a payload crosses memory once per reader instead of going
through sockets and kernel buffers.

A slot grows by replacing its file with a bigger one (a new generation). The collective that announces a new file
ends with one extra acknowledgement round, after which every peer has mapped it and the owner unlinks it (the
mappings stay valid): a file is never unlinked while a peer may still have to open it, and none outlives the
collective that created it, whether the processes then go on, destroy the group or exit. Launchers also remove
``ember-<job>-*`` files when a job ends (after a crash).
"""
from __future__ import annotations

import atexit
import glob
import mmap
import os
import tempfile
from typing import Dict, Optional, Tuple

import numpy as np

__all__ = ["Slot", "PeerSlots", "shm_dir", "remove_job_files"]

_MB = 1 << 20


def shm_dir() -> str:
    """``/dev/shm`` when it is a writable directory, else the temp directory."""
    if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
        return "/dev/shm"
    return tempfile.gettempdir()


def remove_job_files(job: str) -> None:
    """Delete every slot file a job may have left (used by launchers after the job's processes exited)."""
    for path in glob.glob(os.path.join(shm_dir(), f"ember-{job}-*")):
        try:
            os.unlink(path)
        except OSError:
            pass


_LIVE_FILES = set()


@atexit.register
def _unlink_live_files() -> None:  # files whose unlink was still pending when the process ends
    for path in list(_LIVE_FILES):
        try:
            os.unlink(path)
        except OSError:
            pass
    _LIVE_FILES.clear()


class Slot:
    """This rank's slot: a growable shared buffer."""

    def __init__(self, prefix: str):
        self._prefix = prefix
        self._gen = 0
        self.name: Optional[str] = None
        self.capacity = 0
        self._map: Optional[mmap.mmap] = None
        self.array: Optional[np.ndarray] = None
        self.unlink_pending: Optional[str] = None  # this generation's file, until every peer has mapped it

    def ensure(self, nbytes: int) -> np.ndarray:
        """A byte view of at least ``nbytes`` (a bigger file replaces the slot when it is too small)."""
        if nbytes > self.capacity:
            self._grow(nbytes)
        return self.array[:nbytes]

    def _grow(self, nbytes: int) -> None:
        capacity = max(nbytes, 2 * self.capacity, _MB)
        capacity = -(-capacity // _MB) * _MB
        self._gen += 1
        path = os.path.join(shm_dir(), f"{self._prefix}-g{self._gen}")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, capacity)
            mapping = mmap.mmap(fd, capacity)
        finally:
            os.close(fd)
        self.unlink_now()  # normally done already, by the collective that announced the previous generation
        _LIVE_FILES.add(path)
        self.name, self.capacity, self._map = path, capacity, mapping
        self.array = np.frombuffer(mapping, dtype=np.uint8)
        self.unlink_pending = path

    def unlink_now(self) -> None:
        """Remove this generation's file (once every peer has mapped it; mappings outlive the name)."""
        path, self.unlink_pending = self.unlink_pending, None
        if path is not None:
            try:
                os.unlink(path)
            except OSError:
                pass
            _LIVE_FILES.discard(path)


class PeerSlots:
    """The mappings of the peers' slots, by peer."""

    def __init__(self) -> None:
        self._maps: Dict[object, Tuple[str, np.ndarray]] = {}

    def view(self, peer, name: str, nbytes: int) -> np.ndarray:
        """Bytes ``[0, nbytes)`` of ``peer``'s slot file ``name`` (mapped on first sight); ``peer`` is any key
        naming one of the peer's slots."""
        current = self._maps.get(peer)
        if current is None or current[0] != name:
            fd = os.open(name, os.O_RDWR)
            try:
                size = os.fstat(fd).st_size
                mapping = mmap.mmap(fd, size)
            finally:
                os.close(fd)
            current = (name, np.frombuffer(mapping, dtype=np.uint8))
            self._maps[peer] = current
        return current[1][:nbytes]
