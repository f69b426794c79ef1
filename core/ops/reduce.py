"""Reductions: sum, mean, prod, max/min, var/std, logsumexp, cumulative ops (and ``logcumsumexp``), all/any,
norms and counts (``cov``, ``corrcoef`` and the trapezoidal rule are in :mod:`statistics`)."""
from __future__ import annotations

import builtins as _builtins
import math
import numbers
import warnings

import numpy as np

from .. import dtypes as dt, return_types as _rt
from ..autograd.graph import Node
from ._base import GRAD_ENABLED, Tensor, normalize_dim, normalize_dims, record, tensor_method, wrap
from ._elementwise import complex_abs
from ._linalg_table import LINALG
from .clamp_where import where

__all__ = ["sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "var", "std",
           "var_mean", "std_mean", "logsumexp", "logcumsumexp", "cumsum", "cumprod", "norm", "dist", "all", "any",
           "count_nonzero", "nansum", "nanmean", "renorm"]


def _reduced_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


_numel = math.prod  # the element count of a shape (1 for ``()``)


def expand_reduced(grad: Tensor, in_shape, dims, keepdim) -> Tensor:
    """Broadcast a reduction's gradient back to the input's shape."""
    if not grad._requires_grad and (keepdim or len(dims) == len(in_shape) or not dims):
        # the common full reduction without create_graph: one broadcast, no shape bookkeeping
        data = grad._data
        if data.size == _numel(in_shape):
            return wrap(data.reshape(in_shape))  # nothing to broadcast (a one-element input)
        return wrap(grad._xp.broadcast_to(data, in_shape))
    if not keepdim and dims:
        grad = grad.reshape(_reduced_shape(in_shape, dims))
    return grad.expand(in_shape)


class SumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, dims, keepdim = self.in_shape, self.dims, self.keepdim
        return (expand_reduced(grad, in_shape, dims, keepdim),)


class SumBackward1(SumBackward0):
    __slots__ = ()


