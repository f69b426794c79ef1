"""Small helpers shared by the mapping families: result dtypes, PyTorch's promotion, axes and size arguments."""
from __future__ import annotations

import numpy as np

import numbers

from .. import dtypes as _dt
from ..tensor import Tensor

__all__ = ["result_np_dtype", "promoted", "axis", "axes", "as_list", "flatten_result", "tensors_in", "numbers_in"]


def result_np_dtype(call, index: int = 0) -> np.dtype:
    """NumPy dtype of the call's (``index``-th) tensor result."""
    return flatten_result(call.result)[index]._data.dtype


def promoted(*values) -> np.dtype:
    """NumPy dtype PyTorch's promotion gives ``values`` (tensors and Python scalars) in a binary op."""
    return _dt.result_type(*values).np


def axis(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative axis of a rank-``ndim`` tensor."""
    return dim + ndim if dim < 0 else dim


def axes(dims, ndim: int):
    """``dims`` (an int, a sequence, or None/() for all) as sorted non-negative axes; None means every axis."""
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return None
    if isinstance(dims, int):
        dims = [dims]
    return sorted(axis(int(d), ndim) for d in dims)


def as_list(sizes) -> list:
    """``f(2, 3)``-or-``f((2, 3))`` varargs as one list of ints."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    return [int(s) for s in sizes]


def tensors_in(value):
    """Every tensor inside ``value`` (nested tuples, lists and dicts)."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors_in(v)


def flatten_result(value):
    """The tensors of a result (tensor, tuple/list of results, or None) in order; None entries kept.

    Also flattens a mapping's returned names the same way (a ``str`` is one leaf).
    """
    if isinstance(value, (Tensor, str)) or value is None:
        return [value]
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(flatten_result(v))
        return out
    return [None]


def numbers_in(value):
    """Every number (sizes, indices, slice bounds) inside ``value``, tensors skipped, in order."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        yield value
    elif isinstance(value, slice):
        yield from numbers_in((value.start, value.stop, value.step))
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from numbers_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from numbers_in(v)
