"""Data types and PyTorch's type-promotion rules.

An ember ``dtype`` wraps a NumPy dtype. Promotion follows PyTorch, not NumPy: operands fall into three tiers
(tensors with dimensions, zero-dim tensors, Python scalars), and a lower tier only changes the result when it
belongs to a higher *category* (bool < integer < floating < complex). So ``float32_tensor * 2.5`` stays float32 and
``int_tensor / 2`` gives the default float dtype.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool_",
    "complex64", "complex128", "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
    "from_numpy_dtype", "to_dtype", "scalar_type_name",
]

BOOL, INT, FLOAT, COMPLEX = 0, 1, 2, 3


class dtype:
    """The data type of a tensor, e.g. ``ember.float32``; compares equal only to itself."""

    __slots__ = ("name", "np", "category", "itemsize")

    def __init__(self, name: str, np_dtype, category: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize

    @property
    def is_floating_point(self) -> bool:
        """True for float16, float32 and float64."""
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        """True for complex64 and complex128."""
        return self.category == COMPLEX

    @property
    def is_signed(self) -> bool:
        """True unless the dtype is bool or uint8."""
        return self.name not in ("bool", "uint8")

    def to_complex(self) -> "dtype":
        """The complex dtype with this dtype's precision (float32 -> complex64)."""
        return {"float16": complex64, "float32": complex64, "float64": complex128}.get(self.name, self)

    def to_real(self) -> "dtype":
        """The real dtype of a complex dtype's parts (complex64 -> float32)."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def scalar_name(self) -> str:
        """PyTorch's C++ scalar-type name used in error messages (``Float``, ``Long``, ``ComplexDouble``...)."""
        return _SCALAR_NAMES[self.name]

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return (to_dtype, (self.name,))


float16 = dtype("float16", np.float16, FLOAT)
float32 = dtype("float32", np.float32, FLOAT)
float64 = dtype("float64", np.float64, FLOAT)
int8 = dtype("int8", np.int8, INT)
int16 = dtype("int16", np.int16, INT)
int32 = dtype("int32", np.int32, INT)
int64 = dtype("int64", np.int64, INT)
uint8 = dtype("uint8", np.uint8, INT)
bool_ = dtype("bool", np.bool_, BOOL)
complex64 = dtype("complex64", np.complex64, COMPLEX)
complex128 = dtype("complex128", np.complex128, COMPLEX)

_SCALAR_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}
ALL_DTYPES = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_, complex64, complex128)
_BY_NP = {d.np: d for d in ALL_DTYPES}
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update(half=float16, float=float32, double=float64, short=int16, int=int32, long=int64,
                cfloat=complex64, cdouble=complex128)

_default = [float32]

# PyTorch's C++ scalar-type names, used in its kernel errors ('"bitwise_and_cpu" not implemented for 'Float'').
_SCALAR_TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char", "int16": "Short",
                      "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble"}


def scalar_type_name(d) -> str:
    """PyTorch's C++ name of a dtype as it appears in kernel errors: ``'Float'`` for float32, ``'Long'`` for int64."""
    if not isinstance(d, dtype):
        d = from_numpy_dtype(d.dtype if hasattr(d, "dtype") else d)
    return _SCALAR_TYPE_NAMES[d.name]


def get_default_dtype() -> dtype:
    """Return the default floating-point dtype (float32 unless changed by :func:`set_default_dtype`)."""
    return _default[0]


def set_default_dtype(d: dtype) -> None:
    """Set the dtype that Python floats and floating factory functions produce (float32 or float64)."""
    d = to_dtype(d)
    if d.category != FLOAT:
        raise TypeError(f"set_default_dtype(): only floating-point types are supported as the default type, got {d}")
    _default[0] = d


def from_numpy_dtype(np_dtype) -> dtype:
    """Map a NumPy dtype to the ember dtype, raising ``TypeError`` for unsupported ones (e.g. strings)."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        pass
    try:
        return _BY_NP[np.dtype(np_dtype).newbyteorder("=")]
    except (KeyError, TypeError):
        allowed = ", ".join(d.name for d in ALL_DTYPES)
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}; the only supported types are: "
                        f"{allowed}") from None


def to_dtype(d) -> dtype:
    """Accept an ember dtype, a NumPy dtype, a Python type (float/int/bool/complex) or a name, return an ember dtype."""
    if isinstance(d, dtype):
        return d
    if d is float:
        return get_default_dtype()
    if d is int:
        return int64
    if d is bool:
        return bool_
    if d is complex:
        return get_default_dtype().to_complex()
    if isinstance(d, str):
        key = d.replace("ember.", "").replace("torch.", "")
        if key in _BY_NAME:
            return _BY_NAME[key]
        raise TypeError(f"dtype must be an ember dtype such as ember.float32, got the string {d!r}")
    try:
        return from_numpy_dtype(np.dtype(d))
    except TypeError:
        raise TypeError(f"dtype must be an ember dtype such as ember.float32, got {d!r}") from None


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's ``promote_types``: the smallest dtype both ``a`` and ``b`` can be cast to.

    Unlike NumPy, a higher category wins outright (int64 with float16 gives float16), and a float with a complex
    gives the complex type of the larger precision.
    """
    if a is b:
        return a
    ca, cb = a.category, b.category
    if ca == cb:
        return _BY_NP[np.promote_types(a.np, b.np)]
    if ca < cb:
        a, b, ca, cb = b, a, cb, ca
    if ca == COMPLEX and cb == FLOAT:
        return complex128 if (a is complex128 or b is float64) else complex64
    return a


def _scalar_dtype(value) -> dtype:
    # Python and NumPy scalars are "wrapped numbers" in PyTorch: only their category matters (bool, int64, the
    # default float or the default complex dtype), never their precision.
    tp = type(value)
    if tp is float:
        return get_default_dtype()
    if tp is int:
        return int64
    if isinstance(value, (bool, np.bool_)):
        return bool_
    if isinstance(value, numbers.Integral):
        return int64
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        return get_default_dtype().to_complex()
    return get_default_dtype()


def _combine(higher, lower):
    # PyTorch's combine_categories: a lower tier only matters if it brings a higher category.
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOAT else lower
    if higher.category == FLOAT:
        return higher
    if higher is bool_ or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether PyTorch's type promotion allows casting ``from_`` to ``to``: never to a lower category (float to
    integer, complex to float, anything but bool to bool); within a category, narrowing is allowed (int64 to
    int8, float64 to float16, and signed to unsigned integers)."""
    for pos, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {pos}) must be ember.dtype, not "
                            f"{type(value).__name__}")
    return from_.category <= to.category


def result_type(*operands) -> dtype:
    """The dtype PyTorch gives an op on ``operands`` (tensors, NumPy arrays or Python numbers)."""
    dim = zero = scalar = None
    for op in operands:
        if hasattr(op, "_data"):
            arr = op._data
            d = from_numpy_dtype(arr.dtype)
            if arr.ndim:
                dim = d if dim is None else promote_types(dim, d)
            else:
                zero = d if zero is None else promote_types(zero, d)
        elif isinstance(op, np.ndarray):
            d = from_numpy_dtype(op.dtype)
            dim = d if dim is None else promote_types(dim, d)
        else:
            d = _scalar_dtype(op)
            scalar = d if scalar is None else promote_types(scalar, d)
    return _combine(dim, _combine(zero, scalar))
