"""Differentiable ops by family. Importing this package binds every op as a Tensor method too.

Each module lists its public functions in ``__all__``; the union is re-exported as the ``ember`` tensor API.
"""
from . import (arithmetic, compare, complex, conversion, creation, index, inplace, math, products, reduce, shape,  # noqa
               softmax, sorting)

_MODULES = (arithmetic, compare, complex, conversion, creation, index, inplace, math, products, reduce, shape,
            softmax, sorting)

__all__ = []
for _m in _MODULES:
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)
