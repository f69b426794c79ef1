"""Launch detection (torchrun-style, MPI, SLURM), BLAS threads per rank, the ember-run command line, and how the
Trainer's strategy flag maps to DDP. Everything here runs in this process."""
import pytest

from ember.core.distributed import threads
from ember.core.distributed.environment import detect_environment
from ember.core.distributed.launch import worker_env
from ember.core.distributed.run import parse_args
from ember.trainer.strategies.ddp import DDPStrategy, launched_world_size, select_ddp_strategy


def test_plain_process_is_not_a_launch():
    assert detect_environment({}) is None
    assert detect_environment({"SLURM_NTASKS": "4", "SLURM_PROCID": "0", "SLURM_JOB_NAME": "bash"}) is None


def test_torchrun_variables():
    env = detect_environment({"RANK": "3", "WORLD_SIZE": "4", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2",
                              "GROUP_RANK": "1", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"})
    assert (env.kind, env.rank, env.world_size, env.local_rank, env.local_world_size) == ("torchrun", 3, 4, 1, 2)
    assert (env.node_rank, env.num_nodes, env.main_address, env.main_port) == (1, 2, "10.0.0.1", 29500)


def test_open_mpi_and_mpich_variables():
    ompi = detect_environment({"OMPI_COMM_WORLD_SIZE": "6", "OMPI_COMM_WORLD_RANK": "4",
                               "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_COMM_WORLD_LOCAL_SIZE": "3",
                               "OMPI_COMM_WORLD_NODE_RANK": "1"})
    assert (ompi.kind, ompi.world_size, ompi.rank, ompi.local_rank, ompi.node_rank, ompi.num_nodes) == \
        ("mpi", 6, 4, 1, 1, 2)
    mpich = detect_environment({"PMI_SIZE": "2", "PMI_RANK": "1", "MPI_LOCALRANKID": "1", "MPI_LOCALNRANKS": "2"})
    assert (mpich.kind, mpich.world_size, mpich.rank, mpich.local_rank, mpich.local_world_size) == \
        ("mpi", 2, 1, 1, 2)


def test_slurm_variables():
    env = detect_environment({"SLURM_NTASKS": "8", "SLURM_PROCID": "5", "SLURM_LOCALID": "1", "SLURM_NODEID": "1",
                              "SLURM_NNODES": "2", "SLURM_JOB_ID": "1234567", "SLURM_NODELIST": "gpu[003-004]"})
    assert (env.kind, env.world_size, env.rank, env.local_rank, env.local_world_size) == ("slurm", 8, 5, 1, 4)
    assert (env.node_rank, env.num_nodes, env.main_address, env.main_port) == (1, 2, "gpu003", 15000 + 4567)


def test_torchrun_variables_win_over_the_allocation():
    env = detect_environment({"SLURM_NTASKS": "8", "SLURM_PROCID": "5", "RANK": "0", "WORLD_SIZE": "2",
                              "PMI_SIZE": "8"})
    assert (env.kind, env.world_size) == ("torchrun", 2)


def test_bad_variable_is_named():
    with pytest.raises(ValueError, match="WORLD_SIZE='two' is not an integer"):
        detect_environment({"RANK": "0", "WORLD_SIZE": "two"})


def test_blas_threads_are_cores_over_local_ranks_unless_the_user_chose(monkeypatch):
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert threads.threads_per_rank(3) == 2 and threads.threads_per_rank(16) == 1
    assert threads.thread_env(4, {}) == {"OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "2", "MKL_NUM_THREADS": "2"}
    assert threads.thread_env(4, {"MKL_NUM_THREADS": "3"}) == {}
    env = worker_env({"OMP_NUM_THREADS": "5"}, rank=1, local_rank=1, world_size=2, local_world_size=2, node_rank=0,
                     master_addr="127.0.0.1", master_port=1234, run_id="abc")
    assert env["OMP_NUM_THREADS"] == "5" and "OPENBLAS_NUM_THREADS" not in env
    assert (env["RANK"], env["WORLD_SIZE"], env["LOCAL_RANK"], env["MASTER_PORT"]) == ("1", "2", "1", "1234")


def test_rank_threads_go_through_the_threading_policy(monkeypatch):
    import ember as em
    for name in threads.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    before, blas = em.get_num_threads(), threads.get_blas_threads()
    try:
        assert threads.apply_rank_threads(1) is None and em.get_num_threads() == before  # one rank: untouched
        assert threads.apply_rank_threads(2) == 4
        assert em.get_num_threads() == 4  # ember's pool gets the share ...
        assert threads.get_blas_threads() == blas  # ... and the BLAS library keeps the policy's single thread
        em.set_num_threads(before)
        monkeypatch.setenv("OMP_NUM_THREADS", "3")
        assert threads.apply_rank_threads(2) is None and em.get_num_threads() == before  # the user's choice wins
    finally:
        em.set_num_threads(before)


def test_blas_threads_can_be_set_at_run_time():
    before = threads.get_blas_threads()
    if before is None:
        pytest.skip("no BLAS thread control found in this NumPy build")
    try:
        assert threads.set_blas_threads(1) and threads.get_blas_threads() == 1
    finally:
        threads.set_blas_threads(before)


def test_ember_run_command_line():
    args = parse_args(["--nproc-per-node", "3", "--master-port", "29501", "train.py", "--lr", "0.1"])
    assert (args.nproc_per_node, args.master_port, args.script) == (3, 29501, "train.py")
    assert args.script_args == ["--lr", "0.1"]
    assert parse_args(["--nproc_per_node=2", "-m", "pkg.train"]).module
    with pytest.raises(SystemExit):
        parse_args(["--nnodes", "2", "train.py"])  # several machines: mpiexec/srun
    with pytest.raises(SystemExit):
        parse_args(["--nproc-per-node", "0", "train.py"])


def test_strategy_flag_selection(monkeypatch):
    for key in ("RANK", "WORLD_SIZE", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"):
        monkeypatch.delenv(key, raising=False)
    assert launched_world_size() == 1
    assert select_ddp_strategy("auto", devices=1) is None
    assert select_ddp_strategy("single_device", devices=1) is None
    assert isinstance(select_ddp_strategy("auto", devices=2), DDPStrategy)
    strategy = select_ddp_strategy("ddp_find_unused_parameters_true", devices=2)
    assert strategy._ddp_kwargs == {"find_unused_parameters": True}
    monkeypatch.setenv("PMI_SIZE", "4")
    monkeypatch.setenv("PMI_RANK", "0")
    assert launched_world_size() == 4 and isinstance(select_ddp_strategy("auto", devices=1), DDPStrategy)
    with pytest.raises(ValueError, match="Invalid backend"):
        DDPStrategy(process_group_backend="tcp")
