"""Differentiable ops by family. Importing this package binds every op as a Tensor method too.

Each module lists its public functions in ``__all__``; the union is re-exported as the ``ember`` tensor API.
"""
from . import (arithmetic, clamp_where, compare, complex, conversion, creation, exp_log, gather_scatter, index,  # noqa
               inplace, products, reduce, rounding, shape, softmax, sorting, special, trig)

# (``math`` is not listed: it only re-exports the elementwise families clamp_where, exp_log, rounding, special, trig)
_MODULES = (arithmetic, clamp_where, compare, complex, conversion, creation, exp_log, gather_scatter, index, inplace,
            products, reduce, rounding, shape, softmax, sorting, special, trig)

__all__ = []
for _m in _MODULES:
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
        __all__.append(_name)
