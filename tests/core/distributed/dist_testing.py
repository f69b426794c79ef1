"""Shared helpers for the distributed tests (importable as ``dist_testing``): launching jobs of a few processes
(locally with ember-run, or with mpiexec).

Every job gets a short timeout so a bug makes the test fail instead of hanging the suite. Jobs are started by the
session-scoped fixtures of the test modules, once, and the individual tests read what the job wrote.
"""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts")
JOB_TIMEOUT = 90


def mpiexec():
    """The path of ``mpiexec`` if mpi4py and an MPI launcher are installed (the ``mpi`` extra), else None."""
    if importlib.util.find_spec("mpi4py") is None:
        return None
    return shutil.which("mpiexec")


THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def job_env(default_threads=True, **extra):
    """The test process's environment without launcher variables; one BLAS thread unless ``default_threads`` is
    False (then no thread variable at all: the job picks its own count)."""
    env = dict(os.environ)
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK",
                "NODE_RANK", "EMBER_RUN_ID"):
        env.pop(key, None)  # a launcher variable leaking from the test process would change what the job does
    if default_threads:
        env.setdefault("OMP_NUM_THREADS", "1")
    else:
        for key in THREAD_VARIABLES:
            env.pop(key, None)
    env.update(extra)
    return env


def start(argv, launcher="local", n=2, cwd=None, default_threads=True):
    """Start a job: ``launcher`` is ``"local"`` (ember-run), ``"mpi"`` (mpiexec) or ``"plain"`` (python script)."""
    if launcher == "local":
        cmd = [sys.executable, "-m", "ember.core.distributed.run", "--nproc-per-node", str(n)] + argv
    elif launcher == "mpi":
        cmd = [mpiexec(), "-n", str(n), sys.executable] + argv
    else:
        cmd = [sys.executable] + argv
    return subprocess.Popen(cmd, cwd=cwd, env=job_env(default_threads), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc, timeout=JOB_TIMEOUT):
    """Wait for a job; returns ``(returncode, stdout, stderr)``."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the job did not finish within {timeout} s:\n{out}\n{err}")
    return proc.returncode, out, err


def shm_files():
    """The names in /dev/shm (empty where there is none)."""
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def remove_mpich_leftovers(before):
    """An MPI job stopped by MPI_Abort leaves MPICH's shared-memory files behind: remove the new ones."""
    for name in shm_files() - before:
        if name.startswith("mpich_shm_"):
            try:
                os.unlink(os.path.join("/dev/shm", name))
            except OSError:
                pass


needs_mpi = pytest.mark.skipif(mpiexec() is None, reason="the mpi extra (mpi4py + mpiexec) is not installed")
