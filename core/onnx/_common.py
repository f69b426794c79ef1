"""Small helpers shared by the mapping families: result dtypes, PyTorch's promotion, axes and size arguments."""
from __future__ import annotations

import numpy as np

from .. import dtypes as _dt

__all__ = ["result_np_dtype", "promoted", "axis", "axes", "as_list"]


def result_np_dtype(call, index: int = 0) -> np.dtype:
    """NumPy dtype of the call's (``index``-th) tensor result."""
    from ._convert import flatten_result
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
