"""Rendezvous: how the ranks of a ``"local"`` job find each other (``env://``, ``tcp://host:port``, ``file://``).

Every rank listens on a loopback port for its peers, then registers ``(rank, world_size, host, port)``:

* ``tcp://`` and ``env://``: with a small server run by rank 0 at the given address (``MASTER_ADDR``/``MASTER_PORT``
  for ``env://``). The server checks every registration (same ``world_size``, no rank twice, one machine) and, once
  all ranks are in, sends everyone the table of peers.
* ``file://``: by appending a line to a shared file and reading it until all ranks are there. Rank 0 deletes the
  file once the job is connected, so the path can be reused.

Then every rank connects to the ranks below it and accepts the ranks above it: a full mesh of sockets.

Nothing waits forever: each step has the ``timeout`` of ``init_process_group`` and, when it expires, the error names
the address and what is missing (which ranks never joined, or which one disagreed).
"""
from __future__ import annotations

import errno
import json
import os
import select
import socket
import struct
import time
import uuid
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple
from urllib.parse import parse_qs, urlparse

from .errors import DistNetworkError, DistStoreError

__all__ = ["RendezvousSpec", "parse_init_method", "rendezvous", "connect_mesh", "open_listener", "WATCHERS"]

_HANDSHAKE = struct.Struct("!16sI")

WATCHERS: List = []
"""Callables checked while rank 0 waits for the others; one returning a message ends the wait with that error. A
launcher that started the other ranks registers one, so a rank that dies before joining fails the job at once."""


@dataclass
class RendezvousSpec:
    """Where and how to meet: ``kind`` is ``"tcp"`` or ``"file"``."""

    kind: str
    world_size: int
    rank: int
    host: str = ""
    port: int = 0
    path: str = ""

    @property
    def url(self) -> str:
        return f"tcp://{self.host}:{self.port}" if self.kind == "tcp" else f"file://{self.path}"


def _env_int(name: str, fallback: int, url: str) -> int:
    if fallback >= 0:
        return fallback
    value = os.environ.get(name)
    if value in (None, ""):
        raise ValueError(f"Error initializing ember.distributed using {url} rendezvous: environment variable "
                         f"{name} expected, but not set (or pass {name.lower()}= to init_process_group)")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name}={value!r} must be an integer") from None


def parse_init_method(init_method: Optional[str], world_size: int = -1, rank: int = -1) -> RendezvousSpec:
    """Turn ``init_method`` (plus ``world_size``/``rank`` and the environment) into a :class:`RendezvousSpec`.

    ``world_size`` and ``rank`` of ``-1`` are read from the URL query (``?rank=0&world_size=2``) or, for
    ``env://``, from ``WORLD_SIZE``/``RANK``.
    """
    url = init_method or "env://"
    if not isinstance(url, str):
        raise TypeError(f"init_method must be a string such as 'env://', 'tcp://host:port' or 'file:///path', "
                        f"got {type(url).__name__}")
    parsed = urlparse(url)
    query = {k: v[-1] for k, v in parse_qs(parsed.query).items()}
    if world_size < 0 and "world_size" in query:
        world_size = int(query["world_size"])
    if rank < 0 and "rank" in query:
        rank = int(query["rank"])
    if parsed.scheme == "env":
        world_size = _env_int("WORLD_SIZE", world_size, url)
        rank = _env_int("RANK", rank, url)
        host = os.environ.get("MASTER_ADDR")
        if not host:
            raise ValueError("Error initializing ember.distributed using env:// rendezvous: environment variable "
                             "MASTER_ADDR expected, but not set")
        port = _env_int("MASTER_PORT", -1, url)
        spec = RendezvousSpec("tcp", world_size, rank, host, port)
    elif parsed.scheme == "tcp":
        if not parsed.hostname or parsed.port is None:
            raise ValueError(f"init_method={url!r}: a tcp:// address needs a host and a port, e.g. "
                             "'tcp://127.0.0.1:29500'")
        spec = RendezvousSpec("tcp", world_size, rank, parsed.hostname, parsed.port)
    elif parsed.scheme == "file":
        path = parsed.path if not parsed.netloc else "/" + parsed.netloc + parsed.path
        if not path:
            raise ValueError(f"init_method={url!r}: a file:// URL needs a path, e.g. 'file:///tmp/ember_rdzv'")
        spec = RendezvousSpec("file", world_size, rank, path=path)
    else:
        raise ValueError(f"init_method={url!r} is not supported: use 'env://', 'tcp://host:port' or "
                         "'file:///path'")
    if spec.world_size < 1:
        raise ValueError(f"init_method={url!r} needs world_size >= 1 (pass world_size=..., got {spec.world_size})")
    if not 0 <= spec.rank < spec.world_size:
        raise ValueError(f"rank {spec.rank} is out of range for world_size={spec.world_size}: ranks are "
                         f"0..{spec.world_size - 1}")
    return spec


