"""The ``"local"`` backend: N processes on one machine, with no MPI installed.

Control messages and small payloads (up to 64 KiB) travel over the socket mesh (:mod:`.local_transport`); large
payloads go through shared memory (:mod:`.local_shm`). A collective is one handshake round: every rank sends every
other rank a description of its call (plus the payload, or the name of its shared slot), checks that all the
descriptions agree, and reads what it needs.

Each rank has two shared slots per group and alternates between them (collective ``s`` uses slot ``s % 2``), so no
second round is needed before a slot is reused: a peer sends its message for collective ``s + 1`` only after it
finished reading everything of collective ``s``, and this rank receives that message before it can start
collective ``s + 2``, the next one to overwrite the same slot.

Reductions run on every rank over the contributions in rank order, so all ranks get bitwise-identical results
(DDP relies on this to keep the replicas equal).
"""
from __future__ import annotations

import time
from typing import Callable, Dict, List, Optional

import numpy as np

from .backend_group import BackendGroup
from .consistency import describe_mismatch
from .errors import DistBackendError
from .executor import SerialExecutor
from .local_shm import PeerSlots, Slot
from .local_transport import Mesh, PostedRecv
from .reduce_op import ReduceOp
from .work import CompletedWork, ThreadWork, Work

__all__ = ["LocalBackend", "LocalGroup"]

INLINE_BYTES = 1 << 16

_UFUNCS = {ReduceOp.SUM: np.add, ReduceOp.PRODUCT: np.multiply, ReduceOp.MIN: np.minimum, ReduceOp.MAX: np.maximum}


def _as_bytes(arr: np.ndarray) -> np.ndarray:
    return arr.reshape(-1).view(np.uint8) if arr.size else np.empty(0, np.uint8)


def reduce_arrays(out: np.ndarray, arrays: List[np.ndarray], op: ReduceOp, out_holds: int = -1) -> None:
    """``out = arrays[0] op arrays[1] op ...``, combined in that order on every rank.

    ``out`` must not alias any of ``arrays``; ``out_holds`` says that ``out`` already holds ``arrays[out_holds]``.
    Accumulating in place is much faster than a three-operand ufunc on large arrays, and because the operations
    are commutative, ``arrays[1] op arrays[0]`` equals ``arrays[0] op arrays[1]`` bitwise: a rank holding one of the
    first two contributions starts from it and still matches the others exactly.
    """
    ufunc = _UFUNCS[op]
    n = len(arrays)
    if out_holds in (0, 1) and n >= 2:
        ufunc(out, arrays[1 - out_holds], out=out)
        start = 2
    else:
        np.copyto(out, arrays[0])
        start = 1
    for a in arrays[start:]:
        ufunc(out, a, out=out)


class LocalBackend:
    """Process-wide state of the local backend: the mesh to every other rank of the job."""

    def __init__(self, rank: int, world_size: int, job: str, mesh: Mesh):
        self.rank, self.world_size, self.job, self.mesh = rank, world_size, job, mesh
        self._senders: Dict[int, SerialExecutor] = {}

    def sender(self, peer: int) -> SerialExecutor:
        """The FIFO thread that sends point-to-point messages to ``peer`` (sends to one peer keep their order)."""
        ex = self._senders.get(peer)
        if ex is None:
            ex = self._senders[peer] = SerialExecutor(f"ember-dist-send-{peer}")
        return ex

    def close(self, graceful: bool = True) -> None:
        """Close the mesh (``graceful``: tell the peers this rank is leaving on purpose)."""
        self.mesh.close(graceful)


