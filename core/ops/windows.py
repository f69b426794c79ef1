"""Window functions for spectral analysis, as PyTorch's ``torch.*_window``: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window`` and ``kaiser_window``.

Each builds a 1-D window of ``window_length`` points (``pin_memory`` is accepted and ignored: there is no pinned
host memory without a GPU). With ``periodic=True`` (the default) it is the symmetric
window of ``window_length + 1`` points without its last one, the form a window takes before a DFT (``stft``); with
``periodic=False`` it is the symmetric window itself. Lengths 0 and 1 give ``[]`` and ``[1.]``.

The values are computed in the requested floating dtype, step by step as PyTorch computes them, so a float32 window
rounds the way PyTorch's does (its last point is not exactly the mirror of its second).
"""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..device import module_for_device
from ._base import wrap
from .gamma import i0

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]

# PyTorch's C++ dtype names, as its TensorOptions print them in the floating-dtype error
_CPP_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _window(fn, window_length, periodic, dtype, layout, device, requires_grad, points):
    """Check the arguments, then build the window from ``points(xp, n, np_dtype)``: the symmetric window of ``n``
    points (``n >= 2``)."""
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{fn}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if layout is not None and str(layout) not in ("ember.strided", "torch.strided", "strided"):
        raise RuntimeError(f"{fn} is not implemented for sparse types, got layout={layout}")
    dtype = dt.get_default_dtype() if dtype is None else dt.to_dtype(dtype)
    if dtype.category < dt.FLOAT:
        grad = "true" if requires_grad else "false (default)"
        raise RuntimeError(f"{fn} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{_CPP_NAMES.get(dtype.name, dtype.name)}, device=cpu, layout=Strided (default), "
                           f"requires_grad={grad}, pinned_memory=false, memory_format=(nullopt))")
    if dtype.category == dt.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtype.scalar_name}'")
    if window_length < 0:
        raise RuntimeError(f"{fn} requires non-negative window_length, got window_length={window_length}")
    xp = np if device is None else module_for_device(device)
    if window_length <= 1:
        data = xp.ones(int(window_length), dtype=dtype.np)
    else:
        n = int(window_length) + 1 if periodic else int(window_length)
        data = points(xp, n, dtype.np)
        if periodic:
            data = data[:-1].copy()
    out = wrap(data)
    if requires_grad:
        out.requires_grad_(True)
    return out


def _cosine_sum(xp, n, np_dtype, alpha, beta):
    """``alpha - beta * cos(2 pi k / (n - 1))``, the generalised Hann window."""
    k = xp.arange(n, dtype=np_dtype)
    return xp.cos(k * (2 * math.pi / (n - 1))) * -beta + alpha


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))`` (``N = window_length + 1`` when ``periodic``): a raised
    cosine that is zero at both ends of the symmetric window."""
    return _window("hann_window", window_length, periodic, dtype, layout, device, requires_grad,
                   lambda xp, n, d: _cosine_sum(xp, n, d, 0.5, 0.5))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, layout=None, device=None,
                   pin_memory=False, requires_grad=False):
    """The Hamming window ``alpha - beta cos(2 pi k / (N - 1))`` (``N = window_length + 1`` when ``periodic``);
    the defaults 0.54 and 0.46 give Hamming's, 0.5 and 0.5 the Hann window."""
    return _window("hamming_window", window_length, periodic, dtype, layout, device, requires_grad,
                   lambda xp, n, d: _cosine_sum(xp, n, d, alpha, beta))


def _blackman(xp, n, np_dtype):
    k = xp.arange(n, dtype=np_dtype) * (math.pi / (n - 1))
    return xp.cos(k * 4) * 0.08 - xp.cos(k * 2) * 0.5 + 0.42


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi k / (N - 1)) + 0.08 cos(4 pi k / (N - 1))`` (``N =
    window_length + 1`` when ``periodic``)."""
    return _window("blackman_window", window_length, periodic, dtype, layout, device, requires_grad, _blackman)


def _bartlett(xp, n, np_dtype):
    k = xp.arange(n, dtype=np_dtype) * (2.0 / (n - 1))
    half = (n - 1) // 2 + 1  # the rising half; the rest mirrors it
    k[half:] = 2 - k[half:]
    return k


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None, pin_memory=False,
                requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2k / (N - 1) - 1|`` (``N = window_length + 1`` when ``periodic``),
    zero at both ends of the symmetric window."""
    return _window("bartlett_window", window_length, periodic, dtype, layout, device, requires_grad, _bartlett)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None, device=None,
                  pin_memory=False, requires_grad=False):
    """The Kaiser window ``i0(beta sqrt(1 - ((k - a) / a) ** 2)) / i0(beta)`` with ``a = (N - 1) / 2`` (``N =
    window_length + 1`` when ``periodic``); a larger ``beta`` narrows it."""
    def points(xp, n, np_dtype):
        # half precision computes in float32 and rounds once, as PyTorch's kernel does
        work = np.float32 if np_dtype == np.float16 else np_dtype
        centre = (n - 1) / 2.0
        k = xp.arange(n, dtype=work)
        arg = xp.sqrt(xp.maximum(1 - ((k - centre) / centre) ** 2, 0)) * beta
        return (i0(wrap(arg)) / i0(wrap(xp.asarray(beta, dtype=work))))._data.astype(np_dtype, copy=False)
    return _window("kaiser_window", window_length, periodic, dtype, layout, device, requires_grad, points)
