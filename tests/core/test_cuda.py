"""``em.cuda`` without a GPU: the tutorial's first line picks the CPU, seeding is a no-op, device calls say how to
get a GPU, and ``amp`` disables itself as PyTorch's does without CUDA."""
import importlib.util
import warnings

import numpy as np
import pytest

import ember as em

pytestmark = pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")


def test_the_tutorial_device_line_picks_the_cpu():
    device = em.device("cuda" if em.cuda.is_available() else "cpu")
    assert device == em.device("cpu")
    model = em.nn.Linear(3, 2).to(device)
    assert model(em.ones(4, 3, device=device)).device == em.device("cpu")
    assert (em.cuda.is_available(), em.cuda.device_count(), em.cuda.is_initialized()) == (False, 0, False)
    import ember.cuda as cuda_module  # `import ember.cuda` names the same module
    assert cuda_module is em.cuda


def test_seeding_the_gpu_is_a_no_op_that_leaves_the_cpu_stream_alone():
    em.manual_seed(7)
    expected = em.randn(5)
    em.manual_seed(7)
    assert em.cuda.manual_seed(123) is None
    assert em.cuda.manual_seed_all(456) is None
    em.cuda.seed()
    em.cuda.seed_all()
    np.testing.assert_array_equal(em.randn(5).numpy(), expected.numpy())


def test_cache_and_memory_queries_are_zero_without_a_gpu():
    assert em.cuda.empty_cache() is None
    assert (em.cuda.memory_allocated(), em.cuda.max_memory_allocated(), em.cuda.memory_reserved()) == (0, 0, 0)


@pytest.mark.parametrize("call, name", [
    (lambda: em.cuda.get_device_name(0), "get_device_name"),
    (lambda: em.cuda.current_device(), "current_device"),
    (lambda: em.cuda.synchronize(), "synchronize"),
    (lambda: em.cuda.set_device(0), "set_device"),
    (lambda: em.cuda.get_device_properties(0), "get_device_properties"),
])
def test_device_calls_say_there_is_no_gpu_and_how_to_get_one(call, name):
    with pytest.raises(RuntimeError) as err:
        call()
    msg = str(err.value)
    assert f"ember.cuda.{name}" in msg and "none is available" in msg and "pip install cupy-cuda12x" in msg


@pytest.mark.parametrize("target", [0, 1])
def test_moving_to_an_int_device_says_no_cuda_device_is_available(target):
    model = em.nn.Linear(2, 2)
    for move in (lambda: model.to(target), lambda: em.ones(2).to(target), lambda: em.ones(2).to(device=target)):
        with pytest.raises(RuntimeError, match=f"device 'cuda:{target}' is not available: no CUDA device") as err:
            move()
        assert "pip install cupy" in str(err.value)
    assert model.weight.device == em.device("cpu")


def test_amp_autocast_and_grad_scaler_disable_themselves_and_training_runs_unchanged():
    em.manual_seed(0)
    model = em.nn.Linear(3, 1)
    reference = em.nn.Linear(3, 1)
    reference.load_state_dict(model.state_dict())
    x, y = em.randn(8, 3), em.randn(8, 1)
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling"), pytest.warns(FutureWarning):
        scaler = em.cuda.amp.GradScaler()
    opt = em.optim.SGD(model.parameters(), lr=0.1)
    with pytest.warns(UserWarning, match="CUDA is not available. Disabling autocast"), pytest.warns(FutureWarning):
        ctx = em.cuda.amp.autocast()
    with ctx:
        loss = em.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    ref_opt = em.optim.SGD(reference.parameters(), lr=0.1)
    em.nn.functional.mse_loss(reference(x), y).backward()
    ref_opt.step()
    np.testing.assert_array_equal(model.weight.detach().numpy(), reference.weight.detach().numpy())
    assert (scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()) == (False, 1.0, {})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        em.amp.GradScaler("cuda", enabled=False)  # asked for nothing: no warning
