"""Autograd semantics: accumulation, retain_grad, hooks, grad(), create_graph, in-place checks, grad modes, Function."""
import gc

import numpy as np
import pytest

import ember as em
from ember.autograd import Function, gradcheck, gradgradcheck
from ember.core.autograd.graph import AccumulateGrad, Node


def test_autograd_tutorial_example():
    x = em.ones(2, 2, requires_grad=True)
    out = ((x + 2) * (x + 2) * 3).mean()
    assert out.item() == 27.0
    assert repr(out) == "tensor(27., grad_fn=<MeanBackward0>)"
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 4.5, np.float32))


@pytest.mark.parametrize("k", [1, 5, 10])
def test_vector_jacobian_product_of_doubling(k):
    x = em.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x
    for _ in range(k):
        y = y * 2
    v = em.tensor([0.1, 1.0, 0.0001])
    y.backward(v)
    np.testing.assert_allclose(x.grad.numpy(), 2 ** k * np.array([0.1, 1.0, 0.0001], np.float32), rtol=1e-6)


def test_grad_accumulates_on_leaves_across_backward_calls():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3 + 2, 3 + 4])


def test_retain_grad_populates_non_leaf_grad():
    inp = em.tensor([1.0, 2.0], requires_grad=True)
    h1 = inp * 3
    h1.retain_grad()
    h2 = inp * 3
    (h1 * h1 + h2).sum().backward()
    np.testing.assert_array_equal(h1.grad.numpy(), [6.0, 12.0])
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h2.grad is None


def test_non_scalar_backward_needs_gradient():
    x = em.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_gradient_shape_mismatch():
    x = em.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(em.ones(2))


def test_second_backward_through_freed_graph_raises():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_retain_graph_allows_second_backward():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


def test_graph_that_saved_nothing_can_backward_twice():
    # PyTorch only raises when a freed saved tensor is unpacked
    x = em.tensor([1.0, 2.0], requires_grad=True)
    z = (x + 1).sum()
    z.backward()
    z.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        em.ones(2).sum().backward()


def test_autograd_grad_returns_without_accumulating():
    x = em.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = em.autograd.grad(y, x)
    np.testing.assert_allclose(g.numpy(), 3 * np.array([1.0, 4.0, 9.0]))
    assert x.grad is None


def test_autograd_grad_unused_input():
    x = em.ones(2, requires_grad=True)
    z = em.ones(2, requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        em.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = em.autograd.grad(y, [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_array_equal(gx.numpy(), [2.0, 2.0])


def test_autograd_grad_wrt_intermediate():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = (h * 3).sum()
    (gh,) = em.autograd.grad(y, h)
    np.testing.assert_array_equal(gh.numpy(), [3.0, 3.0])


def test_backward_inputs_restricts_accumulation():
    a = em.tensor([1.0], requires_grad=True)
    b = em.tensor([2.0], requires_grad=True)
    (a * b).sum().backward(inputs=[a])
    assert b.grad is None
    np.testing.assert_array_equal(a.grad.numpy(), [2.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * b).sum().backward(inputs=[])


def test_higher_order_gradient():
    x = em.tensor(2.0, requires_grad=True, dtype=em.float64)
    y = x ** 4
    (g,) = em.autograd.grad(y, x, create_graph=True)
    (gg,) = em.autograd.grad(g, x, create_graph=True)
    (ggg,) = em.autograd.grad(gg, x)
    assert g.item() == 32.0 and gg.item() == 48.0 and ggg.item() == 48.0


def test_gradient_penalty_matches_finite_differences():
    """loss = ||d(sum(tanh-free MLP))/dx||_2; its gradient w.r.t. the weights against central differences."""
    rng = np.random.default_rng(0)
    w1 = em.tensor(rng.standard_normal((3, 4)), dtype=em.float64, requires_grad=True)
    w2 = em.tensor(rng.standard_normal((4, 1)), dtype=em.float64, requires_grad=True)
    x = em.tensor(rng.standard_normal((5, 3)), dtype=em.float64, requires_grad=True)

    def penalty(w1, w2):
        out = ((x @ w1).exp() @ w2).sum()
        (gx,) = em.autograd.grad(out, x, create_graph=True)
        return (gx * gx).sum().sqrt()

    loss = penalty(w1, w2)
    loss.backward()
    analytic = w1.grad.numpy().copy()
    eps = 1e-6
    numeric = np.zeros_like(analytic)
    for i in np.ndindex(*analytic.shape):
        orig = w1._data[i]
        w1._data[i] = orig + eps
        plus = penalty(w1, w2).item()
        w1._data[i] = orig - eps
        minus = penalty(w1, w2).item()
        w1._data[i] = orig
        numeric[i] = (plus - minus) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)
    assert gradcheck(penalty, (w1, w2))


def test_tensor_hooks_modify_gradient_and_can_be_removed():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    h = x * 2
    handle = h.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [20.0, 20.0])
    np.testing.assert_array_equal(seen[0], [20.0, 20.0])
    handle.remove()
    x.grad = None
    h2 = x * 2
    h2.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_leaf_hook_sees_summed_gradient_once():
    x = em.tensor([1.0], requires_grad=True)
    calls = []
    x.register_hook(lambda g: calls.append(g.item()))
    (x * 2 + x * 3).sum().backward()
    assert calls == [5.0]


def test_inplace_on_saved_tensor_is_detected():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = h * h
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 1; expected version 0"):
        y.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises():
    w = em.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w.add_(1)
    with em.no_grad():
        w.add_(1)
    np.testing.assert_array_equal(w.detach().numpy(), [2.0, 2.0])


def test_inplace_rebases_graph():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.mul_(x)  # y = 2x * x
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 8.0])


