"""Dtypes and PyTorch's type-promotion rules (docs: "Type promotion" in torch tensor attributes).

Operands fall in three tiers: tensors with dimensions, zero-dim tensors, Python numbers. A lower tier changes the
result only when it brings a higher category (bool < integer < floating < complex); Python numbers count by
category alone (a float means the default float dtype).
"""
import numpy as np
import pytest

import ember as em
from ember.core import dtypes


def t(dtype, ndim=1):
    return em.ones(*([2] * ndim), dtype=dtype)


def zero_dim(dtype):
    return em.ones((), dtype=dtype)


@pytest.mark.parametrize("a,b,expected", [
    # Python scalars: category only
    (t(em.float32), 2.5, em.float32),
    (t(em.float16), 2.5, em.float16),
    (t(em.int64), 2.5, em.float32),
    (t(em.int32), 5, em.int32),
    (t(em.uint8), 5, em.uint8),
    (t(em.bool), 5, em.int64),
    (t(em.bool), 2.5, em.float32),
    (t(em.float32), 1j, em.complex64),
    (t(em.float64), 1j, em.complex128),
    (t(em.int64), True, em.int64),
    # zero-dim tensors: ignored within the same category ...
    (t(em.int32), zero_dim(em.int64), em.int32),
    (t(em.float32), zero_dim(em.float64), em.float32),
    (t(em.uint8), zero_dim(em.int64), em.uint8),
    # ... but a higher category participates with its own size
    (t(em.int64), zero_dim(em.float64), em.float64),
    (t(em.int32), zero_dim(em.float16), em.float16),
    (t(em.bool), zero_dim(em.int32), em.int32),
    (t(em.float32), zero_dim(em.complex128), em.complex64),  # complex keeps the tensor's float precision
    (t(em.float64), zero_dim(em.complex64), em.complex128),
    (t(em.int64), zero_dim(em.complex128), em.complex128),
    # tensors with dimensions: promote_types
    (t(em.int64), t(em.float16), em.float16),
    (t(em.uint8), t(em.int8), em.int16),
    (t(em.bool), t(em.bool), em.bool),
    (t(em.bool), t(em.uint8), em.uint8),
    (t(em.int32), t(em.int64), em.int64),
    (t(em.float32), t(em.float64), em.float64),
    (t(em.float32), t(em.complex64), em.complex64),
    (t(em.float64), t(em.complex64), em.complex128),
    (t(em.int16), t(em.uint8), em.int16),
    # two zero-dim tensors behave like dimensioned ones among themselves
    (zero_dim(em.int32), zero_dim(em.int64), em.int64),
    (zero_dim(em.float32), 2, em.float32),
])
def test_result_type_table(a, b, expected):
    assert em.result_type(a, b) is expected
    assert em.result_type(b, a) is expected


@pytest.mark.parametrize("a,b,expected", [
    (t(em.float32), 2.5, em.float32),
    (t(em.int64), 2.5, em.float32),
    (t(em.int64), zero_dim(em.float64), em.float64),
    (t(em.int32), zero_dim(em.int64), em.int32),
    (t(em.int64), t(em.float16), em.float16),
    (t(em.uint8), t(em.int8), em.int16),
    (t(em.bool), t(em.bool), em.bool),
    (t(em.float32), zero_dim(em.complex128), em.complex64),
])
def test_arithmetic_follows_the_table(a, b, expected):
    if a.dtype is em.bool and isinstance(b, em.Tensor) and b.dtype is em.bool:
        assert (a * b).dtype is expected  # bool + bool is logical; multiplication keeps bool
    else:
        assert (a + b).dtype is expected
        assert (b + a).dtype is expected


def test_three_operand_promotion_combines_tiers():
    # dimensioned int32, zero-dim int64, Python float: float beats both integer tiers -> default float
    assert em.result_type(t(em.int32), zero_dim(em.int64)) is em.int32
    assert dtypes.result_type(t(em.int32), zero_dim(em.int64), 2.5) is em.float32
    assert dtypes.result_type(t(em.int32), zero_dim(em.float64), 2.5) is em.float64


