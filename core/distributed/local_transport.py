"""The socket mesh of the ``"local"`` backend: framed messages between every pair of ranks.

Each peer connection has one receiver thread that reads message after message, so a sender never blocks on a
peer that is busy (no send/send deadlock) and a peer that dies is noticed at once (end of stream) rather than at the
end of a timeout. A message is ``header | tag | JSON meta | payload``; the receiver thread either writes the payload
straight into a buffer posted by ``irecv`` for that tag, or keeps it until someone asks for the tag.

Failures are sticky: once a peer is lost, aborts, or an operation times out, every wait that depends on it raises
:class:`DistBackendError` with the first cause, and the other ranks are told (``ABORT``) so they fail fast too.
"""
from __future__ import annotations

import collections
import json
import socket
import struct
import threading
import time
from typing import Callable, Dict, Optional, Tuple

from .errors import DistBackendError

__all__ = ["Mesh", "PostedRecv"]

_HEADER = struct.Struct("!4sBHIQ")  # magic, kind, tag length, meta length, payload length
_MAGIC = b"EMB1"
DATA, ABORT, BYE = 1, 2, 3


class PostedRecv:
    """A receive waiting for its message: the payload lands in ``buffer`` (a writable byte memoryview)."""

    __slots__ = ("peer", "tag", "buffer", "check", "done", "error", "source", "meta")

    def __init__(self, peer: Optional[int], tag: str, buffer: memoryview, check: Callable[[dict], Optional[str]]):
        self.peer, self.tag, self.buffer, self.check = peer, tag, buffer, check
        self.done = False
        self.error: Optional[str] = None
        self.source = -1
        self.meta: Optional[dict] = None


