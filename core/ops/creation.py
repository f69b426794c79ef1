"""Tensor creation: ``tensor``, ``zeros``, ``arange``, ``randn``, the ``*_like`` forms and the legacy constructors.

Every factory takes ``dtype=``, ``device=`` and ``requires_grad=`` where PyTorch does. Python floats become the
default dtype (float32), Python ints int64; NumPy arrays keep their dtype.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .. import dtypes as dt
from ..device import module_for_device
from ..random import _gen
from ._base import Tensor, wrap

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "eye", "arange",
           "linspace", "logspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like",
           "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "FloatTensor", "DoubleTensor",
           "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "scalar_tensor"]


def _finish(data, requires_grad):
    t = wrap(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_array(data, xp):
    """Convert nested Python data to an array with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, (np.ndarray, np.generic)):
        return xp.asarray(data)
    if isinstance(data, (list, tuple)):
        data = _unwrap_nested(data)
    try:
        arr = np.asarray(data)
    except ValueError as exc:
        raise ValueError(f"expected a sequence of equal-length sequences or numbers ({exc})") from None
    kind = arr.dtype.kind
    if kind == "f":
        arr = arr.astype(dt.get_default_dtype().np, copy=False)
    elif kind == "c":
        arr = arr.astype(dt.get_default_dtype().to_complex().np, copy=False)
    elif kind in "iu":
        arr = arr.astype(np.int64, copy=False)
    elif kind not in "b":
        raise TypeError(f"Could not infer dtype of {type(data).__name__}: ember tensors hold numbers, got an array "
                        f"of kind {arr.dtype}")
    return xp.asarray(arr)


def _unwrap_nested(seq):
    out = []
    for item in seq:
        if isinstance(item, Tensor):
            out.append(item._data if item._data.ndim else item._data.item())
        elif isinstance(item, (list, tuple)):
            out.append(_unwrap_nested(item))
        else:
            out.append(item)
    return out


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Construct a tensor by copying ``data`` (a number, nested lists, a NumPy array or a tensor)."""
    xp = module_for_device(device) if device is not None else np
    arr = _infer_array(data, xp)
    if dtype is not None:
        arr = arr.astype(dt.to_dtype(dtype).np, copy=False)
    arr = xp.array(arr, copy=True)
    return _finish(arr, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Convert ``data`` to a tensor, sharing memory with a tensor or NumPy array when dtype and device allow."""
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    xp = module_for_device(device) if device is not None else np
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr = xp.asarray(data)
    else:
        arr = _infer_array(data, xp)
    if dtype is not None:
        arr = arr.astype(dt.to_dtype(dtype).np, copy=False)
    if isinstance(data, Tensor) and arr is data._data:
        return data
    return wrap(arr)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Like NumPy's ``asarray``: share memory unless ``copy=True`` or a conversion is needed."""
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = wrap(t._data.copy())
    return t.requires_grad_(True) if requires_grad else t


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor that shares memory with ``ndarray``: changes to one show in the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    dt.from_numpy_dtype(ndarray.dtype)  # raises for unsupported dtypes
    return wrap(ndarray)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad=False):
    """A zero-dimensional tensor holding ``value`` (default dtype unless given)."""
    return full((), value, dtype=dtype or dt.get_default_dtype(), device=device, requires_grad=requires_grad)


def _size(args, kwargs_size, fn):
    if kwargs_size is not None:
        args = (kwargs_size,)
    if len(args) == 1 and isinstance(args[0], (tuple, list)) or (len(args) == 1 and hasattr(args[0], "__iter__")
                                                                 and not isinstance(args[0], Tensor)):
        args = tuple(args[0])
    sizes = []
    for s in args:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{fn}(): argument 'size' must be a tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {len(sizes)}")
        sizes.append(int(s))
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {sizes}")
    return tuple(sizes)


def _float_dtype(dtype):
    return dt.to_dtype(dtype) if dtype is not None else dt.get_default_dtype()


