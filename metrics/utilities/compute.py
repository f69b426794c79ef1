"""Array-level arithmetic shared by the metric kernels: safe division, probability transforms, areas under curves.

Kernels take and return arrays of one array module (``xp``: NumPy on the CPU, CuPy on ``"cuda"``) and never call
``numpy`` on data: they ask :func:`array_module` for the module that owns their inputs, so a CuPy backend needs no
change here. ``numpy`` itself is only used for dtype constants and shape arithmetic.
"""
from __future__ import annotations

import importlib
import warnings

import numpy as np

__all__ = ["array_module", "module_for_device", "safe_divide", "sigmoid", "softmax", "is_probability", "trapezoid",
           "float_dtype"]

# the module, not ``ember.core.device`` (that attribute is the ``device`` class): looked up at call time below so a
# backend, or a test, that replaces ``array_module`` there is seen by every metric kernel
_device = importlib.import_module("ember.core.device")
_NDARRAY = np.ndarray
_HOST_SCALARS = (np.generic, int, float, complex)  # with NumPy arrays: host data, computed on with NumPy


def array_module(*arrays):
    """The array module (``numpy``, or ``cupy`` for data on ``"cuda"``) that owns ``arrays``: compute with it."""
    for a in arrays:
        if type(a) is not _NDARRAY and not isinstance(a, _HOST_SCALARS):
            return _device.array_module(*arrays)  # e.g. a GPU array: the device registry knows its module
    return np  # the per-batch fast path: NumPy arrays and host scalars are NumPy's, no lookup needed


def module_for_device(device):
    """The array module of ``device`` (``numpy`` for ``"cpu"``): where a metric creates arrays for its states."""
    if getattr(device, "type", None) == "cpu":
        return np
    return _device.module_for_device(device)


def float_dtype(*arrays):
    """The floating dtype results are computed in: float64 if any input is float64, else float32."""
    for a in arrays:
        if a.dtype == np.float64:
            return np.float64
    return np.float32


def safe_divide(num, denom, zero_division: float = 0.0, xp=None):
    """``num / denom`` elementwise, with ``zero_division`` wherever ``denom`` is 0 (never a warning or a NaN).

    ``xp`` is the array module to compute with; by default the one that owns ``num`` and ``denom``.
    """
    if xp is None:
        xp = array_module(num, denom)
    num = xp.asarray(num)
    denom = xp.asarray(denom)
    dtype = np.float64 if (num.dtype == np.float64 or denom.dtype == np.float64) else np.float32
    # divide by a safe denominator and select, rather than ``divide(..., where=)``: CuPy's ufuncs take no ``where``
    nonzero = denom != 0
    quotient = (num / xp.where(nonzero, denom, 1)).astype(dtype, copy=False)
    return xp.where(nonzero, quotient, xp.asarray(zero_division, dtype=dtype))


def sigmoid(x, xp=None):
    """Numerically stable logistic function."""
    if xp is None:
        xp = array_module(x)
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def softmax(x, axis: int, xp=None):
    """Softmax along ``axis``."""
    if xp is None:
        xp = array_module(x)
    z = x - x.max(axis=axis, keepdims=True)
    e = xp.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def is_probability(x) -> bool:
    """True when every value of ``x`` lies in [0, 1] (NaN counts as outside)."""
    if x.size == 0:
        return True
    return bool(x.min() >= 0) and bool(x.max() <= 1)


def trapezoid(y, x, axis: int = -1, xp=None):
    """Area under ``y(x)`` by the trapezoidal rule along ``axis``."""
    if xp is None:
        xp = array_module(y, x)
    dx = xp.diff(x, axis=axis)
    head = [slice(None)] * y.ndim
    tail = list(head)
    head[axis], tail[axis] = slice(None, -1), slice(1, None)
    return (dx * (y[tuple(head)] + y[tuple(tail)]) / 2).sum(axis=axis)


def average_class_scores(res, average="macro", weights=None):
    """Average per-class scores (AUROC, average precision) as float32: ``None``/``"none"`` keeps them, ``"macro"``
    is the mean and ``"weighted"`` the ``weights``-weighted mean; NaN classes are skipped with one warning."""
    res = res.astype(np.float32)
    if average is None or average == "none":
        return res
    xp = array_module(res)
    nan = xp.isnan(res)
    if nan.any():
        warnings.warn(f"Average precision score for one or more classes was `nan`. Ignoring these classes in "
                      f"{average}-average", UserWarning, stacklevel=4)
    keep = ~nan
    if average == "macro":
        return res[keep].mean() if keep.any() else xp.asarray(np.nan, dtype=np.float32)
    w = safe_divide(weights[keep], weights[keep].sum())
    return (res[keep] * w).sum().astype(np.float32)