# ----------------------------------------------------------------------------------------------------- helpers
def open_listener() -> socket.socket:
    """A loopback socket that peers of this machine connect to (an ephemeral port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


def _tune(sock: socket.socket) -> socket.socket:
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
        try:
            sock.setsockopt(socket.SOL_SOCKET, opt, 4 << 20)
        except OSError:
            pass
    return sock


def _remaining(deadline: float) -> float:
    return max(0.0, deadline - time.monotonic())


class _Lines:
    """Newline-delimited JSON over a socket."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = b""

    def send(self, obj) -> None:
        self.sock.sendall(json.dumps(obj).encode() + b"\n")

    def read(self, deadline: float) -> Optional[dict]:
        """The next message, or ``None`` when the deadline passes first; raises ``ConnectionError`` on EOF."""
        while b"\n" not in self.buf:
            left = _remaining(deadline)
            if left <= 0:
                return None
            ready, _, _ = select.select([self.sock], [], [], min(left, 0.5))
            if not ready:
                continue
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


def _missing(joined, world_size) -> str:
    missing = [r for r in range(world_size) if r not in joined]
    shown = missing if len(missing) <= 16 else missing[:16] + ["..."]
    return f"{len(joined)} of {world_size} ranks joined; missing rank(s): {shown}"


def _check_hosts(entries: Dict[int, dict]) -> Optional[str]:
    hosts = {e["host"] for e in entries.values()}
    if len(hosts) > 1:
        where = ", ".join(f"rank {r} on {e['host']}" for r, e in sorted(entries.items()))
        return (f"the 'local' backend runs all ranks on one machine, but the ranks are on different hosts ({where}); "
                "use backend='mpi' (mpiexec/srun) for several machines")
    return None


