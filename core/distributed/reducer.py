"""The gradient reducer of ``DistributedDataParallel``: averaging gradients in a few flat buckets.

Parameters are assigned to buckets in reverse order (roughly the order backward produces their gradients), one
dtype per bucket, at most ``bucket_cap_mb`` each (the first bucket smaller, 1 MiB, so communication starts early).
Each parameter gets a tensor hook. The engine runs a leaf's hooks just before it accumulates the gradient into
``.grad``, so when a hook fires, the parameter whose hook fired before it is complete: that one is copied into its
bucket (divided by the world size on the way) and, when a bucket is full, its all-reduce starts in the background
while backward goes on. Buckets start in index order on every rank, so the ranks always agree on what is reduced.

The hook of the last expected parameter finishes the job itself: it adds its own gradient into the bucket, starts
the last buckets, waits for all of them and points every ``.grad`` at its slice of the bucket. ``loss.backward()``
therefore returns with averaged gradients, and one collective per bucket was made, never one per parameter.
"""
from __future__ import annotations

import dataclasses
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..tensor import Tensor
from .consistency import make_meta
from .reduce_op import ReduceOp

__all__ = ["Reducer", "DEFAULT_FIRST_BUCKET_BYTES"]

DEFAULT_FIRST_BUCKET_BYTES = 1 << 20


class _Bucket:
    __slots__ = ("index", "dtype", "members", "offsets", "buffer", "pending", "work")

    def __init__(self, index: int, dtype, members: List[int], offsets: List[int], size: int):
        self.index, self.dtype, self.members, self.offsets = index, dtype, members, offsets
        self.buffer = np.zeros(size, dtype=dtype)
        self.pending = len(members)
        self.work = None


def _graph_leaves(outputs) -> set:
    """ids of the leaf tensors reachable from the ``grad_fn`` of the tensors in ``outputs``."""
    roots, stack = [], [outputs]
    while stack:
        obj = stack.pop()
        if isinstance(obj, Tensor):
            if obj.grad_fn is not None:
                roots.append(obj.grad_fn)
            elif obj._requires_grad:
                stack.append(None)
                roots.append(("leaf", obj))
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple)):
            stack.extend(obj)
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            stack.extend(getattr(obj, f.name) for f in dataclasses.fields(obj))
    found, seen = set(), set()
    todo = list(roots)
    while todo:
        node = todo.pop()
        if isinstance(node, tuple):
            found.add(id(node[1]))
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None:
            found.add(id(variable))
        for edge in getattr(node, "next_functions", ()) or ():
            if edge is not None and edge[0] is not None:
                todo.append(edge[0])
    return found


