"""Tensor factories: ``tensor``/``as_tensor``/``from_numpy``, the filled and ranged factories, random factories,
``*_like`` and the legacy constructors; dtype inference, kwargs and errors."""
import warnings

import numpy as np
import pytest

import ember as em


@pytest.fixture
def default_float64():
    em.set_default_dtype(em.float64)
    try:
        yield
    finally:
        em.set_default_dtype(em.float32)


# --------------------------------------------------------------------------------------------------- tensor
def test_tensor_dtype_inference():
    assert em.tensor(3).dtype == em.int64
    assert em.tensor([1, 2]).dtype == em.int64
    assert em.tensor(2.5).dtype == em.float32
    assert em.tensor([1, 2.5]).dtype == em.float32
    assert em.tensor([True, False]).dtype == em.bool
    assert em.tensor([1 + 2j]).dtype == em.complex64
    assert em.tensor([]).dtype == em.float32 and em.tensor([]).shape == (0,)
    assert em.tensor([[1, 2], [3, 4]]).shape == (2, 2)


def test_default_dtype_changes_inference(default_float64):
    assert em.get_default_dtype() == em.float64
    assert em.tensor([1.5]).dtype == em.float64
    assert em.tensor([1j]).dtype == em.complex128
    assert em.tensor([1]).dtype == em.int64
    assert em.zeros(2).dtype == em.float64
    assert em.arange(3.0).dtype == em.float64


def test_set_default_dtype_rejects_non_float():
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        em.set_default_dtype(em.int64)
    assert em.get_default_dtype() == em.float32


def test_tensor_keeps_numpy_dtypes_and_copies():
    arr = np.array([1.5, 2.5])
    t = em.tensor(arr)
    assert t.dtype == em.float64
    arr[0] = 100.0
    assert t.tolist() == [1.5, 2.5]  # a copy
    assert em.tensor(np.arange(3, dtype=np.int32)).dtype == em.int32
    assert em.tensor(np.float32(1.5)).dtype == em.float32


def test_tensor_dtype_kwarg_converts_without_float32_rounding():
    t = em.tensor([0.1, 3.3], dtype=em.float64)
    assert t.tolist() == [0.1, 3.3]
    assert em.tensor([1.7, -1.7], dtype=em.int64).tolist() == [1, -1]
    assert em.tensor([1, 0], dtype=em.bool).tolist() == [True, False]
    assert em.tensor([1, 2], dtype="float16").dtype == em.float16


def test_tensor_requires_grad_and_device():
    t = em.tensor([1.0], requires_grad=True)
    assert t.requires_grad and t.is_leaf
    assert em.tensor([1.0], device="cpu").device == "cpu"
    with pytest.raises(RuntimeError, match="floating point and complex dtype can require gradients"):
        em.tensor([1], requires_grad=True)


def test_tensor_from_nested_tensors_and_tensor_copy_warning():
    assert em.tensor([em.tensor(1.0), em.tensor(2.0)]).tolist() == [1.0, 2.0]
    src = em.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = em.tensor(src)
    copy.numpy()[0] = 5.0
    assert src.tolist() == [1.0, 2.0]


def test_tensor_bad_data():
    with pytest.raises(TypeError, match="Could not infer dtype of str"):
        em.tensor(["a", "b"])
    with pytest.raises(TypeError, match="Could not infer dtype of NoneType"):
        em.tensor(None)
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        em.tensor([[1, 2], [3]])
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        em.tensor([2 ** 64])


# ------------------------------------------------------------------------------- as_tensor / from_numpy / asarray
def test_from_numpy_shares_memory_both_ways():
    arr = np.array([1.0, 2.0, 3.0])
    t = em.from_numpy(arr)
    assert t.dtype == em.float64
    arr[0] = 10.0
    assert t.tolist()[0] == 10.0
    t.numpy()[1] = 20.0
    assert arr[1] == 20.0
    with pytest.raises(TypeError, match=r"expected np.ndarray \(got list\)"):
        em.from_numpy([1, 2])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type"):
        em.from_numpy(np.array(["a"]))


def test_as_tensor_shares_when_it_can():
    arr = np.array([1.0, 2.0])
    t = em.as_tensor(arr)
    arr[0] = 7.0
    assert t.tolist() == [7.0, 2.0]
    converted = em.as_tensor(arr, dtype=em.float32)
    arr[1] = 9.0
    assert converted.tolist() == [7.0, 2.0]  # a conversion had to copy
    x = em.tensor([1.0])
    assert em.as_tensor(x) is x
    assert em.as_tensor([1, 2]).dtype == em.int64
    assert em.as_tensor([0.1], dtype=em.float64).tolist() == [0.1]


def test_asarray_copy_flag():
    arr = np.array([1.0, 2.0])
    shared = em.asarray(arr)
    copied = em.asarray(arr, copy=True)
    arr[0] = 5.0
    assert shared.tolist()[0] == 5.0 and copied.tolist()[0] == 1.0


