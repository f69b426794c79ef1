"""Conversions: ``to``, ``float``/``double``/``long``/..., ``clone``, ``cpu``/``cuda``."""
from __future__ import annotations

from .. import dtypes as dt
from ..autograd.graph import Node
from ..device import device as device_cls, device_of, module_for_device
from ._base import GRAD_ENABLED, Tensor, record, tensor_method, wrap

__all__ = ["clone", "to"]


class CloneBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        return (grad,)


@tensor_method()
def clone(input, *, memory_format=None):
    """A copy of ``input`` that stays connected to the graph."""
    out = wrap(input._data.copy())
    if GRAD_ENABLED[0] and input._requires_grad:
        record(CloneBackward0(), out, input)
    return out


class ToCopyBackward0(Node):
    __slots__ = ()

    def apply(self, grad):
        src_dtype = self.src_dtype
        g = grad
        if src_dtype.category != dt.COMPLEX and g.is_complex():
            g = g.real
        return (_cast(g, src_dtype),)


def _cast(input, dtype, copy=False):
    if input._data.dtype == dtype.np and not copy:
        return input
    out = wrap(input._data.astype(dtype.np))
    if GRAD_ENABLED[0] and input._requires_grad and dtype.category >= dt.FLOAT:
        node = ToCopyBackward0()
        node.src_dtype = input.dtype
        record(node, out, input)
    return out


def _parse_to_args(args, kwargs):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, (dt.dtype,)) or a in (float, int, bool, complex):
            dtype = a
        elif isinstance(a, (str, device_cls)):
            # a dtype name ("float64") is a dtype; any other string is a device, so "tpu" gets the device error
            if isinstance(a, str) and a.replace("ember.", "").replace("torch.", "") in dt._BY_NAME:
                dtype = a
            else:
                device = device_cls(a)
        elif isinstance(a, bool):
            copy = a
        elif isinstance(a, int):  # to(0) / to(rank): a GPU index, as in PyTorch
            device = device_cls("cuda", a)
        elif a is not None:
            raise TypeError(f"to() received an invalid combination of arguments: {a!r} is neither a dtype, a device "
                            "nor a tensor")
    return dtype, device, copy


@tensor_method()
def to(input, *args, **kwargs):
    """Cast to a dtype and/or move to a device: ``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``."""
    dtype, device, copy = _parse_to_args(args, dict(kwargs))
    out = input
    if device is not None:
        target = device_cls(device)
        if target != device_of(input._data):
            xp = module_for_device(target)
            data = xp.asarray(input._data) if target.type == "cuda" else input._data.get()
            moved = wrap(data)
            if GRAD_ENABLED[0] and input._requires_grad:
                node = ToCopyBackward0()
                node.src_dtype = input.dtype
                record(node, moved, input)
            out = moved
    if dtype is not None:
        out = _cast(out, dt.to_dtype(dtype), copy=copy and out is input)
    elif copy and out is input:
        out = clone(input)
    return out


def _caster(name, dtype):
    def method(self, memory_format=None):
        return _cast(self, dtype)
    method.__name__ = name
    method.__doc__ = f"``self.to({dtype})``."
    setattr(Tensor, name, method)


for _name, _dtype in (("float", dt.float32), ("double", dt.float64), ("half", dt.float16), ("long", dt.int64),
                      ("int", dt.int32), ("short", dt.int16), ("char", dt.int8), ("byte", dt.uint8),
                      ("bool", dt.bool_), ("cfloat", dt.complex64), ("cdouble", dt.complex128)):
    _caster(_name, _dtype)


def _cpu(self, memory_format=None):
    """A copy on the CPU (self if already there)."""
    return to(self, "cpu")


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    """A copy on a CUDA device (needs CuPy)."""
    return to(self, "cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device)


Tensor.cpu = _cpu
Tensor.cuda = _cuda


def _view_dtype(input, dtype):
    dtype = dt.to_dtype(dtype)
    return wrap(input._data.view(dtype.np))
