"""``ember.testing``: assert_close, assert_allclose and make_tensor behave as ``torch.testing`` does.

Every expected message below was measured on PyTorch 2.13.0+cpu (``torch.testing`` in a separate venv) and copied
character for character; only ``torch.`` became ``ember.`` where PyTorch prints a dtype, a ``Size`` or a class.
"""
import math
from collections import OrderedDict

import numpy as np
import pytest

import ember as em
from ember.core import testing
from fake_device import FakeDeviceArray, fake_device, to_device

T = em.tensor
TENSOR = "<class 'ember.core.tensor.Tensor'>"


def close_error(actual, expected, **kwargs):
    """The exception assert_close raises (failing the test when it raises none)."""
    with pytest.raises(Exception) as info:
        testing.assert_close(actual, expected, **kwargs)
    return info.value


def lines(*parts):
    return "\n".join(parts)


# -------------------------------------------------------------------------------------------- value mismatches
# (inputs, keyword arguments, message): all AssertionError, measured on PyTorch 2.13
VALUE_CASES = {
    "float32": (lambda: (T([1., 2., 3.]), T([1., 2.5, 3.])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 3 (33.3%)",
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)")),
    "float64": (lambda: (T([1., 2., 3.], dtype=em.float64), T([1., 2.1, 3.], dtype=em.float64)), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 3 (33.3%)",
        "Greatest absolute difference: 0.10000000000000009 at index (1,) (up to 1e-07 allowed)",
        "Greatest relative difference: 0.04761904761904766 at index (1,) (up to 1e-07 allowed)")),
    "float16": (lambda: (T([1., 2., 3.], dtype=em.float16), T([1., 2.1, 3.], dtype=em.float16)), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 3 (33.3%)",
        "Greatest absolute difference: 0.099609375 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.047454833984375 at index (1,) (up to 0.001 allowed)")),
    "complex64": (lambda: (T([1 + 1j, 2.]), T([1 + 1j, 2. + 0.5j])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.24253563582897186 at index (1,) (up to 1.3e-06 allowed)")),
    # NumPy's complex64 abs gives 0.8161494731903076 here; PyTorch's (and ember's) rounds correctly
    "complex64_abs_rounding": (lambda: (T([1.3 + 1.7j, 2.1 - 0.3j]), T([1.3 + 1.7j, 2.2 + 0.51j])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.8161495327949524 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.361393541097641 at index (1,) (up to 1.3e-06 allowed)")),
    "complex128": (lambda: (T([1 + 1j, 2.], dtype=em.complex128), T([1 + 1j, 2. + 0.5j], dtype=em.complex128)), {},
                   lines("Tensor-likes are not close!", "",
                         "Mismatched elements: 1 / 2 (50.0%)",
                         "Greatest absolute difference: 0.5 at index (1,) (up to 1e-07 allowed)",
                         "Greatest relative difference: 0.24253562503633297 at index (1,) (up to 1e-07 allowed)")),
    "int64_exact": (lambda: (T([1, 2, 3]), T([1, 5, 4])), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 2 / 3 (66.7%)",
        "Greatest absolute difference: 3 at index (1,)",
        "Greatest relative difference: 0.6000000238418579 at index (1,)")),
    "int64_zero_expected": (lambda: (T([1, 2, 3]), T([0, 5, 4])), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 3 / 3 (100.0%)",
        "Greatest absolute difference: 3 at index (1,)",
        "Greatest relative difference: inf at index (0,)")),
    "int64_with_tolerances": (lambda: (T([1, 2, 3]), T([1, 5, 4])), dict(rtol=0.1, atol=1), lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 3 (33.3%)",
        "Greatest absolute difference: 3 at index (1,) (up to 1 allowed)",
        "Greatest relative difference: 0.6000000238418579 at index (1,) (up to 0.1 allowed)")),
    "uint8": (lambda: (T([1, 2], dtype=em.uint8), T([3, 2], dtype=em.uint8)), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 2 at index (0,)",
        "Greatest relative difference: 0.6666666865348816 at index (0,)")),
    "int8_widened_to_int64": (lambda: (T([-128], dtype=em.int8), T([127], dtype=em.int8)), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 255 at index (0,)",
        "Greatest relative difference: 2.007874011993408 at index (0,)")),
    "int64_difference_wraps": (lambda: (T([2 ** 62]), T([-2 ** 62])), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: -9223372036854775808 at index (0,)",
        "Greatest relative difference: -2.0 at index (0,)")),
    "bool": (lambda: (T([True, False]), T([True, True])), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 1 at index (1,)",
        "Greatest relative difference: 1.0 at index (1,)")),
    "bool_false_expected": (lambda: (T([True, True]), T([False, True])), {}, lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 1 at index (0,)",
        "Greatest relative difference: inf at index (0,)")),
    "nan_is_not_nan": (lambda: (T([1., math.nan]), T([1., math.nan])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)")),
    "first_nan_is_reported": (lambda: (T([1., math.nan, 5., math.nan]), T([1., 2., 3., 4.])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 3 / 4 (75.0%)",
        "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)")),
    "nan_against_number_with_equal_nan": (lambda: (T([math.nan]), T([1.])), dict(equal_nan=True), lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: nan at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)")),
    "opposite_infinities": (lambda: (T([1., math.inf]), T([1., -math.inf])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: inf at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)")),
    "infinity_against_finite": (lambda: (T([1., math.inf]), T([1., 2.])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: inf at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)")),
    "zero_expected": (lambda: (T([1., 2.]), T([1., 0.])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: inf at index (1,) (up to 1.3e-06 allowed)")),
    "2d_indices": (lambda: (em.zeros(2, 3), T([[0., 0, 0], [0, 1, 2]])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 2 / 6 (33.3%)",
        "Greatest absolute difference: 2.0 at index (1, 2) (up to 1e-05 allowed)",
        "Greatest relative difference: 1.0 at index (1, 1) (up to 1.3e-06 allowed)")),
    "ties_take_the_first": (lambda: (em.zeros(4), T([1., 2, 2, 1])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 4 / 4 (100.0%)",
        "Greatest absolute difference: 2.0 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)")),
    "percentage_rounds_to_zero": (lambda: (em.zeros(3000), T([1.] + [0.] * 2999)), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 3000 (0.0%)",
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: 1.0 at index (0,) (up to 1.3e-06 allowed)")),
    "zero_tolerances_say_equal": (lambda: (T([1., 2.]), T([1., 2.5])), dict(rtol=0, atol=0), lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.5 at index (1,)",
        "Greatest relative difference: 0.20000000298023224 at index (1,)")),
    "user_tolerances_printed_as_given": (lambda: (T([1., 2.]), T([1., 2.5])), dict(rtol=0, atol=0.1), lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.5 at index (1,) (up to 0.1 allowed)",
        "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 0 allowed)")),
    "promoted_without_dtype_check": (lambda: (T([1., 2.]), T([1., 2.01], dtype=em.float64)),
                                     dict(check_dtype=False), lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.009999999999999787 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.004975124378109347 at index (1,) (up to 1.3e-06 allowed)")),
    "int_promoted_to_complex": (lambda: (T([1, 2]), T([1, 2 + 1j])), dict(check_dtype=False), lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.4472135901451111 at index (1,) (up to 1.3e-06 allowed)")),
    "numpy_arrays": (lambda: (np.array([1., 2.]), np.array([1., 2.1])), {}, lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.10000000000000009 at index (1,) (up to 1e-07 allowed)",
        "Greatest relative difference: 0.04761904761904766 at index (1,) (up to 1e-07 allowed)")),
    # 0-dim tensors report as scalars, with differences computed on the Python values
    "0d_float32": (lambda: (T(0.1), T(0.2)), {}, lines(
        "Scalars are not close!", "",
        "Expected 0.20000000298023224 but got 0.10000000149011612.",
        "Absolute difference: 0.10000000149011612 (up to 1e-05 allowed)",
        "Relative difference: 0.5 (up to 1.3e-06 allowed)")),
    "0d_float16": (lambda: (T(0.1, dtype=em.float16), T(0.2, dtype=em.float16)), {}, lines(
        "Scalars are not close!", "",
        "Expected 0.199951171875 but got 0.0999755859375.",
        "Absolute difference: 0.0999755859375 (up to 1e-05 allowed)",
        "Relative difference: 0.5 (up to 0.001 allowed)")),
    "0d_nan": (lambda: (T(math.nan), T(math.nan)), {}, lines(
        "Scalars are not close!", "",
        "Expected nan but got nan.",
        "Absolute difference: nan (up to 1e-05 allowed)",
        "Relative difference: nan (up to 1.3e-06 allowed)")),
    "0d_int": (lambda: (T(1), T(3)), {}, lines(
        "Scalars are not equal!", "",
        "Expected 3 but got 1.",
        "Absolute difference: 2",
        "Relative difference: 0.6666666666666666")),
    "0d_complex": (lambda: (T(1 + 2j), T(1 + 3j)), {}, lines(
        "Scalars are not close!", "",
        "Expected (1+3j) but got (1+2j).",
        "Absolute difference: 1.0 (up to 1e-05 allowed)",
        "Relative difference: 0.31622776601683794 (up to 1.3e-06 allowed)")),
    "0d_bool": (lambda: (T(True), T(False)), {}, lines(
        "Scalars are not equal!", "",
        "Expected False but got True.",
        "Absolute difference: 1",
        "Relative difference: inf")),
    "0d_numpy_zero_expected": (lambda: (np.array(1.), np.array(0.)), {}, lines(
        "Scalars are not close!", "",
        "Expected 0.0 but got 1.0.",
        "Absolute difference: 1.0 (up to 1e-07 allowed)",
        "Relative difference: inf (up to 1e-07 allowed)")),
    # Python scalars count as int64 / float64 / complex128
    "python_float": (lambda: (1.0, 1.1), {}, lines(
        "Scalars are not close!", "",
        "Expected 1.1 but got 1.0.",
        "Absolute difference: 0.10000000000000009 (up to 1e-07 allowed)",
        "Relative difference: 0.09090909090909098 (up to 1e-07 allowed)")),
    "python_int": (lambda: (1, 2), {}, lines(
        "Scalars are not equal!", "",
        "Expected 2 but got 1.",
        "Absolute difference: 1",
        "Relative difference: 0.5")),
    "python_int_and_float": (lambda: (1, 1.5), dict(check_dtype=False), lines(
        "Scalars are not close!", "",
        "Expected 1.5 but got 1.",
        "Absolute difference: 0.5 (up to 1e-07 allowed)",
        "Relative difference: 0.3333333333333333 (up to 1e-07 allowed)")),
    "python_complex": (lambda: (1 + 1j, 1 + 2j), {}, lines(
        "Scalars are not close!", "",
        "Expected (1+2j) but got (1+1j).",
        "Absolute difference: 1.0 (up to 1e-07 allowed)",
        "Relative difference: 0.4472135954999579 (up to 1e-07 allowed)")),
    "python_inf": (lambda: (math.inf, 1.0), {}, lines(
        "Scalars are not close!", "",
        "Expected 1.0 but got inf.",
        "Absolute difference: inf (up to 1e-07 allowed)",
        "Relative difference: inf (up to 1e-07 allowed)")),
    "numpy_scalars_become_python_numbers": (lambda: (np.float32(1.0), np.float32(1.5)), {}, lines(
        "Scalars are not close!", "",
        "Expected 1.5 but got 1.0.",
        "Absolute difference: 0.5 (up to 1e-07 allowed)",
        "Relative difference: 0.3333333333333333 (up to 1e-07 allowed)")),
}


@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_value_mismatch_messages_match_pytorch(name):
    make_inputs, kwargs, message = VALUE_CASES[name]
    error = close_error(*make_inputs(), **kwargs)
    assert type(error) is AssertionError
    assert str(error) == message


# -------------------------------------------------------------------------------------------- passing cases
PASSING = [
    ("equal", lambda: (T([1., 2., 3.]), T([1., 2., 3.])), {}),
    ("nan_with_equal_nan", lambda: (T([1., math.nan]), T([1., math.nan])), dict(equal_nan=True)),
    ("complex_nan_in_either_part", lambda: (T([complex(math.nan, 1)]), T([complex(1, math.nan)])),
     dict(equal_nan=True)),
    ("same_infinities", lambda: (T([1., math.inf, -math.inf]), T([1., math.inf, -math.inf])), {}),
    ("empty", lambda: (em.empty(0), em.empty(0)), {}),
    ("strides_ignored_by_default", lambda: (em.ones(2, 3).t(), em.ones(3, 2)), {}),
    ("parameter_and_tensor", lambda: (em.nn.Parameter(T([1.])), T([1.])), {}),
    ("requires_grad", lambda: (T([1.], requires_grad=True), T([1.])), {}),
    ("promoted_float16", lambda: (T([1., 2.], dtype=em.float16), T([1., 2.002])), dict(check_dtype=False)),
    ("looser_tolerance_wins", lambda: (T([1., 2.], dtype=em.float16), T([1., 2.001], dtype=em.float64)),
     dict(check_dtype=False)),
    ("int_with_atol", lambda: (T([10, 20, 30]), T([11, 21, 31])), dict(rtol=0.0, atol=1)),
    ("numpy", lambda: (np.array([1., 2.]), np.array([1., 2.])), {}),
    ("sequence_types_may_differ", lambda: ([T([1.]), 2.0, np.array(3.0)], (T([1.]), 2.0, np.array(3.0))), {}),
    ("mapping_types_and_order_may_differ", lambda: (OrderedDict(a=T(1.), b=2.0), {"b": 2.0, "a": T(1.)}), {}),
    ("empty_sequences", lambda: ([], ()), {}),
    ("empty_mappings", lambda: ({}, {}), {}),
    ("none", lambda: (None, None), {}),
    ("bool_and_numpy_bool", lambda: (True, np.bool_(True)), {}),
    ("python_float_within_1e-7", lambda: (1.0, 1.0 + 1e-8), {}),
    ("python_nan", lambda: (math.nan, math.nan), dict(equal_nan=True)),
    ("python_inf", lambda: (math.inf, math.inf), {}),
    ("int_and_float_unchecked", lambda: (1, 1.0), dict(check_dtype=False)),
    ("numpy_scalar_and_float", lambda: (np.float32(1.0), 1.0), {}),
    ("numpy_complex_and_complex", lambda: (np.complex64(1 + 1j), 1 + 1j), {}),
    ("size_is_a_sequence", lambda: (em.Size([2, 3]), (2, 3)), {}),
    ("tensor_tolerances", lambda: (T([1.]), T([1.1])), dict(rtol=T(0.5), atol=T(0.))),
]


@pytest.mark.parametrize("name, make_inputs, kwargs", PASSING, ids=[p[0] for p in PASSING])
def test_close_inputs_pass(name, make_inputs, kwargs):
    testing.assert_close(*make_inputs(), **kwargs)


# -------------------------------------------------------------------------------------------- tolerance boundaries
def test_float32_default_tolerance_boundary():
    # allowed: 1e-5 + 1.3e-6 * 1.0
    testing.assert_close(T([1.0 + 1.1e-5]), T([1.0]))
    error = close_error(T([1.0 + 1.2e-5]), T([1.0]))
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 1.2040138244628906e-05 at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: 1.2040138244628906e-05 at index (0,) (up to 1.3e-06 allowed)")


def test_float64_default_tolerance_boundary():
    testing.assert_close(T([1.0 + 1.9e-7], dtype=em.float64), T([1.0], dtype=em.float64))
    error = close_error(T([1.0 + 2.1e-7], dtype=em.float64), T([1.0], dtype=em.float64))
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 2.1000000005599873e-07 at index (0,) (up to 1e-07 allowed)",
        "Greatest relative difference: 2.1000000005599873e-07 at index (0,) (up to 1e-07 allowed)")


def test_float16_boundary_is_decided_in_half_precision():
    # |a - e| = 0.0078125 exceeds 1e-5 + 1e-3 * 7.80078125 in exact arithmetic, but PyTorch rounds the allowed error
    # to half (0.0078125) and passes; the same values in float64 fail
    a, e = -7.80859375, -7.80078125
    testing.assert_close(T([a], dtype=em.float16), T([e], dtype=em.float16))
    testing.assert_close(T([0.05108642578125], dtype=em.float16), T([0.051025390625], dtype=em.float16))
    error = close_error(T([a], dtype=em.float64), T([e], dtype=em.float64), rtol=1e-3, atol=1e-5)
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 0.0078125 at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.00100150225338007 at index (0,) (up to 0.001 allowed)")
    error = close_error(T([-7.82421875], dtype=em.float16), T([e], dtype=em.float16))
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 0.0234375 at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.0030040740966796875 at index (0,) (up to 0.001 allowed)")


def test_integers_with_tolerances_are_measured_in_float32():
    testing.assert_close(T([100, 200]), T([101, 202]), rtol=0.01, atol=0)  # 2 <= 0.01 * 202 just inside
    error = close_error(T([100, 200]), T([101, 203]), rtol=0.01, atol=0)
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 3 at index (1,) (up to 0 allowed)",
        "Greatest relative difference: 0.014778325334191322 at index (1,) (up to 0.01 allowed)")
    # float32 cannot tell 2**24 + 1 from 2**24, and uint8 / int8 differences do not wrap around
    testing.assert_close(T([2 ** 24 + 1]), T([2 ** 24]), rtol=0, atol=0.5)
    testing.assert_close(T([32], dtype=em.uint8), T([34], dtype=em.uint8), rtol=0.1, atol=0)
    testing.assert_close(T([-128], dtype=em.int8), T([127], dtype=em.int8), rtol=0, atol=1000)
    with pytest.raises(AssertionError):
        testing.assert_close(T([100], dtype=em.int8), T([-100], dtype=em.int8), rtol=0, atol=100)


def test_bool_tensors_with_tolerances():
    testing.assert_close(T([True, False]), T([True, True]), rtol=0, atol=1)
    error = close_error(T([True, False]), T([True, True]), rtol=0, atol=0.5)
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 1 at index (1,) (up to 0.5 allowed)",
        "Greatest relative difference: 1.0 at index (1,) (up to 0 allowed)")


# -------------------------------------------------------------------------------------------- attribute checks
def test_shape_mismatch():
    assert str(close_error(T([1., 2.]), T([1., 2., 3.]))) == \
        "The values for attribute 'shape' do not match: ember.Size([2]) != ember.Size([3])."
    assert str(close_error(em.empty(0, 3), em.empty(0))) == \
        "The values for attribute 'shape' do not match: ember.Size([0, 3]) != ember.Size([0])."


def test_dtype_mismatch_and_its_check():
    error = close_error(T([1., 2.]), T([1., 2.], dtype=em.float64))
    assert type(error) is AssertionError
    assert str(error) == "The values for attribute 'dtype' do not match: ember.float32 != ember.float64."
    testing.assert_close(T([1., 2.]), T([1., 2.], dtype=em.float64), check_dtype=False)


def test_stride_is_checked_only_on_request():
    error = close_error(em.ones(2, 3).t(), em.ones(3, 2), check_stride=True)
    assert str(error) == "The values for attribute 'stride()' do not match: (1, 3) != (2, 1)."
    error = close_error(T(1.).expand(3), em.ones(3), check_stride=True)
    assert str(error) == "The values for attribute 'stride()' do not match: (0,) != (1,)."
    error = close_error(np.ones((3, 2)).T, np.ones((2, 3)), check_stride=True)
    assert str(error) == "The values for attribute 'stride()' do not match: (1, 2) != (3, 1)."


def test_device_check_on_a_fake_gpu_without_numpy_calls_on_device_data():
    # no GPU in the reference venv: this message follows PyTorch's template with str(device), "cuda:0" as in PyTorch
    with fake_device():
        gpu = to_device(T([1., 2., 3.]))
        error = close_error(gpu, T([1., 2., 3.]))
        assert str(error) == "The values for attribute 'device' do not match: cuda:0 != cpu."
        testing.assert_close(gpu, T([1., 2., 3.]), check_device=False)  # moved to the CPU and compared
        error = close_error(gpu, to_device(T([1., 2.5, 3.])))
        assert "Greatest absolute difference: 0.5 at index (1,)" in str(error)
        assert FakeDeviceArray.direct_calls == []


# -------------------------------------------------------------------------------------------- scalars and types
def test_python_scalar_type_checks():
    error = close_error(1, 1.0)
    assert type(error) is AssertionError
    assert str(error) == "The (d)types do not match: <class 'int'> != <class 'float'>."
    assert str(close_error(True, False)) == "Booleans mismatch: True is not False"
    assert str(close_error(np.bool_(True), False)) == "Booleans mismatch: True is not False"
    assert str(close_error(None, 1)) == "None mismatch: None is not 1"
    assert str(close_error(T(1.), None)) == "None mismatch: 1.0 is not None"  # a 0-dim tensor formats as its value


def test_bool_against_int_is_pytorchs_internal_error():
    error = close_error(True, 1)
    assert type(error) is RuntimeError
    assert str(error).startswith("Originating a NumberPair() at item  with\n\nbool(): True\n\nand\n\nint(): 1\n\n"
                                 "resulted in the unexpected exception above.")
    assert isinstance(error.__cause__, KeyError)


@pytest.mark.parametrize("make_inputs, types", [
    (lambda: (T([1.]), np.array([1.], dtype=np.float32)), f"{TENSOR} and <class 'numpy.ndarray'>"),
    (lambda: (np.array([1.]), T([1.])), f"<class 'numpy.ndarray'> and {TENSOR}"),
    (lambda: (T(1.), 1.0), f"{TENSOR} and <class 'float'>"),
    (lambda: (1.0, T(1.)), f"<class 'float'> and {TENSOR}"),
    (lambda: ([1., 2.], T([1., 2.])), f"<class 'list'> and {TENSOR}"),
    (lambda: ({"a": 1}, [1]), "<class 'dict'> and <class 'list'>"),
    (lambda: ("a", "a"), "<class 'str'> and <class 'str'>"),
    (lambda: ({1, 2}, {1, 2}), "<class 'set'> and <class 'set'>"),
    (lambda: (object(), object()), "<class 'object'> and <class 'object'>"),
    # torch.as_tensor refuses negative strides and non-native byte order
    (lambda: (np.array([1., 2.])[::-1], np.array([1., 2.])[::-1]), "<class 'numpy.ndarray'> and <class 'numpy.ndarray'>"),
    (lambda: (np.array([1.], dtype=">f4"), np.array([1.], dtype=">f4")),
     "<class 'numpy.ndarray'> and <class 'numpy.ndarray'>"),
])
def test_unrelated_types_have_no_comparison_pair(make_inputs, types):
    error = close_error(*make_inputs())
    assert type(error) is TypeError
    assert str(error) == f"No comparison pair was able to handle inputs of type {types}."


def test_allow_subclasses_false_requires_the_same_type():
    error = close_error(em.nn.Parameter(T([1.])), T([1.]), allow_subclasses=False)
    assert type(error) is TypeError
    assert str(error) == ("No comparison pair was able to handle inputs of type "
                          f"<class 'ember.core.nn.parameter.Parameter'> and {TENSOR}.")


# -------------------------------------------------------------------------------------------- sequences, mappings
def test_failure_in_a_sequence_names_the_item():
    error = close_error([T(1.), T([1., 2.])], [T(1.), T([1., 3.])])
    assert str(error) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 1.0 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.3333333432674408 at index (1,) (up to 1.3e-06 allowed)", "",
        "The failure occurred for item [1]")


