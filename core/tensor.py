"""``Tensor``: an array plus autograd metadata.

The data is a NumPy (later also CuPy) array in ``_data``. Autograd state sits in ``__slots__``: whether the tensor
requires grad, its accumulated ``.grad``, the ``grad_fn`` node that produced it (None for leaves), a version box
bumped by in-place ops (shared with views) and hooks.

Methods and operators are attached by the op modules in ``ember.core.ops`` (each op is defined once, as a function,
and bound here as a method), so this file holds only what is about the tensor itself.
"""
from __future__ import annotations

import warnings

import numpy as np

from . import dtypes as _dt
from .device import CPU, array_module, device as _device_cls, device_of, module_for_device

__all__ = ["Tensor", "Size", "UntypedStorage"]


class Size(tuple):
    """The shape of a tensor: a tuple that prints as ``ember.Size([2, 3])``."""

    __slots__ = ()

    def numel(self) -> int:
        """The number of elements a tensor of this shape has."""
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return f"ember.Size({list(self)})"

    def __getitem__(self, item):
        res = tuple.__getitem__(self, item)
        return Size(res) if isinstance(item, slice) else res

    # concatenating or repeating a shape gives a shape, from either side, as torch.Size does
    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to ember.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


_new = object.__new__
_ndarray = np.ndarray  # a module global is one lookup on the hot path, np.ndarray two


