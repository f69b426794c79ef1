"""Statistics of samples: ``cov`` and ``corrcoef`` (observations in columns, PyTorch's ``correction``,
``fweights`` and ``aweights``) and the trapezoidal rule (``trapezoid``/``trapz``, ``cumulative_trapezoid``), as
compositions of differentiable reductions."""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import dtypes as dt
from ._base import Tensor, normalize_dim, tensor_method, wrap
from .reduce import cumsum

__all__ = ["cov", "corrcoef", "trapezoid", "trapz", "cumulative_trapezoid"]


# ============================================================================================= cov and corrcoef
def _check_weights(w, name, n_obs, integral):
    if not isinstance(w, Tensor):
        raise TypeError(f"cov(): argument '{name}' must be Tensor, not {type(w).__name__}")
    if w._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w._data.ndim} dimensions")
    kind = w._data.dtype.kind
    if integral and kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{w.dtype.scalar_name} dtype")
    if not integral and kind != "f":
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{w.dtype.scalar_name} dtype")
    if w._data.size != n_obs:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input "
                           f"but got {w._data.size} != {n_obs}")
    if bool((w._data < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


@tensor_method()
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (a 1-D input is one variable), with the
    observations in the columns.

    ``correction`` is subtracted from the number of observations (1: the unbiased estimate, 0: the maximum
    likelihood one). ``fweights`` (integers) repeat observations and ``aweights`` (floats) weight them. A 1-variable
    result is 0-dim. Differentiable, also w.r.t. ``aweights``.
    """
    data = input._data
    if data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{data.ndim} dimensions")
    if data.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input")
    if isinstance(correction, bool) or not isinstance(correction, (int, np.integer)):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    x = input if data.ndim == 2 else input.reshape(1, -1)
    n_obs = x._data.shape[1]
    if fweights is not None:
        _check_weights(fweights, "fweights", n_obs, True)
    if aweights is not None:
        _check_weights(aweights, "aweights", n_obs, False)
    rt = dt.result_type(*[t for t in (input, aweights) if t is not None])
    if rt.category < dt.FLOAT:
        rt = dt.get_default_dtype()
    x = x.to(rt)
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = n_obs
        avg = x.mean(1)
    else:
        w_sum = w.sum()
        if float(w_sum) == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
    if w is not None and correction != 0 and aweights is not None:
        norm = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm = w_sum - correction
    if float(norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0  # PyTorch divides by zero then: inf, or nan for a zero covariance
    xm = x - avg.unsqueeze(1)
    right = xm if w is None else xm * w
    c = xm.matmul(right.mT.conj() if right._data.dtype.kind == "c" else right.mT)
    return (c / norm).squeeze()


@tensor_method()
def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input`` (observations in the
    columns): ``cov(input)`` normalised by the standard deviations, clipped to [-1, 1] (real and imaginary parts
    separately for complex input)."""
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if c._data.ndim == 0:
        return c / c
    from .complex import complex as make_complex
    from .diagonals import diagonal
    d = diagonal(c)
    std = (d.real if d._data.dtype.kind == "c" else d).sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    if c._data.dtype.kind == "c":
        return make_complex(c.real.clamp(-1, 1), c.imag.clamp(-1, 1))
    return c.clamp(-1, 1)


# ============================================================================================ trapezoidal rule
def _trapezoid_args(fn, y, x, dx, dim):
    """Check the overloads ``(y, x, *, dim)`` and ``(y, *, dx, dim)``; returns the normalised ``dim``."""
    if not isinstance(y, Tensor) or (x is not None and (not isinstance(x, Tensor) or dx is not None)):
        got = ", ".join([type(a).__name__ for a in (y, x) if a is not None] +
                        ([f"dx={type(dx).__name__}"] if dx is not None else []))
        raise TypeError(f"{fn}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f" * (Tensor y, Tensor x, *, int dim = -1)\n * (Tensor y, *, Number dx = 1, int dim = -1)\n")
    if y._data.ndim == 0:
        if fn == "cumulative_trapezoid":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return normalize_dim(dim, y._data.ndim)


def _check_bool(fn, y, x):
    if y._data.dtype.kind == "b" or (x is not None and x._data.dtype.kind == "b"):
        raise RuntimeError(f"{fn}: received a bool input for `{'y' if x is None else 'x` or `y'}`, but bool is "
                           f"not supported")


def _check_dx(fn, dx):
    if isinstance(dx, Tensor):
        dx = dx.item()
    if isinstance(dx, (bool, complex)) or not isinstance(dx, numbers.Real):
        raise RuntimeError(f"{fn}: Currently, we only support dx as a real number.")
    return dx


def _spacing(fn, y, x, d):
    """The widths between sample points, shaped to broadcast against ``y``'s pairs of neighbours along ``d``."""
    n = y._data.shape[d]
    if x._data.ndim == 1:
        if x._data.shape[0] != n:
            raise RuntimeError(f"{fn}: There must be one `x` value for each sample point")
        widths = x[1:] - x[:-1]
        return widths.reshape([-1 if i == d else 1 for i in range(y._data.ndim)])
    hi, lo = _neighbours(x, normalize_dim(d, x._data.ndim))
    return hi - lo


def _neighbours(t, d):
    """``t[1:]`` and ``t[:-1]`` along ``d`` (empty for an empty dim)."""
    lead = (slice(None),) * d
    return t[lead + (slice(1, None),)], t[lead + (slice(None, -1),)]


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of ``y`` along ``dim`` by the trapezoidal rule: with sample points ``x`` (1-D, one per sample,
    or broadcasting against ``y``), or with a constant spacing ``dx`` (1 by default)."""
    d = _trapezoid_args("trapezoid", y, x, dx, dim)
    if y._data.shape[d] == 0:  # an empty integral is zero, whatever x is
        shape = y._data.shape[:d] + y._data.shape[d + 1:]
        return wrap(y._xp.zeros(shape, dtype=y._data.dtype))
    _check_bool("trapezoid", y, x)
    if x is not None:
        hi, lo = _neighbours(y, d)
        return ((hi + lo) * _spacing("trapezoid", y, x, d)).sum(d) / 2
    dx = _check_dx("trapezoid", 1 if dx is None else dx)
    # sum of (y[i] + y[i+1]) / 2 is the whole sum less half of each end
    return (y.sum(d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


def trapz(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim`` (the older name of :func:`trapezoid`, with the same overloads)."""
    _trapezoid_args("trapz", y, x, dx, dim)  # a wrong overload is reported under this name
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral of ``y`` along ``dim`` by the trapezoidal rule (one element fewer than ``y`` along
    ``dim``), with sample points ``x`` or a constant spacing ``dx`` (1 by default)."""
    d = _trapezoid_args("cumulative_trapezoid", y, x, dx, dim)
    _check_bool("cumulative_trapezoid", y, x)
    if x is not None:
        widths = _spacing("cumulative_trapezoid", y, x, d)
        hi, lo = _neighbours(y, d)
        return cumsum((hi + lo) * widths, d) / 2
    dx = _check_dx("cumulative_trapezoid", 1 if dx is None else dx)
    hi, lo = _neighbours(y, d)
    return cumsum(hi + lo, d) * (dx / 2)
