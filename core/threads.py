"""Intra-op threads: one policy behind :func:`set_num_threads` / :func:`get_num_threads`.

* **BLAS runs single-threaded.** OpenBLAS's worker threads spin-wait between calls, so a threaded BLAS takes the
  other cores away from everything that is not a GEMM (on a busy machine it makes training slower, not faster).
  ember pins the BLAS pool to one thread when it is imported, and splits GEMMs that are big enough to gain across
  its own pool instead: each part is one single-threaded BLAS call on a block of rows or of columns, whichever
  re-packs less, and adds its slice of a bias while it is in cache (:func:`matmul`). Independent products, such as
  a linear layer's input and weight gradients, run side by side rather than each split (:func:`matmuls`).
  Set ``EMBER_BLAS_THREADS=keep`` to leave the BLAS pool as NumPy configured it. Distributed ranks take their share
  of the cores through :func:`set_num_threads` too (``core/distributed/threads.py``).
* **Large kernels are chunked.** Elementwise, activation, normalization, softmax, reduction, im2col/col2im and
  pooling kernels split their work into one contiguous part per thread; NumPy releases the GIL inside its loops, so
  the parts run in parallel. Elementwise parts are the same computation on disjoint ranges, so results are
  bit-identical to a single thread. Small tensors stay on the calling thread.
* **Idle workers sleep** on a queue: nothing spins between kernels.

The default count is ``OMP_NUM_THREADS`` when set, else the cores this process may run on (PyTorch's rule).
After ``fork`` the child starts without workers and recreates them on first use.
"""
from __future__ import annotations

import os
import threading
from typing import Callable, List, Optional, Sequence, Tuple

from .blas import set_blas_threads, wheel_blas_setter

__all__ = ["set_num_threads", "get_num_threads", "pin_blas", "parallel_for", "map_parts", "chunks", "elementwise",
           "matmul", "matmuls", "ELEMENTWISE_GRAIN", "GEMM_GRAIN", "TASK_GRAIN"]

# Elements per part below which chunking costs more than it gains (a queue hand-off is ~10-30 us; a float32 ufunc
# pass over 128k elements is ~50-100 us).
ELEMENTWISE_GRAIN = 1 << 17
# Multiply-adds below which a GEMM stays on one thread (splitting one GEMM re-packs an operand per part).
GEMM_GRAIN = 1 << 23
# Multiply-adds below which independent products (:func:`matmuls`) run one after the other: side by side, nothing
# is packed twice, so only the hand-off (~10-30 us) has to be paid for (a 2M multiply-add GEMM is ~20 us).
TASK_GRAIN = 1 << 21
# Parts per thread of a parallel region. One: smaller parts mean more, shorter NumPy calls, whose Python overhead
# holds the GIL (4 parts per thread measured 20% slower than 1 on LeNet at 2 threads). The parts are still claimed
# dynamically, so the caller takes the part of a worker the OS has not scheduled yet.
PARTS_PER_THREAD = 1
# Rows of a GEMM part are a multiple of this, so the BLAS micro-kernels see the same blocking as in one call.
_ROW_ALIGN = 64


def _default_threads() -> int:
    value = os.environ.get("OMP_NUM_THREADS", "").strip()
    if value:
        try:
            return max(1, int(value.split(",")[0]))
        except ValueError:
            pass
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _Batch:
    """One parallel region: its parts are claimed one at a time by whichever thread is free (so a worker the OS
    has not scheduled yet does not hold the caller up: the caller takes its parts), and ``done`` is set when the
    last claimed part finishes."""

    __slots__ = ("tasks", "claim", "left", "lock", "done", "error")

    def __init__(self, tasks):
        import itertools
        self.tasks = list(tasks)  # emptied part by part as they finish (see work)
        self.claim = itertools.count()  # next() on a count is atomic under the GIL
        self.left = len(tasks)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error = None

    def work(self):
        tasks, n = self.tasks, len(self.tasks)
        while True:
            i = next(self.claim)
            if i >= n:
                return
            try:
                tasks[i]()
            except BaseException as exc:  # handed to the caller, which re-raises it
                if self.error is None:
                    self.error = exc
            # a finished part lets go of its closure, which holds the caller's arrays, before the caller can go on:
            # a worker would otherwise keep them referenced until its next region, and backward copies a fresh
            # gradient that looks shared instead of keeping it (the 800 KB weight gradient of a 784x256 layer)
            tasks[i] = None
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.done.set()