class Tensor:
    """A multi-dimensional array with automatic differentiation, shaped after ``torch.Tensor``.

    ``Tensor(data)`` and ``Tensor(*sizes)`` are the legacy constructors (float32); prefer ``ember.tensor``.
    """

    # _base: (root tensor, replay) for views, so an in-place op on a view can rebase the root's graph
    __slots__ = ("_data", "_requires_grad", "_grad", "grad_fn", "_output_nr", "_version", "_hooks", "_accum",
                 "_base", "__weakref__")
    __array_ufunc__ = None  # make numpy defer to our reflected operators (ndarray + Tensor -> Tensor)

    def __init__(self, *args, dtype=None, device=None):
        dt = _dt.to_dtype(dtype) if dtype is not None else _dt.get_default_dtype()
        xp = module_for_device(device) if device is not None else np
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            src = args[0]
            data = xp.asarray(src._data if isinstance(src, Tensor) else src, dtype=dt.np)
        else:
            sizes = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            data = xp.empty(tuple(int(s) for s in sizes), dtype=dt.np)
        self._init(data)

    def _init(self, data):
        self._data = data
        self._requires_grad = False
        self._grad = None
        self.grad_fn = None
        self._output_nr = 0
        self._version = None
        self._hooks = None
        self._accum = None
        self._base = None

    @staticmethod
    def _make(data):
        """Wrap an array (or NumPy scalar) without copying; the fast internal constructor."""
        t = _new(Tensor)
        if type(data) is not _ndarray and (isinstance(data, np.generic) or
                                           not type(data).__module__.startswith("cupy")):
            data = np.asarray(data)  # NumPy scalars (what 0-dim ops return) and Python numbers
        t._data = data
        t._requires_grad = False
        t._grad = None
        t.grad_fn = None
        t._output_nr = 0
        t._version = None
        t._hooks = None
        t._accum = None
        t._base = None
        return t

    # -- basic attributes ------------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The tensor's shape as an ``ember.Size``."""
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_normalize_dim(dim, self._data.ndim)]

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def ndimension(self) -> int:
        """Alias of :meth:`dim`."""
        return self._data.ndim

    def numel(self) -> int:
        """The total number of elements."""
        return self._data.size

    def nelement(self) -> int:
        """Alias of :meth:`numel`."""
        return self._data.size

    def element_size(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def dtype(self) -> _dt.dtype:
        """The tensor's data type, e.g. ``ember.float32``."""
        return _dt.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> _device_cls:
        """The device the data lives on."""
        return device_of(self._data) if type(self._data) is not np.ndarray else CPU

    @property
    def is_cuda(self) -> bool:
        """True if the data lives on a GPU."""
        return self.device.type == "cuda"

    @property
    def _xp(self):
        data = self._data
        if type(data) is np.ndarray:
            return np
        return array_module(data)

    def is_floating_point(self) -> bool:
        """True if the dtype is a floating-point type."""
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        """True if the dtype is complex."""
        return self._data.dtype.kind == "c"

    @property
    def is_cpu(self) -> bool:
        """True when the data is in host memory."""
        return self.device.type == "cpu"

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of the elements this tensor shows (not of its whole storage)."""
        return self._data.nbytes

    @property
    def layout(self):
        """``ember.strided``: every ember tensor is dense."""
        from .layout import strided
        return strided

    # kinds of tensor ember does not have, answered as PyTorch answers for a dense CPU tensor
    is_meta = is_sparse = is_sparse_csr = is_quantized = is_nested = is_mkldnn = False

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def name(self):
        """None: ember has no named tensors."""
        return None

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (user-created, or not requiring grad)."""
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are recorded for ops on this tensor."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        """Set ``requires_grad`` in place (leaves only) and return self."""
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                                   "computed variable in a subgraph that doesn't require differentiation use "
                                   "var_no_grad = var.detach().")
            return self
        if requires_grad and self._data.dtype.kind not in "fc":
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require gradients, got "
                               f"{self.dtype}")
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        """The accumulated gradient (leaves, or non-leaves after ``retain_grad()``)."""
        if self.grad_fn is not None and self._grad is None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"assigned grad has data of a different size: grad is {list(value.shape)}, "
                                   f"tensor is {list(self.shape)}")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(f"assigned grad has data of a different type: grad is {value.dtype}, tensor is "
                                   f"{self.dtype}")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor on which ``retain_grad()`` was called."""
        node = self.grad_fn
        if node is None:
            return False
        retained = getattr(node, "_retained", None)
        return bool(retained) and self._output_nr in retained and retained[self._output_nr]() is self

    def retain_grad(self) -> None:
        """Make this non-leaf tensor's ``.grad`` be populated by backward (a no-op on leaves)."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self.grad_fn._retain_grad_of(self)

    def detach(self) -> "Tensor":
        """A new tensor sharing data with this one, cut from the graph."""
        t = Tensor._make(self._data)
        t._version = self._ensure_version()  # shared, so an in-place change of either is seen by both
        return t

    @property
    def data(self) -> "Tensor":
        """The tensor's data as a new tensor outside the graph (assigning replaces the data in place)."""
        return self.detach()

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data
        self._bump_version()

    def detach_(self) -> "Tensor":
        """Cut this tensor from the graph in place, making it a leaf."""
        self.grad_fn = None
        self._requires_grad = False
        return self

    def _ensure_version(self):
        box = self._version
        if box is None:
            box = self._version = [0]
        return box

    def _bump_version(self):
        box = self._version
        if box is None:
            self._version = [1]
        else:
            box[0] += 1

    @property
    def _version_number(self) -> int:
        box = self._version
        return box[0] if box is not None else 0

    # -- memory layout (NumPy's real layout, counted in elements as PyTorch counts it) ------------------------
    def stride(self, dim=None):
        """The step in elements between neighbours along each dimension (or along ``dim``), as a tuple of ints."""
        data = self._data
        if data.size == 0:  # NumPy zeroes an empty array's strides; PyTorch reports the contiguous ones
            strides, step = [], 1
            for n in reversed(data.shape):
                strides.append(step)
                step *= max(n, 1)  # a zero-length dimension counts as 1, as in PyTorch's contiguous strides
            strides = tuple(reversed(strides))
        else:
            strides = tuple(s // data.itemsize for s in data.strides)
        return strides if dim is None else strides[_normalize_dim(dim, data.ndim)]

    def is_contiguous(self, memory_format=None) -> bool:
        """True if the elements lie in memory in row-major order without gaps (``stride()`` of a fresh tensor)."""
        return bool(self._data.flags.c_contiguous)

    def storage_offset(self) -> int:
        """The index, in elements, of this tensor's first element within its storage (0 unless it is a view)."""
        return (_pointer(self._data) - _pointer(_storage_root(self._data))) // self._data.itemsize

    def data_ptr(self) -> int:
        """The memory address of the first element."""
        return _pointer(self._data)

    def untyped_storage(self) -> "UntypedStorage":
        """The storage (the whole allocation) this tensor views, for ``nbytes()``/``data_ptr()`` introspection."""
        return UntypedStorage(_storage_root(self._data))

    # -- conversions to Python / NumPy -----------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python number."""
        data = self._data
        if data.size != 1:
            raise RuntimeError(f"a Tensor with {data.size} elements cannot be converted to Scalar")
        return data.item()  # any one-element array (NumPy's or CuPy's) gives its value whatever its shape

    def tolist(self):
        """The data as (nested) Python lists of numbers."""
        return _to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The data as a NumPy array sharing memory (on the CPU)."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                               "instead.")
        if type(self._data) is not np.ndarray and not force:
            raise TypeError(f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy "
                            "the tensor to host memory first.")
        return _to_numpy(self._data)

    def __array__(self, dtype=None, copy=None):
        arr = _to_numpy(self._data)
        return arr.astype(dtype, copy=False) if dtype is not None else arr

    def type(self, dtype=None):
        """With no argument, the legacy type string (``'ember.FloatTensor'``); otherwise cast to ``dtype``."""
        if dtype is None:
            return "ember." + _LEGACY_NAMES[self._data.dtype.name]
        if isinstance(dtype, str) and dtype.endswith("Tensor"):
            dtype = _LEGACY_DTYPES[dtype.split(".")[-1]]
        return self.to(dtype)

    def type_as(self, tensor):
        """This tensor cast to ``tensor``'s dtype (itself when that is already its dtype): PyTorch's
        ``self.type(tensor.type())``."""
        if not isinstance(tensor, Tensor):
            raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(tensor).__name__}")
        return self.to(tensor.dtype)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data)

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __repr__(self):
        from ._formatting import tensor_repr
        return tensor_repr(self)

    def __format__(self, spec):
        # PyTorch's rule: a 0-dim tensor formats as its Python value, so f"{loss}" prints 0.25 (not tensor(0.2500))
        # in training logs; other tensors take object's rule (str for an empty spec, an error for any other)
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        # Used only by in-process copies (copy.deepcopy) and DataLoader worker queues, never by em.save.
        return (_rebuild, (_to_numpy(self._data), self._requires_grad))

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                               "protocol at the moment. If you were attempting to deepcopy a module, this may be "
                               "because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        new = type(self).__new__(type(self))
        Tensor._init(new, self._data.copy())
        new._requires_grad = self._requires_grad
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        memo[id(self)] = new
        return new


