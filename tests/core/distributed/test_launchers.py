"""The launchers: ``python -m ember.distributed.run`` / ``.launch`` (PyTorch's module paths), torchrun's flags in
``ember-run``, and the process-group calls launch scripts make (``init_process_group("mpi", rank=..., world_size=...)``
and ``get_backend()``)."""
import ast
import os
import subprocess
import sys

import pytest

import ember.distributed as dist
from dist_testing import SCRIPTS, job_env, mpiexec
from ember.core.distributed.launch import free_port
from ember.core.distributed.run import parse_args

SHOW = os.path.join(SCRIPTS, "show_launch.py")


def _run(module, *flags):
    proc = subprocess.run([sys.executable, "-m", module, *flags, SHOW, "--lr", "0.1"], env=job_env(),
                          capture_output=True, text=True, timeout=90)
    rows = []
    for line in proc.stdout.splitlines():
        assert line.startswith("ARGS [")
        argv, rest = line[5:].split("]", 1)
        rows.append((ast.literal_eval(argv + "]"), *rest.split()))
    return proc, sorted(rows, key=lambda r: r[1])


def test_python_m_ember_distributed_run_starts_the_workers():
    port = free_port()
    proc, rows = _run("ember.distributed.run", "--nproc_per_node=2", f"--master_port={port}")
    assert proc.returncode == 0, proc.stderr
    assert rows == [(["--lr", "0.1"], "0", "0", "2", "127.0.0.1", str(port), "none"),
                    (["--lr", "0.1"], "1", "1", "2", "127.0.0.1", str(port), "none")]
    import ember.core.distributed.run as real
    import ember.distributed.run as alias
    assert alias is real and alias.__name__ == "ember.core.distributed.run"


def test_python_m_ember_distributed_launch_passes_local_rank_and_warns():
    port = free_port()
    proc, rows = _run("ember.distributed.launch", "--nproc-per-node", "2", "--master-port", str(port))
    assert proc.returncode == 0, proc.stderr
    assert "FutureWarning: The module ember.distributed.launch is deprecated" in proc.stderr
    assert [r[0] for r in rows] == [["--local-rank=0", "--lr", "0.1"], ["--local-rank=1", "--lr", "0.1"]]
    proc, rows = _run("ember.distributed.launch", "--use_env", "--nproc_per_node=2")
    assert proc.returncode == 0, proc.stderr
    assert [r[0] for r in rows] == [["--lr", "0.1"], ["--lr", "0.1"]] and [r[2] for r in rows] == ["0", "1"]


def test_standalone_meets_on_localhost_at_a_free_port_with_a_fresh_job_id():
    proc, rows = _run("ember.distributed.run", "--standalone", "--nproc-per-node=2")
    assert proc.returncode == 0, proc.stderr
    (_, _, _, _, addr0, port0, id0), (_, _, _, _, addr1, port1, id1) = rows
    assert addr0 == addr1 == "localhost" and port0 == port1 != "0" and id0 == id1 != "none"


@pytest.mark.parametrize("spelling", ["_", "-"])
def test_torchrun_flags_in_both_spellings(spelling):
    def flag(name):
        return "--" + name.replace("_", spelling)
    args = parse_args([flag("nproc_per_node"), "2", flag("nnodes"), "1", flag("node_rank"), "0", flag("rdzv_id"),
                       "job7", flag("rdzv_backend"), "static", flag("rdzv_endpoint"), "10.0.0.5:29400",
                       flag("max_restarts"), "3", "train.py", "--epochs", "2"])
    assert (args.nproc_per_node, args.rdzv_id, args.rdzv_backend, args.max_restarts) == (2, "job7", "static", 3)
    assert (args.master_addr, args.master_port) == ("10.0.0.5", 29400)  # static: the endpoint is where rank 0 is
    assert (args.script, args.script_args, args.use_env) == ("train.py", ["--epochs", "2"], True)
    args = parse_args([flag("master_addr"), "10.1.1.1", flag("master_port"), "1234", "t.py"])
    assert (args.master_addr, args.master_port, args.rdzv_backend, args.max_restarts) == ("10.1.1.1", 1234,
                                                                                          "static", 0)
    args = parse_args([flag("rdzv_backend"), "c10d", flag("rdzv_endpoint"), "myhost:29400", flag("master_port"),
                       "1234", "t.py"])
    assert (args.master_addr, args.master_port) == ("myhost", None)  # c10d: --master-* are for static only
    args = parse_args(["--standalone", flag("rdzv_id"), "ignored", "t.py"])
    assert (args.rdzv_backend, args.master_addr, args.master_port) == ("c10d", "localhost", None)
    assert args.rdzv_id != "ignored"


@pytest.mark.parametrize("argv, message", [
    (["--nnodes", "2", "t.py"], "--nnodes=2: ember-run starts processes on one machine"),
    (["--node_rank", "1", "t.py"], "--node-rank=1: with one machine"),
    (["--rdzv_backend", "etcd", "t.py"], "--rdzv-backend=etcd: etcd rendezvous is for jobs across machines"),
    (["--rdzv-backend", "zmq", "t.py"], "--rdzv-backend='zmq': expected 'static' or 'c10d'"),
    (["--rdzv_endpoint", "host:http", "t.py"], "--rdzv-endpoint='host:http': expected HOST or HOST:PORT"),
    (["--max_restarts", "-1", "t.py"], "--max-restarts=-1: expected 0 or more restarts"),
])
def test_what_ember_run_cannot_do_is_a_clear_error(argv, message, capsys):
    with pytest.raises(SystemExit) as err:
        parse_args(argv)
    assert err.value.code == 2 and message in capsys.readouterr().err


def test_get_backend_returns_the_name_asked_for():
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0, timeout=5)
    try:
        assert dist.get_backend() == "gloo"
        assert dist.get_backend(dist.new_group([0])) == "gloo"
        assert dist.Backend(dist.get_backend()) == "local"  # gloo runs on the local backend
    finally:
        dist.destroy_process_group()
    dist.init_process_group("local", init_method=f"tcp://127.0.0.1:{free_port()}", world_size=1, rank=0, timeout=5)
    try:
        assert dist.get_backend() == "local"
    finally:
        dist.destroy_process_group()


@pytest.mark.skipif(mpiexec() is None, reason="the mpi extra is not installed")
def test_mpi_warns_that_it_assigns_rank_and_world_size_and_carries_on():
    code = ("import warnings, ember.distributed as dist\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    dist.init_process_group('mpi', rank=5, world_size=8)\n"
            "print([str(x.message) for x in w])\n"
            "print(dist.get_rank(), dist.get_world_size(), dist.get_backend())\n"
            "dist.destroy_process_group()\n")
    proc = subprocess.run([mpiexec(), "-n", "1", sys.executable, "-c", code], env=job_env(), capture_output=True,
                          text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr
    warned, ranks = proc.stdout.strip().splitlines()
    assert ast.literal_eval(warned) == [
        "init_process_group(backend='mpi'): world_size (8) and rank (5) are ignored since they are assigned by the "
        "MPI runtime (here world_size=1, rank=0)"]
    assert ranks == "0 1 mpi"
