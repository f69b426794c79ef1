"""Comparison, logical, bitwise and floating-point classification ops, isclose/allclose/equal."""
import pytest

import ember as em

NAN, INF = float("nan"), float("inf")


# ------------------------------------------------------------------------------------------------- comparisons
def test_comparisons_with_tensors_and_scalars():
    x = em.tensor([1.0, 2.0, 3.0])
    y = em.tensor([3.0, 2.0, 1.0])
    assert (x == y).tolist() == [False, True, False]
    assert (x != y).tolist() == [True, False, True]
    assert (x > y).tolist() == [False, False, True]
    assert (x >= y).tolist() == [False, True, True]
    assert (x < y).tolist() == [True, False, False]
    assert (x <= y).tolist() == [True, True, False]
    assert (x > 2).tolist() == [False, False, True]
    assert (2 < x).tolist() == [False, False, True]  # reflected
    assert (2.0 >= x).tolist() == [True, True, False]
    assert (x == 2).dtype == em.bool


def test_function_and_method_forms_and_aliases():
    x = em.tensor([1, 2, 3])
    for names, expected in [(("eq",), [False, True, False]), (("ne", "not_equal"), [True, False, True]),
                            (("gt", "greater"), [False, False, True]), (("ge", "greater_equal"), [False, True, True]),
                            (("lt", "less"), [True, False, False]), (("le", "less_equal"), [True, True, False])]:
        for name in names:
            assert getattr(em, name)(x, 2).tolist() == expected
            assert getattr(x, name)(2).tolist() == expected


def test_comparison_promotes_operands():
    ints = em.tensor([2, 3])
    assert (ints == 2.5).tolist() == [False, False]
    assert (ints < 2.5).tolist() == [True, False]
    assert (ints == em.tensor([2.0, 3.5])).tolist() == [True, False]
    assert (em.tensor([True, False]) == 1).tolist() == [True, False]


def test_comparison_broadcasts_and_reports_mismatch():
    a = em.tensor([[1], [2]])
    b = em.tensor([1, 2, 3])
    assert (a == b).shape == (2, 3)
    assert (a == b).tolist() == [[True, False, False], [False, True, False]]
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\) at "
                                           r"non-singleton dimension 0"):
        em.eq(em.ones(3), em.ones(2))


def test_none_and_foreign_operands_follow_python_rules():
    x = em.tensor([1.0, 2.0])
    assert (x == None) is False  # noqa: E711  (PyTorch: comparing with None is False, not elementwise)
    assert (x != None) is True  # noqa: E711
    assert (x == "a") is False
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'str'"):
        x < "a"  # noqa: B015
    with pytest.raises(TypeError, match=r"eq\(\): argument 'other' \(position 2\) must be Tensor or Number, not "
                                        r"NoneType"):
        em.eq(x, None)
    with pytest.raises(TypeError, match=r"gt\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        em.gt([1.0], 0)


def test_tensors_stay_hashable():
    a, b = em.tensor([1.0]), em.tensor([1.0])
    assert len({a, b}) == 2
    assert {a: 1}[a] == 1


def test_complex_equality_works_but_ordering_does_not():
    z = em.tensor([1 + 1j, 2 + 0j])
    assert (z == em.tensor([1 + 1j, 2 + 1j])).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="\"gt_cpu\" not implemented for 'ComplexFloat'"):
        z > 0  # noqa: B015


def test_comparisons_are_not_differentiable():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    out = x > 1.5
    assert out.grad_fn is None and not out.requires_grad


def test_nan_compares_unequal():
    x = em.tensor([NAN, 1.0])
    assert (x == x).tolist() == [False, True]
    assert (x != x).tolist() == [True, False]


