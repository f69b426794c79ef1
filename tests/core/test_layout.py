"""Memory-layout introspection (strides in elements, storage offsets, storages), as_strided, resize_ and the
module-level constants."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck


def test_constants_are_pythons_floats_and_newaxis_is_none():
    assert math.isnan(em.nan) and em.inf == math.inf and em.pi == math.pi and em.e == math.e
    assert em.newaxis is None
    assert em.ones(2, 3)[:, em.newaxis].shape == (2, 1, 3)


def test_strides_report_numpys_layout_in_elements():
    x = em.arange(24.).reshape(2, 3, 4)
    assert x.stride() == (12, 4, 1) and x.stride(1) == 4 and x.stride(-1) == 1
    assert x.is_contiguous()
    t = x.transpose(0, 2)
    assert t.stride() == (1, 4, 12) and not t.is_contiguous()
    assert t.contiguous().stride() == (6, 2, 1)
    assert em.ones(3, 1).expand(3, 4).stride() == (1, 0)
    assert x[:, ::2].stride() == (12, 8, 1)


def test_empty_tensors_report_pytorchs_contiguous_strides():
    # NumPy zeroes the strides of an empty array; PyTorch 2.13 reports these (a zero-length dimension counts as 1)
    assert (em.empty(0, 3).stride(), em.empty(2, 0, 3).stride(), em.empty(3, 0).stride(), em.empty(0).stride()) == \
        ((3, 1), (3, 3, 1), (1, 1), (1,))
    assert em.zeros(0, 3).stride(0) == 3


def test_storage_offset_data_ptr_and_untyped_storage():
    x = em.arange(12, dtype=em.float32).reshape(3, 4)
    assert x.storage_offset() == 0
    assert x[1:].storage_offset() == 4 and x[1:, 2:].storage_offset() == 6
    assert x[1:].data_ptr() == x.data_ptr() + 4 * 4
    assert x[2:].untyped_storage().nbytes() == 48 == x.untyped_storage().nbytes()
    assert x[2:].untyped_storage().data_ptr() == x.data_ptr()
    assert x.clone().untyped_storage().data_ptr() != x.data_ptr()
    assert not x.is_neg() and not x.is_conj()


def test_as_strided_views_the_storage():
    x = em.arange(12.).reshape(3, 4)
    y = em.as_strided(x, (2, 2), (1, 4), 1)
    assert y.tolist() == [[1., 5.], [2., 6.]]
    assert x[1:].as_strided((3,), (2,)).tolist() == [4., 6., 8.]  # offset defaults to the input's (4)
    assert x.t().as_strided((2,), (1,)).tolist() == [0., 1.]      # strides address the storage, not the view
    y.mul_(10)  # a view: writes reach the base
    assert x[0].tolist() == [0., 10., 20., 3.] and x[1, 1].item() == 50.
    assert em.as_strided(x, (3, 2), (0, 1)).tolist() == [[0., 10.]] * 3  # overlapping rows are fine
    z = em.as_strided(x, (2,), (1,), 4)  # a view of a view still knows the whole storage
    assert z.storage_offset() == 4 and z.untyped_storage().nbytes() == 48
    assert z.as_strided((3,), (2,), 0).tolist() == [0., 20., 4.]  # storage elements 0, 2 and 4


def test_as_strided_out_of_bounds_names_sizes_and_storage():
    with pytest.raises(RuntimeError, match=r"setStorage: sizes \[4, 4\], strides \[4, 1\], storage offset 0, and "
                                           r"itemsize 4 requiring a storage size of 64 are out of bounds for storage "
                                           r"of size 48"):
        em.as_strided(em.zeros(3, 4), (4, 4), (4, 1))
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        em.as_strided(em.zeros(3, 4), (2, 2), (1,))


def test_as_strided_gradcheck():
    a = em.randn(3, 4, dtype=em.float64, requires_grad=True)
    assert gradcheck(lambda a: em.as_strided(a, (3, 3), (1, 2), 1), (a,))
    assert gradcheck(lambda a: em.as_strided(a.t(), (2, 3), (4, 1), 1), (a,))
    out = em.as_strided(a, (2, 2), (0, 1))  # overlapping: each storage element gets the sum of its aliases
    assert type(out.grad_fn).__name__ == "AsStridedBackward0"
    out.sum().backward()
    expected = np.zeros((3, 4))
    expected[0, :2] = 2
    np.testing.assert_array_equal(a.grad.numpy(), expected)


def test_resize_keeps_storage_order_and_grows():
    x = em.arange(6.)
    ptr = x.data_ptr()
    assert x.resize_(2, 2) is x and x.tolist() == [[0., 1.], [2., 3.]] and x.data_ptr() == ptr
    x.resize_(3, 2)
    assert x.tolist() == [[0., 1.], [2., 3.], [4., 5.]]
    x.resize_(2, 4)  # larger than the storage: the old elements come first, the rest is new memory
    assert x.shape == (2, 4) and x.flatten()[:6].tolist() == [0., 1., 2., 3., 4., 5.]
    t = em.arange(6.).reshape(2, 3).t()
    t.resize_(6)  # a non-contiguous tensor resizes over its storage in memory order
    assert t.tolist() == [0., 1., 2., 3., 4., 5.]
    y = em.ones(3)
    y.resize_as_(em.zeros(1, 2))
    assert y.shape == (1, 2)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        em.ones(2, requires_grad=True).resize_(3)
