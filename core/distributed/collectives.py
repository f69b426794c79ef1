"""Collective and point-to-point operations on tensors, with ``torch.distributed``'s signatures.

Collectives work in place, like PyTorch's: ``all_reduce(t)`` overwrites ``t`` with the result. Every rank of the
group must call the same collectives in the same order with tensors of the same shape and dtype; a mismatch raises
an error naming every rank's shapes (rather than corrupting data or hanging).

``src``/``dst`` arguments are *global* ranks, as in PyTorch (``group_src``/``group_dst`` give group ranks). With
``async_op=True`` a :class:`Work` is returned and the tensors hold the result after ``work.wait()``.

Data handling shared by both backends: float16 tensors are reduced in float32 (then rounded back); bool tensors
reduce as logical or (``SUM``, ``MAX``) and logical and (``PRODUCT``, ``MIN``); ``AVG`` is ``SUM`` divided by the
group size; non-contiguous tensors go through a contiguous copy.
"""
from __future__ import annotations

from typing import Callable, List, Optional

import numpy as np

from ..tensor import Tensor
from .consistency import make_meta
from .process_group import _resolve
from .reduce_op import ReduceOp
from .work import Work

__all__ = ["barrier", "broadcast", "all_reduce", "reduce", "all_gather", "all_gather_into_tensor", "gather",
           "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "send", "recv", "isend", "irecv",
           "monitored_barrier"]