def _factory(fill, args, size, dtype, device, requires_grad, fn):
    shape = _size(args, size, fn)
    xp = module_for_device(device) if device is not None else np
    return _finish(fill(xp, shape, _float_dtype(dtype).np), requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """A tensor of zeros of the given size."""
    return _factory(lambda xp, s, d: xp.zeros(s, d), size, kw.get("size"), dtype, device, requires_grad, "zeros")


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """A tensor of ones of the given size."""
    return _factory(lambda xp, s, d: xp.ones(s, d), size, kw.get("size"), dtype, device, requires_grad, "ones")


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None, **kw):
    """An uninitialised tensor of the given size."""
    return _factory(lambda xp, s, d: xp.empty(s, d), size, kw.get("size"), dtype, device, requires_grad, "empty")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value``; the dtype is inferred from the value when not given."""
    if dtype is None:
        dtype = dt._scalar_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    shape = _size((size,) if not isinstance(size, (tuple, list)) else (tuple(size),), None, "full")
    xp = module_for_device(device) if device is not None else np
    return _finish(xp.full(shape, fill_value, dt.to_dtype(dtype).np), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A 2-D tensor with ones on the diagonal."""
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    xp = module_for_device(device) if device is not None else np
    return _finish(xp.eye(n, m, dtype=_float_dtype(dtype).np), requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) in steps of ``step``; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError(f"upper bound and larger bound inconsistent with step sign: start={start}, end={end}, "
                           f"step={step}")
    if dtype is None:
        dtype = dt.get_default_dtype() if any(isinstance(v, float) for v in vals) else dt.int64
    dtype = dt.to_dtype(dtype)
    n = max(0, math.ceil((end - start) / step))
    xp = module_for_device(device) if device is not None else np
    data = (start + xp.arange(n, dtype=np.float64 if dtype.category >= 2 else np.int64) * step)
    return _finish(data.astype(dtype.np), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError(f"linspace(): number of steps must be non-negative, got {steps}")
    xp = module_for_device(device) if device is not None else np
    return _finish(xp.linspace(start, end, steps).astype(_float_dtype(dtype).np), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in log scale."""
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError(f"logspace(): number of steps must be non-negative, got {steps}")
    xp = module_for_device(device) if device is not None else np
    return _finish(xp.logspace(start, end, steps, base=base).astype(_float_dtype(dtype).np), requires_grad)


def _random_float(draw, size, dtype):
    d = _float_dtype(dtype)
    if d.category != 2:
        raise TypeError(f"random floats need a floating-point dtype, got {d}")
    if d.np in (np.float32, np.float64):
        return draw(size, d.np)
    return draw(size, np.float32).astype(d.np)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Uniform samples on [0, 1)."""
    g = _gen(generator)
    shape = _size(size, kw.get("size"), "rand")
    return _finish(_random_float(lambda s, d: g.random(s, dtype=d), shape, dtype), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Standard normal samples."""
    g = _gen(generator)
    shape = _size(size, kw.get("size"), "randn")
    return _finish(_random_float(lambda s, d: g.standard_normal(s, dtype=d), shape, dtype), requires_grad)


def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Random integers: ``randint(high, size)`` or ``randint(low, high, size)``, int64 by default."""
    if "size" in kw:
        args = args + (kw.pop("size"),)
    if "high" in kw:
        args = (kw.pop("low", 0), kw.pop("high")) + args
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() expects (high, size) or (low, high, size)")
    if high <= low:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = _size((size,), None, "randint")
    d = dt.to_dtype(dtype) if dtype is not None else dt.int64
    return _finish(_gen(generator).integers(low, high, shape).astype(d.np), requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1``."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise RuntimeError(f"randperm(): n must be a non-negative int, got {n!r}")
    d = dt.to_dtype(dtype) if dtype is not None else dt.int64
    return _finish(_gen(generator).permutation(n).astype(d.np), requires_grad)


def _like(input, dtype):
    return dt.to_dtype(dtype) if dtype is not None else input.dtype


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Zeros with the shape (and by default dtype) of ``input``."""
    return _finish(input._xp.zeros(input._data.shape, _like(input, dtype).np), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Ones with the shape (and by default dtype) of ``input``."""
    return _finish(input._xp.ones(input._data.shape, _like(input, dtype).np), requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Uninitialised data with the shape (and by default dtype) of ``input``."""
    return _finish(input._xp.empty(input._data.shape, _like(input, dtype).np), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """``fill_value`` with the shape (and by default dtype) of ``input``."""
    return _finish(input._xp.full(input._data.shape, fill_value, _like(input, dtype).np), requires_grad)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Uniform samples with the shape of ``input``."""
    return rand(input._data.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Normal samples with the shape of ``input``."""
    return randn(input._data.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    """Random integers with the shape of ``input``."""
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=_like(input, dtype))


def _legacy(dtype_name):
    d = dt.to_dtype(dtype_name)

    def ctor(*args, device=None):
        # One non-integer argument is data (as in torch.FloatTensor([1, 2])); integers are sizes.
        if len(args) == 1 and not isinstance(args[0], numbers.Integral) and not isinstance(args[0], Tensor) or \
                len(args) == 1 and isinstance(args[0], Tensor):
            return tensor(args[0], dtype=d, device=device)
        return empty(*args, dtype=d, device=device)

    ctor.__name__ = ctor.__qualname__ = _NAMES[dtype_name]
    ctor.__doc__ = f"Legacy constructor: ``{ctor.__name__}(*sizes)`` (uninitialised) or ``{ctor.__name__}(data)``."
    return ctor


_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor", "int32": "IntTensor",
          "bool": "BoolTensor", "uint8": "ByteTensor", "float16": "HalfTensor"}
FloatTensor = _legacy("float32")
DoubleTensor = _legacy("float64")
LongTensor = _legacy("int64")
IntTensor = _legacy("int32")
BoolTensor = _legacy("bool")
ByteTensor = _legacy("uint8")
HalfTensor = _legacy("float16")
