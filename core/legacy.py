"""The legacy tensor-type names: ``set_default_tensor_type`` (the pre-2.1 way to choose the default floating dtype,
kept as PyTorch keeps it) and ``typename``."""
from __future__ import annotations

import warnings

from . import dtypes as _dt

__all__ = ["set_default_tensor_type", "typename"]


def set_default_tensor_type(t) -> None:
    """Set the default floating-point type from a legacy tensor type: ``ember.FloatTensor``/``ember.DoubleTensor``
    or their names (``"torch.DoubleTensor"`` too). Deprecated, as in PyTorch 2.1: use ``set_default_dtype``."""
    warnings.warn("set_default_tensor_type() is deprecated as of PyTorch 2.1, please use set_default_dtype() "
                  "instead.", UserWarning, stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"set_default_tensor_type(t={t!r}): expected a tensor type such as ember.DoubleTensor or "
                        "'torch.DoubleTensor'")
    prefix, _, short = name.rpartition(".")
    if prefix.endswith("cuda"):
        raise RuntimeError(f"set_default_tensor_type({name!r}): no CUDA device is available in ember; use "
                           "'torch.FloatTensor' or 'torch.DoubleTensor'")
    from .tensor import _LEGACY_DTYPES
    dtype = _LEGACY_DTYPES.get(short)
    if dtype is None:
        raise TypeError(f"set_default_tensor_type({name!r}): invalid type; expected e.g. 'torch.FloatTensor' or "
                        "'torch.DoubleTensor'")
    if not dtype.is_floating_point:
        raise TypeError(f"set_default_tensor_type({name!r}): only floating-point types are supported as the "
                        "default type")
    _dt.set_default_dtype(dtype)


def typename(obj) -> str:
    """The type of ``obj`` as a string: a tensor's legacy type (``'ember.FloatTensor'``), else the class's qualified
    name (``'ember.core.nn.modules.linear.Linear'``, ``'int'`` for builtins)."""
    from .tensor import Tensor
    if isinstance(obj, Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in ("builtins", None) else f"{module}.{cls.__qualname__}"
