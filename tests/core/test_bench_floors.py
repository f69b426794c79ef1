"""The NumPy floors of benchmarks/jobs.py compute the same gradients as ember on the same model."""
import importlib.util
import os

import numpy as np
import pytest

import ember as em

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "benchmarks")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", os.path.join(BENCH, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("job", ["mlp", "cnn"])
def test_floor_gradients_match_ember(job):
    jobs, floors = _load("jobs"), _load("jobs_numpy")
    em.manual_seed(0)
    model = jobs.build_model(job, em)
    x, y = jobs.make_data(job, 16, 1)
    loss = em.nn.functional.cross_entropy(model(em.from_numpy(x)), em.from_numpy(y))
    loss.backward()
    params = list(model.parameters())
    floor = (floors.MlpFloor if job == "mlp" else floors.LeNetFloor)([p.detach().numpy() for p in params])
    floor_loss, grads = floor.grads(x, y)
    assert floor_loss == pytest.approx(loss.item(), rel=1e-5)
    assert len(grads) == len(params)
    for p, g in zip(params, grads):
        assert g.shape == tuple(p.shape)
        np.testing.assert_allclose(g, p.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_floor_adam_matches_ember_adam():
    floors = _load("jobs_numpy")
    rng = np.random.default_rng(0)
    p0, grads = rng.standard_normal(5).astype(np.float32), [rng.standard_normal(5).astype(np.float32)
                                                            for _ in range(3)]
    p = em.tensor(p0.copy(), requires_grad=True)
    opt = em.optim.Adam([p], lr=1e-2)
    mine = floors.Adam([p0.copy()], lr=1e-2)
    for g in grads:
        p.grad = em.tensor(g)
        opt.step()
        mine.step([g])
    np.testing.assert_allclose(mine.params[0], p.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_jobs_sides_train_in_turns_each_in_its_own_process():
    # every side (the hand loop, the Trainer, the NumPy floor) trains to its end in turns and reports its step time
    # and peak memory; a side that fails raises with its error instead of leaving the others waiting for a turn
    jobs = _load("jobs")
    times, rss = jobs.run_sides("mlp", ["ember", "trainer", "numpy"], threads=1, batch=8, scale=0.01,
                                torch_python=None)
    assert sorted(times) == sorted(rss) == ["ember", "numpy", "trainer"]
    assert all(0 < t < 1 for t in times.values()) and all(m > 10 for m in rss.values())
    with pytest.raises(RuntimeError, match=r"--worker no-such-job ember(.|\n)*KeyError"):
        jobs.run_sides("no-such-job", ["ember"], threads=1, batch=8, scale=0.01, torch_python=None)