# ------------------------------------------------------------------------------------------ filled factories
@pytest.mark.parametrize("factory,value", [(em.zeros, 0.0), (em.ones, 1.0)])
def test_zeros_ones_sizes_and_kwargs(factory, value):
    assert factory(2, 3).shape == (2, 3)
    assert factory((2, 3)).shape == (2, 3)
    assert factory([2, 3]).shape == (2, 3)
    assert factory(em.Size([4])).shape == (4,)
    assert factory(size=(1, 2)).shape == (1, 2)
    assert factory(()).shape == ()
    t = factory(2, 2)
    assert t.dtype == em.float32 and t.tolist() == [[value, value], [value, value]]
    assert factory(2, dtype=em.int32).dtype == em.int32
    assert factory(2, requires_grad=True).requires_grad
    assert factory(0).shape == (0,)


@pytest.mark.parametrize("factory", [em.zeros, em.ones, em.empty, em.rand, em.randn])
def test_negative_sizes_error(factory):
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[2, -1\]"):
        factory(2, -1)


def test_size_type_errors():
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'size' must be a tuple of ints, but found element of "
                                        r"type float at pos 1"):
        em.zeros(2, 2.5)


def test_empty_full_eye():
    assert em.empty(2, 3).shape == (2, 3) and em.empty(2).dtype == em.float32
    assert em.full((2, 2), 7.5).tolist() == [[7.5, 7.5], [7.5, 7.5]]
    assert em.full((2,), 7.5).dtype == em.float32
    assert em.full((2,), 3).dtype == em.int64
    assert em.full((2,), True).dtype == em.bool
    assert em.full((2,), 1 + 1j).dtype == em.complex64
    assert em.full((2,), 3, dtype=em.float64).dtype == em.float64
    assert em.full((2,), em.tensor(2.0)).tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="argument 'fill_value' must be Number, not str"):
        em.full((2,), "x")
    assert em.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert em.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert em.eye(3, dtype=em.int64).dtype == em.int64
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        em.eye(-1)
    with pytest.raises(TypeError, match="argument 'n' must be int, not float"):
        em.eye(2.5)