# ------------------------------------------------------------------------------------------------ tcp rendezvous
def _serve(spec: RendezvousSpec, mine: dict, deadline: float, timeout: float) -> Tuple[str, List[dict]]:
    """Rank 0: run the rendezvous server until every rank registered."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        try:
            server.bind((spec.host, spec.port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise
            server.bind(("", spec.port))  # MASTER_ADDR names this machine by an address we cannot bind to
    except OSError as exc:
        server.close()
        if exc.errno == errno.EADDRINUSE:
            raise DistNetworkError(f"rank 0 cannot listen on {spec.url}: the address is already in use (another job "
                                   "or a previous run still holds the port). Choose another MASTER_PORT.") from None
        raise DistNetworkError(f"rank 0 cannot listen on {spec.url}: {exc}") from None
    server.listen(max(16, spec.world_size))
    job = os.environ.get("EMBER_RUN_ID") or uuid.uuid4().hex[:12]
    entries: Dict[int, dict] = {0: mine}
    clients: Dict[int, _Lines] = {}
    pending: List[_Lines] = []
    try:
        while len(entries) < spec.world_size:
            left = _remaining(deadline)
            if left <= 0:
                raise DistStoreError(f"timed out after {timeout:g} s waiting for the other ranks at {spec.url}: "
                                     f"{_missing(entries, spec.world_size)} (world_size={spec.world_size})")
            for watcher in WATCHERS:
                problem = watcher()
                if problem:
                    raise DistStoreError(f"rendezvous at {spec.url} failed: {problem} "
                                         f"({_missing(entries, spec.world_size)})")
            socks = [server] + [c.sock for c in pending]
            ready, _, _ = select.select(socks, [], [], min(left, 0.5))
            for s in ready:
                if s is server:
                    conn, _ = server.accept()
                    pending.append(_Lines(conn))
                    continue
                client = next(c for c in pending if c.sock is s)
                try:
                    msg = client.read(time.monotonic() + 5.0)
                except (ConnectionError, OSError, ValueError):
                    pending.remove(client)
                    client.sock.close()
                    continue
                if msg is None:
                    continue
                pending.remove(client)
                error = None
                rank, world = msg.get("rank"), msg.get("world_size")
                if world != spec.world_size:
                    error = (f"rank {rank} passed world_size={world} but rank 0 uses world_size={spec.world_size}; "
                             "every rank must pass the same world_size")
                elif rank in entries:
                    error = f"rank {rank} joined twice (pids {entries[rank]['pid']} and {msg.get('pid')})"
                elif not isinstance(rank, int) or not 0 <= rank < spec.world_size:
                    error = f"a process registered with rank={rank!r}, outside 0..{spec.world_size - 1}"
                if error is not None:
                    try:
                        client.send({"error": error})
                    except OSError:
                        pass
                    client.sock.close()
                    # a misconfigured job cannot complete: fail now rather than at the timeout
                    for c in clients.values():
                        try:
                            c.send({"error": error})
                        except OSError:
                            pass
                    raise DistStoreError(f"rendezvous at {spec.url} failed: {error} "
                                         f"({_missing(entries, spec.world_size)})")
                entries[rank] = msg
                clients[rank] = client
                status = {"status": sorted(entries)}
                for c in list(clients.values()):
                    try:
                        c.send(status)
                    except OSError:
                        pass
        problem = _check_hosts(entries)
        peers = [entries[r] for r in range(spec.world_size)]
        for c in clients.values():
            c.send({"error": problem} if problem else {"job": job, "peers": peers})
        if problem:
            raise DistStoreError(problem)
        return job, peers
    finally:
        for c in list(clients.values()) + pending:
            c.sock.close()
        server.close()


def _join(spec: RendezvousSpec, mine: dict, deadline: float, timeout: float) -> Tuple[str, List[dict]]:
    """Ranks > 0: register with rank 0's server and wait for the table of peers."""
    last_error: Optional[BaseException] = None
    sock = None
    while sock is None:
        left = _remaining(deadline)
        if left <= 0:
            reason = f" (last error: {last_error})" if last_error else ""
            raise DistNetworkError(
                f"rank {spec.rank} could not reach the rendezvous at {spec.url} within {timeout:g} s{reason}: "
                "nothing answered there. Rank 0 must call init_process_group with the same init_method (check "
                "MASTER_ADDR and MASTER_PORT, and that rank 0 is running).")
        try:
            sock = socket.create_connection((spec.host, spec.port), timeout=min(left, 1.0))
        except OSError as exc:
            last_error = exc
        else:
            if sock.getsockname() == sock.getpeername():
                # nobody listens yet and the kernel gave this connection the server's port as its own: a TCP
                # self-connect, which would read back our own message. Not rank 0: close it and try again
                sock.close()
                sock = None
                last_error = ConnectionRefusedError("connected to itself: nothing listens at that port yet")
        if sock is None:
            time.sleep(min(0.05, _remaining(deadline)))
    lines = _Lines(sock)
    joined: List[int] = []
    try:
        lines.send(mine)
        while True:
            try:
                msg = lines.read(deadline)
            except (ConnectionError, OSError):
                raise DistStoreError(f"the rendezvous server at {spec.url} (rank 0) closed the connection before "
                                     "every rank joined; rank 0 probably failed (see its error)") from None
            if msg is None:
                raise DistStoreError(f"rank {spec.rank} timed out after {timeout:g} s waiting for the other ranks at "
                                     f"{spec.url}: {_missing(joined, spec.world_size)} "
                                     f"(world_size={spec.world_size})")
            if "status" in msg:
                joined = msg["status"]
            elif "error" in msg:
                raise DistStoreError(f"rendezvous at {spec.url} failed: {msg['error']}")
            else:
                return msg["job"], msg["peers"]
    finally:
        sock.close()


