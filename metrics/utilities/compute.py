"""Array-level arithmetic shared by the metric kernels: safe division, probability transforms, areas under curves.

Kernels take and return arrays of one array module (``xp``: NumPy on the CPU), so a CuPy backend needs no change
here.
"""
from __future__ import annotations

import numpy as np

__all__ = ["safe_divide", "sigmoid", "softmax", "is_probability", "trapezoid", "float_dtype"]


def float_dtype(*arrays):
    """The floating dtype results are computed in: float64 if any input is float64, else float32."""
    for a in arrays:
        if a.dtype == np.float64:
            return np.float64
    return np.float32


def safe_divide(num, denom, zero_division: float = 0.0, xp=np):
    """``num / denom`` elementwise, with ``zero_division`` wherever ``denom`` is 0 (never a warning or a NaN)."""
    num = xp.asarray(num)
    denom = xp.asarray(denom)
    dtype = np.float64 if (num.dtype == np.float64 or denom.dtype == np.float64) else np.float32
    out = xp.full(np.broadcast_shapes(num.shape, denom.shape), zero_division, dtype=dtype)
    xp.divide(num, denom, out=out, where=denom != 0, casting="unsafe")
    return out


def sigmoid(x, xp=np):
    """Numerically stable logistic function."""
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def softmax(x, axis: int, xp=np):
    """Softmax along ``axis``."""
    z = x - x.max(axis=axis, keepdims=True)
    e = xp.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def is_probability(x) -> bool:
    """True when every value of ``x`` lies in [0, 1] (NaN counts as outside)."""
    if x.size == 0:
        return True
    return bool(x.min() >= 0) and bool(x.max() <= 1)


def trapezoid(y, x, axis: int = -1, xp=np):
    """Area under ``y(x)`` by the trapezoidal rule along ``axis``."""
    dx = xp.diff(x, axis=axis)
    y0 = xp.take(y, xp.arange(0, y.shape[axis] - 1), axis=axis)
    y1 = xp.take(y, xp.arange(1, y.shape[axis]), axis=axis)
    return (dx * (y0 + y1) / 2).sum(axis=axis)
