"""Cross-rank agreement on what a collective is: the same call, root, reduction, dtype and shape on every rank.

Every backend exchanges a small description of each call (the ``"local"`` backend inside its handshake, ``"mpi"``
with one small ``Allgather``) and checks it with :func:`describe_mismatch` before moving any data. All ranks see
the same descriptions, so all of them raise the same error instead of one rank corrupting memory or hanging.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence

import numpy as np

__all__ = ["make_meta", "describe_mismatch", "encode_meta", "decode_meta", "META_WORDS"]

# the collectives a description can name (indexes are part of the MPI encoding)
OPS = ("barrier", "broadcast", "all_reduce", "reduce", "all_gather", "gather", "scatter", "reduce_scatter",
       "all_to_all", "send", "recv")
_REDUCE_NAMES = ("", "sum", "product", "min", "max", "avg")
_MAX_DIMS = 8
META_WORDS = 6 + _MAX_DIMS  # op, root, reduce, dtype, ndim, numel, dims...


def make_meta(op: str, dtype=None, shape: Sequence[int] = (), root: int = -1, reduce: str = "") -> Dict:
    """The description of one call of collective ``op`` on this rank."""
    return {"op": op, "dtype": np.dtype(dtype).str if dtype is not None else "", "shape": [int(s) for s in shape],
            "root": int(root), "reduce": reduce}


def _fmt_shape(shape) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _fmt_tensor(meta) -> str:
    dtype = np.dtype(meta["dtype"]).name if meta["dtype"] else "?"
    return f"{dtype} tensor of shape {_fmt_shape(meta['shape'])}"


def describe_mismatch(metas: List[Dict], ranks: Optional[Sequence[int]] = None) -> Optional[str]:
    """``None`` if the descriptions (one per group rank, in group order) agree, else an explanation.

    Args:
        metas: the descriptions of one call on every rank of the group.
        ranks: the global ranks of the group (for the message); default ``0..n-1``.
    """
    ranks = list(range(len(metas))) if ranks is None else list(ranks)

    def listing(fmt):
        return ", ".join(f"rank {ranks[i]} {fmt(m)}" for i, m in enumerate(metas))

    first = metas[0]
    if any(m["op"] != first["op"] for m in metas):
        return (f"ranks called different collectives at the same point: {listing(lambda m: 'called ' + m['op'])}. "
                "Every rank of a group must issue the same collectives in the same order.")
    op = first["op"]
    if any(m["root"] != first["root"] for m in metas):
        word = "src" if op in ("broadcast", "scatter") else "dst"
        return f"{op}: ranks disagree on {word}: {listing(lambda m: word + '=' + str(m['root']))}"
    if any(m["reduce"] != first["reduce"] for m in metas):
        return f"{op}: ranks disagree on the reduction: {listing(lambda m: 'op=ReduceOp.' + m['reduce'].upper())}"
    if op == "barrier":
        return None
    if any(m["dtype"] != first["dtype"] or m["shape"] != first["shape"] for m in metas):
        return (f"{op}: the tensors differ across ranks: {listing(lambda m: 'has a ' + _fmt_tensor(m))}. Every "
                "rank must pass tensors of the same shape and dtype.")
    return None


def encode_meta(meta: Dict) -> np.ndarray:
    """A fixed-size int64 vector of ``meta`` (for backends that exchange descriptions as a buffer)."""
    shape = meta["shape"]
    out = np.zeros(META_WORDS, dtype=np.int64)
    out[0] = OPS.index(meta["op"])
    out[1] = meta["root"]
    out[2] = _REDUCE_NAMES.index(meta["reduce"])
    out[3] = _dtype_code(meta["dtype"])
    out[4] = len(shape)
    out[5] = int(np.prod(shape)) if shape else 1
    dims = shape[:_MAX_DIMS]
    out[6:6 + len(dims)] = dims
    return out


def decode_meta(vec: np.ndarray) -> Dict:
    """The inverse of :func:`encode_meta` (shapes with more than 8 dimensions keep their first 8 and numel)."""
    ndim = int(vec[4])
    shape = [int(s) for s in vec[6:6 + min(ndim, _MAX_DIMS)]]
    if ndim > _MAX_DIMS:
        shape.append(int(vec[5]) // max(1, int(np.prod(shape))))
    code = int(vec[3])
    return {"op": OPS[int(vec[0])], "root": int(vec[1]), "reduce": _REDUCE_NAMES[int(vec[2])],
            "dtype": _DTYPES[code] if 0 <= code < len(_DTYPES) else "", "shape": shape}


_DTYPES = ["", "|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8", "<c8", "<c16",
           ">f4", ">f8"]


def _dtype_code(dtype_str: str) -> int:
    if dtype_str in _DTYPES:
        return _DTYPES.index(dtype_str)
    return len(_DTYPES) + 1  # an unusual dtype: still compared by code equality