# ----------------------------------------------------------------------------------------------- file rendezvous
def _file_rendezvous(spec: RendezvousSpec, mine: dict, deadline: float, timeout: float) -> Tuple[str, List[dict]]:
    path = spec.path
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    if spec.rank == 0:
        mine = dict(mine, job=os.environ.get("EMBER_RUN_ID") or uuid.uuid4().hex[:12])

    def read_entries() -> List[dict]:
        try:
            with open(path, "r") as fh:
                text = fh.read()
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines():
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass  # a line being written right now
        return out

    for entry in read_entries():
        if entry.get("rank") == spec.rank:
            raise DistStoreError(f"{spec.url} already holds an entry for rank {spec.rank} (pid {entry.get('pid')}) "
                                 "from an earlier run: delete the file or use a fresh path")
    line = (json.dumps(mine) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX
            pass
        os.write(fd, line)  # one append of a short line: atomic on POSIX
    finally:
        os.close(fd)
    while True:
        entries = {}
        for entry in read_entries():
            if entry.get("world_size") != spec.world_size:
                raise DistStoreError(f"rank {entry.get('rank')} registered in {spec.url} with world_size="
                                     f"{entry.get('world_size')} but rank {spec.rank} uses world_size="
                                     f"{spec.world_size}; every rank must pass the same world_size")
            entries[entry["rank"]] = entry
        if len(entries) == spec.world_size:
            problem = _check_hosts(entries)
            if problem:
                raise DistStoreError(problem)
            return entries[0]["job"], [entries[r] for r in range(spec.world_size)]
        if _remaining(deadline) <= 0:
            raise DistStoreError(f"rank {spec.rank} timed out after {timeout:g} s waiting for the other ranks at "
                                 f"{spec.url}: {_missing(entries, spec.world_size)} (world_size={spec.world_size})")
        time.sleep(0.01)


def rendezvous(spec: RendezvousSpec, listen_port: int, timeout: float) -> Tuple[str, List[dict]]:
    """Register this rank and return ``(job_id, peers)``: one dict per rank with its host, port and pid."""
    mine = {"rank": spec.rank, "world_size": spec.world_size, "host": socket.gethostname(), "port": listen_port,
            "pid": os.getpid()}
    deadline = time.monotonic() + timeout
    if spec.world_size == 1:
        return os.environ.get("EMBER_RUN_ID") or uuid.uuid4().hex[:12], [mine]
    if spec.kind == "file":
        return _file_rendezvous(spec, mine, deadline, timeout)
    if spec.rank == 0:
        return _serve(spec, mine, deadline, timeout)
    return _join(spec, mine, deadline, timeout)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("connection closed during the handshake")
        buf += chunk
    return buf


def connect_mesh(spec: RendezvousSpec, listener: socket.socket, job: str, peers: List[dict],
                 timeout: float) -> Dict[int, socket.socket]:
    """Connect to every lower rank and accept every higher one; returns ``{peer_rank: socket}``."""
    deadline = time.monotonic() + timeout
    token = job.encode()[:16].ljust(16, b"\0")
    socks: Dict[int, socket.socket] = {}
    me = spec.rank
    try:
        for peer in range(me):
            left = _remaining(deadline)
            try:
                s = socket.create_connection(("127.0.0.1", peers[peer]["port"]), timeout=max(0.1, left))
            except OSError as exc:
                raise DistNetworkError(f"rank {me} could not connect to rank {peer} (pid {peers[peer]['pid']}, port "
                                       f"{peers[peer]['port']}): {exc}") from None
            s.sendall(_HANDSHAKE.pack(token, me))
            socks[peer] = _tune(s)
        while len(socks) < spec.world_size - 1:
            left = _remaining(deadline)
            if left <= 0:
                missing = [r for r in range(me + 1, spec.world_size) if r not in socks]
                raise DistNetworkError(f"rank {me} timed out after {timeout:g} s waiting for rank(s) {missing} to "
                                       f"connect (rendezvous {spec.url})")
            listener.settimeout(left)
            try:
                s, _ = listener.accept()
            except socket.timeout:
                continue
            s.settimeout(max(0.1, _remaining(deadline)))
            got_token, peer = _HANDSHAKE.unpack(_recv_exact(s, _HANDSHAKE.size))
            if got_token != token or not me < peer < spec.world_size or peer in socks:
                s.close()  # a stray connection (another job on a reused port)
                continue
            socks[peer] = _tune(s)
        for s in socks.values():
            s.settimeout(None)
        return socks
    except BaseException:
        for s in socks.values():
            s.close()
        raise
