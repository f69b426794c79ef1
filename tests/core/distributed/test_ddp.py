"""DistributedDataParallel with 2 ranks on both backends (scripts/ddp_worker.py), checked against references
computed here in one process: the same weights as big-batch training, no_sync accumulation, unused parameters,
uneven inputs under join(), and the save-on-rank-0 / barrier / load checkpoint pattern."""
import json
import os
import sys

import numpy as np
import pytest

import ember as em
from ember.core import nn, optim

from dist_testing import SCRIPTS, finish, mpiexec, start

sys.path.insert(0, SCRIPTS)
from ddp_cases import equivalence_data, join_batches, make_mlp  # noqa: E402

BACKENDS = [pytest.param("local", id="local"),
            pytest.param("mpi", id="mpi", marks=pytest.mark.skipif(mpiexec() is None, reason="no mpi extra"))]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp")
    jobs = {b: start([os.path.join(SCRIPTS, "ddp_worker.py"), str(out), b], b, 2)
            for b in ("local", "mpi") if b == "local" or mpiexec()}
    found = {}
    for backend, proc in jobs.items():
        code, stdout, stderr = finish(proc)
        assert code == 0, f"{backend} DDP job failed:\n{stdout}\n{stderr}"
        found[backend] = [json.load(open(out / f"ddp-{backend}-rank{r}.json")) for r in range(2)]
    return found


def value(runs, backend, name, rank):
    entry = runs[backend][rank][name]
    assert "error" not in entry, entry.get("trace", entry.get("error"))
    return entry["value"]


def params(model):
    return [p.detach()._data.astype(np.float64) for p in model.parameters()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_ranks_of_32_equal_one_process_of_64(runs, backend):
    reference = make_mlp(seed=100)  # rank 0's initialisation: DDP broadcasts it
    start_weights = params(reference)
    opt = optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    x, y = equivalence_data()
    for step in range(20):
        opt.zero_grad()
        nn.functional.cross_entropy(reference(em.tensor(x[step * 64:(step + 1) * 64])),
                                    em.tensor(y[step * 64:(step + 1) * 64])).backward()
        opt.step()
    for r in range(2):
        got = value(runs, backend, "equivalence", r)
        for a, b in zip(got["initial"], start_weights):
            np.testing.assert_array_equal(np.array(a), b)
        for a, b in zip(got["final"], params(reference)):
            np.testing.assert_allclose(np.array(a), b, atol=1e-6, rtol=0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradients_travel_in_buckets_not_per_parameter(runs, backend):
    got = value(runs, backend, "equivalence", 0)
    # 4 parameters, a 0.03 MiB cap (7864 floats), filled in reverse order: [2.bias + 2.weight], [0.bias], [0.weight]
    assert got["buckets"] == [3 + 3 * 2048, 2048, 8 * 2048]
    assert got["calls"] == got["buckets"]  # one collective per bucket and iteration, in bucket order
    assert got["keys"] == ["module.0.weight", "module.0.bias"]


def grads_of(model, x):
    model.zero_grad()
    model(x).sum().backward()
    return [p.grad._data.astype(np.float64) for p in model.parameters()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_no_sync_accumulates_locally_then_averages_the_sum(runs, backend):
    model = make_mlp(seed=1, width=5)
    xs = [em.tensor(np.arange(8, dtype=np.float32).reshape(1, 8) * (r + 1)) for r in range(2)]
    local = [grads_of(model, x) for x in xs]
    doubled = [grads_of(model, x * 2) for x in xs]
    for r in range(2):
        got = value(runs, backend, "no_sync", r)
        for a, b in zip(got["local"], local[r]):
            np.testing.assert_allclose(np.array(a), b, rtol=1e-6)
        for k, a in enumerate(got["synced"]):
            expected = (local[0][k] + doubled[0][k] + local[1][k] + doubled[1][k]) / 2
            np.testing.assert_allclose(np.array(a), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_find_unused_parameters(runs, backend):
    # x_r = [1, 2] * (r + 1); branch b is used by rank 1 only, `never` by nobody
    for r in range(2):
        first = value(runs, backend, "find_unused", r)["first"]
        assert first == [[[1.5, 3.0]], [1.0], [[1.0, 2.0]], [0.5], None, None]
        second = value(runs, backend, "find_unused", r)["second"]  # no zero_grad: a accumulates, b keeps its grad
        assert second == [[[3.0, 6.0]], [2.0], [[1.0, 2.0]], [0.5], None, None]


@pytest.mark.parametrize("backend", BACKENDS)
def test_unused_parameters_without_detection_raise_naming_them(runs, backend):
    error = runs[backend][0]["unused_error"]["error"]
    assert "Expected to have finished reduction in the prior iteration" in error
    assert "find_unused_parameters=True" in error and "b.weight" in error and "never.bias" in error


@pytest.mark.parametrize("backend", BACKENDS)
def test_join_with_uneven_inputs_ends_with_equal_weights(runs, backend):
    model = make_mlp(seed=5, width=6)
    batches = [join_batches(0), join_batches(1)]  # 3 and 5 batches
    for i in range(5):
        grads = [grads_of_loss(model, b[i]) for b in batches if i < len(b)]
        with em.no_grad():
            for k, p in enumerate(model.parameters()):
                # the joined rank contributes zeros; the sum is divided by the initial world size
                p._data -= np.float32(0.2) * (sum(g[k] for g in grads) / 2).astype(np.float32)
    final = [value(runs, backend, "join", r) for r in range(2)]
    assert final[0] == final[1]
    for a, b in zip(final[0], params(model)):
        np.testing.assert_allclose(np.array(a), b, atol=1e-6)
    with_buffers = [value(runs, backend, "join_buffers", r) for r in range(2)]
    assert with_buffers[0] == with_buffers[1]  # BatchNorm statistics included


def grads_of_loss(model, x):
    model.zero_grad()
    model(em.tensor(x)).pow(2).mean().backward()
    return [p.grad._data.astype(np.float64) for p in model.parameters()]


@pytest.mark.parametrize("backend", BACKENDS)
def test_rank0_saves_barrier_everyone_loads(runs, backend):
    expected = [p + 1 for p in params(make_mlp(seed=20, width=4))]
    for r in range(2):
        for a, b in zip(value(runs, backend, "checkpoint", r), expected):
            np.testing.assert_allclose(np.array(a), b, rtol=1e-6)