def test_nested_path_uses_key_reprs():
    error = close_error([1., [2., {"a": 3.}]], [1., [2., {"a": 3.5}]])
    assert str(error) == lines(
        "Scalars are not close!", "",
        "Expected 3.5 but got 3.0.",
        "Absolute difference: 0.5 (up to 1e-07 allowed)",
        "Relative difference: 0.14285714285714285 (up to 1e-07 allowed)", "",
        "The failure occurred for item [1][1]['a']")


def test_sequence_length_mismatch_ignores_msg():
    for kwargs in ({}, dict(msg="custom"), dict(msg=lambda m: "X" + m)):
        error = close_error([1, 2], [1, 2, 3], **kwargs)
        assert type(error) is AssertionError
        assert str(error) == "The length of the sequences mismatch: 2 != 3"


def test_structure_is_checked_before_any_value():
    # item [0] differs in value, but the walk meets item [1]'s length mismatch first
    error = close_error([1., [1, 2]], [2., [1]])
    assert str(error) == "The length of the sequences mismatch: 2 != 1\n\nThe failure occurred for item [1]"


def test_mapping_key_mismatch_lists_sorted_keys():
    error = close_error({"a": 1, "b": 2, "c": 3}, {"a": 1, "d": 2, "e": 3})
    assert type(error) is AssertionError
    assert str(error) == lines("The keys of the mappings do not match:",
                               "Missing keys in the actual mapping: ['d', 'e']",
                               "Additional keys in the actual mapping: ['b', 'c']")


