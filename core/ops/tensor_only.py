"""Tensor methods that PyTorch has only as methods: ``unfold``, ``fill_diagonal_``, ``sum_to_size``,
``is_nonzero``, ``is_same_size``, ``is_signed``, ``get_device``, ``pin_memory`` and ``is_pinned``."""
from __future__ import annotations

from ..tensor import Tensor, _normalize_dim, tensor_method
from ._base import sum_to

__all__: list = []  # methods only: no top-level functions


@tensor_method()
def unfold(self, dimension: int, size: int, step: int) -> Tensor:
    """A view of every window of ``size`` elements along ``dimension``, ``step`` apart: that dimension becomes the
    number of windows and a new last dimension of ``size`` holds each window (differentiable, no copy)."""
    shape, strides = list(self.shape), list(self.stride())
    if self.ndim == 0:
        shape, strides = [1], [1]
    d = _normalize_dim(dimension, self.ndim)
    if size > shape[d]:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {shape[d]} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    shape[d] = (shape[d] - size) // step + 1
    new_strides = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    return self.as_strided(shape + [size], new_strides, self.storage_offset())


@tensor_method()
def fill_diagonal_(self, fill_value, wrap: bool = False) -> Tensor:
    """Write ``fill_value`` on the main diagonal, in place. A tall matrix with ``wrap=True`` starts the diagonal
    again after every ``N + 1`` rows, as in NumPy's ``fill_diagonal``; beyond 2-D all dimensions must be equal."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    if wrap and self.ndim == 2:  # the row-major positions 0, N+1, 2(N+1), ... of the whole matrix
        rows, cols = self.shape
        positions = range(0, rows * cols, cols + 1)
        index = ([p // cols for p in positions], [p % cols for p in positions])
    else:
        index = (list(range(n)),) * self.ndim
    self[tuple(_index_tensor(i) for i in index)] = fill_value  # indexed assignment: views and autograd as usual
    return self


def _index_tensor(values):
    from .creation import tensor
    from ..dtypes import int64
    return tensor(values, dtype=int64)


@tensor_method()
def sum_to_size(self, *size) -> Tensor:
    """This tensor summed down to ``size``, which it must be expandable from (the reverse of ``expand``)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    lead = self.ndim - len(size)
    if lead < 0 or any(s != 1 and s != g for s, g in zip(size, self.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(self.shape)}}}.")
    return sum_to(self, tuple(size))


@tensor_method()
def is_nonzero(self) -> bool:
    """Whether this one-element tensor is not zero."""
    if self.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if self.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self._data.reshape(()) != 0)


@tensor_method()
def is_same_size(self, other: Tensor) -> bool:
    """Whether ``other`` has this tensor's shape."""
    return tuple(self.shape) == tuple(other.shape)


@tensor_method()
def is_signed(self) -> bool:
    """Whether the dtype holds negative numbers (every float and complex dtype, and the signed integers)."""
    return self._data.dtype.kind in "ifc"


@tensor_method()
def get_device(self) -> int:
    """The GPU index of the tensor, -1 on the CPU."""
    dev = self.device
    return -1 if dev.type == "cpu" else (dev.index or 0)


@tensor_method()
def is_pinned(self, device=None) -> bool:
    """Whether the tensor sits in page-locked memory for GPU copies: never in ember."""
    return False


@tensor_method()
def pin_memory(self, device=None) -> Tensor:
    """Page-lock the tensor for fast GPU copies; like a CPU-only PyTorch, an error without an accelerator."""
    from .. import accelerator
    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self