class _Pool:
    """``workers`` daemon threads, each blocking on its own queue; the caller works on every batch too."""

    def __init__(self, workers: int):
        import queue  # lazily: only a multi-threaded run needs it, and ``import ember`` stays fast
        self._queues: List[queue.SimpleQueue] = []
        # held while a batch runs: a nested or concurrent run() then executes serially instead of deadlocking
        self._busy = threading.Lock()
        for _ in range(workers):
            q: queue.SimpleQueue = queue.SimpleQueue()
            threading.Thread(target=self._loop, args=(q,), daemon=True, name="ember-intra-op").start()
            self._queues.append(q)

    @property
    def size(self) -> int:
        return len(self._queues) + 1

    @staticmethod
    def _loop(q):
        while True:
            batch = q.get()
            if batch is None:
                return
            batch.work()

    def run(self, tasks: Sequence[Callable[[], None]]) -> None:
        if len(tasks) == 1 or not self._busy.acquire(blocking=False):
            for task in tasks:
                task()
            return
        try:
            batch = _Batch(tasks)
            for q in self._queues[:len(tasks) - 1]:
                q.put(batch)
            batch.work()
            batch.done.wait()  # every claimed part has finished: no worker still writes our outputs
            if batch.error is not None:
                raise batch.error
        finally:
            self._busy.release()

    def close(self):
        for q in self._queues:
            q.put(None)


_state = {"threads": None, "pool": None, "blas_pinned": False}


def _pin_blas():
    """Pin the BLAS pool to one thread, once (see the module docstring)."""
    _state["blas_pinned"] = True
    if os.environ.get("EMBER_BLAS_THREADS", "").strip().lower() == "keep":
        return
    setter = wheel_blas_setter()
    if setter is not None:
        setter(1)
        return
    set_blas_threads(1)


def pin_blas() -> None:
    """Apply the BLAS part of the policy now (ember does this when it is imported)."""
    if not _state["blas_pinned"]:
        _pin_blas()


def get_num_threads() -> int:
    """The number of threads ember uses for intra-op parallelism (GEMMs and large kernels)."""
    n = _state["threads"]
    if n is None:
        n = _state["threads"] = _default_threads()
    return n


def set_num_threads(num: int) -> None:
    """Set the number of threads ember uses for intra-op parallelism (as ``torch.set_num_threads``).

    ``1`` runs every kernel on the calling thread. The BLAS library itself stays single-threaded; ember splits big
    GEMMs across its own threads, whose idle workers sleep instead of spinning.
    """
    if isinstance(num, bool) or not isinstance(num, int):
        raise TypeError(f"set_num_threads(): argument 'num' must be int, not {type(num).__name__}")
    if num < 1:
        raise ValueError(f"set_num_threads(): expected a positive number of threads, but got num={num}")
    _state["threads"] = num
    pool = _state["pool"]
    if pool is not None and pool.size != num:
        pool.close()
        _state["pool"] = None


def _pool() -> Optional[_Pool]:
    if not _state["blas_pinned"]:
        _pin_blas()
    n = get_num_threads()
    if n <= 1:
        return None
    pool = _state["pool"]
    if pool is None:
        pool = _state["pool"] = _Pool(n - 1)
    return pool


