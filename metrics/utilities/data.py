"""State reductions (the ``dist_reduce_fx`` functions) and small data helpers.

A metric state is either a tensor or a list of tensors. After an all-gather, a tensor state arrives as a tensor
stacked over ranks (dim 0) and a list state as the concatenation of every rank's list; the ``dim_zero_*``
functions fold that leading rank dimension away.
"""
from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor

__all__ = ["dim_zero_cat", "dim_zero_sum", "dim_zero_mean", "dim_zero_max", "dim_zero_min", "apply_to_collection",
           "to_array", "wrap"]

wrap = Tensor._make


def _as_list(x):
    return x if isinstance(x, (list, tuple)) else [x]


def dim_zero_cat(x):
    """Concatenate a tensor or a list of tensors along dim 0.

    Zero-dimensional tensors count as one-element rows. Empty tensors are skipped (a rank that saw no data sends
    an empty tensor whose trailing shape need not match), unless everything is empty.
    """
    if isinstance(x, Tensor):
        return x
    items = [t if t.ndim > 0 else t.reshape(1) for t in x]
    if not items:
        raise ValueError("No samples to concatenate")
    nonempty = [t for t in items if t.numel() > 0]
    if not nonempty:
        return items[0]
    if len(nonempty) == 1:
        return nonempty[0]
    xp = nonempty[0]._xp
    out = wrap(xp.concatenate([t._data for t in nonempty], axis=0))
    if any(t._requires_grad for t in nonempty):
        from ...core import cat
        out = cat(nonempty, dim=0)
    return out


def _stacked(x):
    if isinstance(x, Tensor):
        return x
    from ...core import stack
    return stack(list(x), dim=0)


def dim_zero_sum(x):
    """Sum over dim 0 (the ``"sum"`` reduction)."""
    return _stacked(x).sum(0)


def dim_zero_mean(x):
    """Mean over dim 0 (the ``"mean"`` reduction); integer states are averaged in floating point."""
    x = _stacked(x)
    if not x.is_floating_point():
        x = x.float()
    return x.mean(0)


def dim_zero_max(x):
    """Elementwise maximum over dim 0 (the ``"max"`` reduction)."""
    from ...core import amax
    return amax(_stacked(x), 0)


def dim_zero_min(x):
    """Elementwise minimum over dim 0 (the ``"min"`` reduction)."""
    from ...core import amin
    return amin(_stacked(x), 0)


def apply_to_collection(data, dtype, function, *args, **kwargs):
    """Apply ``function`` to every element of type ``dtype`` in a nested dict/list/tuple, keeping the structure."""
    if isinstance(data, dtype):
        return function(data, *args, **kwargs)
    if isinstance(data, dict):
        return type(data)((k, apply_to_collection(v, dtype, function, *args, **kwargs)) for k, v in data.items())
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(apply_to_collection(v, dtype, function, *args, **kwargs) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(apply_to_collection(v, dtype, function, *args, **kwargs) for v in data)
    return data


def to_array(x, name: str = "input"):
    """The array behind ``x``: a Tensor's data, a NumPy array as is, a number or nested list converted."""
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (bool, int, float, list, tuple, np.generic)):
        from ...core import tensor
        return tensor(x)._data
    if type(x).__module__.startswith("cupy"):
        return x
    raise TypeError(f"Expected `{name}` to be an ember Tensor, but got {type(x).__name__}")


def _flatten(nested):
    """Flatten one level of a list of lists."""
    return [item for sub in nested for item in sub]