def test_mapping_items_are_compared_in_sorted_key_order():
    error = close_error({"b": 1.0, "a": 2.0}, {"b": 5.0, "a": 3.0})
    assert str(error).endswith("The failure occurred for item ['a']")
    error = close_error({1: 1, 0: 2}, {1: 1, 0: 3})
    assert str(error) == lines("Scalars are not equal!", "", "Expected 3 but got 2.", "Absolute difference: 1",
                               "Relative difference: 0.3333333333333333", "", "The failure occurred for item [0]")


def test_sequences_of_python_ints_compare_item_by_item():
    error = close_error(b"ab", b"ac")
    assert str(error) == lines("Scalars are not equal!", "", "Expected 99 but got 98.", "Absolute difference: 1",
                               "Relative difference: 0.010101010101010102", "", "The failure occurred for item [1]")


# -------------------------------------------------------------------------------------------- msg
def test_msg_string_replaces_everything():
    assert str(close_error(T([1.]), T([2.]), msg="boom")) == "boom"
    assert str(close_error([T([1.]), T([1.])], [T([1.]), T([2.])], msg="boom")) == "boom"  # no item suffix
    assert str(close_error(None, 1, msg="x")) == "x"


def test_msg_callable_receives_the_full_message():
    error = close_error([T([1.]), T([1.])], [T([1.]), T([2.])], msg=lambda m: f"Header\n{m}\nFooter")
    assert str(error) == lines(
        "Header", "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.5 at index (0,) (up to 1.3e-06 allowed)", "",
        "The failure occurred for item [1]", "Footer")
    error = close_error(T([1.]), T([1], dtype=em.int64), msg=lambda m: "<" + m + ">")
    assert str(error) == "<The values for attribute 'dtype' do not match: ember.float32 != ember.int64.>"


