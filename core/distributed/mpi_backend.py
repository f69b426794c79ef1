"""The ``"mpi"`` backend: collectives through mpi4py's buffer methods, for one or many machines.

Tensors travel as contiguous NumPy buffers (``Allreduce``, ``Bcast``, ``Allgather``, ...), never pickled. Before
each call the ranks exchange a fixed-size description of it with one small ``Allgather`` (a few microseconds) so
that mismatched shapes, dtypes or calls raise the same clear error everywhere; DDP's gradient buckets skip it (their
layout is verified once, when the model is wrapped).

MPI calls cannot be interrupted, so a hang is handled by a watchdog thread: if an operation is still running when
its group's ``timeout`` expires, the watchdog prints which operation on which rank timed out and aborts the job
(``MPI_Abort``), as NCCL's watchdog does. An uncaught exception on any rank also aborts the job (after printing the
traceback) instead of leaving the other ranks blocked forever.
"""
from __future__ import annotations

import sys
import threading
import time
import traceback
from typing import Dict, Optional

import numpy as np

from .backend_group import BackendGroup
from .consistency import META_WORDS, decode_meta, describe_mismatch, encode_meta
from .errors import DistBackendError
from .reduce_op import ReduceOp
from .work import CompletedWork, Work

__all__ = ["MPIGroup", "mpi_module", "install_abort_on_exception", "Watchdog"]


