"""Shared plumbing of the elementwise math ops: argument checks, dtype rules and the unary-op builder.

Every op family (``exp_log``, ``trig``, ``rounding``, ``clamp_where``, ``special``) builds on these helpers:

* floating functions given an integer or bool tensor compute in the default float dtype (:func:`_floating_data`,
  :func:`_binary_floating`);
* for complex inputs a holomorphic ``f`` back-propagates ``grad * conj(f'(z))`` (PyTorch's convention, :func:`_conj`);
* :func:`_unary` turns an array kernel and a backward node into a function and a Tensor method.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as dt
from ._base import GRAD_ENABLED, Tensor, binary_arrays, record, tensor_method, wrap


# NumPy's floating-point warnings ("overflow encountered in exp") off for one kernel call: PyTorch returns inf and
# nan silently, and a warning turned into an error (``-W error``, pytest's ``filterwarnings = error``) would make
# ember fail where PyTorch passes. NumPy 2 keeps its error state in a context variable, which sets and resets in
# ~0.35 us; ``np.errstate`` costs ~3 us a call, which a small tensor's exp notices (NumPy 1.x falls back to it).
try:
    from numpy._core.umath import _extobj_contextvar as _FP_STATE, _make_extobj

    _FP_QUIET = _make_extobj(all="ignore")
except ImportError:  # NumPy 1.x
    _FP_STATE = None


def quiet_call(fn, *args):
    """``fn(*args)`` with NumPy's floating-point warnings off."""
    if _FP_STATE is None:
        with np.errstate(all="ignore"):
            return fn(*args)
    token = _FP_STATE.set(_FP_QUIET)
    try:
        return fn(*args)
    finally:
        _FP_STATE.reset(token)


def quiet_truediv(a, b):
    """``a / b`` with NumPy's floating-point warnings off: :func:`quiet_call` written out for division, the hot path of
    ``Tensor.__truediv__`` (one call frame instead of two)."""
    if _FP_STATE is None:
        with np.errstate(all="ignore"):
            return a / b
    token = _FP_STATE.set(_FP_QUIET)
    try:
        return a / b
    finally:
        _FP_STATE.reset(token)


def complex_abs(xp, x):
    """``|x|`` as PyTorch's CPU kernels compute it. For complex input NumPy's ``abs`` is one ulp off PyTorch's in about
    a third of the values: PyTorch's complex64 magnitude is the correctly rounded hypot (a float64 hypot rounded to
    float32 gives it), and for complex128 it is the C library's ``hypot`` (exactly so for tensors of fewer than four
    elements; its vectorized path differs from it in ~0.5 % of the values, by one ulp)."""
    if x.dtype.kind != "c" or xp is not np:
        return xp.abs(x)
    if x.dtype == np.complex64:
        return np.hypot(x.real.astype(np.float64), x.imag.astype(np.float64)).astype(np.float32)
    return np.hypot(x.real, x.imag)


def _type_error(fn, name, value):
    return TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")


def _not_implemented(kernel, data):
    """PyTorch's message for a dtype a kernel does not support, e.g. '"erf_cpu" not implemented for 'ComplexFloat''."""
    return RuntimeError(f"\"{kernel}_cpu\" not implemented for '{dt.scalar_type_name(data.dtype)}'")


def _floating_data(input, fn):
    """``input``'s array, in the default float dtype when it holds integers or bools (PyTorch's rule)."""
    if not isinstance(input, Tensor):
        raise _type_error(fn, "input", input)
    data = input._data
    if data.dtype.kind not in "fc":
        data = data.astype(dt.get_default_dtype().np)
    return data


def _conj(t):
    """``conj(t)`` for complex tensors, ``t`` itself for real ones (the factor in PyTorch's complex backward)."""
    return t.conj() if t._data.dtype.kind == "c" else t


def _binary_floating(input, other, fn, *, scalars=False, real_only=True):
    """Promote two operands (PyTorch's rules), then move integer results to the default float dtype.

    Returns ``(a, b, input_tensor_or_None, other_tensor_or_None)``; ``scalars`` allows one Python-number operand.
    """
    it = isinstance(input, Tensor)
    ot = isinstance(other, Tensor)
    if not it and not (scalars and ot and isinstance(input, numbers.Number)):
        raise _type_error(fn, "input", input)
    if not ot and not (scalars and isinstance(other, numbers.Number)):
        raise _type_error(fn, "other", other)
    if it:
        a, b = binary_arrays(input, other)
    else:
        b, a = binary_arrays(other, input)
    xp = input._xp if it else other._xp
    # binary_arrays leaves a Python number as is when the tensor's dtype is already the result dtype
    if not hasattr(a, "dtype"):
        a = xp.asarray(a, dtype=b.dtype)
    if not hasattr(b, "dtype"):
        b = xp.asarray(b, dtype=a.dtype)
    a = xp.asarray(a)
    b = xp.asarray(b)
    kind = np.result_type(a.dtype, b.dtype).kind
    if kind in "biu":
        fd = dt.get_default_dtype().np
        a, b = a.astype(fd), b.astype(fd)
    elif real_only and kind == "c":
        raise _not_implemented(fn, a if a.dtype.kind == "c" else b)
    elif a.dtype != b.dtype:
        rt = np.result_type(a.dtype, b.dtype)
        a, b = a.astype(rt, copy=False), b.astype(rt, copy=False)
    return a, b, (input if it else None), (other if ot else None)


def _shapes(a, b):
    return (a._data.shape if a is not None else ()), (b._data.shape if b is not None else ())


_SAVE_INPUT, _SAVE_OUTPUT = 1, 2  # what a unary node keeps for backward


def _unary(name, kernel, node_cls, saves, doc, *, quiet=False, real_only=False, aliases=()):
    """Build a floating elementwise op ``name(input)`` from ``kernel(xp, array)`` and its backward node.

    ``quiet`` silences NumPy's floating-point warnings (PyTorch returns nan/inf silently, e.g. ``log(-1)``).
    """
    def op(input):
        data = _floating_data(input, name)
        if real_only and data.dtype.kind == "c":
            raise _not_implemented(name, data)
        if quiet:
            out = wrap(quiet_call(kernel, input._xp, data))
        else:
            out = wrap(kernel(input._xp, data))
        if GRAD_ENABLED[0] and input._requires_grad:
            node = node_cls()
            if saves == _SAVE_INPUT:
                node.save(input)
            elif saves == _SAVE_OUTPUT:
                node.save_output(out)
            record(node, out, input)
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return tensor_method(name, *aliases)(op)