# -------------------------------------------------------------------------------------------- bad arguments
def test_rtol_and_atol_go_together():
    error = close_error(T([1.]), T([1.]), rtol=1e-3)
    assert type(error) is ValueError
    assert str(error) == "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."
    error = close_error(T([1.]), T([1.]), atol=1e-3, msg="ignored")
    assert str(error) == "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol."
    error = close_error([T([1.])], [T([1.])], atol=1e-3)
    assert str(error) == ("Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.\n\n"
                          "The failure occurred for item [0]")
    testing.assert_close(True, True, atol=1e-3)  # booleans and None never look at tolerances
    testing.assert_close(None, None, atol=1e-3)


@pytest.mark.parametrize("kwargs, cause", [
    (dict(rtol=-1, atol=-1), (RuntimeError, "rtol must be greater than or equal to zero, but got -1")),
    (dict(rtol=0., atol=-0.5), (RuntimeError, "atol must be greater than or equal to zero, but got -0.5")),
    (dict(equal_nan="relaxed"), (TypeError, "isclose(): argument 'equal_nan' must be bool, not str")),
])
def test_invalid_isclose_arguments_surface_as_pytorchs_runtime_error(kwargs, cause):
    error = close_error(T([1.]), T([1.]), **kwargs)
    assert type(error) is RuntimeError
    rtol, atol = kwargs.get("rtol", 1.3e-06), kwargs.get("atol", 1e-05)
    assert str(error) == lines(
        "Comparing", "", "TensorLikePair(", "    id=(),", "    actual=tensor([1.]),", "    expected=tensor([1.]),",
        f"    rtol={rtol},", f"    atol={atol},", f"    equal_nan={kwargs.get('equal_nan', False)},",
        "    check_device=True,", "    check_dtype=True,", "    check_layout=True,", "    check_stride=False,", ")", "",
        "resulted in the unexpected exception above.")
    assert (type(error.__cause__), str(error.__cause__)) == cause


