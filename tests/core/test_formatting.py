"""``repr`` of tensors: exact strings following PyTorch's printing rules (torch/_tensor_str.py)."""
import pytest

import ember as em
from ember.core._formatting import get_printoptions, set_printoptions

INF, NAN = float("inf"), float("nan")


@pytest.fixture
def print_options():
    yield set_printoptions
    set_printoptions(profile="default")


def test_requires_grad_suffix():
    assert repr(em.tensor([1.0, 2.0], requires_grad=True)) == "tensor([1., 2.], requires_grad=True)"


def test_grad_fn_suffix_and_scalar():
    # the PyTorch autograd tutorial: out = mean(3 * (ones + 2)^2) = 27
    x = em.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    assert repr(out) == "tensor(27., grad_fn=<MeanBackward0>)"


def test_integers_bools_and_zero_dim():
    assert repr(em.tensor([1, 2, 3])) == "tensor([1, 2, 3])"
    assert repr(em.tensor([1, -20, 300])) == "tensor([  1, -20, 300])"
    assert repr(em.tensor([True, False])) == "tensor([ True, False])"
    assert repr(em.tensor(3)) == "tensor(3)"
    assert repr(em.tensor(True)) == "tensor(True)"
    assert repr(em.tensor(3.5)) == "tensor(3.5000)"
    assert repr(em.tensor([1, 2], dtype=em.int32)) == "tensor([1, 2], dtype=ember.int32)"
    assert repr(em.tensor([1, 2], dtype=em.uint8)) == "tensor([1, 2], dtype=ember.uint8)"


def test_float_modes():
    assert repr(em.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(em.tensor([1.5, -2.25])) == "tensor([ 1.5000, -2.2500])"
    assert repr(em.tensor([0.25, 1.5, 100.25])) == "tensor([  0.2500,   1.5000, 100.2500])"
    assert repr(em.tensor([0.1, 1.5, 100.25])) == "tensor([1.0000e-01, 1.5000e+00, 1.0025e+02])"  # ratio > 1000
    assert repr(em.tensor([-0.0, 0.0])) == "tensor([-0., 0.])"


def test_non_default_dtype_suffix():
    assert repr(em.tensor([1.5, 2.0], dtype=em.float64)) == "tensor([1.5000, 2.0000], dtype=ember.float64)"
    assert repr(em.tensor([1.0, 2.0], dtype=em.float16)) == "tensor([1., 2.], dtype=ember.float16)"
    assert repr(em.tensor([1 + 1j], dtype=em.complex128)) == "tensor([1.+1.j], dtype=ember.complex128)"


def test_default_dtype_float64_moves_the_suffix():
    em.set_default_dtype(em.float64)
    try:
        assert repr(em.tensor([1.5])) == "tensor([1.5000])"
        assert repr(em.tensor([1.5], dtype=em.float32)) == "tensor([1.5000], dtype=ember.float32)"
        assert repr(em.tensor([1j])) == "tensor([0.+1.j])"
    finally:
        em.set_default_dtype(em.float32)


def test_scientific_mode():
    assert repr(em.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"  # smallest below 1e-4
    assert repr(em.tensor([1.0, 1e10])) == "tensor([1.0000e+00, 1.0000e+10])"  # ratio above 1000
    assert repr(em.tensor([0.5, 600.0])) == "tensor([5.0000e-01, 6.0000e+02])"
    assert repr(em.tensor(123456789.0)) == "tensor(1.2346e+08)"  # whole numbers above 1e8
    assert repr(em.tensor([[1e-5, 1.0], [2.0, 3.0]], dtype=em.float64)) == (
        "tensor([[1.0000e-05, 1.0000e+00],\n"
        "        [2.0000e+00, 3.0000e+00]], dtype=ember.float64)")


def test_nonfinite_values_do_not_widen_the_columns():
    assert repr(em.tensor([NAN, 1.5])) == "tensor([   nan, 1.5000])"
    assert repr(em.tensor([0.0, INF])) == "tensor([0., inf])"
    assert repr(em.tensor([INF, -INF, NAN])) == "tensor([inf, -inf, nan])"
    assert repr(em.tensor([1.0, NAN])) == "tensor([1., nan])"


def test_two_and_three_dimensional_layout():
    assert repr(em.tensor([[1.5, -2.25], [3.0, 4.0]])) == (
        "tensor([[ 1.5000, -2.2500],\n"
        "        [ 3.0000,  4.0000]])")
    assert repr(em.arange(8).reshape(2, 2, 2)) == (
        "tensor([[[0, 1],\n"
        "         [2, 3]],\n"
        "\n"
        "        [[4, 5],\n"
        "         [6, 7]]])")


def test_rows_wrap_at_the_line_width():
    assert repr(em.arange(30.0)) == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
        "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
        "        28., 29.])")


def test_suffix_moves_to_a_new_line_when_it_would_pass_the_line_width():
    assert repr(em.tensor([1.2345] * 9, requires_grad=True)) == (
        "tensor([1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345],\n"
        "       requires_grad=True)")


def test_summarised_over_1000_elements():
    assert repr(em.arange(2000)) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    assert repr(em.arange(1000)).count("...") == 0  # exactly the threshold is printed in full
    assert repr(em.arange(2000.0)) == (
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])")
    assert repr(em.arange(3000).reshape(30, 100)) == (
        "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
        "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
        "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
        "        ...,\n"
        "        [2700, 2701, 2702,  ..., 2797, 2798, 2799],\n"
        "        [2800, 2801, 2802,  ..., 2897, 2898, 2899],\n"
        "        [2900, 2901, 2902,  ..., 2997, 2998, 2999]])")


