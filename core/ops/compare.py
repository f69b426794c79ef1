"""Comparison, logical and bitwise ops, and the ``isnan``/``allclose``/``equal`` family. None is differentiable."""
from __future__ import annotations

from ._base import Tensor, binary_arrays, broadcast_error, tensor_method, wrap

__all__ = ["eq", "ne", "gt", "ge", "lt", "le"]


def _compare(fn):
    def op(input, other):
        a, b = binary_arrays(input, other)
        try:
            return wrap(fn(a, b))
        except ValueError:
            raise broadcast_error(a.shape, getattr(b, "shape", ())) from None
    return op


eq = tensor_method("eq", "__eq__")(_compare(lambda a, b: a == b))
ne = tensor_method("ne", "__ne__", "not_equal")(_compare(lambda a, b: a != b))
gt = tensor_method("gt", "__gt__", "greater")(_compare(lambda a, b: a > b))
ge = tensor_method("ge", "__ge__", "greater_equal")(_compare(lambda a, b: a >= b))
lt = tensor_method("lt", "__lt__", "less")(_compare(lambda a, b: a < b))
le = tensor_method("le", "__le__", "less_equal")(_compare(lambda a, b: a <= b))
for _fn, _name in ((eq, "eq"), (ne, "ne"), (gt, "gt"), (ge, "ge"), (lt, "lt"), (le, "le")):
    _fn.__name__ = _name
    _fn.__doc__ = f"Elementwise ``{_name}`` comparison, broadcasting; returns a bool tensor."
Tensor.__hash__ = object.__hash__
