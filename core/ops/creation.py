"""Tensor creation: ``tensor``, ``zeros``, ``arange``, ``randn``, the ``*_like`` forms and the legacy constructors.

Every factory takes ``dtype=``, ``device=`` and ``requires_grad=`` where PyTorch does. Python floats become the
default dtype (float32), Python ints int64; NumPy arrays keep their dtype.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from .. import dtypes as dt
from ..device import module_for_device
from ..random import _gen
from ..tensor import Size, tensor_method
from ._base import Tensor, wrap

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "eye", "arange",
           "linspace", "logspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like",
           "empty_like", "full_like", "rand_like", "randn_like", "randint_like", "FloatTensor", "DoubleTensor",
           "LongTensor", "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "scalar_tensor", "tril_indices",
           "triu_indices"]


def _finish(data, requires_grad):
    t = wrap(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _xp_for(device):
    """The array module for ``device`` (numpy when None); ``"cuda"`` without CuPy raises a RuntimeError."""
    return np if device is None else module_for_device(device)


def _on_device(arr, device):
    """``arr`` moved to ``device`` (no copy when it is already there)."""
    if device is None:
        return arr
    xp = module_for_device(device)
    return arr if xp is np else xp.asarray(arr)


def _ragged_error(data):
    """PyTorch's error for ragged nested lists: the sizes are read off the first element at each depth, then every
    sequence must have the size of its depth ("expected sequence of length 2 at dim 1 (got 1)")."""
    sizes = []
    first = data
    while isinstance(first, (list, tuple)):
        sizes.append(len(first))
        first = first[0] if len(first) else None

    def walk(seq, dim):
        if dim == len(sizes):
            return None if not isinstance(seq, (list, tuple)) else ValueError(
                f"expected a number at dim {dim}, got a sequence of length {len(seq)}")
        if not isinstance(seq, (list, tuple)):
            return ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got a number)")
        if len(seq) != sizes[dim]:
            return ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        for item in seq:
            err = walk(item, dim + 1)
            if err is not None:
                return err
        return None

    return walk(data, 0)


def _infer_array(data, xp, dtype=None):
    """Convert nested Python data to an array with PyTorch's dtype inference (or straight to ``dtype``).

    Python floats become the default dtype, ints int64, complex the default complex dtype; NumPy arrays and
    scalars keep their own dtype. With ``dtype`` given the values are converted directly, so float64 data is not
    first rounded through float32.
    """
    if isinstance(data, Tensor):
        arr = data._data
        return arr if dtype is None else arr.astype(dtype.np, copy=False)
    if isinstance(data, (np.ndarray, np.generic)):
        arr = xp.asarray(data)
        dt.from_numpy_dtype(arr.dtype)  # raises for strings, objects and other unsupported dtypes
        return arr if dtype is None else arr.astype(dtype.np, copy=False)
    if isinstance(data, (list, tuple)):
        data = _unwrap_nested(data)
    try:
        arr = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype.np)
    except ValueError as exc:
        raise _ragged_error(data) or ValueError(f"expected a sequence of equal-length sequences or numbers "
                                                f"({exc})") from None
    except TypeError:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}: ember tensors hold numbers") from None
    except OverflowError:
        raise RuntimeError("Overflow when unpacking long") from None
    if dtype is not None:
        return xp.asarray(arr)
    kind = arr.dtype.kind
    if kind == "f":
        arr = arr.astype(dt.get_default_dtype().np, copy=False)
    elif kind == "c":
        arr = arr.astype(dt.get_default_dtype().to_complex().np, copy=False)
    elif kind == "u" and arr.dtype.itemsize == 8:
        raise RuntimeError("Overflow when unpacking long")  # an int above 2**63 - 1 does not fit int64
    elif kind in "iu":
        arr = arr.astype(np.int64, copy=False)
    elif kind == "O" and arr.size and all(isinstance(v, int) for v in arr.reshape(-1)):
        raise RuntimeError("Overflow when unpacking long")
    elif kind not in "b":
        first = arr.reshape(-1)[0] if arr.size else data
        what = type(first.item() if isinstance(first, np.generic) else first).__name__
        raise TypeError(f"Could not infer dtype of {what}: ember tensors hold numbers")
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
    """Construct a tensor by copying ``data`` (a number, nested lists, a NumPy array or a tensor).

    Python floats become the default dtype (float32), ints int64, bools bool; NumPy data keeps its dtype.
    """
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than ember.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    xp = _xp_for(device)
    arr = _infer_array(data, xp, None if dtype is None else dt.to_dtype(dtype))
    arr = xp.array(arr, copy=True)
    return _finish(arr, requires_grad)


def as_tensor(data, dtype=None, device=None):
    """Convert ``data`` to a tensor, sharing memory with a tensor or NumPy array when dtype and device allow."""
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    xp = _xp_for(device)
    if isinstance(data, Tensor):
        arr = data._data if device is None else _on_device(data._data, device)
        if dtype is not None:
            arr = arr.astype(dt.to_dtype(dtype).np, copy=False)
        return data if arr is data._data else wrap(arr)
    return wrap(_infer_array(data, xp, None if dtype is None else dt.to_dtype(dtype)))


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """Like NumPy's ``asarray``: share memory unless ``copy=True`` or a conversion is needed.

    With ``requires_grad=False`` (the default) the result never requires grad, even for a tensor with a history
    (it is then that tensor's data, detached); with ``True`` a tensor keeps its history.
    """
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy:
        t = wrap(t._data.copy())
    if requires_grad:
        return t.requires_grad_(True)
    return t.detach() if t._requires_grad else t


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
    return _finish(fill(_xp_for(device), shape, _float_dtype(dtype).np), requires_grad)


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
    if isinstance(fill_value, Tensor):
        if fill_value.numel() != 1:
            raise RuntimeError(f"full(): fill_value must be a number or a one-element tensor, got a tensor of shape "
                               f"{list(fill_value.shape)}")
        fill_value = fill_value.item()
    if not isinstance(fill_value, numbers.Number):
        raise TypeError(f"full(): argument 'fill_value' must be Number, not {type(fill_value).__name__}")
    if dtype is None:
        dtype = dt._scalar_dtype(fill_value)
    shape = _size((size,) if not isinstance(size, (tuple, list)) else (tuple(size),), None, "full")
    return _finish(_xp_for(device).full(shape, fill_value, dt.to_dtype(dtype).np), requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A 2-D tensor with ones on the diagonal."""
    for name, v in (("n", n), ("m", m)):
        if v is not None and (not isinstance(v, (int, np.integer)) or isinstance(v, bool)):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(_xp_for(device).eye(n, m, dtype=_float_dtype(dtype).np), requires_grad)


def _triangle_indices(fn, row, col, offset, dtype, device, lower):
    for name, v in (("row", row), ("col", col), ("offset", offset)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{fn}(): argument '{name}' must be int, not {type(v).__name__}")
    for name, v in (("row", row), ("col", col)):
        if v < 0:
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    d = dt.int64 if dtype is None else dt.to_dtype(dtype)
    if d.category != dt.INT:
        raise NotImplementedError(f'"{fn}" not implemented for \'{d.scalar_name}\'')
    xp = _xp_for(device)
    rows, cols = (xp.tril_indices if lower else xp.triu_indices)(int(row), int(offset), int(col))
    return wrap(xp.stack([rows, cols]).astype(d.np).reshape(2, -1))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` row and column indices of the lower triangle of a ``row x col`` matrix (on and below the
    diagonal shifted by ``offset``), row by row; int64 unless ``dtype`` says otherwise."""
    return _triangle_indices("tril_indices", row, col, offset, dtype, device, lower=True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` row and column indices of the upper triangle of a ``row x col`` matrix (on and above the
    diagonal shifted by ``offset``), row by row; int64 unless ``dtype`` says otherwise."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, device, lower=False)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) in steps of ``step``; int64 unless a bound is a float."""
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for name, v in zip(("start", "end", "step"), vals):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"arange(): argument '{name}' must be Number, not {type(v).__name__}")
        if not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {vals[0]} -> {vals[1]}")
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
    xp = _xp_for(device)
    data = (start + xp.arange(n, dtype=np.float64 if dtype.category >= 2 else np.int64) * step)
    return _finish(data.astype(dtype.np), requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError(f"linspace(): number of steps must be non-negative, got {steps}")
    return _finish(_xp_for(device).linspace(start, end, steps).astype(_float_dtype(dtype).np), requires_grad)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in log scale."""
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise RuntimeError(f"logspace(): number of steps must be non-negative, got {steps}")
    return _finish(_xp_for(device).logspace(start, end, steps, base=base).astype(_float_dtype(dtype).np), requires_grad)


def _random_float(draw, size, dtype, complex_scale=1.0):
    """Draw floats of ``dtype``. A complex dtype draws its real and imaginary parts independently, each scaled by
    ``complex_scale`` (PyTorch's complex ``randn`` gives each part variance 1/2, so that ``E|z|^2 = 1``)."""
    d = _float_dtype(dtype)
    if d.category == dt.COMPLEX:
        part = np.float32 if d.np == np.complex64 else np.float64
        pairs = draw(tuple(size) + (2,), part)
        if complex_scale != 1.0:
            pairs *= part(complex_scale)
        return pairs.view(d.np)[..., 0]
    if d.category != dt.FLOAT:
        raise TypeError(f"random floats need a floating-point or complex dtype, got {d}")
    if d.np in (np.float32, np.float64):
        return draw(size, d.np)
    return draw(size, np.float32).astype(d.np)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Uniform samples on [0, 1)."""
    g = _gen(generator)
    shape = _size(size, kw.get("size"), "rand")
    _xp_for(device)  # fail early for a device that is not available
    return _finish(_on_device(_random_float(lambda s, d: g.random(s, dtype=d), shape, dtype), device),
                   requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, **kw):
    """Standard normal samples."""
    g = _gen(generator)
    shape = _size(size, kw.get("size"), "randn")
    _xp_for(device)
    return _finish(_on_device(_random_float(lambda s, d: g.standard_normal(s, dtype=d), shape, dtype,
                                            math.sqrt(0.5)), device), requires_grad)


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
    _xp_for(device)
    return _finish(_on_device(_gen(generator).integers(low, high, shape).astype(d.np), device), requires_grad)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """A random permutation of ``0 .. n-1``."""
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise RuntimeError(f"randperm(): n must be a non-negative int, got {n!r}")
    d = dt.to_dtype(dtype) if dtype is not None else dt.int64
    _xp_for(device)
    return _finish(_on_device(_gen(generator).permutation(n).astype(d.np), device), requires_grad)


def _like(input, dtype, fn):
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return dt.to_dtype(dtype) if dtype is not None else input.dtype


def _like_xp(input, device):
    return input._xp if device is None else module_for_device(device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Zeros with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "zeros_like")
    return _finish(_like_xp(input, device).zeros(input._data.shape, d.np), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Ones with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "ones_like")
    return _finish(_like_xp(input, device).ones(input._data.shape, d.np), requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Uninitialised data with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "empty_like")
    return _finish(_like_xp(input, device).empty(input._data.shape, d.np), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """``fill_value`` with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "full_like")
    if not isinstance(fill_value, numbers.Number):
        raise TypeError(f"full_like(): argument 'fill_value' must be Number, not {type(fill_value).__name__}")
    return _finish(_like_xp(input, device).full(input._data.shape, fill_value, d.np), requires_grad)


def _like_device(input, device):
    return device if device is not None else (None if input._xp is np else input.device)


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Uniform samples on [0, 1) with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "rand_like")
    return rand(input._data.shape, dtype=d, device=_like_device(input, device), requires_grad=requires_grad)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Standard normal samples with the shape (and by default the dtype and device) of ``input``."""
    d = _like(input, dtype, "randn_like")
    return randn(input._data.shape, dtype=d, device=_like_device(input, device), requires_grad=requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None):
    """Random integers in ``[low, high)`` with the shape (and by default the dtype and device) of ``input``;
    ``randint_like(input, high)`` draws from ``[0, high)``."""
    d = _like(input, dtype, "randint_like")
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=d, device=_like_device(input, device),
                   requires_grad=requires_grad)


def _legacy_build(d, args, device):
    # Integers (or one ember.Size) are sizes, as in torch.FloatTensor(2, 3); any other single argument is data,
    # as in torch.FloatTensor([1, 2]). No argument gives an empty 1-D tensor.
    if not args:
        return empty(0, dtype=d, device=device)
    if len(args) == 1 and not isinstance(args[0], (numbers.Integral, Size)):
        xp = _xp_for(device)
        return wrap(xp.array(_infer_array(args[0], xp, d), copy=True))
    return empty(*args, dtype=d, device=device)


def _legacy(dtype_name):
    d = dt.to_dtype(dtype_name)

    def ctor(*args, device=None):
        return _legacy_build(d, args, device)

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


# -- Tensor.new_*: factories whose dtype and device default to this tensor's (PyTorch's Tensor methods; model code
# builds masks and initial states with them, e.g. ``x.new_zeros(batch, hidden)``)
def _own(self, dtype, device):
    return (self.dtype if dtype is None else dtype), (self.device if device is None else device)


@tensor_method()
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Zeros of ``size`` with this tensor's dtype and device (unless given)."""
    dtype, device = _own(self, dtype, device)
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


@tensor_method()
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """Ones of ``size`` with this tensor's dtype and device (unless given)."""
    dtype, device = _own(self, dtype, device)
    return ones(*size, dtype=dtype, device=device, requires_grad=requires_grad)


@tensor_method()
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """An uninitialised tensor of ``size`` with this tensor's dtype and device (unless given)."""
    dtype, device = _own(self, dtype, device)
    return empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)


@tensor_method()
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """``fill_value`` in a tensor of ``size`` with this tensor's dtype and device (unless given)."""
    dtype, device = _own(self, dtype, device)
    return full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


@tensor_method()
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """A copy of ``data`` with this tensor's dtype and device (unless given)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor("
                      "sourceTensor).", UserWarning, stacklevel=2)
    dtype, device = _own(self, dtype, device)
    xp = _xp_for(device)
    return _finish(xp.array(_infer_array(data, xp, dt.to_dtype(dtype)), copy=True), requires_grad)


@tensor_method()
def new(self, *args, device=None):
    """The legacy constructor with this tensor's dtype: ``x.new(2, 3)`` (uninitialised), ``x.new([1, 2])`` (data)
    or ``x.new()`` (empty)."""
    return _legacy_build(self.dtype, args, self.device if device is None else device)