# ----------------------------------------------------------------------------------------------------- logical
def test_logical_ops_use_truthiness_and_return_bool():
    a = em.tensor([0.0, 1.5, -2.0, 0.0])
    b = em.tensor([0, 0, 3, 4])
    assert em.logical_and(a, b).tolist() == [False, False, True, False]
    assert em.logical_or(a, b).tolist() == [False, True, True, True]
    assert em.logical_xor(a, b).tolist() == [False, True, False, True]
    assert em.logical_not(a).tolist() == [True, False, False, True]
    assert a.logical_and(b).dtype == em.bool
    assert em.logical_and(em.tensor([[True], [False]]), em.tensor([True, False])).tolist() == [[True, False],
                                                                                              [False, False]]
    with pytest.raises(TypeError, match=r"logical_and\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        em.logical_and(a, 1)


# ----------------------------------------------------------------------------------------------------- bitwise
def test_bitwise_ops_on_integers():
    a = em.tensor([12, 10, -1])
    b = em.tensor([10, 6, 5])
    assert em.bitwise_and(a, b).tolist() == [8, 2, 5]
    assert em.bitwise_or(a, b).tolist() == [14, 14, -1]
    assert em.bitwise_xor(a, b).tolist() == [6, 12, -6]
    assert em.bitwise_not(a).tolist() == [-13, -11, 0]
    assert (a & b).tolist() == [8, 2, 5]
    assert (a | b).tolist() == [14, 14, -1]
    assert (a ^ b).tolist() == [6, 12, -6]
    assert (~a).tolist() == [-13, -11, 0]
    assert (a & 6).tolist() == [4, 2, 6]
    assert (6 & a).tolist() == [4, 2, 6]
    assert (1 | a).tolist() == [13, 11, -1]
    assert (3 ^ a).tolist() == [15, 9, -4]
    assert (a & b).dtype == em.int64


def test_shifts_and_reflected_shifts():
    a = em.tensor([1, 2, -8])
    assert (a << 2).tolist() == [4, 8, -32]
    assert (a >> 1).tolist() == [0, 1, -4]  # arithmetic shift keeps the sign
    assert (1 << em.tensor([0, 3])).tolist() == [1, 8]
    assert (64 >> em.tensor([1, 3])).tolist() == [32, 8]
    assert em.bitwise_left_shift(a, em.tensor([1, 1, 1])).tolist() == [2, 4, -16]
    assert em.bitwise_right_shift(a, 1).tolist() == [0, 1, -4]


def test_bitwise_on_bools_is_logical():
    t = em.tensor([True, True, False])
    f = em.tensor([True, False, False])
    assert (t & f).tolist() == [True, False, False]
    assert (t | f).tolist() == [True, True, False]
    assert (t ^ f).tolist() == [False, True, False]
    assert (~t).tolist() == [False, False, True]
    assert (t & f).dtype == em.bool


def test_bitwise_integer_promotion():
    small = em.tensor([3], dtype=em.uint8)
    assert (small & em.tensor([1], dtype=em.int8)).dtype == em.int16
    assert (small & 1).dtype == em.uint8
    assert (em.tensor([True]) & 3).dtype == em.int64


@pytest.mark.parametrize("op,kernel", [(lambda x: x & 1, "bitwise_and"), (lambda x: x | 1, "bitwise_or"),
                                       (lambda x: x ^ 1, "bitwise_xor"), (lambda x: ~x, "bitwise_not"),
                                       (lambda x: x << 1, "bitwise_left_shift"),
                                       (lambda x: x >> 1, "bitwise_right_shift")])
def test_bitwise_on_floats_names_the_dtype(op, kernel):
    with pytest.raises(RuntimeError, match=f"^\"{kernel}_cpu\" not implemented for 'Float'$"):
        op(em.tensor([1.0]))
    with pytest.raises(RuntimeError, match="not implemented for 'Double'"):
        op(em.tensor([1.0], dtype=em.float64))


def test_bitwise_with_float_scalar_names_the_promoted_dtype():
    with pytest.raises(RuntimeError, match="\"bitwise_and_cpu\" not implemented for 'Float'"):
        em.tensor([1]) & 1.5


# -------------------------------------------------------------------------------------------- classification
def test_isnan_isinf_isfinite_family():
    x = em.tensor([NAN, INF, -INF, 0.0, -1.5])
    assert em.isnan(x).tolist() == [True, False, False, False, False]
    assert em.isinf(x).tolist() == [False, True, True, False, False]
    assert em.isposinf(x).tolist() == [False, True, False, False, False]
    assert em.isneginf(x).tolist() == [False, False, True, False, False]
    assert em.isfinite(x).tolist() == [False, False, False, True, True]
    assert x.isnan().dtype == em.bool
    ints = em.tensor([1, 2])
    assert em.isnan(ints).tolist() == [False, False]
    assert em.isfinite(ints).tolist() == [True, True]
    z = em.tensor([complex(NAN, 0), complex(0, INF), 1 + 1j])
    assert em.isnan(z).tolist() == [True, False, False]
    assert em.isinf(z).tolist() == [False, True, False]
    assert em.isfinite(z).tolist() == [False, False, True]
    with pytest.raises(RuntimeError, match="isposinf does not support complex inputs"):
        em.isposinf(z)


def test_isreal():
    assert em.isreal(em.tensor([1 + 0j, 1 + 1j, -0j])).tolist() == [True, False, True]
    assert em.isreal(em.tensor([NAN, 2.0])).tolist() == [True, True]


# ----------------------------------------------------------------------------------------------------- isclose
def test_isclose_formula_and_defaults():
    b = em.tensor([1.0, 1000.0, 0.0, 0.0], dtype=em.float64)
    # |a - b| <= 1e-8 + 1e-5 * |b|
    a = em.tensor([1.0 + 1.0e-5, 1000.0 + 0.0101, 1e-8, 2e-8], dtype=em.float64)
    assert em.isclose(a, b).tolist() == [True, False, True, False]
    assert em.isclose(a, b, rtol=1e-4).tolist() == [True, True, True, False]
    assert em.isclose(a, b, atol=3e-8).tolist() == [True, False, True, True]


def test_isclose_special_values():
    a = em.tensor([INF, -INF, NAN, INF, 1.0])
    b = em.tensor([INF, -INF, NAN, -INF, NAN])
    assert em.isclose(a, b).tolist() == [True, True, False, False, False]
    assert em.isclose(a, b, equal_nan=True).tolist() == [True, True, True, False, False]


def test_isclose_complex_nan_equality():
    # PyTorch 2.13: a complex value is NaN when either part is; equal_nan makes two such values close
    nan = float("nan")
    a = em.tensor([complex(nan, 1), 1 + 1j, complex(nan, 0)])
    b = em.tensor([complex(1, nan), 1 + 1j, 2 + 0j])
    assert em.isclose(a, b, equal_nan=True).tolist() == [True, True, False]
    assert em.isclose(a, b).tolist() == [False, True, False]


def test_isclose_integers_and_zero_tolerance():
    assert em.isclose(em.tensor([100, 101]), em.tensor([100, 100]), rtol=0.005, atol=0).tolist() == [True, False]
    assert em.isclose(em.tensor([1.0, 1.0 + 1e-7]), em.tensor([1.0, 1.0]), rtol=0, atol=0).tolist() == [True,
                                                                                                       False]


def test_isclose_errors():
    with pytest.raises(RuntimeError, match="^Float did not match Long$"):
        em.isclose(em.tensor([1.0]), em.tensor([1]))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        em.isclose(em.tensor([1.0]), em.tensor([1.0]), rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        em.isclose(em.tensor([1.0]), em.tensor([1.0]), atol=-1)
    with pytest.raises(TypeError, match=r"isclose\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        em.isclose(em.tensor([1.0]), 1.0)


def test_allclose_returns_python_bool():
    a = em.tensor([1.0, 2.0])
    result = em.allclose(a, a + 1e-7)
    assert result is True
    assert em.allclose(a, a + 1e-3) is False
    assert a.allclose(em.tensor([NAN, 2.0])) is False
    assert em.allclose(em.tensor([NAN]), em.tensor([NAN]), equal_nan=True) is True
    assert em.allclose(em.tensor([[1.0], [1.0]]), em.tensor([1.0, 1.0])) is True  # broadcasts like isclose


# ------------------------------------------------------------------------------------------------------- equal
def test_equal():
    a = em.tensor([1.0, 2.0])
    assert em.equal(a, em.tensor([1.0, 2.0])) is True
    assert em.equal(a, em.tensor([1.0, 2.5])) is False
    assert em.equal(a, em.tensor([[1.0, 2.0]])) is False  # same values, different shape
    assert em.equal(em.tensor([NAN]), em.tensor([NAN])) is False
    assert a.equal(em.tensor([1, 2])) is True
    assert em.equal(em.zeros(0), em.zeros(0)) is True