class Mesh:
    """Framed, tagged messages over one socket per peer.

    Args:
        rank: this process's global rank.
        socks: ``{peer_rank: connected socket}`` for every other rank.
        send_timeout: seconds a send may block on a peer that does not read (a stopped process) before failing.
    """

    def __init__(self, rank: int, socks: Dict[int, socket.socket], send_timeout: Optional[float] = None):
        self.rank = rank
        self._socks = socks
        if send_timeout is not None:
            timeval = struct.pack("ll", int(send_timeout), int((send_timeout % 1) * 1e6))
            for sock in socks.values():
                try:  # only sends time out: the receiver threads wait for messages as long as it takes
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)
                except (OSError, AttributeError):
                    pass
        self._cond = threading.Condition()
        self._unexpected: Dict[Tuple[int, str], collections.deque] = {}
        self._posted: Dict[Tuple[Optional[int], str], collections.deque] = {}
        self._peer_gone: Dict[int, str] = {}  # peer -> why it is gone
        self._failure: Optional[str] = None  # the first fatal error of the job, as seen here
        self._send_locks = {p: threading.Lock() for p in socks}
        self._closing = False
        self._threads = []
        for peer, sock in socks.items():
            t = threading.Thread(target=self._receive_loop, args=(peer, sock), daemon=True,
                                 name=f"ember-dist-recv-{peer}")
            t.start()
            self._threads.append(t)

    # -------------------------------------------------------------------------------------------------- sending
    def send(self, peer: int, tag: str, meta: Optional[dict] = None, payload=None, kind: int = DATA,
             what: str = "send") -> None:
        """Send one message (blocks until the kernel took it; the peer's receiver thread always drains)."""
        meta_b = json.dumps(meta, separators=(",", ":")).encode() if meta is not None else b""
        tag_b = tag.encode()
        view = memoryview(payload).cast("B") if payload is not None else None
        n = view.nbytes if view is not None else 0
        head = _HEADER.pack(_MAGIC, kind, len(tag_b), len(meta_b), n) + tag_b + meta_b
        if kind == DATA:
            self.raise_if_failed(peer, what)
        sock = self._socks[peer]
        try:
            with self._send_locks[peer]:
                if n and n <= 65536:
                    sock.sendall(head + bytes(view))
                else:
                    sock.sendall(head)
                    if n:
                        sock.sendall(view)
        except OSError as exc:
            if isinstance(exc, (BlockingIOError, socket.timeout)):
                self._lose(peer, f"timed out sending to rank {peer}: it stopped reading (hung or stopped process)")
            else:
                self._lose(peer, f"lost the connection to rank {peer} while sending ({exc}); the process probably "
                                 "exited or crashed")
            if kind == DATA:
                self.raise_if_failed(peer, what)

    def broadcast_abort(self, reason: str) -> None:
        """Tell every peer that this rank hit a fatal error (best effort, never raises)."""
        for peer in list(self._socks):
            if peer in self._peer_gone:
                continue
            try:
                self.send(peer, "", {"reason": reason}, kind=ABORT)
            except Exception:
                pass

    # ------------------------------------------------------------------------------------------------ receiving
    def _receive_loop(self, peer: int, sock: socket.socket) -> None:
        try:
            while True:
                head = self._read_exact(sock, _HEADER.size)
                if head is None:
                    self._lose(peer, None)
                    return
                magic, kind, tag_len, meta_len, n = _HEADER.unpack(head)
                if magic != _MAGIC:
                    self._lose(peer, f"received a corrupt message from rank {peer}")
                    return
                rest = self._read_exact(sock, tag_len + meta_len) if tag_len + meta_len else b""
                if rest is None:
                    self._lose(peer, None)
                    return
                tag = rest[:tag_len].decode()
                meta = json.loads(rest[tag_len:]) if meta_len else None
                if kind == ABORT:
                    reason = (meta or {}).get("reason", "unknown error")
                    self._fail(f"rank {peer} failed: {reason}")
                    continue
                if kind == BYE:
                    with self._cond:
                        self._peer_gone.setdefault(peer, f"rank {peer} has shut down its process group "
                                                         "(destroy_process_group or exit)")
                        self._cond.notify_all()
                    continue
                posted = self._take_posted(peer, tag, meta, n)
                if posted is not None:
                    ok = self._read_into(sock, posted.buffer[:n]) if n else True
                    if not ok:
                        self._lose(peer, None)
                        return
                    with self._cond:
                        posted.done, posted.source, posted.meta = True, peer, meta
                        self._cond.notify_all()
                    continue
                payload = bytearray(n)
                if n and not self._read_into(sock, memoryview(payload)):
                    self._lose(peer, None)
                    return
                with self._cond:
                    posted = self._match_posted_locked(peer, tag)
                    if posted is not None:  # posted while we were reading
                        self._deliver_locked(posted, peer, meta, payload)
                    else:
                        self._unexpected.setdefault((peer, tag), collections.deque()).append((meta, payload))
                    self._cond.notify_all()
        except OSError:
            self._lose(peer, None)

    @staticmethod
    def _read_exact(sock: socket.socket, n: int) -> Optional[bytes]:
        buf = bytearray(n)
        return bytes(buf) if Mesh._read_into(sock, memoryview(buf)) else None

    @staticmethod
    def _read_into(sock: socket.socket, view: memoryview) -> bool:
        got, n = 0, view.nbytes
        while got < n:
            k = sock.recv_into(view[got:], min(n - got, 1 << 22))
            if k == 0:
                return False
            got += k
        return True

    def _match_posted_locked(self, peer: int, tag: str) -> Optional[PostedRecv]:
        for key in ((peer, tag), (None, tag)):
            queue = self._posted.get(key)
            if queue:
                posted = queue.popleft()
                if not queue:
                    del self._posted[key]
                return posted
        return None

    def _take_posted(self, peer: int, tag: str, meta, n: int) -> Optional[PostedRecv]:
        """A posted receive that can take this payload directly, or None (then the payload is buffered)."""
        with self._cond:
            for key in ((peer, tag), (None, tag)):
                queue = self._posted.get(key)
                if queue and queue[0].buffer.nbytes >= n and queue[0].check(meta or {}) is None:
                    posted = queue.popleft()
                    if not queue:
                        del self._posted[key]
                    return posted
        return None

    @staticmethod
    def _deliver_locked(posted: PostedRecv, peer: int, meta, payload: bytearray) -> None:
        problem = posted.check(meta or {})
        if problem is None and len(payload) > posted.buffer.nbytes:
            problem = f"the message from rank {peer} has {len(payload)} bytes, more than the {posted.buffer.nbytes} "\
                      "bytes of the receiving tensor"
        if problem is not None:
            posted.error = problem
        else:
            posted.buffer[:len(payload)] = payload
        posted.done, posted.source, posted.meta = True, peer, meta

    def post(self, posted: PostedRecv) -> None:
        """Register a receive; completes at once if its message already arrived."""
        with self._cond:
            peers = [posted.peer] if posted.peer is not None else sorted(
                p for (p, t), q in self._unexpected.items() if t == posted.tag and q)
            for peer in peers:
                queue = self._unexpected.get((peer, posted.tag))
                if queue:
                    meta, payload = queue.popleft()
                    if not queue:
                        del self._unexpected[(peer, posted.tag)]
                    self._deliver_locked(posted, peer, meta, payload)
                    return
            self._posted.setdefault((posted.peer, posted.tag), collections.deque()).append(posted)

    def cancel(self, posted: PostedRecv) -> None:
        """Withdraw a posted receive that has not completed."""
        with self._cond:
            queue = self._posted.get((posted.peer, posted.tag))
            if queue and posted in queue:
                queue.remove(posted)

    def wait_posted(self, posted: PostedRecv, deadline: float, what: str) -> None:
        """Block until ``posted`` completed; raise on failure, peer loss or the deadline."""
        with self._cond:
            while not posted.done:
                self._check_locked(posted.peer, what)
                left = deadline - time.monotonic()
                if left <= 0:
                    self._cancel_locked(posted)
                    who = f"rank {posted.peer}" if posted.peer is not None else "any rank"
                    raise self._timeout(f"{what}: timed out after waiting for a message from {who}")
                self._cond.wait(min(left, 1.0))
        if posted.error is not None:
            raise DistBackendError(f"{what}: {posted.error}")

    def _cancel_locked(self, posted: PostedRecv) -> None:
        queue = self._posted.get((posted.peer, posted.tag))
        if queue and posted in queue:
            queue.remove(posted)

    def recv(self, peer: int, tag: str, deadline: float, what: str,
             watch=()) -> Tuple[Optional[dict], bytearray]:
        """The next message from ``peer`` under ``tag`` (blocks until it arrives).

        ``watch``: more peers whose loss makes the wait fail at once (the other members of a collective).
        """
        key = (peer, tag)
        with self._cond:
            while True:
                queue = self._unexpected.get(key)
                if queue:
                    item = queue.popleft()
                    if not queue:
                        del self._unexpected[key]
                    return item
                self._check_locked(peer, what)
                for other in watch:  # a peer that left after sending its message for this tag is fine
                    if other in self._peer_gone and not self._unexpected.get((other, tag)):
                        self._check_locked(other, what)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise self._timeout(f"{what}: timed out waiting for rank {peer}")
                self._cond.wait(min(left, 1.0))

    # --------------------------------------------------------------------------------------------------- failure
    def _timeout(self, message: str) -> DistBackendError:
        full = (f"{message}. A rank may have crashed, hung, or called a different collective; the process group "
                "is unusable now.")
        self._fail(f"rank {self.rank}: {message}", tell_peers=True)
        return DistBackendError(full)

    def _check_locked(self, peer: Optional[int], what: str) -> None:
        if self._failure is not None:
            raise DistBackendError(f"{what}: {self._failure}")
        if peer is not None and peer in self._peer_gone:
            raise DistBackendError(f"{what}: {self._peer_gone[peer]}")
        if peer is None and self._peer_gone and len(self._peer_gone) == len(self._socks):
            raise DistBackendError(f"{what}: every other rank is gone")

    def raise_if_failed(self, peer: Optional[int] = None, what: str = "communication") -> None:
        """Raise the recorded failure, if any (or the loss of ``peer``)."""
        with self._cond:
            self._check_locked(peer, what)

    def _lose(self, peer: int, why: Optional[str]) -> None:
        with self._cond:
            if peer not in self._peer_gone:
                self._peer_gone[peer] = why or (f"lost the connection to rank {peer}: the process exited or crashed "
                                                "(see its error output)")
            if not self._closing and why is not None and self._failure is None:
                self._failure = why
            self._cond.notify_all()

    def _fail(self, reason: str, tell_peers: bool = False) -> None:
        with self._cond:
            first = self._failure is None
            if first:
                self._failure = reason
            self._cond.notify_all()
        if first and tell_peers:
            self.broadcast_abort(reason)

    def fail(self, reason: str) -> None:
        """Mark the job as failed here and tell the peers (after a mismatch or another fatal error)."""
        self._fail(reason, tell_peers=True)

    def close(self, graceful: bool = True) -> None:
        """Say goodbye to every peer (unless ``graceful`` is False) and close the sockets."""
        self._closing = True
        for peer in list(self._socks) if graceful else ():
            if peer not in self._peer_gone:
                try:
                    self.send(peer, "", None, kind=BYE)
                except Exception:
                    pass
        for sock in self._socks.values():
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()
