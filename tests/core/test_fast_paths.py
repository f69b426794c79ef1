"""The hot-path shortcuts give what the general paths give: the operators' fast path (its result tensor), the
direct ``loss.backward()`` route into the engine, the engine's one-flag check for node hooks, and the full
reductions that pass ``axis=None`` to NumPy."""
import numpy as np
import pytest

import ember as em
from ember.core.autograd.graph import Node
from ember.core.ops import arithmetic
from ember.core.tensor import Tensor


def _slots(t):
    return {name: getattr(t, name) for name in Tensor.__slots__ if name != "__weakref__"}


@pytest.mark.parametrize("shape", [(3,), (), (2, 1)])
def test_operator_fast_path_sets_every_slot_like_make(shape):
    a, b = em.ones(shape), em.full(shape, 2.0)
    out = a + b
    ref = Tensor._make(np.add(a.numpy(), b.numpy()))
    got, want = _slots(out), _slots(ref)
    assert got.keys() == want.keys()
    np.testing.assert_array_equal(got.pop("_data"), want.pop("_data"))
    assert got == want
    assert type(out._data) is np.ndarray and out.shape == ref.shape


@pytest.mark.parametrize("op, full", [("__add__", arithmetic.add), ("__sub__", arithmetic.sub),
                                      ("__mul__", arithmetic.mul), ("__truediv__", arithmetic.div)])
def test_operator_fast_path_matches_the_full_op(op, full):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((3,)) + 3.0
    a1, b1 = em.tensor(x, requires_grad=True), em.tensor(y, requires_grad=True)
    a2, b2 = em.tensor(x, requires_grad=True), em.tensor(y, requires_grad=True)
    seen = []
    b1.register_hook(lambda g: seen.append(("fast", g.numpy().copy())))
    b2.register_hook(lambda g: seen.append(("full", g.numpy().copy())))
    fast, slow = getattr(a1, op)(b1), full(a2, b2)
    assert type(fast.grad_fn) is type(slow.grad_fn)
    np.testing.assert_array_equal(fast.detach().numpy(), slow.detach().numpy())
    (fast * fast).sum().backward()
    (slow * slow).sum().backward()
    np.testing.assert_array_equal(a1.grad.numpy(), a2.grad.numpy())
    np.testing.assert_array_equal(b1.grad.numpy(), b2.grad.numpy())
    assert [k for k, _ in seen] == ["fast", "full"]
    np.testing.assert_array_equal(seen[0][1], seen[1][1])


def test_tensor_backward_matches_autograd_backward():
    def run(call):
        a = em.tensor([1.0, 2.0], requires_grad=True)
        b = em.tensor([3.0, 4.0], requires_grad=True)
        log = []
        a.register_hook(lambda g: log.append(g.numpy().copy()))
        loss = (a * b + a).sum()
        call(loss)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            call(loss)
        return a.grad.numpy(), b.grad.numpy(), log

    direct = run(lambda loss: loss.backward())
    general = run(lambda loss: em.autograd.backward(loss))
    for d, g in zip(direct[:2], general[:2]):
        np.testing.assert_array_equal(d, g)
    np.testing.assert_array_equal(direct[2][0], general[2][0])


def test_tensor_backward_keeps_retain_and_create_graph():
    a = em.tensor([2.0], requires_grad=True)
    y = (a * a * a).sum()
    y.backward(create_graph=True)  # retain_graph defaults to create_graph: a second backward works
    g = a.grad
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), [12.0])
    a.grad = None
    y.backward(retain_graph=True)
    np.testing.assert_allclose(a.grad.numpy(), [12.0])


def test_node_hooks_registered_after_recording_run():
    a = em.tensor([1.0, 2.0], requires_grad=True)
    h = a * 3
    node = h.grad_fn
    assert node._hooked is False
    calls = []
    node.register_hook(lambda grads, outs: calls.append("post"))
    h.register_hook(lambda g: calls.append("pre") or g * 2)
    h.retain_grad()
    assert node._hooked is True
    h.sum().backward()
    assert calls == ["pre", "post"]
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(h.grad.numpy(), [2.0, 2.0])


def test_complex_output_of_real_input_keeps_the_real_gradient():
    x = em.tensor([1.0, 2.0], requires_grad=True)
    z = x * em.tensor([1j, 1 + 1j])
    assert z.grad_fn._hooked is True
    z.abs().sum().backward()
    assert x.grad.dtype == em.float32
    np.testing.assert_allclose(x.grad.numpy(), [1.0, np.sqrt(2.0)], rtol=1e-6)  # d|x*c|/dx = |c|


def test_a_plain_node_is_not_hooked():
    assert Node._hooked is False
    a = em.tensor([1.0], requires_grad=True)
    assert (a + a).grad_fn._hooked is False


@pytest.mark.parametrize("dim", [None, (), [], (0, 1), [0, 1], 1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_full_reductions_match_the_per_dim_path(dim, keepdim):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 7
    for name in ("sum", "mean"):
        t = em.tensor(x, requires_grad=True)
        out = getattr(t, name)(dim=dim, keepdim=keepdim) if dim is not None else getattr(t, name)(keepdim=keepdim)
        # None, () and [] reduce every dim, as in PyTorch
        axis = (0, 1) if dim in (None, (), []) else (tuple(dim) if isinstance(dim, list) else dim)
        want = getattr(x, name)(axis=axis, keepdims=keepdim)
        np.testing.assert_array_equal(out.detach().numpy(), want)
        out.sum().backward()
        count = x.size if axis == (0, 1) else x.shape[axis]
        np.testing.assert_allclose(t.grad.numpy(), np.full(x.shape, 1.0 if name == "sum" else 1.0 / count),
                                   rtol=1e-6)
