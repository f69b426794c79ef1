"""Bad input and failures: unreachable or incomplete rendezvous, inconsistent world sizes, timeouts, argument
errors, and the single-process world (where every collective is the identity). The test process itself is one of
the ranks, with short timeouts."""
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import ember as em
import ember.distributed as dist
from ember.core.distributed.launch import free_port
from ember.core.nn.parallel import DistributedDataParallel
from ember.trainer import MisconfigurationException

from dist_testing import SCRIPTS, job_env, mpiexec, remove_mpich_leftovers, shm_files

PEER = os.path.join(SCRIPTS, "peer.py")


@pytest.fixture(autouse=True)
def clean_group():
    yield
    if dist.is_initialized():
        dist.destroy_process_group()


def peer(*args):
    return subprocess.Popen([sys.executable, PEER, *args], env=job_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_unreachable_address_times_out_naming_it():
    url = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(dist.DistNetworkError) as info:
        dist.init_process_group("local", init_method=url, world_size=2, rank=1, timeout=0.5)
    message = str(info.value)
    assert url in message and "could not reach the rendezvous" in message and "rank 1" in message
    assert not dist.is_initialized()


def _self_connected_socket(*args, **kwargs):
    """What connect() can return when nothing listens and the kernel picks the target port as the source port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.connect(sock.getsockname())  # TCP simultaneous open with itself
    return sock


def test_a_tcp_self_connect_is_not_taken_for_rank_0(monkeypatch):
    # connecting in a loop to a free port in the ephemeral range sometimes connects a socket to itself; that must
    # count as "nothing answered", not as a rendezvous server that never answers
    from ember.core.distributed import rendezvous
    monkeypatch.setattr(rendezvous.socket, "create_connection", _self_connected_socket)
    url = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(dist.DistNetworkError, match="could not reach the rendezvous") as info:
        dist.init_process_group("local", init_method=url, world_size=2, rank=1, timeout=0.5)
    assert "connected to itself" in str(info.value)
    assert not dist.is_initialized()


def test_missing_ranks_time_out_naming_them():
    url = f"tcp://127.0.0.1:{free_port()}"
    with pytest.raises(dist.DistStoreError) as info:
        dist.init_process_group("local", init_method=url, world_size=3, rank=0, timeout=0.5)
    message = str(info.value)
    assert url in message and "1 of 3 ranks joined" in message and "missing rank(s): [1, 2]" in message


def test_file_rendezvous_reports_missing_ranks(tmp_path):
    url = f"file://{tmp_path / 'rdzv'}"
    with pytest.raises(dist.DistStoreError, match=r"missing rank\(s\): \[1\]"):
        dist.init_process_group("local", init_method=url, world_size=2, rank=0, timeout=0.3)


def test_inconsistent_world_size_is_refused():
    url = f"tcp://127.0.0.1:{free_port()}"
    other = peer("world3", url)
    with pytest.raises(dist.DistStoreError) as info:  # fails as soon as rank 1 registers, not at the timeout
        dist.init_process_group("local", init_method=url, world_size=2, rank=0, timeout=60)
    _, err = other.communicate(timeout=30)
    assert "rank 1 passed world_size=3 but rank 0 uses world_size=2" in str(info.value)
    assert "missing rank(s): [1]" in str(info.value) and url in str(info.value)
    assert other.returncode != 0 and "rank 1 passed world_size=3" in err


def test_file_rendezvous_and_a_collective_that_times_out(tmp_path):
    path = tmp_path / "rdzv"
    url = f"file://{path}"
    other = peer("file", url)
    dist.init_process_group("local", init_method=url, world_size=2, rank=0, timeout=20)
    assert not path.exists()  # rank 0 removes the file once everyone is connected
    t = em.ones(2)
    dist.all_reduce(t)
    assert t.tolist() == [2.0, 2.0]
    group = dist.new_group([0, 1], timeout=0.5)
    with pytest.raises(dist.DistBackendError) as info:
        dist.all_reduce(em.ones(1), group=group)  # rank 1 is waiting in a recv instead
    assert "all_reduce" in str(info.value) and "timed out" in str(info.value)
    with pytest.raises(dist.DistBackendError):  # the group is unusable after a timeout
        dist.barrier()
    out, err = other.communicate(timeout=30)
    assert "sum [2.0, 2.0]" in out
    assert other.returncode != 0 and "rank 0 failed" in err and "timed out" in err


@pytest.mark.skipif(mpiexec() is None, reason="the mpi extra is not installed")
def test_mpi_watchdog_aborts_a_hung_collective():
    before = shm_files()
    proc = subprocess.run([mpiexec(), "-n", "2", sys.executable, PEER, "mpi-timeout"], env=job_env(),
                          capture_output=True, text=True, timeout=60)
    remove_mpich_leftovers(before)
    assert proc.returncode != 0
    assert "timed out after 0.5 s (mpi backend)" in proc.stderr and "Aborting the job" in proc.stderr


def test_bad_arguments():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()
    with pytest.raises(ValueError, match="Invalid backend 'nope'"):
        dist.init_process_group("nope")
    with pytest.raises(ValueError, match="needs GPUs"):
        dist.init_process_group("nccl")
    with pytest.raises(ValueError, match="rank 2 is out of range for world_size=2"):
        dist.init_process_group("local", init_method="tcp://127.0.0.1:1", world_size=2, rank=2)
    with pytest.raises(ValueError, match="MASTER_ADDR expected"):
        env = {k: v for k, v in os.environ.items() if k != "MASTER_ADDR"}
        old, os.environ = os.environ, env
        try:
            dist.init_process_group("local", world_size=1, rank=0)
        finally:
            os.environ = old
    with pytest.raises(ValueError, match="not supported"):
        dist.init_process_group("local", init_method="udp://x:1", world_size=1, rank=0)
    with pytest.raises(ValueError, match="is not a reduction"):
        dist.ReduceOp.coerce("median")
    with pytest.raises(ValueError, match="Default process group"):
        DistributedDataParallel(em.nn.Linear(2, 2))


@pytest.fixture
def world_of_one():
    dist.init_process_group("local", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0, timeout=5)
    yield
    dist.destroy_process_group()


def test_single_process_world_collectives_are_identities(world_of_one):
    assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "local")
    t = em.tensor([1.0, -2.0])
    for op in dist.ReduceOp:
        dist.all_reduce(t, op=op)
    assert t.tolist() == [1.0, -2.0]
    out = [em.zeros(2)]
    dist.all_gather(out, t)
    assert out[0].tolist() == [1.0, -2.0]
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed() and work.is_success() and work.exception() is None
    objs = [None]
    dist.all_gather_object(objs, {"a": 1})
    assert objs == [{"a": 1}]
    with pytest.raises(ValueError, match="trying to initialize the default process group twice"):
        dist.init_process_group("local")


def test_collective_argument_errors(world_of_one):
    with pytest.raises(TypeError, match="all_reduce: tensor must be an ember Tensor, got ndarray"):
        dist.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match="tensor_list has 2 tensors but the group has 1 ranks"):
        dist.all_gather([em.zeros(2), em.zeros(2)], em.zeros(2))
    with pytest.raises(ValueError, match=r"tensor_list\[0\] is float32 of shape \(3,\) but the tensor is float32 "
                                         r"of shape \(2,\)"):
        dist.all_gather([em.zeros(3)], em.zeros(2))
    with pytest.raises(ValueError, match="src=1 is not a rank of the group"):
        dist.broadcast(em.zeros(2), src=1)
    with pytest.raises(ValueError, match="tag must be a non-negative int"):
        dist.isend(em.zeros(1), dst=0, tag=-1)
    with pytest.raises(ValueError, match="cannot send to itself"):
        dist.send(em.zeros(1), dst=0)
    with pytest.raises(TypeError, match="ReduceOp.MAX is not defined for complex"):
        dist.all_reduce(em.tensor([1 + 1j]), op=dist.ReduceOp.MAX)
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work with GPU"):
        DistributedDataParallel(em.nn.Linear(2, 2), device_ids=[0])
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DistributedDataParallel(em.nn.Linear(2, 2).requires_grad_(False))


def test_trainer_refuses_what_it_cannot_launch():
    with pytest.raises(MisconfigurationException, match="needs the processes on every machine to be started by a "
                                                        "cluster launcher"):
        em.Trainer(num_nodes=2, logger=False)
    with pytest.raises(MisconfigurationException, match="re-running this command, which is pytest here"):
        em.Trainer(strategy="ddp", devices=2, logger=False)
    from ember.trainer.strategies.ddp import DDPStrategy
    with pytest.raises(MisconfigurationException, match="needs the job to be started by mpiexec or srun"):
        em.Trainer(strategy=DDPStrategy(process_group_backend="mpi"), devices=2, logger=False)
    assert not dist.is_initialized()