class UntypedStorage:
    """The allocation behind a tensor and its views, as ``Tensor.untyped_storage()`` returns it."""

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array

    def nbytes(self) -> int:
        """The size of the allocation in bytes."""
        return self._array.nbytes

    def size(self) -> int:
        """The size of the allocation in bytes (an untyped storage counts bytes)."""
        return self._array.nbytes

    def data_ptr(self) -> int:
        """The address of the allocation's first byte."""
        return _pointer(self._array)

    def element_size(self) -> int:
        """1: an untyped storage is a sequence of bytes."""
        return 1

    def __len__(self):
        return self._array.nbytes

    def __repr__(self):
        return f"[ember.storage.UntypedStorage(device={device_of(self._array)}) of size {self._array.nbytes}]"


def _pointer(data) -> int:
    if type(data) is np.ndarray:
        return data.__array_interface__["data"][0]
    return data.data.ptr  # cupy


def _storage_root(data):
    """The array that owns the memory ``data`` views. Views chain through ``.base``, sometimes via a non-array
    holder (NumPy's ``as_strided`` puts a ``DummyArray`` between), so follow the chain to its last array."""
    root, obj = data, getattr(data, "base", None)
    while obj is not None:
        if isinstance(obj, type(data)):
            root = obj
        obj = getattr(obj, "base", None)
    return root


def _rebuild(data, requires_grad):
    t = Tensor._make(data)
    t._requires_grad = requires_grad
    return t


def _to_numpy(data):
    if type(data) is np.ndarray:
        return data
    return data.get()  # cupy


def tensor_method(*names):
    """Decorator: also bind the function as ``Tensor.<name>`` for each name (default: the function's own name).

    Ops (``ops/_base.py``) and autograd (``autograd/tensor_methods.py``) add their methods this way, so this module
    imports neither of them.
    """
    def deco(fn):
        for name in names or (fn.__name__,):
            setattr(Tensor, name, fn)
        return fn
    return deco


def _normalize_dim(dim, ndim):
    lo, hi = -max(ndim, 1), max(ndim, 1) - 1
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be an int, got {type(dim).__name__} ({dim!r})")
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim + max(ndim, 1) if dim < 0 else dim


_LEGACY_NAMES = {
    "float16": "HalfTensor", "float32": "FloatTensor", "float64": "DoubleTensor", "int8": "CharTensor",
    "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor", "uint8": "ByteTensor",
    "bool": "BoolTensor", "complex64": "ComplexFloatTensor", "complex128": "ComplexDoubleTensor",
}
_LEGACY_DTYPES = {v: _dt.to_dtype(k) for k, v in _LEGACY_NAMES.items()}
