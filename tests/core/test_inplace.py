"""In-place ops: values, memory sharing, version counters, graph rebasing and dtype rules."""
import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck


def test_inplace_arithmetic_writes_into_shared_memory():
    arr = np.zeros(3, np.float32)
    t = em.from_numpy(arr)
    t.add_(2).mul_(3).sub_(1).div_(5)
    np.testing.assert_allclose(arr, [1.0, 1.0, 1.0])
    t.add_(em.ones(3), alpha=2)
    np.testing.assert_allclose(arr, [3.0, 3.0, 3.0])


def test_augmented_operators_keep_identity():
    t = em.ones(2)
    ident = id(t)
    t += 1
    t *= 3
    t -= 2
    t /= 2
    t **= 2
    assert id(t) == ident
    np.testing.assert_array_equal(t.numpy(), [4.0, 4.0])
    i = em.tensor([5, 6])
    i //= 2
    i %= 2
    np.testing.assert_array_equal(i.numpy(), [0, 1])


def test_inplace_bumps_version_counter():
    t = em.ones(2)
    assert t._version_number == 0
    t.add_(1)
    t.zero_()
    assert t._version_number == 2


def test_inplace_dtype_rule():
    i = em.tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        i.add_(1.5)
    f = em.ones(2)
    f.add_(em.tensor([1, 2]))
    assert f.dtype == em.float32
    np.testing.assert_array_equal(f.numpy(), [2.0, 3.0])


def test_inplace_broadcast_output_shape_error():
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        em.ones(3).add_(em.ones(2, 3))


def test_fill_zero_copy_values():
    t = em.empty(2, 2)
    t.fill_(7)
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 7.0))
    t.zero_()
    np.testing.assert_array_equal(t.numpy(), np.zeros((2, 2)))
    t.copy_(em.tensor([1.0, 2.0]))
    np.testing.assert_array_equal(t.numpy(), [[1.0, 2.0], [1.0, 2.0]])
    t.copy_(em.tensor([[1, 2], [3, 4]]))
    assert t.dtype == em.float32


def test_copy_is_differentiable_wrt_source():
    src = em.tensor([1.0, 2.0], dtype=em.float64, requires_grad=True)

    def f(s):
        dst = em.zeros(3, 2, dtype=em.float64) * 1
        dst.copy_(s)
        return dst * em.tensor([[1.0], [2.0], [3.0]], dtype=em.float64)

    assert gradcheck(f, (src,))
    out = f(src)
    out.sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), [6.0, 6.0])


def test_fill_with_tensor_value_flows_gradient():
    v = em.tensor(3.0, requires_grad=True)
    q = em.zeros(3) * 1
    q.fill_(v)
    (q * em.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 6.0


def test_inplace_on_non_leaf_keeps_gradients_of_other_inputs():
    x = em.tensor([1.0, 2.0], dtype=em.float64, requires_grad=True)
    y = em.tensor([3.0, 4.0], dtype=em.float64, requires_grad=True)

    def f(x, y):
        h = x * 2
        h.add_(y * y)
        h.mul_(x)
        return h

    assert gradcheck(f, (x, y))


def test_random_fills_are_seeded():
    em.manual_seed(3)
    a = em.empty(4).normal_(1.0, 2.0)
    b = em.empty(4).uniform_(-1, 1)
    em.manual_seed(3)
    np.testing.assert_array_equal(em.empty(4).normal_(1.0, 2.0).numpy(), a.numpy())
    np.testing.assert_array_equal(em.empty(4).uniform_(-1, 1).numpy(), b.numpy())
    assert (b.numpy() >= -1).all() and (b.numpy() < 1).all()
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        em.empty(2).normal_(0, -1)


def test_random_fill_on_parameter_needs_no_grad():
    w = em.empty(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.normal_()
    with em.no_grad():
        w.normal_()
    assert w.requires_grad


def test_inplace_on_a_view_rebases_the_base_graph():
    x = em.ones(3, requires_grad=True)
    y = x * 1
    y[0].mul_(2)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 1.0, 1.0])
    assert y.grad_fn.name() == "CopySlices"


@pytest.mark.parametrize("op", [
    lambda y, x: y[1].mul_(x[0]),
    lambda y, x: y[:, 1:].add_(x[0, :2] * 3),
    lambda y, x: y.t()[0].sub_(x[1, :2]),
    lambda y, x: y[1][0].copy_(x[0, 0] ** 2),
    lambda y, x: y.reshape(-1)[1:3].zero_(),
])
def test_inplace_on_views_gradcheck(op):
    x = em.tensor(np.random.default_rng(0).standard_normal((2, 3)), dtype=em.float64, requires_grad=True)

    def f(x):
        y = x * 2
        op(y, x)
        return y

    assert gradcheck(f, (x,))


def test_inplace_on_view_of_leaf_requiring_grad_raises():
    w = em.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        w[1:].add_(1)


def test_restriding_in_place_ops_change_the_tensor_itself_as_in_pytorch():
    """PyTorch 2.13: t_, transpose_, swapaxes_, swapdims_, squeeze_ and unsqueeze_ make the tensor that view of its
    own data (shape and strides change, nothing moves) and keep its graph; a leaf requiring grad refuses."""
    a = em.arange(6.0).reshape(2, 3)
    assert a.t_() is a and a.shape == (3, 2) and a.stride() == (1, 3) and not a.is_contiguous()
    b = em.arange(6.0).reshape(2, 3)
    assert b.swapaxes_(0, 1).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert b.swapdims_(0, 1).shape == (2, 3) and b.transpose_(0, 1).shape == (3, 2)
    c = em.zeros(1, 3, 1)
    assert c.squeeze_().shape == (3,) and c.unsqueeze_(1).shape == (3, 1)
    x = em.arange(6.0, requires_grad=True)
    z = (x * 2).view(2, 3)
    z.t_()
    assert z.shape == (3, 2) and z.grad_fn.name() == "TBackward0"
    z.sum().backward()
    assert x.grad.tolist() == [2.0] * 6
    w = em.arange(6.0).reshape(2, 3)
    v = w[0:2]
    v.t_()
    v[0, 1] = 100.0  # still a view of w, through the new layout
    assert w.tolist() == [[0.0, 1.0, 2.0], [100.0, 4.0, 5.0]]
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place "
                                           "operation.$"):
        em.zeros(2, 3, requires_grad=True).t_()


def test_more_in_place_methods_exist_as_in_pytorch():
    """Values from PyTorch 2.13 for the in-place forms of existing ops."""
    t = em.tensor([0.25, 0.5, 0.75])
    assert t.clone().cumsum_(0).tolist() == [0.25, 0.75, 1.5] and t.clone().cumprod_(0).tolist() == [0.25, 0.125,
                                                                                                      0.09375]
    assert t.clone().greater_(0.5).tolist() == [0.0, 0.0, 1.0] and t.clone().not_equal_(0.5).tolist() == [1, 0, 1]
    assert em.tensor([1, 2]).bitwise_left_shift_(1).tolist() == [2, 4]
    for name in ("acosh_", "asinh_", "atanh_", "arccos_", "arcsin_", "arctan_", "exp2_", "erfc_", "erfinv_", "sgn_",
                 "fix_", "xlogy_", "arctan2_", "less_", "less_equal_", "greater_equal_", "bitwise_right_shift_"):
        assert callable(getattr(em.Tensor, name)), name
