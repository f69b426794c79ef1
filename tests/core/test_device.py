"""Devices: ``ember.device`` parsing and printing, tensors on the CPU, and the clear error when CUDA needs CuPy."""
import importlib.util

import numpy as np
import pytest

import ember as em
from ember.core.device import array_module, module_for_device

HAS_CUPY = importlib.util.find_spec("cupy") is not None
needs_no_cupy = pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed, so 'cuda' is available")


def test_device_repr_str_and_fields():
    cpu = em.device("cpu")
    assert repr(cpu) == "device(type='cpu')"
    assert str(cpu) == "cpu"
    assert cpu.type == "cpu" and cpu.index is None
    gpu = em.device("cuda:1")
    assert repr(gpu) == "device(type='cuda', index=1)"
    assert str(gpu) == "cuda:1"
    assert gpu.type == "cuda" and gpu.index == 1
    assert em.device("cuda", 0) == em.device("cuda:0")
    assert em.device(0) == em.device("cuda:0")
    assert em.device(em.device("cpu")) == cpu


def test_device_equality_and_hashing():
    assert em.device("cpu") == "cpu"
    assert em.device("cpu") != "cuda"
    assert em.device("cpu") != "not a device"
    assert em.device("cuda") != em.device("cuda:0")
    assert len({em.device("cpu"), em.device("cpu"), em.device("cuda:0")}) == 2


def test_invalid_device_strings():
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type at start of device string: tpu"):
        em.device("tpu")
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:x'"):
        em.device("cuda:x")
    with pytest.raises(TypeError, match="device\\(\\) expected a string"):
        em.device(1.5)


def test_tensors_live_on_the_cpu():
    for t in (em.zeros(2), em.tensor([1, 2]), em.randn(2), em.arange(3), em.zeros(2, device="cpu"),
              em.tensor([1.0], device=em.device("cpu"))):
        assert t.device == "cpu"
        assert t.device == em.device("cpu")
        assert not t.is_cuda
        assert t._xp is np


def test_array_module_is_numpy_for_cpu():
    assert module_for_device("cpu") is np
    assert module_for_device(em.device("cpu")) is np
    assert array_module(np.zeros(2), np.ones(1)) is np


@needs_no_cupy
@pytest.mark.parametrize("make", [
    lambda: em.zeros(2, device="cuda"),
    lambda: em.ones(2, device="cuda:0"),
    lambda: em.tensor([1.0], device="cuda"),
    lambda: em.randn(2, device="cuda"),
    lambda: em.rand(2, device=em.device("cuda")),
    lambda: em.arange(3, device="cuda"),
    lambda: em.full((2,), 1.0, device="cuda"),
    lambda: em.zeros_like(em.zeros(2), device="cuda"),
])
def test_cuda_without_cupy_says_how_to_install_it(make):
    with pytest.raises(RuntimeError, match="pip install cupy"):
        make()