def test_numpy_scalars_count_by_category():
    assert em.result_type(t(em.int32), np.int64(3)) is em.int32
    assert em.result_type(t(em.int32), np.float64(3.0)) is em.float32
    assert em.result_type(t(em.int8), np.bool_(True)) is em.int8
    assert em.result_type(t(em.float32), np.complex64(1j)) is em.complex64


def test_default_dtype_drives_python_floats():
    em.set_default_dtype(em.float64)
    try:
        assert em.result_type(t(em.int64), 2.5) is em.float64
        assert em.result_type(t(em.float32), 2.5) is em.float32  # a float tensor keeps its own precision
        assert em.result_type(t(em.int64), 1j) is em.complex128
    finally:
        em.set_default_dtype(em.float32)
    assert em.get_default_dtype() is em.float32


@pytest.mark.parametrize("a,b,expected", [
    (em.int32, em.float32, em.float32),
    (em.uint8, em.int64, em.int64),
    (em.uint8, em.int8, em.int16),
    (em.int64, em.float16, em.float16),
    (em.bool, em.uint8, em.uint8),
    (em.float16, em.float64, em.float64),
    (em.complex64, em.float64, em.complex128),
    (em.complex128, em.float32, em.complex128),
    (em.int64, em.complex64, em.complex64),
])
def test_promote_types(a, b, expected):
    assert em.promote_types(a, b) is expected
    assert em.promote_types(b, a) is expected


def test_dtype_objects():
    assert repr(em.float32) == "ember.float32"
    assert em.float is em.float32 and em.double is em.float64 and em.long is em.int64 and em.half is em.float16
    assert em.int is em.int32 and em.short is em.int16 and em.cfloat is em.complex64
    assert em.float32.is_floating_point and not em.int64.is_floating_point
    assert em.complex64.is_complex and not em.float64.is_complex
    assert em.int8.is_signed and not em.uint8.is_signed and not em.bool.is_signed
    assert em.float32.itemsize == 4 and em.float16.itemsize == 2 and em.complex128.itemsize == 16
    assert em.float32.to_complex() is em.complex64 and em.complex128.to_real() is em.float64
    assert em.zeros(1, dtype=em.float64).dtype == em.float64
    assert em.zeros(1).dtype != em.float64


def test_to_dtype_accepts_aliases():
    assert dtypes.to_dtype("float32") is em.float32
    assert dtypes.to_dtype("torch.float64") is em.float64
    assert dtypes.to_dtype("ember.long") is em.int64
    assert dtypes.to_dtype(float) is em.float32
    assert dtypes.to_dtype(int) is em.int64
    assert dtypes.to_dtype(bool) is em.bool
    assert dtypes.to_dtype(complex) is em.complex64
    assert dtypes.to_dtype(np.float16) is em.float16
    assert dtypes.to_dtype(np.dtype(">f8")) is em.float64
    with pytest.raises(TypeError, match="dtype must be an ember dtype"):
        dtypes.to_dtype("float128")
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        dtypes.from_numpy_dtype(np.dtype("U3"))


def test_scalar_type_names_match_pytorch_kernels():
    names = {em.float16: "Half", em.float32: "Float", em.float64: "Double", em.int8: "Char", em.int16: "Short",
             em.int32: "Int", em.int64: "Long", em.uint8: "Byte", em.bool: "Bool", em.complex64: "ComplexFloat",
             em.complex128: "ComplexDouble"}
    for d, name in names.items():
        assert dtypes.scalar_type_name(d) == name
    assert dtypes.scalar_type_name(np.dtype(np.float32)) == "Float"


def test_dtypes_pickle_to_the_same_object():
    import pickle
    assert pickle.loads(pickle.dumps(em.float64)) is em.float64