def test_negative_tolerance_on_python_numbers_just_fails():
    assert str(close_error(1.0, 1.5, rtol=-1., atol=0.)) == lines(
        "Scalars are not close!", "", "Expected 1.5 but got 1.0.", "Absolute difference: 0.5 (up to 0.0 allowed)",
        "Relative difference: 0.3333333333333333 (up to -1.0 allowed)")


# -------------------------------------------------------------------------------------------- assert_allclose
def allclose_error(*args, **kwargs):
    with pytest.warns(FutureWarning, match=r"`ember\.testing\.assert_allclose\(\)` is deprecated"):
        with pytest.raises(Exception) as info:
            testing.assert_allclose(*args, **kwargs)
    return info.value


def test_assert_allclose_is_deprecated_but_works():
    with pytest.warns(FutureWarning) as record:
        testing.assert_allclose(T([1., 2.]), T([1., 2.0001]))  # rtol 1e-4 for float32, looser than assert_close
    assert record[0].filename == __file__
    with pytest.warns(FutureWarning):
        testing.assert_allclose(T([math.nan]), T([math.nan]))  # equal_nan defaults to True
    with pytest.warns(FutureWarning):
        testing.assert_allclose(T([1, 2]), [1., 2.5])  # expected is built in actual's dtype: [1, 2]