@tensor_method()
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all dims by default); bool and integer input sums to int64."""
    data = input._data
    axis = _reduction_axis(dim, data.ndim)
    if dtype is not None:
        np_dtype = dt.to_dtype(dtype).np
    elif data.dtype.kind in "biu":
        np_dtype = dt.int64.np
    else:
        np_dtype = None
    out = wrap(data.sum(axis=axis, dtype=np_dtype, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = SumBackward0() if dim is None else SumBackward1()
        dims = tuple(range(data.ndim)) if axis is None else axis  # the node keeps the dims spelled out
        node.in_shape, node.dims, node.keepdim = data.shape, dims, keepdim
        record(node, out, input)
    return out


class MeanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        in_shape, dims, keepdim, count = self.in_shape, self.dims, self.keepdim, self.count
        return (expand_reduced(grad / count, in_shape, dims, keepdim),)


class MeanBackward1(MeanBackward0):
    __slots__ = ()


@tensor_method()
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Arithmetic mean over ``dim`` (all dims by default); needs a floating or complex dtype."""
    data = input._data
    if dtype is not None:
        data = data.astype(dt.to_dtype(dtype).np)
    elif data.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {input.dtype.scalar_name}")
    axis = _reduction_axis(dim, data.ndim)
    out = wrap(data.mean(axis=axis, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        dims = tuple(range(data.ndim)) if axis is None else axis
        count = 1
        for d in dims:
            count *= data.shape[d]
        node = MeanBackward0() if dim is None else MeanBackward1()
        node.in_shape, node.dims, node.keepdim, node.count = data.shape, dims, keepdim, count
        record(node, out, input)
    return out


# ======================================================================================================== helpers
def _reduces_all(dim) -> bool:
    """PyTorch's convention for sum/mean/amax/var...: ``dim`` None, ``()`` or ``[]`` reduces over every dim."""
    return dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0)


def _all_dims(dim, ndim):
    """Normalised reduction dims, every one of them when :func:`_reduces_all`."""
    return tuple(range(ndim)) if _reduces_all(dim) else normalize_dims(dim, ndim)


def _reduction_axis(dim, ndim):
    """The ``axis`` argument for NumPy: None when :func:`_reduces_all` (NumPy reduces every axis faster when told
    so than when given the tuple of all of them), else the normalised tuple of dims."""
    return None if _reduces_all(dim) else normalize_dims(dim, ndim)


def _count(shape, dims) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _keep(t: Tensor, in_shape, dims, keepdim) -> Tensor:
    """View a reduction result with the reduced dims kept as size one (for broadcasting against the input)."""
    return t if keepdim or not dims else t.reshape(_reduced_shape(in_shape, dims))


def _const(arr, dtype) -> Tensor:
    """A constant (non-differentiable) tensor from a boolean array, cast to ``dtype``, for masks in backward rules."""
    return wrap(arr.astype(dtype, copy=False))


max_return, min_return, aminmax_return = _rt.max, _rt.min, _rt.aminmax


def _reverse_cumsum(t: Tensor, d: int) -> Tensor:
    from .shape import flip
    return flip(cumsum(flip(t, d), d), d)


# =================================================================================================== max/min family
class AmaxBackward0(Node):
    """Gradient of an all-values reduction (amax/amin, max()/min()): split evenly between tied extremes."""

    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        in_shape, dims, keepdim = self.in_shape, self.dims, self.keepdim
        xd, od = x._data, out._data
        if not keepdim and dims:
            od = od.reshape(_reduced_shape(in_shape, dims))
        xp = x._xp
        hit = (xd == od) | (xp.isnan(xd) & xp.isnan(od))
        mask = _const(hit, grad._data.dtype)
        count = mask.sum(dims, keepdim=True)
        return (expand_reduced(grad, in_shape, dims, keepdim) * mask / count,)


class AminBackward0(AmaxBackward0):
    __slots__ = ()


class MaxBackward1(AmaxBackward0):
    __slots__ = ()


class MinBackward1(AmaxBackward0):
    __slots__ = ()


def _extreme_all(input, dim, keepdim, is_max, node_cls, fn):
    data = input._data
    if dim is None and data.size == 0:  # max()/min() without dim
        raise RuntimeError(f"{fn}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           f"reduction dim with the 'dim' argument.")
    dims = _all_dims(dim, data.ndim)
    for d in dims:
        if data.shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    xp = input._xp
    out = wrap((xp.max if is_max else xp.min)(data, axis=dims, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = node_cls()
        node.save(input)
        node.save_output(out)
        node.in_shape, node.dims, node.keepdim = data.shape, dims, keepdim
        record(node, out, input)
    return out


class MaxBackward0(Node):
    """Gradient of ``max(dim)``/``min(dim)``: all of it goes to the returned index (as in PyTorch)."""

    __slots__ = ()

    def apply(self, grad):
        in_shape, d, keepdim, indices = self.in_shape, self.d, self.keepdim, self.indices
        return (_value_selecting_backward(grad, d, indices, in_shape, keepdim),)


class MinBackward0(MaxBackward0):
    __slots__ = ()


def _value_selecting_backward(grad, d, indices, in_shape, keepdim):
    from .gather_scatter import _scatter
    if not keepdim and len(in_shape):
        grad = grad.unsqueeze(d)
        indices = indices.unsqueeze(d)
    zeros = wrap(grad._xp.zeros(in_shape, dtype=grad._data.dtype))
    if not len(in_shape):
        return grad.reshape(()) + zeros
    return _scatter(zeros, d, indices, grad, None, copy=False)


def _extreme_dim(input, dim, keepdim, is_max, fn):
    data = input._data
    d = normalize_dim(dim, data.ndim)
    xp = input._xp
    if data.ndim == 0:
        values, idx = data.copy(), xp.zeros((), dtype=np.int64)
    else:
        if data.shape[d] == 0:
            raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
        idx = (xp.argmax if is_max else xp.argmin)(data, axis=d, keepdims=True)
        values = xp.take_along_axis(data, idx, axis=d)
        if not keepdim:
            idx, values = idx.squeeze(d), values.squeeze(d)
    out_v, out_i = wrap(values), wrap(idx.astype(np.int64, copy=False))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = MaxBackward0() if is_max else MinBackward0()
        node.in_shape, node.d, node.keepdim, node.indices = data.shape, d, keepdim, out_i
        record(node, out_v, input)
    return (max_return if is_max else min_return)(out_v, out_i)


def _binary_extreme(name, input, other):
    from . import clamp_where  # looked up by name at call time, so an op observer sees the patched function
    return getattr(clamp_where, name)(input, other)


@tensor_method()
def max(input, dim=None, keepdim=False, *, out=None):
    """The largest element (no ``dim``); the named tuple ``(values, indices)`` of the maxima along ``dim``; or, given
    a tensor ``other`` in place of ``dim``, the elementwise :func:`maximum`.

    Without ``dim`` the gradient is split evenly between tied maxima; with ``dim`` it goes to the returned index.
    """
    if not isinstance(input, Tensor):
        return _builtins.max(input, *(() if dim is None else (dim,)))
    if isinstance(dim, Tensor):
        return _binary_extreme("maximum", input, dim)
    if dim is None:
        return _extreme_all(input, None, False, True, MaxBackward1, "max")
    return _extreme_dim(input, dim, keepdim, True, "max")


@tensor_method()
def min(input, dim=None, keepdim=False, *, out=None):
    """The smallest element (no ``dim``); the named tuple ``(values, indices)`` of the minima along ``dim``; or, given
    a tensor ``other`` in place of ``dim``, the elementwise :func:`minimum`."""
    if not isinstance(input, Tensor):
        return _builtins.min(input, *(() if dim is None else (dim,)))
    if isinstance(dim, Tensor):
        return _binary_extreme("minimum", input, dim)
    if dim is None:
        return _extreme_all(input, None, False, False, MinBackward1, "min")
    return _extreme_dim(input, dim, keepdim, False, "min")


@tensor_method()
def amax(input, dim=(), keepdim=False):
    """The maximum over ``dim`` (an int or tuple; all dims by default). Tied maxima share the gradient evenly."""
    return _extreme_all(input, dim, keepdim, True, AmaxBackward0, "amax")


@tensor_method()
def amin(input, dim=(), keepdim=False):
    """The minimum over ``dim`` (an int or tuple; all dims by default). Tied minima share the gradient evenly."""
    return _extreme_all(input, dim, keepdim, False, AminBackward0, "amin")


@tensor_method()
def aminmax(input, *, dim=None, keepdim=False):
    """The named tuple ``(min, max)`` over ``dim`` (all elements when None)."""
    dims = () if dim is None else normalize_dim(dim, input._data.ndim)
    return aminmax_return(_extreme_all(input, dims, keepdim, False, AminBackward0, "aminmax"),
                          _extreme_all(input, dims, keepdim, True, AmaxBackward0, "aminmax"))


def _arg_extreme(input, dim, keepdim, is_max, fn):
    data = input._data
    xp = input._xp
    pick = xp.argmax if is_max else xp.argmin
    if dim is None:
        if data.size == 0:
            raise RuntimeError(f"{fn}(): Expected reduction dim to be specified for input.numel() == 0.")
        res = pick(data.reshape(-1))
        if keepdim:
            res = xp.asarray(res).reshape((1,) * data.ndim)
        return wrap(xp.asarray(res, dtype=np.int64))
    d = normalize_dim(dim, data.ndim)
    if data.ndim == 0:
        return wrap(xp.zeros((), dtype=np.int64))
    if data.shape[d] == 0:
        raise IndexError(f"{fn}(): Expected reduction dim {d} to have non-zero size.")
    return wrap(pick(data, axis=d, keepdims=keepdim).astype(np.int64, copy=False))


@tensor_method()
def argmax(input, dim=None, keepdim=False):
    """The index of the (first) maximum, over the flattened tensor or along ``dim``."""
    return _arg_extreme(input, dim, keepdim, True, "argmax")


@tensor_method()
def argmin(input, dim=None, keepdim=False):
    """The index of the (first) minimum, over the flattened tensor or along ``dim``."""
    return _arg_extreme(input, dim, keepdim, False, "argmin")


# ============================================================================================================ prod
class ProdBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        in_shape, d, keepdim = self.in_shape, self.d, self.keepdim
        if d is None:  # all elements: treat as a reduction of the flattened tensor along dim 0
            g = _prod_grad(x.reshape(-1), out.reshape(1), grad.reshape(1), 0)
            return (g.reshape(in_shape),)
        if not keepdim and len(in_shape):
            out, grad = out.unsqueeze(d), grad.unsqueeze(d)
        return (_prod_grad(x, out, grad, d),)


class ProdBackward1(ProdBackward0):
    __slots__ = ()


def _exclusive_cumprod(x, d):
    """``out[i] = prod(x[:i])`` along ``d`` (empty products are one)."""
    from .shape import cat, narrow
    n = x._data.shape[d]
    shape = list(x._data.shape)
    shape[d] = 1
    ones = wrap(x._xp.ones(shape, dtype=x._data.dtype))
    if n <= 1:
        return ones.expand(x._data.shape) if n == 1 else narrow(ones, d, 0, 0)
    return cat([ones, cumprod(narrow(x, d, 0, n - 1), d)], d)


def _prod_grad(x, out_keep, grad_keep, d):
    """d prod(x) / dx_i = prod of the others; safe when ``x`` has zeros (and differentiable again)."""
    if not (x._data == 0).any():
        g = grad_keep * out_keep / x
    else:
        from .shape import flip
        others = _exclusive_cumprod(x, d) * flip(_exclusive_cumprod(flip(x, d), d), d)
        g = grad_keep * others
    return g.conj() if x._data.dtype.kind == "c" else g


@tensor_method()
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product of all elements, or along the single dimension ``dim``; bool and integers give int64.

    The gradient is correct when the input holds zeros (it is the product of the other elements).
    """
    data = input._data
    if dtype is not None:
        data = data.astype(dt.to_dtype(dtype).np)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64)
    xp = input._xp
    if dim is None:
        out = wrap(xp.prod(data))
        d = None
    else:
        d = normalize_dim(dim, data.ndim)
        out = wrap(xp.prod(data, axis=d, keepdims=keepdim) if data.ndim else data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = ProdBackward0() if dim is None else ProdBackward1()
        node.save(input if data is input._data else wrap(data))
        node.save_output(out)
        node.in_shape, node.d, node.keepdim = data.shape, d if data.ndim else None, keepdim
        record(node, out, input)
    return out


# ================================================================================================ cumulative ops
class CumsumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        d, dtype = self.d, self.dtype
        g = _reverse_cumsum(grad, d) if grad._data.ndim else grad
        return (g if dtype is None else g.to(dtype),)


def _cum_dtype(data, dtype):
    if dtype is not None:
        return data.astype(dt.to_dtype(dtype).np)
    if data.dtype.kind in "biu":
        return data.astype(np.int64)
    return data


@tensor_method()
def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim``: ``out[i] = input[0] + ... + input[i]``; bool and integers give int64."""
    data = _cum_dtype(input._data, dtype)
    d = normalize_dim(dim, data.ndim)
    out = wrap(input._xp.cumsum(data, axis=d) if data.ndim else data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = CumsumBackward0()
        node.d, node.dtype = d, input.dtype if data.dtype != input._data.dtype else None
        record(node, out, input)
    return out


class CumprodBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        d = self.d
        if not x._data.ndim:
            return (grad,)
        return (_cumprod_grad(x, out, grad, d),)


def _cumprod_grad(x, out, grad, d):
    """Gradient of ``cumprod`` along ``d``, exact when the input holds zeros.

    Before the first zero of a slice, ``sum_{k>=i} g_k out_k / x_i`` (later outputs are zero anyway). At the first
    zero, the products of the other factors, which is the cumulative product with that zero replaced by a constant
    one. After it, every output involving ``x_i`` also involves the first zero, so the gradient is zero.
    """
    xd = x._data
    zero = xd == 0
    if not zero.any():
        g = _reverse_cumsum(grad * out, d) / x
        return g.conj() if xd.dtype.kind == "c" else g
    if GRAD_ENABLED[0]:
        g = _cumprod_grad_quadratic(x, grad, d)
        return g.conj() if xd.dtype.kind == "c" else g
    xp = x._xp
    seen = xp.cumsum(zero, axis=d)
    before = _const(seen == 0, xd.dtype)
    first = _const(zero & (seen == 1), xd.dtype)
    x_safe = x + _const(zero, xd.dtype)
    head = _reverse_cumsum(grad * out, d) / x_safe * before
    x_one = x * (1 - first) + first  # the first zero becomes a constant 1: no gradient flows through it
    at_zero = _reverse_cumsum(grad * cumprod(x_one, d), d) * first
    g = head + at_zero
    return g.conj() if xd.dtype.kind == "c" else g


def _cumprod_grad_quadratic(x, grad, d):
    """The same gradient as a smooth function of ``x`` (for double backward through zeros), in O(n^2) memory.

    ``g_i = prod(x[:i]) * sum_{k>=i} grad_k * prod(x[i+1:k+1])``: the inner products are the cumulative products
    of the rows of a matrix holding ``x_j`` above the diagonal and ones elsewhere.
    """
    from .shape import movedim
    xm = movedim(x, d, -1)
    gm = movedim(grad, d, -1)
    n = xm._data.shape[-1]
    xp = x._xp
    upper = xp.triu(xp.ones((n, n), dtype=bool), 1)  # j > i
    rows = xm.unsqueeze(-2) * _const(upper, x._data.dtype) + _const(~upper, x._data.dtype)
    tail = cumprod(rows, -1) * _const(xp.triu(xp.ones((n, n), dtype=bool)), x._data.dtype)  # keep k >= i
    inner = (tail * gm.unsqueeze(-2)).sum(-1)
    return movedim(_exclusive_cumprod(xm, xm._data.ndim - 1) * inner, -1, d)


@tensor_method()
def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim``: ``out[i] = input[0] * ... * input[i]``; bool and integers give int64.

    The gradient is exact also when the input holds zeros.
    """
    data = _cum_dtype(input._data, dtype)
    d = normalize_dim(dim, data.ndim)
    out = wrap(input._xp.cumprod(data, axis=d) if data.ndim else data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        node = CumprodBackward0()
        node.save(input if data is input._data else wrap(data))
        node.save_output(out)
        node.d = d
        record(node, out, input)
    return out


# ================================================================================================== var and std
def _correction(unbiased, correction, fn):
    if unbiased is not None and correction is not None:
        raise RuntimeError(f"{fn}(): can only specify one of 'unbiased' and 'correction'")
    if correction is not None:
        return correction
    if unbiased is not None:
        return 1 if unbiased else 0
    return 1


def _moments(input, dim, unbiased, keepdim, correction, fn):
    if isinstance(dim, bool):  # the legacy overload var(input, unbiased)
        dim, unbiased = None, dim
    data = input._data
    if data.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    c = _correction(unbiased, correction, fn)
    dims = _all_dims(dim, data.ndim)
    n = _count(data.shape, dims)
    dof = n - c
    if dof <= 0:
        warnings.warn(f"{fn}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      f"factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    xp = input._xp
    axis = None if len(dims) == data.ndim else dims  # NumPy reduces faster over axis=None than over all axes
    with xp.errstate(divide="ignore", invalid="ignore"):
        mean_keep = data.mean(axis=axis, keepdims=True) if n else xp.full(_reduced_shape(data.shape, dims), xp.nan)
        centered = data - mean_keep
        if data.dtype.kind == "c":
            sq = (centered * centered.conj()).real
        else:
            sq = xp.multiply(centered, centered, out=centered)
        var_data = sq.sum(axis=axis, keepdims=keepdim) / _builtins.max(dof, 0)
        mean_data = mean_keep if keepdim else mean_keep.reshape(tuple(s for i, s in enumerate(data.shape)
                                                                      if i not in dims))
    return data, dims, c, dof, var_data, mean_data


class VarBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        in_shape, dims, keepdim, dof = self.in_shape, self.dims, self.keepdim, self.dof
        return (_var_grad(x, expand_reduced(grad, in_shape, dims, keepdim), dims, dof),)


def _var_grad(x, g_full, dims, dof):
    centered = x - x.mean(dims, keepdim=True)
    return g_full * centered * (2.0 / dof if dof > 0 else float("inf"))


class StdBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        in_shape, dims, keepdim, dof = self.in_shape, self.dims, self.keepdim, self.dof
        # d std = d var / (2 std); PyTorch masks the std == 0 case to a zero gradient
        zero = _const(out._data == 0, out._data.dtype)
        scaled = grad / (2 * (out + zero)) * (1 - zero)
        return (_var_grad(x, expand_reduced(scaled, in_shape, dims, keepdim), dims, dof),)


def _var_or_std(input, dim, unbiased, keepdim, correction, is_std, fn):
    data, dims, c, dof, var_data, mean_data = _moments(input, dim, unbiased, keepdim, correction, fn)
    out = wrap(input._xp.sqrt(var_data) if is_std else var_data)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = StdBackward0() if is_std else VarBackward0()
        node.save(input)
        if is_std:
            node.save_output(out)
        node.in_shape, node.dims, node.keepdim, node.dof = data.shape, dims, keepdim, dof
        record(node, out, input)
    return out, mean_data


@tensor_method()
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The variance over ``dim`` (all dims by default): ``sum((x - mean)^2) / (N - correction)``.

    ``correction`` defaults to 1 (Bessel's correction); ``unbiased=False`` is the same as ``correction=0``.
    """
    return _var_or_std(input, dim, unbiased, keepdim, correction, False, "var")[0]


@tensor_method()
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The standard deviation over ``dim``: the square root of :func:`var` (same arguments)."""
    return _var_or_std(input, dim, unbiased, keepdim, correction, True, "std")[0]


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The tuple ``(var, mean)`` over ``dim``, as :func:`var` and :func:`mean` would give."""
    if isinstance(dim, bool):  # the legacy overload var_mean(input, unbiased)
        dim, unbiased = None, dim
    return var(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """The tuple ``(std, mean)`` over ``dim``, as :func:`std` and :func:`mean` would give."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return std(input, dim, unbiased, keepdim, correction=correction), mean(input, dim, keepdim)


# ======================================================================================================= logsumexp
class LogsumexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        in_shape, dims, keepdim = self.in_shape, self.dims, self.keepdim
        from .math import exp
        softmax = exp(x - _keep(out, in_shape, dims, keepdim))
        return (expand_reduced(grad, in_shape, dims, keepdim) * softmax,)


@tensor_method()
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(input)))`` over ``dim``, computed stably (the maximum is factored out first)."""
    data = input._data
    xp = input._xp
    if data.dtype.kind not in "fc":
        data = data.astype(dt.get_default_dtype().np)
    dims = _all_dims(dim, data.ndim)
    if data.size == 0:
        res = xp.log(xp.sum(xp.exp(data), axis=dims, keepdims=keepdim))
    else:
        m = xp.max(data, axis=dims, keepdims=True) if dims else data
        m = xp.where(xp.isfinite(m), m, 0)  # all -inf (or an inf) must not give inf - inf
        with xp.errstate(divide="ignore"):
            res = xp.log(xp.sum(xp.exp(data - m), axis=dims, keepdims=True)) + m
        if not keepdim and dims:
            res = res.reshape(tuple(s for i, s in enumerate(data.shape) if i not in dims))
    out = wrap(res)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LogsumexpBackward0()
        node.save(input)
        node.save_output(out)
        node.in_shape, node.dims, node.keepdim = data.shape, dims, keepdim
        record(node, out, input)
    return out


# ================================================================================================== logcumsumexp
class LogcumsumexpBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        if not x._data.ndim:
            return (grad,)
        return (_logcumsumexp_grad(x, out, grad, self.d),)


def _logcumsumexp_grad(x, out, grad, d):
    """``grad_x[i] = sum_{j >= i} grad[j] * exp(x[i] - out[j])``.

    For real input the sum is formed in log space, as a reversed ``logcumsumexp``, so nothing overflows; a log needs
    positive terms, so the positive and negative parts of ``grad`` go separately (a zero part is the lowest finite
    number rather than -inf, as in PyTorch, which gives its NaN where ``x[i]`` and ``out[i]`` are both -inf). A
    complex input uses the direct sum (a complex log-sum has no sign to split).
    """
    from .math import exp, log
    from .shape import flip
    from .clamp_where import where
    if x._data.dtype.kind == "c":
        return _reverse_cumsum(grad * exp(-out).conj(), d) * exp(x).conj()
    lowest = float(np.finfo(x._data.dtype).min)
    with np.errstate(divide="ignore", over="ignore"):
        log_abs = log(grad.abs())
        pos = where(grad > 0, log_abs, lowest) - out
        neg = where(grad < 0, log_abs, lowest) - out

    def reverse_lcse(t):
        return flip(logcumsumexp(flip(t, d), d), d)

    with np.errstate(over="ignore", invalid="ignore"):  # lowest - (-inf) and inf - inf are the intended values
        return exp(reverse_lcse(pos) + x) - exp(reverse_lcse(neg) + x)


def _complex_logcumsumexp(xp, data, d):
    """``log(cumsum(exp(z)))`` of complex ``z`` along ``d``, one step at a time: each step adds the next term with
    the larger real part factored out (NumPy's ``logaddexp`` is real only)."""
    z = xp.moveaxis(data, d, 0)
    out = xp.empty_like(z)
    acc = z[0]
    out[0] = acc
    with np.errstate(all="ignore"):
        for i in range(1, z.shape[0]):
            a, b = acc, z[i]
            big = a.real >= b.real
            hi, lo = xp.where(big, a, b), xp.where(big, b, a)
            step = hi + xp.log1p(xp.exp(lo - hi))
            acc = xp.where(xp.isneginf(hi.real), lo, step)  # both terms zero: nothing to factor out
            out[i] = acc
    return xp.moveaxis(out, 0, d)


@tensor_method()
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (each step adds the next term with the larger of
    the two factored out): ``-inf`` entries contribute nothing, ``+inf`` makes the rest ``+inf``, NaN propagates."""
    data = input._data
    if data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.scalar_name}'")
    d = normalize_dim(dim, data.ndim)
    xp = input._xp
    if data.ndim == 0 or data.size == 0:
        res = data.copy()
    elif data.dtype.kind == "c":
        res = _complex_logcumsumexp(xp, data, d)
    else:
        with np.errstate(invalid="ignore"):  # inf + inf: PyTorch gives inf silently
            if data.dtype == np.float16:  # accumulate in float32, as PyTorch does for half, then round once
                res = xp.logaddexp.accumulate(data.astype(np.float32), axis=d).astype(np.float16)
            else:
                res = xp.logaddexp.accumulate(data, axis=d)
    out = wrap(res)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = LogcumsumexpBackward0()
        node.save(input)
        node.save_output(out)
        node.d = d
        record(node, out, input)
    return out


# ============================================================================================================ norm
class NormBackward1(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        out = self.saved_output()
        in_shape, dims, keepdim, p = self.in_shape, self.dims, self.keepdim, self.p
        g = expand_reduced(grad, in_shape, dims, keepdim)
        norm = _keep(out, in_shape, dims, keepdim)
        zero = _const(norm._data == 0, norm._data.dtype)
        if p == 0:
            return (g * 0,)
        if p == 2:
            # x / ||x||, with the subgradient 0 where the norm is 0 (then x is 0 there too)
            return (x * (g / (norm + zero)),)
        from .arithmetic import abs as abs_
        from .math import sign
        ax = abs_(x)
        ax_safe = ax + _const(ax._data == 0, ax._data.dtype)
        scale = g / (norm + zero) ** (p - 1) * (1 - zero)
        return (sign(x) * ax_safe ** (p - 1) * scale,)


def _vector_norm(input, p, dims, keepdim):
    from .arithmetic import abs as abs_
    data = input._data
    xp = input._xp
    if p == float("inf"):
        return amax(abs_(input), dims, keepdim)
    if p == -float("inf"):
        return amin(abs_(input), dims, keepdim)
    if p == 1:
        return sum(abs_(input), dims, keepdim)
    a = data if data.dtype.kind != "c" and p in (0, 2) else complex_abs(xp, data)  # no |x| to square a real
    if p == 0:
        res = (a != 0).sum(axis=dims, keepdims=keepdim).astype(xp.abs(data[:0]).dtype)
    elif p == 2:
        axis = None if len(dims) == data.ndim else dims
        res = xp.sqrt((a * a).sum(axis=axis, keepdims=keepdim))
    else:
        with xp.errstate(divide="ignore", over="ignore"):
            res = ((a ** p).sum(axis=dims, keepdims=keepdim)) ** (1.0 / p)
    out = wrap(res)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = NormBackward1()
        node.save(input)
        node.save_output(out)
        node.in_shape, node.dims, node.keepdim, node.p = data.shape, dims, keepdim, p
        record(node, out, input)
    return out


@tensor_method()
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """The vector p-norm over ``dim`` (all elements by default): ``sum(|x|^p)^(1/p)``.

    ``p`` is a number, ``inf``/``-inf`` (max/min absolute value), ``0`` (count of non-zeros) or ``'fro'`` (the
    2-norm); ``'nuc'`` is the nuclear norm of a matrix. At zero the 2-norm's gradient is the subgradient 0.
    """
    if dtype is not None:
        input = input.to(dtype)
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{input.dtype.scalar_name}")
    if isinstance(p, str):
        if p == "fro":
            p = 2
        elif p == "nuc":
            d = (-2, -1) if dim is None else dim
            return LINALG.matrix_norm(input, "nuc", d, keepdim)
        else:
            raise RuntimeError(f"norm(): unknown norm type p={p!r}; expected a number, inf, -inf, 'fro' or 'nuc'")
    elif not isinstance(p, numbers.Real):
        raise TypeError(f"norm(): argument 'p' must be a number or a string, not {type(p).__name__}")
    dims = _all_dims(dim, input._data.ndim)
    return _vector_norm(input, float(p), dims, keepdim)


@tensor_method()
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast), as one number: ``norm(input - other, p)``."""
    if not isinstance(other, Tensor):
        raise TypeError(f"dist(): argument 'other' must be Tensor, not {type(other).__name__}")
    if isinstance(p, str) or not isinstance(p, numbers.Real):
        raise TypeError(f"dist(): argument 'p' must be a number, not {type(p).__name__}")
    return norm(input - other, p)


@tensor_method()
def renorm(input, p, dim, maxnorm):
    """Each sub-tensor along ``dim`` (``input.select(dim, i)``) whose ``p``-norm exceeds ``maxnorm``, rescaled to
    norm ``maxnorm`` (PyTorch's ``maxnorm / (norm + 1e-7)``); the others unchanged. Differentiable."""
    if not isinstance(input, Tensor):
        raise TypeError(f"renorm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = normalize_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != d)
    size = norm(input, p, others, keepdim=True)
    return input * where(size > maxnorm, maxnorm / (size + 1e-7), 1.0)


# ======================================================================================================= logical
def _logical_reduce(input, dim, keepdim, is_all):
    data = input._data
    xp = input._xp
    dims = _all_dims(dim, data.ndim)
    res = (xp.all if is_all else xp.any)(data, axis=dims, keepdims=keepdim)
    return wrap(xp.asarray(res).astype(np.uint8) if data.dtype == np.uint8 else xp.asarray(res))


# ``from ember import *`` shadows the builtins all/any/max/min (as ``from torch import *`` does); for anything but a
# tensor these fall back to the builtin, so code written against the builtins keeps working.
@tensor_method()
def all(input, dim=None, keepdim=False):
    """True if every element (over ``dim``, or all of them) is non-zero; uint8 input gives uint8 as in PyTorch."""
    if not isinstance(input, Tensor):
        return _builtins.all(input)
    return _logical_reduce(input, dim, keepdim, True)


@tensor_method()
def any(input, dim=None, keepdim=False):
    """True if some element (over ``dim``, or any of them) is non-zero; uint8 input gives uint8 as in PyTorch."""
    if not isinstance(input, Tensor):
        return _builtins.any(input)
    return _logical_reduce(input, dim, keepdim, False)


@tensor_method()
def count_nonzero(input, dim=None):
    """The number of non-zero elements over ``dim`` (an int or tuple; all by default), as int64."""
    data = input._data
    dims = _all_dims(dim, data.ndim)
    return wrap(input._xp.asarray((data != 0).sum(axis=dims), dtype=np.int64))


# ======================================================================================================== nan-aware
class NansumBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        in_shape, dims, keepdim, count = self.in_shape, self.dims, self.keepdim, self.count
        from .gather_scatter import masked_fill
        g = expand_reduced(grad if count is None else grad / count, in_shape, dims, keepdim)
        return (masked_fill(g, wrap(x._xp.isnan(x._data)), 0),)


class NanmeanBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        (x,) = self.saved_tensors
        in_shape, dims, keepdim = self.in_shape, self.dims, self.keepdim
        from .gather_scatter import masked_fill
        nan = x._xp.isnan(x._data)
        count = wrap((~nan).sum(axis=dims, keepdims=True).astype(grad._data.dtype))
        g = expand_reduced(grad, in_shape, dims, keepdim) / count
        return (masked_fill(g, wrap(nan), 0),)


@tensor_method()
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum over ``dim`` treating NaN as zero."""
    data = input._data
    if dtype is not None:
        data = data.astype(dt.to_dtype(dtype).np)
    elif data.dtype.kind in "biu":
        data = data.astype(np.int64)
    dims = _all_dims(dim, data.ndim)
    out = wrap(input._xp.nansum(data, axis=dims, keepdims=keepdim))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = NansumBackward0()
        node.save(input)
        node.in_shape, node.dims, node.keepdim, node.count = data.shape, dims, keepdim, None
        record(node, out, input)
    return out


@tensor_method()
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean over ``dim`` of the non-NaN elements (NaN where all are NaN)."""
    data = input._data
    if dtype is not None:
        data = data.astype(dt.to_dtype(dtype).np)
    elif data.dtype.kind not in "fc":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.scalar_name}")
    xp = input._xp
    dims = _all_dims(dim, data.ndim)
    nan = xp.isnan(data)
    with xp.errstate(invalid="ignore", divide="ignore"):
        res = xp.where(nan, 0, data).sum(axis=dims, keepdims=keepdim) / (~nan).sum(axis=dims, keepdims=keepdim)
    out = wrap(xp.asarray(res, dtype=data.dtype))
    if GRAD_ENABLED[0] and input._requires_grad:
        node = NanmeanBackward0()
        node.save(input)
        node.in_shape, node.dims, node.keepdim = data.shape, dims, keepdim
        record(node, out, input)
    return out