# ------------------------------------------------------------------------------------------ ranged factories
def test_arange():
    assert em.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert em.arange(5).dtype == em.int64
    assert em.arange(1, 4).tolist() == [1, 2, 3]
    assert em.arange(0, 10, 3).tolist() == [0, 3, 6, 9]
    assert em.arange(5, 0, -2).tolist() == [5, 3, 1]
    assert em.arange(0.0, 1.0, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert em.arange(0.0, 1.0, 0.25).dtype == em.float32
    assert em.arange(3, dtype=em.float64).dtype == em.float64
    assert em.arange(1, 2.5, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert em.arange(0).shape == (0,)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        em.arange(0, 5, 0)
    with pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent with step sign"):
        em.arange(0, 5, -1)
    with pytest.raises(RuntimeError, match="unsupported range"):
        em.arange(0, float("inf"))


def test_linspace_logspace():
    assert em.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert em.linspace(0, 1, 5).dtype == em.float32
    assert em.linspace(-1, 1, 1).tolist() == [-1.0]
    assert em.linspace(0, 1, 0).shape == (0,)
    assert em.linspace(0, 10, 3, dtype=em.float64).tolist() == [0.0, 5.0, 10.0]
    assert em.logspace(0, 3, 4).tolist() == [1.0, 10.0, 100.0, 1000.0]
    assert em.logspace(0, 3, 4, base=2).tolist() == [1.0, 2.0, 4.0, 8.0]
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        em.linspace(0, 1, -1)


# -------------------------------------------------------------------------------------------- random factories
def test_random_factories_shapes_dtypes_and_ranges():
    em.manual_seed(0)
    r = em.rand(1000)
    assert r.dtype == em.float32 and r.shape == (1000,)
    assert 0.0 <= r.numpy().min() and r.numpy().max() < 1.0
    n = em.randn(2000, dtype=em.float64)
    assert n.dtype == em.float64
    assert abs(n.numpy().mean()) < 0.1 and abs(n.numpy().std() - 1.0) < 0.1
    assert em.rand(2, 2, dtype=em.float16).dtype == em.float16
    i = em.randint(3, 7, (500,))
    assert i.dtype == em.int64 and set(i.tolist()) == {3, 4, 5, 6}
    assert set(em.randint(2, (100,)).tolist()) == {0, 1}
    assert em.randint(0, 5, (3,), dtype=em.int32).dtype == em.int32
    p = em.randperm(10)
    assert p.dtype == em.int64 and sorted(p.tolist()) == list(range(10))
    assert em.randn(3, requires_grad=True).requires_grad


def test_random_factory_errors():
    with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=5"):
        em.randint(5, 5, (2,))
    with pytest.raises(RuntimeError, match="randperm"):
        em.randperm(-1)
    with pytest.raises(TypeError, match="generator must be an ember.Generator"):
        em.rand(2, generator=3)


# ------------------------------------------------------------------------------------------------- *_like
def test_like_factories_follow_input_and_kwargs():
    src = em.ones(2, 3, dtype=em.float64)
    for fn in (em.zeros_like, em.ones_like, em.empty_like, em.rand_like, em.randn_like):
        out = fn(src)
        assert out.shape == (2, 3) and out.dtype == em.float64 and out.device == "cpu"
        assert fn(src, dtype=em.float32).dtype == em.float32
        assert fn(src, requires_grad=True).requires_grad
    assert em.zeros_like(src).tolist() == [[0.0] * 3] * 2
    assert em.ones_like(src).tolist() == [[1.0] * 3] * 2
    assert em.full_like(src, 4).tolist() == [[4.0] * 3] * 2
    assert em.full_like(em.tensor([1, 2]), 2.7).tolist() == [2, 2]  # the input's int dtype wins
    r = em.randint_like(src, 5)
    assert r.dtype == em.float64 and set(r.tolist()[0]) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    r = em.randint_like(em.tensor([0, 0, 0]), 10, 12)
    assert r.dtype == em.int64 and set(r.tolist()) <= {10, 11}
    with pytest.raises(TypeError, match=r"zeros_like\(\): argument 'input' \(position 1\) must be Tensor, not list"):
        em.zeros_like([1.0])


# ------------------------------------------------------------------------------------------------- legacy
def test_legacy_constructors_with_sizes_or_data():
    assert em.FloatTensor(2, 3).shape == (2, 3) and em.FloatTensor(2, 3).dtype == em.float32
    assert em.FloatTensor([1, 2]).tolist() == [1.0, 2.0]
    assert em.FloatTensor([1, 2]).dtype == em.float32
    assert em.DoubleTensor([0.1]).dtype == em.float64 and em.DoubleTensor([0.1]).tolist() == [0.1]
    assert em.LongTensor([1.7, 2.2]).tolist() == [1, 2]
    assert em.LongTensor(3).shape == (3,) and em.LongTensor(3).dtype == em.int64
    assert em.IntTensor([1, 2]).dtype == em.int32
    assert em.IntTensor((4, 5)).tolist() == [4, 5]  # a tuple is data
    assert em.FloatTensor(em.Size([2, 2])).shape == (2, 2)  # a Size is a shape
    assert em.FloatTensor().shape == (0,)
    assert em.BoolTensor([1, 0]).dtype == em.bool
    assert em.ByteTensor([1]).dtype == em.uint8
    assert em.HalfTensor([1]).dtype == em.float16
    assert em.FloatTensor(np.array([1, 2])).dtype == em.float32


def test_scalar_tensor():
    t = em.scalar_tensor(3)
    assert t.shape == () and t.dtype == em.float32 and t.item() == 3.0


def test_factories_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        em.zeros(2)
        em.tensor([1.0])
        em.arange(3)
        em.linspace(0, 1, 3)


def test_tensor_new_factories_default_to_the_tensors_dtype_as_in_pytorch():
    """PyTorch 2.13's Tensor.new_zeros/new_ones/new_empty/new_full/new_tensor and the legacy Tensor.new."""
    t = em.tensor([1.0], dtype=em.float64, requires_grad=True)
    z = t.new_zeros(2, 3)
    assert (z.dtype, z.requires_grad, z.shape, z.tolist()[0]) == (em.float64, False, (2, 3), [0.0] * 3)
    assert t.new_zeros((2,)).shape == (2,) and t.new_zeros([]).shape == ()
    assert t.new_ones(2, dtype=em.int32).tolist() == [1, 1] and t.new_ones(2, dtype=em.int32).dtype == em.int32
    assert t.new_full((2,), 7).tolist() == [7.0, 7.0] and t.new_full((2,), 7).dtype == em.float64
    assert t.new_empty(2).shape == (2,) and t.new_zeros(2, requires_grad=True).requires_grad
    assert t.new_tensor([1, 2]).dtype == em.float64 and t.new_tensor([1, 2], dtype=em.int64).dtype == em.int64
    with pytest.warns(UserWarning, match=r"rather than tensor\.new_tensor\(sourceTensor\)\.$"):
        assert t.new_tensor(em.tensor([1, 2])).tolist() == [1.0, 2.0]
    assert (t.new(2, 3).shape, t.new(2, 3).dtype) == ((2, 3), em.float64)
    assert t.new([1, 2]).tolist() == [1.0, 2.0] and t.new().shape == (0,)
    assert t.new(em.Size([2])).shape == (2,) and t.new((3,)).tolist() == [3.0]  # a tuple is data, a Size a shape
