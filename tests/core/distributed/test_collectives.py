"""Every collective and point-to-point call, with 2 and 3 ranks, on both backends, on float32/float64/int64 and
each ReduceOp. One job per (backend, world size) runs everything (scripts/collectives_worker.py); the tests here
compute the expected results from the inputs' formula (scripts/collective_cases.py) with NumPy."""
import json
import os
import sys

import numpy as np
import pytest

from dist_testing import SCRIPTS, finish, mpiexec, start

sys.path.insert(0, SCRIPTS)
from collective_cases import DTYPES, OPS, chunk, value  # noqa: E402

SETUPS = [("local", 2), ("local", 3), ("mpi", 2), ("mpi", 3)]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """{(backend, world): [per-rank result dicts]}, from one job per setup (started together)."""
    out = tmp_path_factory.mktemp("collectives")
    jobs = {}
    for backend, n in SETUPS:
        if backend == "mpi" and mpiexec() is None:
            continue
        jobs[(backend, n)] = start([os.path.join(SCRIPTS, "collectives_worker.py"), str(out), backend], backend, n)
    found = {}
    for key, proc in jobs.items():
        code, stdout, stderr = finish(proc)
        assert code == 0, f"{key} job failed:\n{stdout}\n{stderr}"
        backend, n = key
        found[key] = [json.load(open(out / f"{backend}-{n}-rank{r}.json")) for r in range(n)]
    return found


def setups():
    return [pytest.param(b, n, id=f"{b}-{n}", marks=[] if b == "local" or mpiexec() else
                         pytest.mark.skip(reason="the mpi extra is not installed")) for b, n in SETUPS]


def got(results, backend, n, name, rank):
    entry = results[(backend, n)][rank][name]
    assert "error" not in entry, f"rank {rank} raised in {name}: {entry.get('trace', entry['error'])}"
    return entry["value"]


