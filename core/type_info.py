"""``finfo`` and ``iinfo``: the numerical limits of ember's dtypes, with PyTorch's attributes and errors.

Attention code masks with ``finfo(dtype).min``, optimizers add ``finfo(dtype).eps``: the values are the machine
limits of the dtype, as NumPy reports them, exposed as Python numbers.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as dt

__all__ = ["finfo", "iinfo"]


class finfo:
    """Machine limits of a floating-point dtype (of its real part for a complex one); the default dtype when
    called without an argument. Attributes as PyTorch's: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (=
    ``smallest_normal``), ``resolution`` and ``dtype`` (the name)."""

    def __init__(self, type=None):
        d = dt.get_default_dtype() if type is None else dt.to_dtype(type)
        if d.is_complex:
            d = d.to_real()
        if not d.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(d.np)
        self.bits = int(info.bits)
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # PyTorch: 1e-3 for float16 (NumPy: its float16 rounding)
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype: ``bits``, ``max``, ``min`` and ``dtype`` (the name), as PyTorch's."""

    def __init__(self, type):
        d = dt.to_dtype(type)
        if d is dt.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.category != dt.INT:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(d.np)
        self.bits, self.max, self.min = int(info.bits), int(info.max), int(info.min)
        self.dtype = d.name

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"
