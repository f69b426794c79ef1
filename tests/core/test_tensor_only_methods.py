"""Tensor methods and attributes PyTorch has only on the Tensor: values, views, gradients and messages as PyTorch
2.13 gives them (measured in its venv)."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck


def test_attributes_of_a_dense_cpu_tensor():
    t = em.arange(6.0).reshape(2, 3)
    assert (t.is_cpu, t.itemsize, t.nbytes, t.get_device(), t.output_nr, t.name) == (True, 4, 24, -1, 0, None)
    assert t.layout is em.strided and repr(em.strided) == "ember.strided" and isinstance(em.strided, em.layout)
    assert not (t.is_meta or t.is_sparse or t.is_quantized or t.is_nested or t.is_pinned())
    assert t.is_signed() and not em.tensor([1], dtype=em.uint8).is_signed()
    assert em.tensor([2]).is_nonzero() and not em.tensor([0.0]).is_nonzero()
    assert t.is_same_size(em.zeros(2, 3)) and not t.is_same_size(em.zeros(3, 2))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        em.tensor([1.0, 2.0]).is_nonzero()
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        em.tensor([]).is_nonzero()
    with pytest.raises(RuntimeError, match="^Cannot access accelerator device when none is available.$"):
        t.pin_memory()


def test_unfold_is_a_view_of_sliding_windows():
    x = em.arange(8.0)
    w = x.unfold(0, 3, 2)
    assert w.tolist() == [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [4.0, 5.0, 6.0]] and w.stride() == (2, 1)
    assert em.arange(6.0).reshape(2, 3).unfold(1, 2, 1).shape == (2, 2, 2)
    w[0, 0] = 10.0  # a view: the write reaches the input
    assert x[0].item() == 10.0
    with pytest.raises(RuntimeError, match="^maximum size for tensor at dimension 0 is 8 but size is 9$"):
        x.unfold(0, 9, 1)
    with pytest.raises(RuntimeError, match="^step is 0 but must be > 0$"):
        x.unfold(0, 2, 0)
    a = em.randn(7, dtype=em.float64, requires_grad=True)
    assert gradcheck(lambda t: t.unfold(0, 3, 2) * 1.5, (a,))  # overlapping windows add their gradients


def test_fill_diagonal_in_place_with_wrap_and_autograd():
    m = em.zeros(3, 4)
    assert m.fill_diagonal_(5.0) is m and np.array_equal(m.numpy(), np.eye(3, 4) * 5)
    tall = em.zeros(7, 3)
    tall.fill_diagonal_(5.0, wrap=True)
    assert [row.index(5.0) if 5.0 in row else None for row in tall.tolist()] == [0, 1, 2, None, 0, 1, 2]
    t = em.zeros(4, 3).t()  # not contiguous
    t.fill_diagonal_(2.0)
    assert np.array_equal(t.numpy(), np.eye(3, 4) * 2)
    cube = em.zeros(2, 2, 2)
    cube.fill_diagonal_(1.0)
    assert cube.sum().item() == 2.0 and cube[1, 1, 1].item() == 1.0
    x = em.zeros(3, 3, requires_grad=True)
    y = x * 1
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    with pytest.raises(RuntimeError, match="^dimensions must larger than 1$"):
        em.zeros(3).fill_diagonal_(1.0)
    with pytest.raises(RuntimeError, match="^all dimensions of input must be of equal length$"):
        em.zeros(2, 3, 2).fill_diagonal_(1.0)


def test_sum_to_size_reverses_expand():
    assert em.ones(2, 3).sum_to_size(1, 3).tolist() == [[2.0, 2.0, 2.0]]
    assert em.ones(2, 3).sum_to_size((3,)).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"^size \{\[2, 2\]\} is not expandable to size \{\[2, 3\]\}\.$"):
        em.ones(2, 3).sum_to_size(2, 2)