def test_requires_grad_rules():
    x = em.tensor([1, 2])
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        x.requires_grad_()
    y = em.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert y.requires_grad and not y.is_leaf


def test_detach_shares_data_and_cuts_graph():
    x = em.ones(2, requires_grad=True)
    y = (x * 2).detach()
    assert not y.requires_grad and y.grad_fn is None
    y2 = x.detach()
    y2.add_(1)
    np.testing.assert_array_equal(x.detach().numpy(), [2.0, 2.0])


@pytest.mark.parametrize("make_ctx", [em.no_grad, lambda: em.set_grad_enabled(False), em.inference_mode])
def test_grad_modes_disable_recording(make_ctx):
    x = em.ones(2, requires_grad=True)
    with make_ctx():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert em.is_grad_enabled()


def test_grad_modes_as_decorators_and_enable_grad():
    x = em.ones(2, requires_grad=True)

    @em.no_grad()
    def f():
        with em.enable_grad():
            inner = x * 2
        return inner, x * 2

    inner, outer = f()
    assert inner.requires_grad and not outer.requires_grad
    prev = em.set_grad_enabled(False)
    assert not em.is_grad_enabled()
    em.set_grad_enabled(True)
    assert em.is_grad_enabled()
    del prev


def test_deep_chain_backward_without_recursion():
    x = em.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1
    y.sum().backward()
    assert x.grad.item() == 1.0


class _Cube(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x ** 3 * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        assert ctx.needs_input_grad == (True, False)
        return grad * 3 * x * x * ctx.scale, None


def test_custom_function_forward_backward_and_name():
    x = em.tensor([1.0, 2.0], dtype=em.float64, requires_grad=True)
    y = _Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "_CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0])
    assert gradcheck(lambda t: _Cube.apply(t, 2.0), (x,))
    assert gradgradcheck(lambda t: _Cube.apply(t, 2.0), (x,))


def test_gradcheck_detects_wrong_gradient():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = em.tensor([1.0], dtype=em.float64, requires_grad=True)
    with pytest.raises(em.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False


def _live_op_nodes():
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, Node) and not isinstance(o, AccumulateGrad))


def test_no_autograd_nodes_leak_after_training_steps():
    rng = np.random.default_rng(0)
    w1 = em.tensor(rng.standard_normal((8, 16)) * 0.1, requires_grad=True)
    b1 = em.zeros(16, requires_grad=True)
    w2 = em.tensor(rng.standard_normal((16, 3)) * 0.1, requires_grad=True)
    x = em.tensor(rng.standard_normal((4, 8)))
    before = _live_op_nodes()
    for _ in range(1000):
        h = (x @ w1 + b1).exp()
        loss = ((h @ w2) ** 2).mean()
        loss.backward()
        with em.no_grad():
            for p in (w1, b1, w2):
                p.sub_(p.grad * 0.001)
                p.grad = None
    del h, loss
    assert _live_op_nodes() == before


def test_grad_does_not_run_or_free_nodes_past_its_targets():
    x = em.randn(3, requires_grad=True)
    h = x.exp()
    (gh,) = em.autograd.grad((h * 2).sum(), [h])
    np.testing.assert_array_equal(gh.numpy(), [2.0, 2.0, 2.0])
    h.sum().backward()  # ExpBackward0 was neither run nor freed by grad()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(x.detach().numpy()), rtol=1e-6)


def test_data_property_reads_detached_and_assigns_in_place():
    w = em.ones(2, requires_grad=True)
    d = w.data
    assert not d.requires_grad and d.grad_fn is None
    d.add_(1)  # shares memory, like PyTorch's .data
    np.testing.assert_array_equal(w.detach().numpy(), [2.0, 2.0])
    w.data = em.tensor([5.0, 6.0])
    np.testing.assert_array_equal(w.detach().numpy(), [5.0, 6.0])
    assert w.requires_grad and w.is_leaf


def test_gradients_take_the_dtype_of_their_tensor():
    x = em.ones(2, dtype=em.float64, requires_grad=True)
    (x * 2).backward(em.ones(2))  # a float32 gradient for a float64 output
    assert x.grad.dtype == em.float64
    assert em.autograd.grad((x * 2).sum(), x)[0].dtype == em.float64


def test_real_inputs_of_complex_ops_get_real_gradients():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    (x * em.tensor([1 + 1j, 2 - 1j])).real.sum().backward()
    assert x.grad.dtype == em.float32
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])
    z = em.tensor([1 + 2j, -1 + 0.5j], dtype=em.complex128, requires_grad=True)
    assert gradgradcheck(em.abs, (z,))