def test_assert_allclose_messages():
    assert str(allclose_error(T([1., 2.]), T([1., 2.01]))) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.009999990463256836 at index (1,) (up to 1e-05 allowed)",
        "Greatest relative difference: 0.0049751196056604385 at index (1,) (up to 0.0001 allowed)")
    assert str(allclose_error(np.array([1., 2.]), np.array([1., 2.5]))) == lines(
        "Tensor-likes are not close!", "",
        "Mismatched elements: 1 / 2 (50.0%)",
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-08 allowed)",
        "Greatest relative difference: 0.2 at index (1,) (up to 1e-05 allowed)")
    assert str(allclose_error(T([1.]), T([2.]), msg="hello")) == "hello"
    assert str(allclose_error(T([1.]), T([2.]), 0.1, 0.1, False, "pos")) == "pos"
    assert str(allclose_error(1.0, 1.5)) == lines(
        "Scalars are not close!", "", "Expected 1.5 but got 1.0.", "Absolute difference: 0.5 (up to 1e-05 allowed)",
        "Relative difference: 0.3333333333333333 (up to 0.0001 allowed)")
    # complex has no entry in assert_allclose's table, so it compares exactly
    assert str(allclose_error(T([1 + 1j]), T([1 + 1.00001j]))) == lines(
        "Tensor-likes are not equal!", "",
        "Mismatched elements: 1 / 1 (100.0%)",
        "Greatest absolute difference: 1.0013580322265625e-05 at index (0,)",
        "Greatest relative difference: 7.080634986778023e-06 at index (0,)")
    error = allclose_error(T([1.]), T([2.]), rtol=0.1)
    assert type(error) is ValueError
    assert str(error) == "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol."