def _after_fork():
    _state["pool"] = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def chunks(total: int, grain: int, align: int = 1) -> List[Tuple[int, int]]:
    """Split ``range(total)`` into contiguous ``(start, stop)`` parts of at least ``grain`` (up to
    :data:`PARTS_PER_THREAD` per thread, so a busy core's share moves to the free one), each starting at a multiple
    of ``align``; a single part when threads would not gain."""
    n = get_num_threads()
    if n <= 1 or total < 2 * grain:
        return [(0, total)]
    parts = min(n * PARTS_PER_THREAD, total // max(1, grain))
    step = -(-total // parts)
    step = -(-step // align) * align
    return [(lo, min(total, lo + step)) for lo in range(0, total, step)]


def parallel_for(total: int, fn: Callable[[int, int], None], grain: int = ELEMENTWISE_GRAIN, align: int = 1):
    """Call ``fn(start, stop)`` over contiguous parts of ``range(total)``, in parallel when they are large enough.

    ``fn`` must only write disjoint slices of its outputs (it runs on several threads at once).
    """
    parts = chunks(total, grain, align)
    if len(parts) == 1:
        fn(0, total)
        return
    pool = _pool()
    if pool is None:
        fn(0, total)
        return
    pool.run([lambda lo=lo, hi=hi: fn(lo, hi) for lo, hi in parts])


def map_parts(total: int, fn: Callable[[int, int], object], grain: int = ELEMENTWISE_GRAIN) -> list:
    """``[fn(start, stop) for each part]`` over contiguous parts of ``range(total)``, computed in parallel when
    large; the results are in part order (for partial reductions and per-part outputs)."""
    parts = chunks(total, grain)
    results = [None] * len(parts)
    if len(parts) == 1:
        results[0] = fn(0, total)
        return results

    def run(i):
        results[i] = fn(*parts[i])
    pool = _pool()
    if pool is None:
        for i in range(len(parts)):
            run(i)
    else:
        pool.run([lambda i=i: run(i) for i in range(len(parts))])
    return results


def elementwise(fn, out, *inputs, grain: int = ELEMENTWISE_GRAIN):
    """``fn(out, *inputs)`` on flat parts of same-shape C-contiguous arrays, in parallel when large; returns ``out``.

    ``fn`` must be elementwise (each output element depends only on the inputs at the same index), which makes the
    result bit-identical to one call on the whole arrays. Other layouts run as one call.
    """
    size = out.size
    if size < 2 * grain or get_num_threads() <= 1 or not out.flags.c_contiguous or any(
            a.shape != out.shape or not a.flags.c_contiguous for a in inputs):
        fn(out, *inputs)
        return out
    flat = [out.reshape(-1)] + [a.reshape(-1) for a in inputs]
    parallel_for(size, lambda lo, hi: fn(*[f[lo:hi] for f in flat]), grain=grain)
    return out


def _gemm_parts(xp, a, b, out, parts, bias=None):
    """``parts`` single-threaded BLAS calls that together write ``out = a @ b (+ bias)`` (2-D), as zero-argument
    tasks; each part adds its slice of ``bias`` right after its product, while that slice is still in cache.

    Each part re-packs the whole operand it does not split, so the split goes along the longer side of ``out``:
    blocks of rows re-pack ``b`` (``k*n``), blocks of columns re-pack ``a`` (``m*k``). Parts are multiples of
    :data:`_ROW_ALIGN`, so the BLAS micro-kernels see the same blocking as in one call."""
    m, n = out.shape
    rows = m >= n
    extent = m if rows else n
    step = -(-extent // max(1, parts))
    step = -(-step // _ROW_ALIGN) * _ROW_ALIGN

    def part(lo, hi):
        if rows:
            o = xp.matmul(a[lo:hi], b, out=out[lo:hi])
            if bias is not None:
                o += bias
        else:
            o = xp.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
            if bias is not None:
                o += bias[lo:hi] if bias.ndim else bias
    return [lambda lo=lo: part(lo, lo + step) for lo in range(0, extent, step)]


def _run_tasks(tasks):
    if len(tasks) == 1:
        tasks[0]()
        return
    pool = _pool()
    if pool is None:
        for task in tasks:
            task()
    else:
        pool.run(tasks)


def matmul(xp, a, b, out=None, bias=None):
    """``a @ b`` (NumPy's rules), split across the threads when the GEMM is big enough: 2-D products by blocks of
    rows or of columns (whichever re-packs less), stacks of matrices with equal batch dimensions by matrices.

    ``bias`` (2-D products only: a vector over the columns, of the result's dtype) is added to the product, part by
    part right after each part's GEMM, so the addition is split across the threads too and reads a hot cache.
    """
    if bias is not None:
        if a.ndim != 2 or b.ndim != 2 or getattr(xp, "__name__", "") != "numpy":
            res = matmul(xp, a, b, out=out)
            res += bias
            return res
    elif getattr(xp, "__name__", "") != "numpy":  # a GPU library runs its own parallel GEMM
        return xp.matmul(a, b, out=out)
    if a.ndim != 2 or b.ndim != 2:
        if (a.ndim < 3 or a.shape[:-2] != b.shape[:-2] or get_num_threads() <= 1
                or a.size * b.shape[-1] < 2 * GEMM_GRAIN):
            return xp.matmul(a, b, out=out)
        lead, (m, k), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
        if out is None:
            out = xp.empty(lead + (m, n), dtype=xp.result_type(a, b))
        a3, b3, o3 = a.reshape((-1, m, k)), b.reshape((-1,) + b.shape[-2:]), out.reshape(-1, m, n)

        def stack(lo, hi):
            xp.matmul(a3[lo:hi], b3[lo:hi], out=o3[lo:hi])
        parallel_for(a3.shape[0], stack, grain=max(1, GEMM_GRAIN // max(1, m * k * n)))
        return out
    m, k = a.shape
    n = b.shape[1]
    threads = get_num_threads()
    if m * k * n < GEMM_GRAIN * 2 or threads <= 1:
        if not _state["blas_pinned"]:
            _pin_blas()
        res = xp.matmul(a, b, out=out)
        if bias is not None:
            res += bias
        return res
    if out is None:
        out = xp.empty((m, n), dtype=xp.result_type(a, b))
    _run_tasks(_gemm_parts(xp, a, b, out, min(threads * PARTS_PER_THREAD, m * k * n // GEMM_GRAIN), bias))
    return out


def matmuls(xp, pairs, also: Optional[Callable[[], object]] = None):
    """``[a @ b for a, b in pairs]`` for independent 2-D products (a backward's input and weight gradients).

    With threads, the products run side by side, each as single-threaded BLAS calls: unlike splitting one GEMM, no
    operand is packed twice and one hand-off serves them all. Each product gets a share of the threads in
    proportion to its size (at least one part), and the parts are claimed dynamically. Products too small to gain
    (below :data:`TASK_GRAIN` multiply-adds each) run one after the other on the calling thread.

    ``also`` (a zero-argument callable, e.g. a bias gradient) is independent work that runs in the same parallel
    region, taken by whichever thread finishes its product first; its result is appended to the list. (A linear
    layer's bias gradient run this way made its backward at 2 threads 3-8 % faster on gpt's shapes than running it
    after the products, on the calling thread alone.)
    """
    threads = get_num_threads()
    sizes = [a.shape[0] * a.shape[1] * b.shape[1] if a.ndim == b.ndim == 2 else 0 for a, b in pairs]
    if threads <= 1 or len(pairs) < 2 or getattr(xp, "__name__", "") != "numpy" or min(sizes) < TASK_GRAIN:
        products = [matmul(xp, a, b) for a, b in pairs]
        return products if also is None else products + [also()]
    total = sum(sizes)
    outs, tasks = [], []
    for (a, b), size in zip(pairs, sizes):
        out = xp.empty((a.shape[0], b.shape[1]), dtype=xp.result_type(a, b))
        outs.append(out)
        share = max(1, min(round(threads * size / total), size // TASK_GRAIN))
        tasks += _gemm_parts(xp, a, b, out, share)
    if also is None:
        _run_tasks(tasks)
        return outs
    result = []
    _run_tasks(tasks + [lambda: result.append(also())])
    return outs + result
