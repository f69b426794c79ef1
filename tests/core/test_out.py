"""``out=``: one helper, PyTorch's rules (write, cast, resize with a warning, no autograd), on every family."""
import warnings

import pytest

import ember as em
from ember.core.ops import _OUT

RESIZE = "An output with one or more elements was resized since it had shape"


def test_result_is_written_into_out_and_out_is_returned():
    x = em.tensor([1., 2., 3.])
    out = em.empty(3)
    ptr = out.data_ptr()
    assert em.add(x, x, out=out) is out
    assert out.tolist() == [2., 4., 6.] and out.data_ptr() == ptr
    em.mul(x, x, out=x)  # out may alias an input
    assert x.tolist() == [1., 4., 9.]


@pytest.mark.parametrize("call, expected", [
    (lambda o: em.sub(em.tensor([3., 4.]), 1, out=o), [2., 3.]),
    (lambda o: em.exp(em.zeros(2), out=o), [1., 1.]),
    (lambda o: em.clamp(em.tensor([-1., 5.]), 0, 1, out=o), [0., 1.]),
    (lambda o: em.where(em.tensor([True, False]), em.ones(2), em.zeros(2), out=o), [1., 0.]),
    (lambda o: em.sum(em.ones(2, 2), 0, out=o), [2., 2.]),
    (lambda o: em.matmul(em.eye(2), em.tensor([1., 2.]), out=o), [1., 2.]),
    (lambda o: em.cat([em.ones(1), em.zeros(1)], out=o), [1., 0.]),
    (lambda o: em.stack([em.ones(()), em.zeros(())], out=o), [1., 0.]),
    (lambda o: em.floor(em.tensor([1.5, -1.5]), out=o), [1., -2.]),
    (lambda o: em.linalg.vector_norm(em.tensor([[3., 4.], [0., 1.]]), dim=1, out=o), [5., 1.]),
    (lambda o: em.fft.irfft(em.tensor([2. + 0j, 0j]), out=o), [1., 1.]),
    (lambda o: em.zeros(2, out=o), [0., 0.]),
])
def test_families_take_out(call, expected):
    out = em.empty(0)
    assert call(out) is out and out.tolist() == expected


def test_comparison_and_logical_results_cast_into_wider_out():
    out = em.empty(2)
    em.eq(em.tensor([1, 2]), em.tensor([1, 3]), out=out)
    assert out.dtype == em.float32 and out.tolist() == [1., 0.]
    b = em.empty(2, dtype=em.bool)
    em.logical_and(em.tensor([True, True]), em.tensor([True, False]), out=b)
    assert b.tolist() == [True, False]


def test_uncastable_result_raises_pytorchs_error():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        em.add(em.ones(2), 1, out=em.empty(2, dtype=em.int64))
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the desired output type Float"):
        em.mul(em.ones(2, dtype=em.complex64), 1, out=em.empty(2))
    with pytest.raises(TypeError, match=r"add\(\): argument 'out' must be Tensor, not list"):
        em.add(em.ones(2), 1, out=[1, 2])


def test_wrong_shape_resizes_with_warning_and_empty_out_resizes_silently():
    x = em.tensor([1., 2., 3.])
    out = em.empty(2)
    with pytest.warns(UserWarning) as rec:
        em.neg(x, out=out)
    assert out.tolist() == [-1., -2., -3.]
    assert str(rec[0].message) == (
        f"{RESIZE} [2], which does not match the required output shape [3]. This behavior is deprecated, and in a "
        "future PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
        "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).")
    assert rec[0].filename == __file__  # points at the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        em.neg(x, out=out.resize_(0))
    assert out.tolist() == [-1., -2., -3.]


def test_tuple_results_fill_a_tuple_of_outs():
    values, indices = em.empty(0), em.empty(0, dtype=em.int64)
    res = em.max(em.tensor([[1., 5.], [3., 2.]]), 1, out=(values, indices))
    assert type(res).__name__ == "max" and res.values is values and res.indices is indices
    assert values.tolist() == [5., 3.] and indices.tolist() == [1, 0]
    v, i = em.empty(0), em.empty(0, dtype=em.int64)
    em.sort(em.tensor([3., 1., 2.]), out=(v, i))
    assert v.tolist() == [1., 2., 3.] and i.tolist() == [1, 2, 0]
    with pytest.raises(TypeError, match="must be tuple of 2 Tensors"):
        em.topk(em.ones(3), 1, out=em.empty(1))


def test_out_refuses_autograd_and_records_nothing():
    w = em.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^mul\(\): functions with out=\.\.\. arguments don't support automatic "
                                           r"differentiation, but one of the arguments requires grad\.$"):
        em.mul(w, 2, out=em.empty(2))
    with em.no_grad():
        out = em.mul(w, 2, out=em.empty(2))
    assert out.grad_fn is None and not out.requires_grad and em.is_grad_enabled()


def test_every_listed_function_accepts_out_and_methods_do_not():
    for name in _OUT:
        assert getattr(em, name).has_out_argument, name
    assert not hasattr(em.Tensor.add, "has_out_argument")
    assert em.linalg.inv.has_out_argument and em.fft.fft.has_out_argument


def test_factories_take_outs_dtype_and_resize_silently():
    out = em.empty(2, dtype=em.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert em.zeros(3, out=out) is out
        assert em.arange(4, out=em.empty(1)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert out.dtype == em.int64 and out.tolist() == [0, 0, 0]
    assert em.randint(0, 5, (2,), out=em.empty(2, dtype=em.int32)).dtype == em.int32
    assert em.fft.fftfreq(4, out=em.empty(0, dtype=em.float64)).dtype == em.float64
