"""Conversions (to, casts, clone, contiguous), their gradients, and the device/dtype error messages."""
from types import SimpleNamespace

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck


def test_to_dtype_and_back_is_differentiable():
    x = em.tensor([1.5, -2.0], dtype=em.float64, requires_grad=True)
    # through float32 the finite differences need a larger step
    assert gradcheck(lambda t: t.to(em.float32).to(em.float64) * 3, (x,), eps=1e-2, atol=1e-4, rtol=1e-3)
    y = x.float()
    assert y.dtype == em.float32 and y.grad_fn.name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype == em.float64


@pytest.mark.parametrize("method,dtype", [("float", em.float32), ("double", em.float64), ("half", em.float16),
                                          ("long", em.int64), ("int", em.int32), ("bool", em.bool),
                                          ("byte", em.uint8), ("short", em.int16), ("char", em.int8)])
def test_cast_methods(method, dtype):
    assert getattr(em.tensor([1.0, 0.0]), method)().dtype == dtype


def test_to_forms_and_copy():
    x = em.tensor([1.0, 2.0])
    assert x.to(em.float64).dtype == em.float64
    assert x.to("cpu") is x
    assert x.to(em.zeros(1, dtype=em.int64)).dtype == em.int64
    assert x.to("cpu", em.float64).dtype == em.float64
    c = x.to(em.float32, copy=True)
    assert c is not x and np.shares_memory(c.numpy(), x.numpy()) is False
    assert x.type() == "ember.FloatTensor" and x.type("ember.DoubleTensor").dtype == em.float64


def test_clone_and_contiguous():
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=em.float64, requires_grad=True)
    assert gradcheck(lambda t: t.clone() * 2, (x,)) and gradgradcheck(lambda t: t.clone() * t, (x,))
    t = x.detach().t()
    assert not t.numpy().flags.c_contiguous and t.contiguous().numpy().flags.c_contiguous
    c = x.detach().contiguous()
    assert c is not None and np.shares_memory(c.numpy(), x.detach().numpy())


class _FakeGPUArray(np.ndarray):
    """An array that reports itself as a CuPy array on cuda:0 (there is no GPU here)."""
    device = SimpleNamespace(id=0)


_FakeGPUArray.__module__ = "cupy._core.core"


def test_mixing_devices_names_both_devices():
    cpu = em.ones(2)
    gpu = em.Tensor._make(np.ones(2, np.float32).view(_FakeGPUArray))
    assert str(gpu.device) == "cuda:0"
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device, but found at least two "
                                           "devices, cpu and cuda:0!"):
        cpu + gpu
    with pytest.raises(RuntimeError, match="cpu and cuda:0"):
        em.mul(cpu, gpu)


def test_dtype_error_names_the_dtypes():
    with pytest.raises(RuntimeError, match="expected both vectors to have same dtype, but found ember.float32 and "
                                           "ember.float64"):
        em.dot(em.ones(2), em.ones(2, dtype=em.float64))
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        em.tensor([1, 2]).mul_(1.5)
