"""The seam between metrics and the process-group API.

Metrics never import a communication library. Cross-process sync goes through two functions here, which reach
``ember.core.distributed`` (``torch.distributed``'s API) lazily and report "not distributed" when it is missing,
not initialised or has a single process. Both are injectable per metric (``dist_sync_fn``,
``distributed_available_fn``), and :func:`gather_all_tensors` takes a ``backend`` with the same API, which is how
the tests run a fake two-process group inside one process.
"""
from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor

__all__ = ["distributed_available", "gather_all_tensors", "get_dist_module"]


_DIST = []  # the looked-up module (or None), cached after the first call


def get_dist_module():
    """``ember.core.distributed`` if it provides the process-group API, else ``None``."""
    if _DIST:
        return _DIST[0]
    try:
        from ...core import distributed as dist
    except ImportError:  # pragma: no cover - the package is part of core
        dist = None
    needed = ("is_available", "is_initialized", "get_world_size", "all_gather")
    if dist is not None and not all(hasattr(dist, name) for name in needed):
        dist = None
    _DIST.append(dist)
    return dist


def distributed_available(backend=None) -> bool:
    """True when a process group with more than one process is initialised."""
    dist = backend if backend is not None else get_dist_module()
    if dist is None:
        return False
    try:
        if not (dist.is_available() and dist.is_initialized()):
            return False
        return dist.get_world_size() > 1
    except Exception:  # a half-configured backend counts as "not distributed"
        return False


def _all_gather(dist, tensor: Tensor, world_size: int, group):
    buffers = [Tensor._make(tensor._data.copy()) for _ in range(world_size)]
    dist.all_gather(buffers, tensor, group=group)
    return buffers


def _dtype_from_num(num: int):
    for dt in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
               np.complex64, np.complex128):
        if np.dtype(dt).num == num:
            return np.dtype(dt)
    raise ValueError(f"Cannot gather a tensor of unsupported dtype number {num}")


def gather_all_tensors(result: Tensor, group=None, *, backend=None) -> list:
    """All-gather ``result`` from every process of ``group``; returns one tensor per rank, in rank order.

    Tensors may differ in shape across ranks (list states of unequal length, a rank that saw no data): the shapes
    are exchanged first, every tensor is padded to the largest shape for the collective, and each gathered tensor
    is cut back to its true shape.

    Args:
        result: the local tensor.
        group: the process group (``None`` is the world).
        backend: an object with ``torch.distributed``'s API; defaults to ``ember.core.distributed``.
    """
    dist = backend if backend is not None else get_dist_module()
    if dist is None:
        return [result]
    if not isinstance(result, Tensor):
        raise TypeError(f"gather_all_tensors expects an ember Tensor, got {type(result).__name__}")
    world_size = dist.get_world_size(group)
    xp = result._xp
    data = xp.ascontiguousarray(result.detach()._data)
    # 1. number of dimensions, emptiness and dtype: a rank that saw no data holds a 1-d empty placeholder of the
    #    default dtype while the others may hold 2-d integer rows
    info = xp.asarray([data.ndim, int(data.size > 0), data.dtype.num], dtype=np.int64)
    infos = [t._data.reshape(-1) for t in _all_gather(dist, Tensor._make(info), world_size, group)]
    max_ndim = max(int(i[0]) for i in infos)
    filled = [_dtype_from_num(int(i[2])) for i in infos if i[1]]
    dtype = np.result_type(*filled) if filled else data.dtype
    if data.ndim < max_ndim:
        if data.size != 0:
            raise ValueError(f"Cannot gather tensors with different numbers of dimensions across processes: this "
                             f"process has shape {tuple(data.shape)}, another has {max_ndim} dimensions.")
        data = data.reshape((0,) * max_ndim)
    if data.dtype != dtype:
        data = data.astype(dtype)
    local = Tensor._make(data)
    # 2. the shapes
    shape_t = Tensor._make(xp.asarray(data.shape if max_ndim else [0], dtype=np.int64))
    shapes = [tuple(int(s) for s in t._data.reshape(-1))[:max_ndim] for t in
              _all_gather(dist, shape_t, world_size, group)]
    if all(s == shapes[0] for s in shapes):
        return _all_gather(dist, local, world_size, group)
    # 3. pad to the largest shape, gather, cut back
    max_shape = tuple(max(s[d] for s in shapes) for d in range(max_ndim))
    padded = xp.zeros(max_shape, dtype=data.dtype)
    padded[tuple(slice(0, n) for n in data.shape)] = data
    gathered = _all_gather(dist, Tensor._make(padded), world_size, group)
    return [Tensor._make(g._data[tuple(slice(0, n) for n in shape)]) for g, shape in zip(gathered, shapes)]