# ---------------------------------------------------------------------------------------------------- helpers
def _tensor(t, name: str, fn: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {name} must be an ember Tensor, got {type(t).__name__}")
    return t


def _tensor_list(ts, name: str, fn: str, n: int, like: Optional[Tensor] = None) -> List[Tensor]:
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{fn}: {name} must be a list of Tensors, got {type(ts).__name__}")
    if len(ts) != n:
        raise ValueError(f"{fn}: {name} has {len(ts)} tensors but the group has {n} ranks; pass one per rank")
    for i, t in enumerate(ts):
        _tensor(t, f"{name}[{i}]", fn)
        if like is not None and (t._data.shape != like._data.shape or t._data.dtype != like._data.dtype):
            raise ValueError(f"{fn}: {name}[{i}] is {t._data.dtype} of shape {tuple(t._data.shape)} but the tensor "
                             f"is {like._data.dtype} of shape {tuple(like._data.shape)}; they must match")
    return list(ts)


def _root(pg, global_rank, group_rank, name: str, fn: str) -> int:
    """The group rank of the root from ``src``/``dst`` (global) or ``group_src``/``group_dst``."""
    if global_rank is not None and group_rank is not None:
        raise ValueError(f"{fn}: pass either {name} or group_{name}, not both")
    if group_rank is not None:
        if not 0 <= int(group_rank) < pg.size():
            raise ValueError(f"{fn}: group_{name}={group_rank} is outside the group of {pg.size()} ranks")
        return int(group_rank)
    if global_rank is None:
        raise ValueError(f"{fn}: {name} (the global rank of the root) is required")
    if isinstance(global_rank, bool) or not isinstance(global_rank, (int, np.integer)):
        raise TypeError(f"{fn}: {name} must be an int rank, got {global_rank!r}")
    if int(global_rank) not in pg._ranks:
        raise ValueError(f"{fn}: {name}={global_rank} is not a rank of the group (its ranks are {pg._ranks})")
    return pg._ranks.index(int(global_rank))


def _contiguous(a: np.ndarray) -> np.ndarray:
    """``a`` in C order, keeping its shape (``np.ascontiguousarray`` turns 0-d arrays into 1-d ones)."""
    return a if a.flags.c_contiguous else a.copy(order="C")


def _effective_op(op: ReduceOp, dtype: np.dtype, fn: str) -> ReduceOp:
    if dtype == np.bool_:
        if op is ReduceOp.AVG:
            raise TypeError(f"{fn}: ReduceOp.AVG is not defined for bool tensors")
        return ReduceOp.MAX if op in (ReduceOp.SUM, ReduceOp.MAX) else ReduceOp.MIN
    if dtype.kind == "c" and op in (ReduceOp.MIN, ReduceOp.MAX):
        raise TypeError(f"{fn}: ReduceOp.{op.name} is not defined for complex tensors")
    return ReduceOp.SUM if op is ReduceOp.AVG else op


def _working(data: np.ndarray, reducing: bool):
    """A contiguous array the backend may use (float16 upcast, bool as uint8) and how to write it back."""
    if reducing and data.dtype == np.float16:
        work = data.astype(np.float32)
        return work, lambda: np.copyto(data, work, casting="unsafe")
    if reducing and data.dtype == np.bool_:
        if data.flags.c_contiguous and data.flags.writeable:
            return data.view(np.uint8), None
        work = _contiguous(data).view(np.uint8)
        return work, lambda: np.copyto(data, work.view(np.bool_))
    if data.flags.c_contiguous and data.flags.writeable:
        return data, None
    work = data.copy(order="C")
    return work, lambda: np.copyto(data, work)


def _average(work: np.ndarray, n: int) -> None:
    if work.dtype.kind in "fc":
        np.divide(work, n, out=work)
    else:  # truncation toward zero, as integer division in C
        np.copyto(work, np.sign(work) * (np.abs(work) // n))


def _finish(work: Work, async_op: bool, callbacks: List[Callable[[], None]]):
    for fn in callbacks:
        if fn is not None:
            work._then(fn)
    if async_op:
        return work
    work.wait()
    return None


def _touch(*tensors: Tensor) -> Callable[[], None]:
    def bump():
        for t in tensors:
            t._bump_version()
    return bump


# ------------------------------------------------------------------------------------------------ collectives
def barrier(group=None, async_op: bool = False, device_ids=None):
    """Block until every rank of ``group`` has reached this call."""
    pg = _resolve(group)
    if pg is None:
        return None
    return _finish(pg._impl.barrier(make_meta("barrier"), async_op), async_op, [])


def monitored_barrier(group=None, timeout=None, wait_all_ranks: bool = False) -> None:
    """A barrier (every operation of ember is monitored: a missing rank fails it within the group's timeout)."""
    barrier(group)


def broadcast(tensor: Tensor, src: Optional[int] = None, group=None, async_op: bool = False,
              group_src: Optional[int] = None):
    """Copy ``tensor`` from rank ``src`` to every rank of the group, in place.

    Args:
        tensor (Tensor): the data on ``src``; overwritten elsewhere. Same shape and dtype on every rank.
        src (int): the global rank that sends.
        group (ProcessGroup, optional): the group (default: the world).
        async_op (bool): return a :class:`Work` instead of waiting.
    """
    _tensor(tensor, "tensor", "broadcast")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src", "broadcast")
    data = tensor._data
    work_arr, back = _working(data, False)
    meta = make_meta("broadcast", data.dtype, data.shape, root)
    work = pg._impl.broadcast(work_arr, root, meta, async_op)
    return _finish(work, async_op, [back, _touch(tensor)] if pg.rank() != root else [])


def all_reduce(tensor: Tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` across the group so that every rank holds the result, in place.

    Args:
        tensor (Tensor): the input and output; same shape and dtype on every rank.
        op (ReduceOp): ``SUM`` (default), ``PRODUCT``, ``MIN``, ``MAX`` or ``AVG``.
        group (ProcessGroup, optional): the group (default: the world).
        async_op (bool): return a :class:`Work` instead of waiting.

    Example::

        t = em.tensor([1.0, 2.0]) * (dist.get_rank() + 1)
        dist.all_reduce(t, op=dist.ReduceOp.SUM)   # 2 ranks: t == [3., 6.] on both
    """
    _tensor(tensor, "tensor", "all_reduce")
    op = ReduceOp.coerce(op)
    pg = _resolve(group)
    if pg is None:
        return None
    data = tensor._data
    backend_op = _effective_op(op, data.dtype, "all_reduce")
    work_arr, back = _working(data, True)
    meta = make_meta("all_reduce", data.dtype, data.shape, reduce=op.value)
    work = pg._impl.all_reduce(work_arr, backend_op, meta, async_op)
    avg = (lambda: _average(work_arr, pg.size())) if op is ReduceOp.AVG and data.dtype != np.bool_ else None
    return _finish(work, async_op, [avg, back, _touch(tensor)])


def reduce(tensor: Tensor, dst: Optional[int] = None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst: Optional[int] = None):
    """Reduce ``tensor`` across the group into rank ``dst`` (the other ranks' tensors are left unchanged)."""
    _tensor(tensor, "tensor", "reduce")
    op = ReduceOp.coerce(op)
    pg = _resolve(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst", "reduce")
    data = tensor._data
    backend_op = _effective_op(op, data.dtype, "reduce")
    work_arr, back = _working(data, True)
    if work_arr is data and pg.rank() != root:
        work_arr = data.copy()  # MPI may use a non-root buffer as scratch: the tensor must stay as it was
    meta = make_meta("reduce", data.dtype, data.shape, root, op.value)
    work = pg._impl.reduce(work_arr, root, backend_op, meta, async_op)
    if pg.rank() != root:
        return _finish(work, async_op, [])
    avg = (lambda: _average(work_arr, pg.size())) if op is ReduceOp.AVG and data.dtype != np.bool_ else None
    return _finish(work, async_op, [avg, back, _touch(tensor)])


def all_gather(tensor_list: List[Tensor], tensor: Tensor, group=None, async_op: bool = False):
    """Gather ``tensor`` from every rank into ``tensor_list`` (one tensor per rank, in rank order)."""
    _tensor(tensor, "tensor", "all_gather")
    pg = _resolve(group)
    if pg is None:
        return None
    outs = _tensor_list(tensor_list, "tensor_list", "all_gather", pg.size(), like=tensor)
    data = _contiguous(tensor._data)
    out = np.empty((pg.size(),) + data.shape, dtype=data.dtype)
    meta = make_meta("all_gather", data.dtype, data.shape)
    work = pg._impl.all_gather(out, data, meta, async_op)

    def scatter_back():
        for i, t in enumerate(outs):
            t._data[...] = out[i]
    return _finish(work, async_op, [scatter_back, _touch(*outs)])


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group=None, async_op: bool = False):
    """Gather ``input_tensor`` from every rank into ``output_tensor``, either stacked (``(world, *shape)``) or
    concatenated along dimension 0 (``(world * shape[0], ...)``)."""
    _tensor(output_tensor, "output_tensor", "all_gather_into_tensor")
    _tensor(input_tensor, "input_tensor", "all_gather_into_tensor")
    pg = _resolve(group)
    if pg is None:
        return None
    data = _contiguous(input_tensor._data)
    n = pg.size()
    stacked = (n,) + data.shape
    concat = ((n * data.shape[0],) + data.shape[1:]) if data.ndim else None
    out_shape = output_tensor._data.shape
    if out_shape not in (stacked, concat) or output_tensor._data.dtype != data.dtype:
        raise ValueError(f"all_gather_into_tensor: output_tensor is {output_tensor._data.dtype} of shape "
                         f"{tuple(out_shape)}; with {n} ranks and an input of shape {tuple(data.shape)} "
                         f"({data.dtype}) it must have shape {stacked}" + (f" or {concat}" if concat else ""))
    out, back = _working(output_tensor._data, False)
    meta = make_meta("all_gather", data.dtype, data.shape)
    work = pg._impl.all_gather(out.reshape(stacked), data, meta, async_op)
    return _finish(work, async_op, [back, _touch(output_tensor)])


def gather(tensor: Tensor, gather_list: Optional[List[Tensor]] = None, dst: Optional[int] = None, group=None,
           async_op: bool = False, group_dst: Optional[int] = None):
    """Gather ``tensor`` from every rank into ``gather_list`` on rank ``dst`` (``gather_list`` only there)."""
    _tensor(tensor, "tensor", "gather")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "dst", "gather")
    data = _contiguous(tensor._data)
    meta = make_meta("gather", data.dtype, data.shape, root)
    if pg.rank() == root:
        if gather_list is None:
            raise ValueError("gather: gather_list is required on the destination rank")
        outs = _tensor_list(gather_list, "gather_list", "gather", pg.size(), like=tensor)
        out = np.empty((pg.size(),) + data.shape, dtype=data.dtype)
        work = pg._impl.gather(out, data, root, meta, async_op)

        def back():
            for i, t in enumerate(outs):
                t._data[...] = out[i]
        return _finish(work, async_op, [back, _touch(*outs)])
    if gather_list:
        raise ValueError("gather: gather_list must be empty (or None) on ranks other than dst")
    return _finish(pg._impl.gather(None, data, root, meta, async_op), async_op, [])


def scatter(tensor: Tensor, scatter_list: Optional[List[Tensor]] = None, src: Optional[int] = None, group=None,
            async_op: bool = False, group_src: Optional[int] = None):
    """Send ``scatter_list[i]`` from rank ``src`` to the ``i``-th rank of the group, into ``tensor``."""
    _tensor(tensor, "tensor", "scatter")
    pg = _resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "src", "scatter")
    out, back = _working(tensor._data, False)
    meta = make_meta("scatter", out.dtype, out.shape, root)
    src_arr = None
    if pg.rank() == root:
        if scatter_list is None:
            raise ValueError("scatter: scatter_list is required on the source rank")
        ins = _tensor_list(scatter_list, "scatter_list", "scatter", pg.size(), like=tensor)
        src_arr = np.stack([t._data for t in ins]) if ins else None
    elif scatter_list:
        raise ValueError("scatter: scatter_list must be empty (or None) on ranks other than src")
    work = pg._impl.scatter(out, src_arr, root, meta, async_op)
    return _finish(work, async_op, [back, _touch(tensor)])


def reduce_scatter(output: Tensor, input_list: List[Tensor], op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``input_list[i]`` across the ranks and leave the result in ``output`` on the ``i``-th rank."""
    _tensor(output, "output", "reduce_scatter")
    op = ReduceOp.coerce(op)
    pg = _resolve(group)
    if pg is None:
        return None
    ins = _tensor_list(input_list, "input_list", "reduce_scatter", pg.size(), like=output)
    backend_op = _effective_op(op, output._data.dtype, "reduce_scatter")
    stacked = np.stack([t._data for t in ins]) if ins else np.empty((0,) + output._data.shape, output._data.dtype)
    return _reduce_scatter(pg, output, stacked, op, backend_op, async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Like :func:`reduce_scatter` with the inputs as one tensor of shape ``(world * n, ...)`` or ``(world, ...)``."""
    _tensor(output, "output", "reduce_scatter_tensor")
    _tensor(input, "input", "reduce_scatter_tensor")
    op = ReduceOp.coerce(op)
    pg = _resolve(group)
    if pg is None:
        return None
    n = pg.size()
    shape = output._data.shape
    if input._data.size != n * output._data.size or input._data.dtype != output._data.dtype:
        raise ValueError(f"reduce_scatter_tensor: input is {input._data.dtype} of shape {tuple(input._data.shape)}; "
                         f"with {n} ranks and an output of shape {tuple(shape)} ({output._data.dtype}) it must hold "
                         f"{n} x {output._data.size} elements of the same dtype")
    backend_op = _effective_op(op, output._data.dtype, "reduce_scatter_tensor")
    stacked = _contiguous(input._data).reshape((n,) + shape)
    return _reduce_scatter(pg, output, stacked, op, backend_op, async_op)


def _reduce_scatter(pg, output, stacked, op, backend_op, async_op):
    out, back = _working(output._data, True)
    if stacked.dtype == np.float16:
        stacked = stacked.astype(np.float32)
    elif stacked.dtype == np.bool_:
        stacked = stacked.view(np.uint8)
    meta = make_meta("reduce_scatter", output._data.dtype, output._data.shape, reduce=op.value)
    work = pg._impl.reduce_scatter(out, _contiguous(stacked), backend_op, meta, async_op)
    avg = (lambda: _average(out, pg.size())) if op is ReduceOp.AVG else None
    return _finish(work, async_op, [avg, back, _touch(output)])


def all_to_all(output_tensor_list: List[Tensor], input_tensor_list: List[Tensor], group=None,
               async_op: bool = False):
    """Send ``input_tensor_list[i]`` to rank ``i`` and receive rank ``i``'s into ``output_tensor_list[i]``
    (every tensor of the same shape and dtype)."""
    pg = _resolve(group)
    if pg is None:
        return None
    ins = _tensor_list(input_tensor_list, "input_tensor_list", "all_to_all", pg.size())
    outs = _tensor_list(output_tensor_list, "output_tensor_list", "all_to_all", pg.size(), like=ins[0])
    _tensor_list(ins, "input_tensor_list", "all_to_all", pg.size(), like=ins[0])
    inp = np.stack([t._data for t in ins])
    out = np.empty_like(inp)
    meta = make_meta("all_to_all", inp.dtype, inp.shape[1:])
    work = pg._impl.all_to_all(out, inp, meta, async_op)

    def back():
        for i, t in enumerate(outs):
            t._data[...] = out[i]
    return _finish(work, async_op, [back, _touch(*outs)])


# --------------------------------------------------------------------------------------------- point to point
def _peer(pg, rank, group_rank, name: str, fn: str) -> int:
    """The *global* rank of the peer (p2p messages are addressed globally)."""
    return pg._ranks[_root(pg, rank, group_rank, name, fn)]


def _check_tag(tag, fn: str) -> int:
    if isinstance(tag, bool) or not isinstance(tag, (int, np.integer)) or tag < 0:
        raise ValueError(f"{fn}: tag must be a non-negative int, got {tag!r}")
    return int(tag)


def isend(tensor: Tensor, dst: Optional[int] = None, group=None, tag: int = 0, group_dst: Optional[int] = None):
    """Send ``tensor`` to rank ``dst`` without waiting; returns a :class:`Work`. Do not modify ``tensor`` before
    ``wait()``."""
    _tensor(tensor, "tensor", "isend")
    pg = _resolve(group)
    if pg is None:
        return None
    tag = _check_tag(tag, "isend")
    peer = _peer(pg, dst, group_dst, "dst", "isend")
    if peer == pg._ranks[pg.rank()]:
        raise ValueError("isend: a rank cannot send to itself (dst is this process's rank)")
    return pg._impl.send(_contiguous(tensor._data), peer, tag, async_op=True)


def send(tensor: Tensor, dst: Optional[int] = None, group=None, tag: int = 0, group_dst: Optional[int] = None) -> None:
    """Send ``tensor`` to rank ``dst`` (a matching :func:`recv` must receive it: same shape and dtype).

    Args:
        tensor (Tensor): the data.
        dst (int): the global rank of the receiver.
        group (ProcessGroup, optional): the group (default: the world).
        tag (int): matches the ``tag`` of the receive.
    """
    _tensor(tensor, "tensor", "send")
    pg = _resolve(group)
    if pg is None:
        return None
    peer = _peer(pg, dst, group_dst, "dst", "send")
    if peer == pg._ranks[pg.rank()]:
        raise ValueError("send: a rank cannot send to itself (dst is this process's rank)")
    pg._impl.send(_contiguous(tensor._data), peer, _check_tag(tag, "send"), async_op=False)
    return None


def irecv(tensor: Tensor, src: Optional[int] = None, group=None, tag: int = 0, group_src: Optional[int] = None):
    """Receive into ``tensor`` from rank ``src`` (any rank if None) without waiting; returns a :class:`Work`
    (``work.source_rank()`` tells who sent)."""
    _tensor(tensor, "tensor", "irecv")
    return _recv(tensor, src, group, tag, group_src, True, "irecv")


def recv(tensor: Tensor, src: Optional[int] = None, group=None, tag: int = 0, group_src: Optional[int] = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender's global rank."""
    _tensor(tensor, "tensor", "recv")
    return _recv(tensor, src, group, tag, group_src, False, "recv")


def _recv(tensor, src, group, tag, group_src, async_op, fn):
    pg = _resolve(group)
    if pg is None:
        return -1 if not async_op else None
    peer = None if src is None and group_src is None else _peer(pg, src, group_src, "src", fn)
    if peer is not None and peer == pg._ranks[pg.rank()]:
        raise ValueError(f"{fn}: a rank cannot receive from itself (src is this process's rank)")
    out, back = _working(tensor._data, False)
    work = pg._impl.recv(out, peer, _check_tag(tag, fn), async_op=async_op)
    if back is not None:
        work._then(back) if async_op else back()
    if async_op:
        return work._then(_touch(tensor))
    tensor._bump_version()
    return work._source
