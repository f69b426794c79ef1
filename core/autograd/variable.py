"""``Variable``: the pre-0.4 wrapper, kept as PyTorch 2.x keeps it (deprecated: tensors do everything it did).

``Variable(t)`` returns a tensor sharing ``t``'s data, cut from the graph, with ``requires_grad`` as given;
``isinstance(x, Variable)`` is True for every tensor, so old type checks keep passing.
"""
from __future__ import annotations

import warnings

from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """Deprecated: ``Variable(tensor, requires_grad=False)`` returns a tensor (sharing ``tensor``'s data) that
    requires grad as asked; ``.data``, ``.grad`` and ``.backward()`` are the tensor's own.

    Args:
        data (Tensor, optional): the tensor to wrap (default: an empty float tensor).
        requires_grad (bool): whether autograd records operations on the result.
        volatile (bool): removed in PyTorch 0.4; ignored with a warning (use ``ember.no_grad()``).
    """

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with ember.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if data is None:
            from ..ops import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out