def mpi_module():
    """``mpi4py.MPI``, with a clear error when it is not installed."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise RuntimeError("backend='mpi' needs mpi4py and an MPI library: pip install 'ember[mpi]' (mpi4py and the "
                           f"mpich wheel, which brings mpiexec), or use backend='local' ({exc})") from None
    return MPI


class Watchdog:
    """Aborts the MPI job when an operation outlives its timeout (blocking MPI calls cannot raise)."""

    def __init__(self, comm) -> None:
        self._comm = comm
        self._cond = threading.Condition()
        self._watched: Dict[int, tuple] = {}
        self._next = 0
        self._thread = threading.Thread(target=self._loop, daemon=True, name="ember-mpi-watchdog")
        self._thread.start()

    def watch(self, what: str, timeout: float) -> int:
        """Start watching an operation; returns a token for :meth:`unwatch`."""
        with self._cond:
            token = self._next
            self._next += 1
            self._watched[token] = (time.monotonic() + timeout, what, timeout)
            if len(self._watched) == 1:
                self._cond.notify()
        return token

    def unwatch(self, token: int) -> None:
        """The operation of ``token`` has completed."""
        with self._cond:
            self._watched.pop(token, None)

    def _loop(self) -> None:
        with self._cond:
            while True:
                if not self._watched:
                    self._cond.wait()
                    continue
                token, (deadline, what, timeout) = min(self._watched.items(), key=lambda kv: kv[1][0])
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(min(left, 5.0))
                    continue
                rank = self._comm.Get_rank()
                sys.stderr.write(f"\n[ember.distributed] rank {rank}: {what} timed out after {timeout:g} s (mpi "
                                 "backend). Another rank probably crashed, hung, or called a different collective. "
                                 "Aborting the job.\n")
                sys.stderr.flush()
                self._comm.Abort(1)
                return


_ABORT_HOOK_INSTALLED = [False]


def install_abort_on_exception(comm) -> None:
    """Make an uncaught exception abort the whole MPI job (after printing it) instead of hanging the other ranks."""
    if _ABORT_HOOK_INSTALLED[0] or comm.Get_size() == 1:
        return
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        try:
            previous(exc_type, exc, tb)
        except Exception:
            traceback.print_exception(exc_type, exc, tb)
        sys.stderr.write(f"[ember.distributed] rank {comm.Get_rank()} raised {exc_type.__name__}; aborting the MPI "
                         "job so the other ranks do not wait for it\n")
        sys.stderr.flush()
        sys.stdout.flush()
        comm.Abort(1)

    sys.excepthook = hook
    _ABORT_HOOK_INSTALLED[0] = True


def _bytes(arr: np.ndarray) -> np.ndarray:
    """A contiguous array as raw bytes: data movement needs no MPI datatype (NumPy's float16 has none)."""
    return arr.reshape(-1).view(np.uint8)


class _MPIWork(Work):
    """A work backed by MPI requests."""

    def __init__(self, group: "MPIGroup", requests, what: str, tensors=None):
        super().__init__(tensors)
        self._group, self._requests, self._what = group, list(requests), what

    def _poll(self) -> bool:
        return bool(self._group.MPI.Request.Testall(self._requests))

    def _block(self, timeout) -> None:
        limit = self._group.timeout if timeout is None else min(timeout, self._group.timeout)
        token = self._group.watchdog.watch(self._what, limit)
        try:
            self._group.MPI.Request.Waitall(self._requests)
        finally:
            self._group.watchdog.unwatch(token)


class MPIGroup(BackendGroup):
    """A process group over an MPI communicator. Rank arguments are group ranks; ``send``/``recv`` peers global."""

    backend_name = "mpi"

    def __init__(self, comm, ranks, timeout: float, name: str, watchdog: Watchdog, world_comm):
        self.MPI = mpi_module()
        self.comm = comm
        self.world_comm = world_comm
        self.ranks = list(ranks)
        self.size = comm.Get_size()
        self.rank = comm.Get_rank()
        self.timeout = float(timeout)
        self.name = name
        self.watchdog = watchdog
        self._ops = {ReduceOp.SUM: self.MPI.SUM, ReduceOp.PRODUCT: self.MPI.PROD, ReduceOp.MIN: self.MPI.MIN,
                     ReduceOp.MAX: self.MPI.MAX}
        self._meta_buf = np.empty((self.size, META_WORDS), dtype=np.int64)

    # ---------------------------------------------------------------------------------------------- machinery
    def _blocking(self, what: str, fn) -> None:
        token = self.watchdog.watch(f"{what} on {self.name}", self.timeout)
        try:
            fn()
        finally:
            self.watchdog.unwatch(token)

    def _check(self, meta) -> None:
        mine = encode_meta(meta)
        self._blocking(meta["op"] + " (argument check)", lambda: self.comm.Allgather(mine, self._meta_buf))
        metas = [decode_meta(row) for row in self._meta_buf]
        problem = describe_mismatch(metas, self.ranks)
        if problem is not None:
            raise DistBackendError(problem)

    def _run(self, meta, blocking, nonblocking, async_op: bool, check: bool = True) -> Work:
        if check:
            self._check(meta)
        what = f"{meta['op']} on {self.name}"
        if async_op:
            return _MPIWork(self, [nonblocking()], what)
        self._blocking(meta["op"], blocking)
        return CompletedWork()

    # ------------------------------------------------------------------------------------------------ collectives
    def barrier(self, meta, async_op=False) -> Work:
        return self._run(meta, self.comm.Barrier, self.comm.Ibarrier, async_op, check=False)

    def broadcast(self, arr, root, meta, async_op=False, check=True) -> Work:
        arr = _bytes(arr)
        return self._run(meta, lambda: self.comm.Bcast(arr, root), lambda: self.comm.Ibcast(arr, root), async_op,
                         check)

    def all_reduce(self, arr, op, meta, async_op=False, check=True) -> Work:
        mop, IN_PLACE = self._ops[op], self.MPI.IN_PLACE
        return self._run(meta, lambda: self.comm.Allreduce(IN_PLACE, arr, mop),
                         lambda: self.comm.Iallreduce(IN_PLACE, arr, mop), async_op, check)

    def reduce(self, arr, root, op, meta, async_op=False) -> Work:
        mop = self._ops[op]
        if self.rank == root:
            send, recv = self.MPI.IN_PLACE, arr
        else:
            send, recv = arr, None
        return self._run(meta, lambda: self.comm.Reduce(send, recv, mop, root),
                         lambda: self.comm.Ireduce(send, recv, mop, root), async_op)

    def all_gather(self, out, arr, meta, async_op=False) -> Work:
        out, arr = _bytes(out), _bytes(arr)
        return self._run(meta, lambda: self.comm.Allgather(arr, out), lambda: self.comm.Iallgather(arr, out),
                         async_op)

    def gather(self, out, arr, root, meta, async_op=False) -> Work:
        arr = _bytes(arr)
        recv = _bytes(out) if self.rank == root else None
        return self._run(meta, lambda: self.comm.Gather(arr, recv, root),
                         lambda: self.comm.Igather(arr, recv, root), async_op)

    def scatter(self, out, src, root, meta, async_op=False) -> Work:
        out = _bytes(out)
        send = _bytes(src) if self.rank == root else None
        return self._run(meta, lambda: self.comm.Scatter(send, out, root),
                         lambda: self.comm.Iscatter(send, out, root), async_op)

    def reduce_scatter(self, out, inp, op, meta, async_op=False) -> Work:
        mop = self._ops[op]
        return self._run(meta, lambda: self.comm.Reduce_scatter_block(inp, out, mop),
                         lambda: self.comm.Ireduce_scatter_block(inp, out, mop), async_op)

    def all_to_all(self, out, inp, meta, async_op=False) -> Work:
        out, inp = _bytes(out), _bytes(inp)
        return self._run(meta, lambda: self.comm.Alltoall(inp, out), lambda: self.comm.Ialltoall(inp, out),
                         async_op)

    # --------------------------------------------------------------------------------------------- point to point
    # A message is a small header (dtype and shape, for a clear error on mismatch) then the data, on tags 2t, 2t+1.
    def _header(self, arr) -> np.ndarray:
        from .consistency import make_meta
        return encode_meta(make_meta("send", arr.dtype, arr.shape))

    def send(self, arr, dst: int, tag: int, async_op=False) -> Work:
        head = self._header(arr)
        world = self.world_comm
        arr = _bytes(arr)
        if async_op:
            return _MPIWork(self, [world.Isend(head, dst, 2 * tag), world.Isend(arr, dst, 2 * tag + 1)],
                            f"isend to rank {dst}")
        self._blocking(f"send to rank {dst}", lambda: (world.Send(head, dst, 2 * tag),
                                                       world.Send(arr, dst, 2 * tag + 1)))
        return CompletedWork()

    def recv(self, arr, src: Optional[int], tag: int, async_op=False) -> Work:
        MPI = self.MPI
        world = self.world_comm
        head = np.empty(META_WORDS, dtype=np.int64)
        status = MPI.Status()
        expect = decode_meta(self._header(arr))
        what = f"recv from {'rank ' + str(src) if src is not None else 'any rank'} (tag {tag})"
        work = Work([])

        def finish_header():
            got = decode_meta(head)
            if got["dtype"] != expect["dtype"] or got["shape"] != expect["shape"]:
                world.Recv(np.empty(int(np.prod(got["shape"] or [1])) * np.dtype(got["dtype"] or "u1").itemsize,
                                    np.uint8), status.Get_source(), 2 * tag + 1)
                raise DistBackendError(
                    f"{what}: the sender's tensor is {np.dtype(got['dtype']).name} of shape {tuple(got['shape'])}, "
                    f"but the receiving tensor is {arr.dtype.name} of shape {tuple(arr.shape)}; send and recv "
                    "must use the same shape and dtype")
            return status.Get_source()

        source = MPI.ANY_SOURCE if src is None else src
        request = world.Irecv(head, source, 2 * tag)
        arrived = [False]

        def poll():
            if not arrived[0]:
                arrived[0] = bool(request.Test(status))
            return arrived[0]

        def block(timeout):
            limit = self.timeout if timeout is None else min(timeout, self.timeout)
            token = self.watchdog.watch(what, limit)
            try:
                if not arrived[0]:
                    request.Wait(status)
                    arrived[0] = True
                peer = finish_header()
                world.Recv(_bytes(arr), peer, 2 * tag + 1)
            finally:
                self.watchdog.unwatch(token)
            work._source = peer
        work._block = block
        work._poll = poll
        if not async_op:
            work.wait()
        return work

    def close(self) -> None:
        if self.comm != self.world_comm and self.comm != self.MPI.COMM_NULL:
            try:
                self.comm.Free()
            except Exception:
                pass