class LocalGroup(BackendGroup):
    """A process group of the local backend (the world, or a ``new_group`` subset).

    All ranks arguments are *group* ranks; ``send``/``recv`` peers are global ranks.
    """

    backend_name = "local"

    def __init__(self, backend: LocalBackend, gid: int, ranks: List[int], timeout: float, name: str):
        self.backend = backend
        self.gid = gid
        self.ranks = list(ranks)
        self.size = len(ranks)
        self.rank = self.ranks.index(backend.rank)
        self.timeout = float(timeout)
        self.name = name
        self._seq = 0
        prefix = f"ember-{backend.job}-g{gid}-r{backend.rank}"
        self._slots = (Slot(prefix + "a"), Slot(prefix + "b"))
        self._peer_slots = PeerSlots()
        self._executor = SerialExecutor(f"ember-dist-{name}")

    # ----------------------------------------------------------------------------------------------- machinery
    def _issue(self, fn: Callable[[], None], async_op: bool, describe: str, tensors=None) -> Work:
        if async_op:
            return self._executor.submit(fn, ThreadWork(tensors, describe))
        self._executor.run(fn, describe)
        return CompletedWork(tensors)

    def _exchange(self, meta: dict, contribution: Optional[np.ndarray], consume: Callable[[Dict[int, np.ndarray]],
                  None], check: bool = True) -> None:
        """One collective round (see the module docstring). ``consume`` gets byte views by group rank."""
        mesh = self.backend.mesh
        seq = self._seq
        self._seq += 1
        tag = f"c{self.gid}.{seq}"
        what = f"{meta['op']} (collective #{seq} of {self.name})"
        deadline = time.monotonic() + self.timeout
        me = self.rank
        data = _as_bytes(contribution) if contribution is not None else None
        if self.size == 1:  # nothing to exchange: the result is this rank's own contribution
            consume({0: data} if data is not None else {})
            return
        nbytes = 0 if data is None else data.nbytes
        out_meta = dict(meta)
        payload = None
        sources: Dict[int, np.ndarray] = {}
        half = seq % 2
        grown = None
        if nbytes > INLINE_BYTES:
            slot = self._slots[half]
            before = slot.name
            view = slot.ensure(nbytes)
            np.copyto(view, data)
            out_meta["shm"] = [slot.name, nbytes]
            if slot.name != before:
                out_meta["new_shm"] = True
                grown = slot
            sources[me] = view
        elif nbytes:
            payload = data
            sources[me] = data.copy()  # the output may be the contribution itself
        elif data is not None:
            sources[me] = data
        peers = [(i, g) for i, g in enumerate(self.ranks) if i != me]
        for _, g in peers:
            mesh.send(g, tag, out_meta, payload, what=what)
        metas: List[Optional[dict]] = [None] * self.size
        metas[me] = out_meta
        for k, (i, g) in enumerate(peers):
            watch = [h for _, h in peers[k + 1:]]  # the peers whose message is still to come
            meta_i, payload_i = mesh.recv(g, tag, deadline, what, watch)
            metas[i] = meta_i
            if "shm" in meta_i:  # mapped now even if unused here, so that its owner may unlink the file
                name, n = meta_i["shm"]
                sources[i] = self._peer_slots.view((i, half), name, n)
            elif payload_i:
                sources[i] = np.frombuffer(payload_i, dtype=np.uint8)
        if any(m.get("new_shm") for m in metas):
            # A segment created for this collective may be unlinked only once every peer has mapped it: a peer that
            # is slow to open it must not find it gone (even if its owner returns and exits at once). Growth is
            # rare (the slot doubles), so this extra round costs nothing in steady state.
            for _, g in peers:
                mesh.send(g, tag + ".mapped", {}, None, what=what)
            for k, (i, g) in enumerate(peers):
                mesh.recv(g, tag + ".mapped", deadline, what, [h for _, h in peers[k + 1:]])
            if grown is not None:
                grown.unlink_now()
        if check:
            problem = describe_mismatch([{k: v for k, v in m.items() if k not in ("shm", "new_shm")} for m in metas],
                                        self.ranks)
            if problem is not None:
                raise DistBackendError(problem)
        consume(sources)

    # ------------------------------------------------------------------------------------------------ collectives
    def barrier(self, meta, async_op=False) -> Work:
        return self._issue(lambda: self._exchange(meta, None, lambda s: None), async_op, "barrier")

    def broadcast(self, arr: np.ndarray, root: int, meta, async_op=False, check=True) -> Work:
        def run():
            def consume(sources):
                if self.rank != root and arr.size:
                    _as_bytes(arr)[...] = sources[root]
            self._exchange(meta, arr if self.rank == root else None, consume, check)
        return self._issue(run, async_op, "broadcast")

    def all_reduce(self, arr: np.ndarray, op: ReduceOp, meta, async_op=False, check=True) -> Work:
        def run():
            def consume(sources):
                if arr.size:
                    reduce_arrays(arr.reshape(-1), [sources[i].view(arr.dtype) for i in range(self.size)], op,
                                  out_holds=self.rank)
            self._exchange(meta, arr, consume, check)
        return self._issue(run, async_op, "all_reduce")

    def reduce(self, arr: np.ndarray, root: int, op: ReduceOp, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if self.rank == root and arr.size:
                    reduce_arrays(arr.reshape(-1), [sources[i].view(arr.dtype) for i in range(self.size)], op,
                                  out_holds=self.rank)
            self._exchange(meta, arr, consume)
        return self._issue(run, async_op, "reduce")

    def all_gather(self, out: np.ndarray, arr: np.ndarray, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if arr.size:
                    flat = out.reshape(self.size, -1)
                    for i in range(self.size):
                        flat[i] = sources[i].view(arr.dtype)
            self._exchange(meta, arr, consume)
        return self._issue(run, async_op, "all_gather")

    def gather(self, out: Optional[np.ndarray], arr: np.ndarray, root: int, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if self.rank == root and arr.size:
                    flat = out.reshape(self.size, -1)
                    for i in range(self.size):
                        flat[i] = sources[i].view(arr.dtype)
            self._exchange(meta, arr, consume)
        return self._issue(run, async_op, "gather")

    def scatter(self, out: np.ndarray, src: Optional[np.ndarray], root: int, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if out.size:
                    chunks = sources[root].view(out.dtype).reshape(self.size, -1)
                    out.reshape(-1)[...] = chunks[self.rank]
            self._exchange(meta, src if self.rank == root else None, consume)
        return self._issue(run, async_op, "scatter")

    def reduce_scatter(self, out: np.ndarray, inp: np.ndarray, op: ReduceOp, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if out.size:
                    parts = [sources[i].view(out.dtype).reshape(self.size, -1)[self.rank] for i in range(self.size)]
                    reduce_arrays(out.reshape(-1), parts, op)
            self._exchange(meta, inp, consume)
        return self._issue(run, async_op, "reduce_scatter")

    def all_to_all(self, out: np.ndarray, inp: np.ndarray, meta, async_op=False) -> Work:
        def run():
            def consume(sources):
                if out.size:
                    flat = out.reshape(self.size, -1)
                    for i in range(self.size):
                        flat[i] = sources[i].view(out.dtype).reshape(self.size, -1)[self.rank]
            self._exchange(meta, inp, consume)
        return self._issue(run, async_op, "all_to_all")

    # --------------------------------------------------------------------------------------------- point to point
    def send(self, arr: np.ndarray, dst: int, tag: int, async_op=False) -> Work:
        mesh = self.backend.mesh
        meta = {"dtype": arr.dtype.str, "shape": list(arr.shape)}
        key = f"p{self.gid}.{tag}"

        def run():
            mesh.send(dst, key, meta, _as_bytes(arr) if arr.size else None, what=f"send to rank {dst} (tag {tag})")
        sender = self.backend.sender(dst)
        if async_op:
            return sender.submit(run, ThreadWork([], f"isend to rank {dst}"))
        sender.run(run, f"send to rank {dst}")
        return CompletedWork([])

    def recv(self, arr: np.ndarray, src: Optional[int], tag: int, async_op=False) -> Work:
        mesh = self.backend.mesh
        expect = (arr.dtype.str, list(arr.shape))

        def check(meta: dict) -> Optional[str]:
            got = (meta.get("dtype"), meta.get("shape"))
            if got != expect:
                return (f"the sender's tensor is {np.dtype(got[0]).name if got[0] else '?'} of shape "
                        f"{tuple(got[1] or ())}, but the receiving tensor is {arr.dtype.name} of shape "
                        f"{tuple(arr.shape)}; send and recv must use the same shape and dtype")
            return None
        buffer = memoryview(_as_bytes(arr)) if arr.size else memoryview(bytearray(0))
        posted = PostedRecv(src, f"p{self.gid}.{tag}", buffer, check)
        mesh.post(posted)
        who = f"rank {src}" if src is not None else "any rank"
        what = f"recv from {who} (tag {tag})"
        deadline = time.monotonic() + self.timeout
        work = ThreadWork([], what)

        def block(timeout):
            limit = deadline if timeout is None else min(deadline, time.monotonic() + timeout)
            mesh.wait_posted(posted, limit, what)
            work._source = posted.source
        work._blocker = block
        work._poll = lambda: posted.done
        if not async_op:
            work.wait()
        return work

    def close(self) -> None:
        for slot in self._slots:
            slot.unlink_now()