# -------------------------------------------------------------------------------------------- make_tensor
@pytest.mark.parametrize("dtype, low, high", [
    (em.bool, 0, 1), (em.uint8, 0, 9), (em.int8, -9, 9), (em.int16, -9, 9), (em.int32, -9, 9), (em.int64, -9, 9),
])
def test_make_tensor_default_integer_ranges(dtype, low, high):
    em.manual_seed(0)
    t = testing.make_tensor(2000, dtype=dtype, device="cpu")
    assert t.dtype == dtype and t.shape == (2000,) and not t.requires_grad
    expected = {False, True} if dtype is em.bool else set(range(low, high + 1))
    assert set(t.tolist()) == expected


@pytest.mark.parametrize("dtype", [em.float16, em.float32, em.float64, em.complex64, em.complex128])
def test_make_tensor_default_floating_range(dtype):
    em.manual_seed(0)
    t = testing.make_tensor(4000, dtype=dtype)
    assert t.dtype == dtype
    parts = [t.real, t.imag] if dtype.is_complex else [t]
    for part in parts:
        assert bool(((part >= -9) & (part < 9)).all()) and part.min().item() < -8 and part.max().item() > 8


def test_make_tensor_bounds_are_clamped_ceiled_and_never_reach_high():
    em.manual_seed(0)
    assert sorted(set(testing.make_tensor(1000, dtype=em.int64, low=0.5, high=2.5).tolist())) == [1, 2]
    assert set(testing.make_tensor(200, dtype=em.bool, low=1).tolist()) == {True}
    t = testing.make_tensor(3000, dtype=em.float16, low=-1, high=1)
    assert bool(((t >= -1) & (t < 1)).all())
    c = testing.make_tensor(1000, dtype=em.complex64, low=1, high=2)
    assert bool(((c.real >= 1) & (c.real < 2) & (c.imag >= 1) & (c.imag < 2)).all())
    for dtype, low, high in [(em.float64, -1e309, 1e309), (em.float32, -math.inf, math.inf)]:
        t = testing.make_tensor(300, dtype=dtype, low=low, high=high)  # clamped to the finite range, no inf
        assert bool(t.isfinite().all()) and t.abs().max().item() > 1e36
    t = testing.make_tensor(300, dtype=em.int64, low=-2 ** 70, high=2 ** 70)
    assert t.abs().max().item() > 2 ** 60


