"""Differentiable ops by family. Importing this package binds every op as a Tensor method too.

Each module lists its public functions in ``__all__``; the union is re-exported as the ``ember`` tensor API.
"""
from . import arithmetic, compare, conversion, creation, math, reduce, shape  # noqa: F401  (binds methods)

_MODULES = (arithmetic, compare, conversion, creation, math, reduce, shape)

__all__ = []
for _m in _MODULES:
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)