def test_empty_tensors():
    assert repr(em.tensor([])) == "tensor([])"
    assert repr(em.zeros(2, 0)) == "tensor([], size=(2, 0))"
    assert repr(em.tensor([], dtype=em.int64)) == "tensor([], dtype=ember.int64)"
    assert repr(em.zeros(0, dtype=em.float64)) == "tensor([], dtype=ember.float64)"
    assert repr(em.zeros(0, 3, dtype=em.int64)) == "tensor([], size=(0, 3), dtype=ember.int64)"
    assert repr(em.zeros(0, requires_grad=True)) == "tensor([], requires_grad=True)"


def test_complex():
    assert repr(em.tensor([6 + 0j, -2 + 2j, -2 + 0j, -2 - 2j])) == "tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])"
    assert repr(em.tensor([1.5 + 0.25j, -3.0 - 1j])) == "tensor([ 1.5000+0.2500j, -3.0000-1.0000j])"
    assert repr(em.tensor(1 - 1j)) == "tensor(1.-1.j)"


def test_print_options(print_options):
    print_options(precision=2)
    assert repr(em.tensor([1.2345, 4.5678])) == "tensor([1.23, 4.57])"
    print_options(profile="default")
    print_options(sci_mode=False)  # widths still come from the scientific layout, as in PyTorch
    assert repr(em.tensor([1e-5, 1.0])) == "tensor([    0.0000,     1.0000])"
    print_options(profile="default", threshold=5, edgeitems=2)
    assert repr(em.arange(10)) == "tensor([0, 1,  ..., 8, 9])"
    print_options(profile="default", linewidth=20)
    assert repr(em.arange(6.0)) == "tensor([0., 1., 2.,\n        3., 4., 5.])"
    print_options(profile="default")
    assert get_printoptions() == {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80,
                                  "sci_mode": None}
    with pytest.raises(ValueError, match="profile must be one of"):
        print_options(profile="tiny")


def test_str_and_format():
    t = em.tensor([1.0, 2.0])
    assert str(t) == repr(t)
    assert f"{em.tensor(2.5):.2f}" == "2.50"


def test_format_of_a_0d_tensor_is_its_python_value_as_in_pytorch():
    """f-strings in training loops: PyTorch 2.13 prints f"{torch.tensor(0.123456)}" as 0.12345600128173828 (the
    float32 value as a Python float), f"{t:.4f}" as 0.1235, and other tensors as their str, or raises for a spec."""
    t = em.tensor(0.123456)
    assert (f"{t}", f"{t:.4f}", "{}".format(t)) == ("0.12345600128173828", "0.1235", "0.12345600128173828")
    assert (f"{em.tensor(3)}", f"{em.tensor(True)}", f"{em.tensor(1.5, requires_grad=True):.2f}") == \
        ("3", "True", "1.50")
    v = em.tensor([1.0, 2.0])
    assert f"{v}" == str(v) == "tensor([1., 2.])"
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        f"{v:.2f}"