def test_make_tensor_shapes_and_layouts():
    assert testing.make_tensor(dtype=em.float32).shape == ()
    assert testing.make_tensor(dtype=em.int64).shape == ()
    assert testing.make_tensor([2, 3], dtype=em.float32).shape == (2, 3)
    assert testing.make_tensor(em.Size([2, 3]), dtype=em.float32).shape == (2, 3)
    assert testing.make_tensor(2, 3, dtype=em.float32, device="cpu").device == em.device("cpu")
    t = testing.make_tensor(2, 3, dtype=em.float32, noncontiguous=True)
    assert (t.shape, t.stride(), t.is_contiguous(), t.storage_offset()) == ((2, 3), (6, 2), False, 1)
    t = testing.make_tensor(4, 1, dtype=em.complex64, noncontiguous=True)
    assert (t.shape, t.stride(), t.is_contiguous(), t.storage_offset()) == ((4, 1), (2, 2), False, 1)
    assert testing.make_tensor(1, dtype=em.float32, noncontiguous=True).is_contiguous()  # fewer than two elements


def test_make_tensor_exclude_zero_and_requires_grad():
    assert testing.make_tensor(10, dtype=em.int64, low=0, high=1, exclude_zero=True).tolist() == [1] * 10
    assert testing.make_tensor(3, dtype=em.bool, low=0, high=1, exclude_zero=True).tolist() == [True] * 3
    with pytest.warns(FutureWarning, match=r"Passing `low==high` to `ember\.testing\.make_tensor`") as record:
        f = testing.make_tensor(3, dtype=em.float32, low=0, high=0, exclude_zero=True)
        c = testing.make_tensor(3, dtype=em.complex64, low=0, high=0, exclude_zero=True)
    assert record[0].filename == __file__
    assert f.tolist() == [em.finfo(em.float32).tiny] * 3
    assert c.tolist() == [complex(em.finfo(em.float32).tiny, 0)] * 3
    assert testing.make_tensor(3, dtype=em.float32, requires_grad=True).requires_grad
    assert testing.make_tensor(3, dtype=em.complex128, requires_grad=True).requires_grad


def test_make_tensor_repeats_under_a_seed():
    em.manual_seed(7)
    a = testing.make_tensor(5, dtype=em.float32)
    em.manual_seed(7)
    testing.assert_close(testing.make_tensor(5, dtype=em.float32), a)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(dtype=em.int64, low=2, high=2), ValueError, "`low` must be less than `high`, but got 2 >= 2"),
    (dict(dtype=em.float32, low=3.5, high=2.5), ValueError, "`low` must be less than `high`, but got 3.5 >= 2.5"),
    (dict(dtype=em.float32, low=math.nan), ValueError, "`low` and `high` cannot be NaN, but got low=nan and high=9"),
    (dict(dtype=em.int32, high=math.nan), ValueError, "`low` and `high` cannot be NaN, but got low=-9 and high=nan"),
    (dict(dtype=em.uint8, low=-10, high=-1), ValueError,
     "The value interval specified by `low` and `high` is [-10, -1), but ember.uint8 only supports [0, 256)"),
    (dict(dtype=em.int8, low=-1000, high=-200), ValueError,
     "The value interval specified by `low` and `high` is [-1000, -200), but ember.int8 only supports [-128, 128)"),
    (dict(dtype=em.float16, low=1e6, high=1e7), ValueError,
     "The value interval specified by `low` and `high` is [1000000.0, 10000000.0), but ember.float16 only supports "
     "[-65504.0, 65504.0)"),
    (dict(dtype=em.bool, low=2, high=3), ValueError,
     "The value interval specified by `low` and `high` is [2, 3), but ember.bool only supports [0, 2)"),
    (dict(dtype=em.int64, requires_grad=True), ValueError,
     "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=ember.int64"),
    (dict(dtype=em.bool, requires_grad=True), ValueError,
     "`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype=ember.bool"),
    (dict(dtype=em.float32, noncontiguous=True, memory_format="channels_last"), ValueError,
     "The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got noncontiguous=True and "
     "memory_format='channels_last'"),
    (dict(dtype=em.int64, low=0.2, high=0.5), RuntimeError,
     "random_ expects 'from' to be less than 'to', but got from=1 >= to=1"),
])
def test_make_tensor_errors(kwargs, error, message):
    with pytest.raises(error) as info:
        testing.make_tensor(3, **kwargs)
    assert str(info.value) == message


def test_make_tensor_rejects_a_non_dtype():
    for dtype in (None, "float32"):
        with pytest.raises(TypeError) as info:
            testing.make_tensor(3, dtype=dtype)
        assert str(info.value).startswith(f"The requested dtype '{dtype}' is not supported by "
                                          "ember.testing.make_tensor(). Pass one of the ember dtypes: ember.float16,")
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[-1\]"):
        testing.make_tensor(-1, dtype=em.float32)
