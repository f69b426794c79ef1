"""Ops on the raw memory layout: ``as_strided`` (a view with explicit sizes and strides) and ``resize_``.

Both address the tensor's *storage*, the whole allocation its array views, in elements of the tensor's dtype, as
PyTorch does: ``x.t().as_strided(...)`` and ``x[1:].as_strided(...)`` index the same memory as ``x`` does.
"""
from __future__ import annotations

from ..autograd.graph import Node
from ..device import array_module
from ..tensor import _pointer, _storage_root
from ._base import GRAD_ENABLED, Tensor, check_tensor, record, tensor_method, wrap
from .shape import _as_view, _shape_arg

__all__ = ["as_strided"]


def _flat_storage(data):
    """A 1-D view, in ``data``'s dtype, of the whole allocation ``data`` views, and ``data``'s offset in it."""
    root = _storage_root(data)
    flat = _restride(root, (root.nbytes // root.itemsize,), (root.itemsize,))
    item = data.itemsize
    if flat.dtype != data.dtype:  # a dtype view of another allocation: count its bytes in this dtype's units
        raw = flat.view("u1")
        flat = raw[: raw.size // item * item].view(data.dtype)
    return flat, (_pointer(data) - _pointer(root)) // item


def _restride(array, shape, strides):
    stride_tricks = array_module(array).lib.stride_tricks
    return stride_tricks.as_strided(array, shape=shape, strides=strides)


def _int_tuple(value, name):
    if isinstance(value, int):
        value = (value,)
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"as_strided(): argument '{name}' must be tuple of ints, not {type(value).__name__}") from None
    return out


def _check_bounds(size, stride, offset, storage_len, itemsize):
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape: size {list(size)} has {len(size)} dims but "
                           f"stride {list(stride)} has {len(stride)}")
    if any(s < 0 for s in size):
        raise RuntimeError(f"as_strided(): negative size in {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    needed = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage_len:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of bounds "
                           f"for storage of size {storage_len * itemsize}")


def _strided_view(data, size, stride, offset):
    flat, _ = _flat_storage(data)
    _check_bounds(size, stride, offset, flat.size, data.itemsize)
    return _restride(flat[offset:] if flat.size else flat, size, tuple(s * data.itemsize for s in stride))


@tensor_method()
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage with the given ``size``, ``stride`` and ``storage_offset`` (in elements).

    ``storage_offset`` defaults to the input's own offset. Overlapping views (a stride of 0) are allowed; writing
    through them in place writes the shared elements once per alias, as in PyTorch.
    """
    check_tensor(input, "input", "as_strided")
    size, stride = _int_tuple(size, "size"), _int_tuple(stride, "stride")
    offset = input.storage_offset() if storage_offset is None else int(storage_offset)
    out = _as_view(wrap(_strided_view(input._data, size, stride, offset)), input)
    if GRAD_ENABLED[0] and input._requires_grad:
        node = AsStridedBackward0()
        node.in_geometry = (input._data.shape, input.stride(), input.storage_offset())
        node.out_geometry = (size, stride, offset)
        node.storage_len = _flat_storage(input._data)[0].size
        record(node, out, input)
    return out


class AsStridedBackward0(Node):
    """Scatter-add the gradient into a zero storage through the output's geometry, then read the input's
    geometry back out of it (PyTorch's ``as_strided_backward`` for inputs that do not overlap themselves)."""

    __slots__ = ("in_geometry", "out_geometry", "storage_len")

    def apply(self, grad):
        xp = grad._xp
        positions = xp.arange(self.storage_len)
        out_idx = wrap(_restride(positions[self.out_geometry[2]:], self.out_geometry[0],
                                 tuple(s * positions.itemsize for s in self.out_geometry[1])).reshape(-1))
        in_idx = wrap(_restride(positions[self.in_geometry[2]:], self.in_geometry[0],
                                tuple(s * positions.itemsize for s in self.in_geometry[1])).reshape(-1))
        storage = wrap(xp.zeros(self.storage_len, dtype=grad._data.dtype))
        storage = storage.index_add(0, out_idx, grad.reshape(-1))
        return (storage.index_select(0, in_idx).reshape(self.in_geometry[0]),)


def resize_(self, *sizes, memory_format=None):
    """Give ``self`` the shape ``sizes`` in place, keeping its storage's elements in memory order.

    Elements beyond the old storage are uninitialised (zeros here); a tensor that requires grad cannot be resized.
    """
    if self._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    shape = _shape_arg(sizes, "resize_")
    if any(s < 0 for s in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    n = 1
    for s in shape:
        n *= s
    data = self._data
    if n == data.size and data.flags.c_contiguous:
        self._data = data.reshape(shape)
    else:
        flat, offset = _flat_storage(data)
        if offset + n <= flat.size:
            self._data = flat[offset:offset + n].reshape(shape)  # the storage is large enough: keep sharing it
        else:
            new = self._xp.zeros(n, dtype=data.dtype)
            kept = flat[offset:]
            new[:kept.size] = kept
            self._data = new.reshape(shape)
    self._bump_version()
    return self


def resize_as_(self, other, memory_format=None):
    """``self.resize_(other.shape)``."""
    return resize_(self, other._data.shape)


Tensor.resize_ = resize_
Tensor.resize_as_ = resize_as_