class Reducer:
    """Averages the gradients of ``params`` across ``process_group`` (see the module docstring).

    Args:
        named_params: ``(name, parameter)`` pairs, in ``module.named_parameters()`` order.
        process_group: the :class:`ProcessGroup` to average over.
        bucket_cap_mb: the bucket size cap in MiB.
        find_unused_parameters: find the parameters the forward did not use (by walking the autograd graph of
            the outputs), count them as ready at once, and leave their gradient ``None`` if no rank used them.
    """

    def __init__(self, named_params: Sequence[Tuple[str, Tensor]], process_group, bucket_cap_mb: float = 25.0,
                 find_unused_parameters: bool = False,
                 first_bucket_bytes: int = DEFAULT_FIRST_BUCKET_BYTES) -> None:
        self.names = [n for n, _ in named_params]
        self.params = [p for _, p in named_params]
        self.group = process_group
        self.find_unused = bool(find_unused_parameters)
        self.divisor = float(process_group.size())
        self._inline_finish = getattr(process_group._impl, "backend_name", "") == "local"
        self._finishing = False
        self._build_buckets(int(bucket_cap_mb * (1 << 20)), first_bucket_bytes)
        self._grads = [Tensor._make(self._view(i)) for i in range(len(self.params))]
        self._handles = [p.register_hook(self._make_hook(i)) for i, p in enumerate(self.params)]
        self._armed = False
        self._fired = 0
        self._expected = 0
        self._expected_mask: Optional[np.ndarray] = None
        self._hooked = np.zeros(len(self.params), dtype=bool)
        self._last: Optional[int] = None
        self._next_launch = 0
        self._had_grad = np.zeros(len(self.params), dtype=bool)

    # ------------------------------------------------------------------------------------------------- layout
    def _build_buckets(self, cap: int, first_cap: int) -> None:
        self.buckets: List[_Bucket] = []
        self._where: List[Tuple[int, int]] = [(0, 0)] * len(self.params)
        current: List[int] = []
        size = 0
        dtype = None
        limit = min(first_cap, cap)

        def close():
            nonlocal current, size, limit
            if not current:
                return
            offsets, off = [], 0
            for i in current:
                offsets.append(off)
                off += self.params[i]._data.size
            bucket = _Bucket(len(self.buckets), dtype, list(current), offsets, off)
            for slot, i in enumerate(current):
                self._where[i] = (bucket.index, slot)
            self.buckets.append(bucket)
            current, size, limit = [], 0, cap

        for i in reversed(range(len(self.params))):
            p = self.params[i]
            nbytes = p._data.nbytes
            if current and (p._data.dtype != dtype or size + nbytes > limit):
                close()
            dtype = p._data.dtype
            current.append(i)
            size += nbytes
        close()

    def _view(self, i: int) -> np.ndarray:
        b, slot = self._where[i]
        bucket = self.buckets[b]
        off = bucket.offsets[slot]
        p = self.params[i]
        return bucket.buffer[off:off + p._data.size].reshape(p._data.shape)

    def bucket_sizes(self) -> List[int]:
        """The number of elements of each bucket, in launch order."""
        return [b.buffer.size for b in self.buckets]

    # -------------------------------------------------------------------------------------------- iteration
    @property
    def pending(self) -> bool:
        """True while armed and some (but not all) expected gradients have arrived."""
        return self._armed and self._fired > 0

    def unready_parameter_names(self) -> List[str]:
        """The expected parameters whose gradient has not arrived in the current backward."""
        mask = self._expected_mask if self._expected_mask is not None else np.ones(len(self.params), bool)
        return [self.names[i] for i in range(len(self.params)) if mask[i] and not self._hooked[i]]

    def prepare_for_backward(self, outputs=None) -> None:
        """Arm the hooks for the next backward. With ``find_unused_parameters``, ``outputs`` are walked to find the
        parameters that will receive a gradient; the others are ready at once."""
        self._armed = True
        self._finishing = False
        self._fired = 0
        self._last = None
        self._next_launch = 0
        self._hooked[:] = False
        for b in self.buckets:
            b.pending = len(b.members)
            b.work = None
        expected = np.array([p._requires_grad for p in self.params], dtype=bool)
        if self.find_unused and outputs is not None:
            reachable = _graph_leaves(outputs)
            expected &= np.array([id(p) in reachable for p in self.params], dtype=bool)
        self._expected_mask = expected
        self._expected = int(expected.sum())
        self._had_grad[:] = [p._grad is not None for p in self.params]
        for i in np.flatnonzero(~expected):
            self._mark_ready(int(i))
        if self._expected == 0:  # nothing will fire: reduce now (zeros and any accumulated gradients)
            self._finish(skip=None)

    def _make_hook(self, i: int):
        def hook(grad):
            if not self._armed:
                return None
            return self._on_grad(i, grad)
        return hook

    def _on_grad(self, i: int, grad: Tensor):
        if not self._expected_mask[i] or self._hooked[i]:
            raise RuntimeError(
                f"DistributedDataParallel: parameter {self.names[i]!r} received a gradient it was not expected to get "
                "in this backward (find_unused_parameters could not see it in the forward outputs, or backward ran "
                "twice after one forward). Return the tensors that lead to the loss from forward (tensors, lists, "
                "dicts or dataclasses of them), and run one backward per forward.")
        self._fired += 1
        self._hooked[i] = True
        if self._last is not None:
            self._mark_ready(self._last)
            self._last = None
        self._progress()
        if self._fired < self._expected:
            self._last = i
            return None
        # the last expected gradient: accumulate it here, so everything can be reduced before backward returns
        p = self.params[i]
        view = self._view(i)
        old = p._grad
        if old is None:
            np.divide(grad._data, self.divisor, out=view)
        else:
            np.add(old._data, grad._data, out=view)
            np.divide(view, self.divisor, out=view)
        p._grad = None  # the engine stores what this hook returns (a copy of the reduced slice)
        self._finishing = True
        self._bucket_done(i)
        self._finish(skip=i)
        return self._grads[i]

    def _mark_ready(self, i: int) -> None:
        """Copy parameter ``i``'s (complete) gradient into its bucket, divided by the world size."""
        p = self.params[i]
        view = self._view(i)
        g = p._grad
        if g is None or not p._requires_grad:
            view[...] = 0
        else:  # g may already be this very slice (grads are bucket views after a reduction): exact aliasing is fine
            np.divide(g._data, self.divisor, out=view)
        self._bucket_done(i)

    def _bucket_done(self, i: int) -> None:
        bucket = self.buckets[self._where[i][0]]
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()

    def _launch_ready(self) -> None:
        # the local backend runs the buckets left at the end inline (no hand-off to its worker thread: nothing is
        # left to overlap); with MPI every bucket is non-blocking, as blocking and non-blocking calls do not match
        sync = self._finishing and self._inline_finish
        while self._next_launch < len(self.buckets) and self.buckets[self._next_launch].pending == 0:
            bucket = self.buckets[self._next_launch]
            bucket.work = self.all_reduce_bucket(bucket.buffer, sync=sync)
            self._next_launch += 1

    def all_reduce_bucket(self, buffer: np.ndarray, sync: bool = False):
        """Start the (unchecked) sum of one bucket; the layout was verified at construction."""
        meta = make_meta("all_reduce", buffer.dtype, buffer.shape, reduce="sum")
        return self.group._impl.all_reduce(buffer, ReduceOp.SUM, meta, async_op=not sync, check=False)

    def _progress(self) -> None:
        # MPI progresses non-blocking collectives only inside MPI calls: poke the oldest running one
        for b in self.buckets[:self._next_launch]:
            if b.work is not None and not b.work.is_completed():
                break

    def _finish(self, skip: Optional[int]) -> None:
        self._finishing = True
        if self._last is not None:
            self._mark_ready(self._last)
            self._last = None
        self._launch_ready()
        for b in self.buckets:
            b.work.wait()
        self._finishing = False
        used = None
        if self.find_unused:
            local = (self._expected_mask | self._had_grad).astype(np.int32)
            used = self.all_reduce_used_map(local)
        for i, p in enumerate(self.params):
            if i == skip or not p._requires_grad:
                continue
            if used is not None and not used[i]:
                continue  # no rank produced a gradient: leave .grad as it was (None)
            p._grad = self._grads[i]
        self._armed = False
        self._fired = 0

    def all_reduce_used_map(self, local: np.ndarray) -> np.ndarray:
        """Which parameters got a gradient on any rank (``find_unused_parameters``): the maximum over ranks."""
        meta = make_meta("all_reduce", local.dtype, local.shape, reduce="max")
        self.group._impl.all_reduce(local, ReduceOp.MAX, meta, async_op=True, check=False).wait()
        return local

    def reduce_now(self) -> None:
        """Average the current ``.grad`` of every parameter (without hooks): for gradients accumulated outside a
        synchronised backward, and for benchmarks."""
        self.prepare_for_backward(None)
        if self._expected:
            for i in range(len(self.params)):
                if self._expected_mask[i]:
                    self._mark_ready(i)
            self._finish(skip=None)

    # ---------------------------------------------------------------------------------------------- join
    def shadow_backward(self) -> None:
        """What a joined rank does for one synchronised backward of the others: zeros into every bucket."""
        for b in self.buckets:
            b.buffer[...] = 0
            b.work = self.all_reduce_bucket(b.buffer)
        for b in self.buckets:
            b.work.wait()
        if self.find_unused:
            self.all_reduce_used_map(np.zeros(len(self.params), dtype=np.int32))

    def remove_hooks(self) -> None:
        """Detach the gradient hooks from the parameters."""
        for h in self._handles:
            h.remove()
        self._handles = []
        self._armed = False