def reduce_expected(arrays, op, dtype):
    stack = np.stack(arrays)
    if op == "SUM":
        return stack.sum(0).astype(dtype)
    if op == "PRODUCT":
        return stack.prod(0).astype(dtype)
    if op == "MIN":
        return stack.min(0)
    if op == "MAX":
        return stack.max(0)
    total = stack.sum(0)
    if np.dtype(dtype).kind == "i":  # integer AVG truncates toward zero
        return (np.sign(total) * (np.abs(total) // len(arrays))).astype(dtype)
    return (total / len(arrays)).astype(dtype)


@pytest.mark.parametrize("backend,n", setups())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_all_reduce(results, backend, n, dtype, op):
    expected = reduce_expected([value(r, dtype) for r in range(n)], op, dtype)
    for r in range(n):
        dtype_repr, out = got(results, backend, n, f"all_reduce/{dtype}/{op}", r)
        assert dtype_repr == f"ember.{dtype}"  # the tensor keeps its dtype
        np.testing.assert_array_equal(np.array(out, dtype), expected)
        done, out_async = got(results, backend, n, f"all_reduce_async/{dtype}/{op}", r)
        assert done
        np.testing.assert_array_equal(np.array(out_async, dtype), expected)


@pytest.mark.parametrize("backend,n", setups())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce(results, backend, n, dtype, op):
    for r in range(n):
        out = np.array(got(results, backend, n, f"reduce/{dtype}/{op}", r), dtype)
        if r == n - 1:  # dst holds the result, the others keep their input
            np.testing.assert_array_equal(out, reduce_expected([value(k, dtype) for k in range(n)], op, dtype))
        else:
            np.testing.assert_array_equal(out, value(r, dtype))


@pytest.mark.parametrize("backend,n", setups())
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS)
def test_reduce_scatter(results, backend, n, dtype, op):
    for r in range(n):
        expected = reduce_expected([chunk(k, r, dtype) for k in range(n)], op, dtype)
        np.testing.assert_array_equal(np.array(got(results, backend, n, f"reduce_scatter/{dtype}/{op}", r), dtype),
                                      expected)
        np.testing.assert_array_equal(
            np.array(got(results, backend, n, f"reduce_scatter_tensor/{dtype}/{op}", r), dtype), expected)


@pytest.mark.parametrize("backend,n", setups())
@pytest.mark.parametrize("dtype", DTYPES)
def test_broadcast_gather_scatter(results, backend, n, dtype):
    everyone = [value(k, dtype).tolist() for k in range(n)]
    for r in range(n):
        assert got(results, backend, n, f"broadcast/{dtype}", r) == value(n - 1, dtype).tolist()
        assert got(results, backend, n, f"all_gather/{dtype}", r) == everyone
        assert got(results, backend, n, f"all_gather_into_tensor/{dtype}", r) == sum(everyone, [])
        assert got(results, backend, n, f"gather/{dtype}", r) == (everyone if r == 0 else None)
        assert got(results, backend, n, f"scatter/{dtype}", r) == chunk(n - 1, r, dtype).tolist()
        assert got(results, backend, n, f"all_to_all/{dtype}", r) == [chunk(k, r, dtype).tolist() for k in range(n)]


@pytest.mark.parametrize("backend,n", setups())
@pytest.mark.parametrize("dtype", DTYPES)
def test_point_to_point(results, backend, n, dtype):
    for r in range(n):
        prev = (r - 1) % n
        assert got(results, backend, n, f"send_recv/{dtype}", r) == [prev, value(prev, dtype).tolist()]
        recv_done, send_done, source, data = got(results, backend, n, f"isend_irecv/{dtype}", r)
        assert (recv_done, send_done, source, data) == (True, True, prev, value(prev, dtype).tolist())
    senders = got(results, backend, n, f"recv_any_source/{dtype}", 0)
    assert senders == {str(k): value(k, dtype).tolist() for k in range(1, n)}


@pytest.mark.parametrize("backend,n", setups())
def test_large_payload_barrier_objects_groups(results, backend, n):
    total = n * (n + 1) / 2
    for r in range(n):
        assert got(results, backend, n, "large", r) == [total, total, float(np.arange(50_000).sum())]
        assert got(results, backend, n, "barrier", r) is True
        gathered, listed, g, scattered = got(results, backend, n, "objects", r)
        assert gathered == [{"rank": k, "name": f"r{k}"} for k in range(n)]
        assert listed == ["from0", 0]
        assert g == ([["g", k] for k in range(n)] if r == 0 else None)
        assert scattered == f"to{r}"
        group = got(results, backend, n, "new_group", r)
        if r in (0, n - 1):
            assert group == ["member", 0 if r == 0 else 1, 2, [1.0 + n], [float(n - 1)], [0, n - 1]]
        else:
            assert group == ["non-member", -1, -1]


@pytest.mark.parametrize("backend,n", setups())
def test_float16_bool_and_non_contiguous(results, backend, n):
    for r in range(n):
        half_dtype, half, any_, all_, transposed, half_b, half_g = got(results, backend, n, "dtypes_and_views", r)
        assert half_dtype == "ember.float16"
        assert half == sum(value(k, "float16") for k in range(n)).tolist()
        assert any_ == [True, True, False] and all_ == [False, True, False]
        expected = sum(value(k, "float64") for k in range(n)).reshape(2, 3).T
        assert transposed == expected.tolist()
        assert half_b == value(n - 1, "float16").tolist()
        assert half_g == [value(k, "float16").tolist() for k in range(n)]


@pytest.mark.parametrize("backend,n", setups())
def test_zero_dimensional_tensors(results, backend, n):
    for r in range(n):
        shape, total, gathered, broadcast, received = got(results, backend, n, "scalars", r)
        assert shape == [] and total == n * (n + 1) / 2 and gathered == [float(k) for k in range(n)]
        assert broadcast == float(n - 1) and received == float((r - 1) % n)


@pytest.mark.parametrize("backend,n", setups())
def test_mismatches_raise_naming_the_shapes(results, backend, n):
    for r in range(n):
        shape = results[(backend, n)][r]["mismatch_shape"]["error"]
        assert "DistBackendError" in shape
        for k in range(n):
            assert f"rank {k} has a float32 tensor of shape ({3 + k},)" in shape
        dtype = results[(backend, n)][r]["mismatch_dtype"]["error"]
        assert "rank 0 has a float32 tensor of shape (3,)" in dtype and "rank 1 has a float64 tensor" in dtype
        call = results[(backend, n)][r]["mismatch_call"]["error"]
        assert "rank 0 called broadcast" in call and "rank 1 called all_reduce" in call
        assert got(results, backend, n, "after_errors", r) == [float(n), float(n)]
    message = results[(backend, n)][1]["mismatch_recv"]["error"]
    assert "shape (2, 3)" in message and "shape (4,)" in message
