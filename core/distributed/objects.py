"""Collectives on picklable Python objects: small metadata such as paths, metrics and decisions.

Objects are pickled, so (as in PyTorch) only use them with data from the job's own processes: unpickling can run
code. Tensors should go through the tensor collectives, which never pickle.
"""
from __future__ import annotations

import pickle
from typing import Any, List, Optional

import numpy as np

from .consistency import make_meta
from .process_group import _resolve

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list"]


def _dumps(obj) -> np.ndarray:
    return np.frombuffer(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), dtype=np.uint8)


def _loads(buf: np.ndarray):
    return pickle.loads(buf.tobytes())


def _all_gather_bytes(pg, data: np.ndarray, op: str) -> List[np.ndarray]:
    n = pg.size()
    size = np.array([data.size], dtype=np.int64)
    sizes = np.empty((n, 1), dtype=np.int64)
    pg._impl.all_gather(sizes, size, make_meta("all_gather", np.int64, (1,))).wait()
    longest = int(sizes.max())
    padded = np.zeros(longest, dtype=np.uint8)
    padded[:data.size] = data
    out = np.empty((n, longest), dtype=np.uint8)
    pg._impl.all_gather(out, padded, make_meta("all_gather", np.uint8, (longest,))).wait()
    return [out[i, :int(sizes[i, 0])] for i in range(n)]


def all_gather_object(object_list: List[Any], obj: Any, group=None) -> None:
    """Gather a picklable ``obj`` from every rank into ``object_list`` (which must have one slot per rank).

    Example::

        out = [None] * dist.get_world_size()
        dist.all_gather_object(out, {"rank": dist.get_rank()})
    """
    pg = _resolve(group)
    if pg is None:
        return
    if not isinstance(object_list, list) or len(object_list) != pg.size():
        got = len(object_list) if isinstance(object_list, list) else type(object_list).__name__
        raise ValueError(f"all_gather_object: object_list must be a list with one slot per rank ({pg.size()}), "
                         f"got {got}")
    for i, buf in enumerate(_all_gather_bytes(pg, _dumps(obj), "all_gather_object")):
        object_list[i] = _loads(buf)


def broadcast_object_list(object_list: List[Any], src: Optional[int] = None, group=None, device=None,
                          group_src: Optional[int] = None) -> None:
    """Replace the entries of ``object_list`` on every rank with those of rank ``src`` (same length everywhere)."""
    from .collectives import _root
    pg = _resolve(group)
    if pg is None:
        return
    if not isinstance(object_list, list):
        raise TypeError(f"broadcast_object_list: object_list must be a list, got {type(object_list).__name__}")
    root = _root(pg, src if src is not None or group_src is not None else 0, group_src, "src",
                 "broadcast_object_list")
    count = len(object_list)
    sizes = np.zeros(count, dtype=np.int64)
    blobs = []
    if pg.rank() == root:
        blobs = [_dumps(o) for o in object_list]
        sizes[:] = [b.size for b in blobs]
    pg._impl.broadcast(sizes, root, make_meta("broadcast", np.int64, (count,), root)).wait()
    total = int(sizes.sum())
    data = np.concatenate(blobs) if blobs else np.zeros(total, dtype=np.uint8)
    if data.size != total:  # no objects at all
        data = np.zeros(total, dtype=np.uint8)
    pg._impl.broadcast(data, root, make_meta("broadcast", np.uint8, (total,), root)).wait()
    if pg.rank() != root:
        offset = 0
        for i in range(count):
            n = int(sizes[i])
            object_list[i] = _loads(data[offset:offset + n])
            offset += n


def gather_object(obj: Any, object_gather_list: Optional[List[Any]] = None, dst: Optional[int] = None,
                  group=None, group_dst: Optional[int] = None) -> None:
    """Gather a picklable ``obj`` from every rank into ``object_gather_list`` on rank ``dst``."""
    from .collectives import _root
    pg = _resolve(group)
    if pg is None:
        return
    root = _root(pg, dst if dst is not None or group_dst is not None else 0, group_dst, "dst", "gather_object")
    if pg.rank() == root and (not isinstance(object_gather_list, list) or len(object_gather_list) != pg.size()):
        raise ValueError(f"gather_object: object_gather_list must be a list with one slot per rank ({pg.size()}) "
                         "on the destination rank")
    gathered = _all_gather_bytes(pg, _dumps(obj), "gather_object")
    if pg.rank() == root:
        for i, buf in enumerate(gathered):
            object_gather_list[i] = _loads(buf)


def scatter_object_list(scatter_object_output_list: List[Any], scatter_object_input_list: Optional[List[Any]] = None,
                        src: Optional[int] = None, group=None, group_src: Optional[int] = None) -> None:
    """Send ``scatter_object_input_list[i]`` from rank ``src`` to rank ``i``, into ``scatter_object_output_list[0]``."""
    from .collectives import _root
    pg = _resolve(group)
    if pg is None:
        return
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("scatter_object_list: scatter_object_output_list must be a non-empty list")
    root = _root(pg, src if src is not None or group_src is not None else 0, group_src, "src",
                 "scatter_object_list")
    n = pg.size()
    sizes = np.zeros(n, dtype=np.int64)
    blobs = []
    if pg.rank() == root:
        if not isinstance(scatter_object_input_list, list) or len(scatter_object_input_list) != n:
            raise ValueError(f"scatter_object_list: scatter_object_input_list must hold one object per rank ({n}) "
                             "on the source rank")
        blobs = [_dumps(o) for o in scatter_object_input_list]
        sizes[:] = [b.size for b in blobs]
    pg._impl.broadcast(sizes, root, make_meta("broadcast", np.int64, (n,), root)).wait()
    longest = int(sizes.max()) if n else 0
    src_arr = None
    if pg.rank() == root:
        src_arr = np.zeros((n, longest), dtype=np.uint8)
        for i, b in enumerate(blobs):
            src_arr[i, :b.size] = b
    out = np.empty(longest, dtype=np.uint8)
    pg._impl.scatter(out, src_arr, root, make_meta("scatter", np.uint8, (longest,), root)).wait()
    scatter_object_output_list[0] = _loads(out[:int(sizes[pg.rank()])])
