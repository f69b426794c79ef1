"""``ember.utils.checkpoint``: recomputing the forward in backward gives the same gradients as the plain forward
(parameters and inputs, ``backward`` and ``autograd.grad``, dropout replayed), with PyTorch's reentrant rules."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.utils.checkpoint import checkpoint, checkpoint_sequential


def _mlp(depth=20, width=32, dropout=0.0):
    em.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [em.nn.Linear(width, width), em.nn.Tanh()] + ([em.nn.Dropout(dropout)] if dropout else [])
    return em.nn.Sequential(*layers)


def _grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("use_reentrant", [False, True])
def test_twenty_layer_mlp_gradients_equal_the_plain_forward(use_reentrant):
    model = _mlp(dropout=0.1)
    x = em.randn(16, 32, requires_grad=True)
    em.manual_seed(5)
    model(x).square().mean().backward()
    plain, plain_x = _grads(model), x.grad.numpy().copy()
    model.zero_grad()
    x.grad = None
    em.manual_seed(5)
    h = x
    for block in model:  # one checkpoint per layer: every activation is recomputed
        h = checkpoint(block, h, use_reentrant=use_reentrant)
    assert type(h.grad_fn).__name__ == "CheckpointBackward"
    h.square().mean().backward()
    for got, want in zip(_grads(model), plain):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), plain_x, rtol=0, atol=1e-6)


def test_parameters_get_gradients_when_no_input_requires_grad_and_autograd_grad_works():
    model = _mlp(depth=4)
    x = em.randn(8, 32)  # data: no grad, as the first layer of a real model sees it
    loss = model(x).sum()
    plain = em.autograd.grad(loss, list(model.parameters()))
    h = x
    for block in model:
        h = checkpoint(block, h, use_reentrant=False)
    got = em.autograd.grad(h.sum(), list(model.parameters()))
    assert len(got) == len(plain) == 8
    for g, p in zip(got, plain):
        np.testing.assert_allclose(g.numpy(), p.numpy(), rtol=0, atol=1e-6)


def test_reentrant_with_no_input_requiring_grad_warns_and_gives_no_graph_as_pytorch():
    layer = em.nn.Linear(3, 3)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True. Gradients will be None"):
        out = checkpoint(layer, em.randn(2, 3), use_reentrant=True)
    assert not out.requires_grad and out.grad_fn is None


def test_use_reentrant_must_be_explicit_and_reentrant_takes_no_kwargs():
    x = em.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(em.sin, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: alpha"):
        checkpoint(em.add, x, x, use_reentrant=True, alpha=2)
    out = checkpoint(em.add, x, x, use_reentrant=False, alpha=2)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_several_outputs_and_non_tensor_arguments():
    def f(a, b, scale):
        return a * b * scale, (a + b).detach(), "tag"
    a = em.randn(4, requires_grad=True, dtype=em.float64)
    b = em.randn(4, requires_grad=True, dtype=em.float64)
    prod, summed, tag = checkpoint(f, a, b, 3.0, use_reentrant=False)
    assert tag == "tag" and not summed.requires_grad and prod.requires_grad
    prod.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 3 * b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), 3 * a.detach().numpy())


def test_gradcheck_and_gradgradcheck_through_a_checkpoint():
    w = em.randn(3, 3, dtype=em.float64, requires_grad=True)

    def f(x):
        return checkpoint(lambda t: (t @ w).tanh() * t, x, use_reentrant=False)
    x = em.randn(2, 3, dtype=em.float64, requires_grad=True)
    assert gradcheck(f, (x,))
    assert gradgradcheck(f, (x,))


def test_no_grad_mode_just_runs_the_function():
    layer = em.nn.Linear(2, 2)
    with em.no_grad():
        out = checkpoint(layer, em.ones(1, 2), use_reentrant=False)
    assert out.grad_fn is None


def test_checkpoint_sequential_matches_the_plain_model():
    model = _mlp(depth=6, width=8)
    x = em.randn(4, 8, requires_grad=True)
    model(x).sum().backward()
    plain = _grads(model)
    model.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint_sequential(model, 3, x, use_reentrant=False).sum().backward()
    for got, want in zip(_grads(model), plain):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="segments=0"):
        checkpoint_sequential(model, 0, x, use_reentrant=False)
