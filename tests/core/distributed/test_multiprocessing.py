"""``ember.multiprocessing``: ``spawn`` with PyTorch's semantics, the standard ``Process``/``Queue``/contexts,
tensors through queues, and PyTorch's DDP tutorial (``mp.spawn(demo_basic, ...)``) running as written."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em
import ember.multiprocessing as mp
import mp_workers
from dist_testing import SCRIPTS, finish, job_env


def test_spawn_gives_each_process_its_index_first(tmp_path):
    assert mp.spawn(mp_workers.write_index, args=(str(tmp_path), "p"), nprocs=3) is None  # join=True: None
    assert sorted(os.listdir(tmp_path)) == ["p0", "p1", "p2"]
    assert [(tmp_path / f"p{i}").read_text() for i in range(3)] == ["0", "1", "2"]


def test_spawn_reraises_a_childs_exception_naming_the_process(tmp_path):
    with pytest.raises(mp.ProcessRaisedException) as err:
        mp.spawn(mp_workers.fail_on_one, args=(str(tmp_path),), nprocs=2)
    assert err.value.error_index == 1
    msg = str(err.value)
    assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback (most recent call last)")
    assert msg.rstrip().endswith("ValueError: bad value in process 1")


def test_spawn_reports_an_exit_code_and_join_false_returns_the_context(tmp_path):
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as err:
        mp.spawn(mp_workers.exit_with_code, nprocs=2)
    assert (err.value.error_index, err.value.exit_code) == (0, 3)
    context = mp.spawn(mp_workers.write_index, args=(str(tmp_path), "q"), nprocs=1, join=False)
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 1
    while not context.join():
        pass
    assert os.listdir(tmp_path) == ["q0"]


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match=r"args must be a tuple .* args=\(2,\)"):
        mp.spawn(mp_workers.write_index, args=2, nprocs=1)
    with pytest.raises(ValueError, match="nprocs must be a positive int, got 0"):
        mp.spawn(mp_workers.write_index, nprocs=0)


def test_tensors_arrive_intact_through_queues():
    assert mp.Process is __import__("multiprocessing").Process
    assert set(mp.get_all_sharing_strategies()) == {"file_descriptor", "file_system"}
    ctx = mp.get_context("spawn")
    inbox, outbox = ctx.Queue(), ctx.Queue()
    sent = {"x": em.randn(3, 4, dtype=em.float64), "w": em.nn.Parameter(em.ones(2)),
            "leaf": em.tensor([1.5, -2.0], requires_grad=True), "i": em.tensor([1, 2, 3])}
    p = ctx.Process(target=mp_workers.echo_tensors, args=(inbox, outbox))
    p.start()
    inbox.put(sent)
    back, made = outbox.get(timeout=60), outbox.get(timeout=60)
    p.join(60)
    assert p.exitcode == 0
    for key, t in sent.items():
        got = back[key]
        assert (type(got), got.dtype, got.shape, got.requires_grad) == (type(t), t.dtype, t.shape, t.requires_grad)
        np.testing.assert_array_equal(got.detach().numpy(), t.detach().numpy())
    assert made.dtype == em.int32 and made.tolist() == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize("backend", ["gloo", "local"])
def test_the_ddp_tutorial_runs_as_written_with_mp_spawn(tmp_path, backend):
    from ember.core.distributed.launch import free_port
    env = job_env(TUTORIAL_PORT=str(free_port()))
    proc = subprocess.Popen([sys.executable, os.path.join(SCRIPTS, "ddp_tutorial.py"), backend, str(tmp_path)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    code, out, err = finish(proc)
    assert code == 0, err
    # the two processes share the pipe, so their lines may interleave: count each message instead
    for r in (0, 1):
        for message in (f"Running basic DDP example on rank {r}.", f"backend {backend} rank {r} of 2",
                        f"Finished running basic DDP example on rank {r}."):
            assert out.count(message) == 1, out
    assert out.count("DDP example") == 4
    first, second = (em.load(str(tmp_path / f"rank{r}.pt")) for r in (0, 1))
    assert list(first) == ["module.net1.weight", "module.net1.bias", "module.net2.weight", "module.net2.bias"]
    for key in first:  # rank 0's weights were broadcast and the averaged step kept the replicas equal
        np.testing.assert_array_equal(first[key].numpy(), second[key].numpy())


def test_the_tutorials_gpu_line_fails_in_the_child_with_the_no_cuda_error():
    with pytest.raises(mp.ProcessRaisedException) as err:
        mp.spawn(mp_workers.gpu_demo, args=(2,), nprocs=2)
    msg = str(err.value)
    assert f"-- Process {err.value.error_index} terminated with the following error:" in msg
    assert f"device 'cuda:{err.value.error_index}' is not available: no CUDA device can be used" in msg
