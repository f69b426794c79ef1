"""Starting and supervising the processes of a local job (used by ``ember-run`` and the Trainer's launcher).

Children get torchrun's variables (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``,
``NODE_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``) plus ``EMBER_RUN_ID``, and BLAS thread limits unless the user
set them. They run in their own process group (so their DataLoader workers can be stopped with them) and, on Linux,
die with their parent (``PR_SET_PDEATHSIG``): a launcher that is killed leaves no orphans.
"""
from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from typing import Dict, List, Mapping, Sequence

from .threads import thread_env

__all__ = ["free_port", "worker_env", "start_worker", "stop_workers", "new_run_id"]


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def new_run_id() -> str:
    """A fresh job id (names the job's shared-memory files, ``EMBER_RUN_ID``)."""
    return uuid.uuid4().hex[:12]


def worker_env(base: Mapping[str, str], *, rank: int, local_rank: int, world_size: int, local_world_size: int,
               node_rank: int, master_addr: str, master_port: int, run_id: str) -> Dict[str, str]:
    """The environment of one worker process."""
    env = dict(base)
    env.update(thread_env(local_world_size, base))
    env.update({"RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world_size),
                "LOCAL_WORLD_SIZE": str(local_world_size), "GROUP_RANK": str(node_rank),
                "NODE_RANK": str(node_rank), "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(world_size),
                "MASTER_ADDR": master_addr, "MASTER_PORT": str(master_port), "EMBER_RUN_ID": run_id})
    return env


def _death_signal_setter():
    """A function for the child (between fork and exec) that makes it die with its parent, or None.

    The libc lookup happens here, in the parent: after a fork only already-resolved calls are safe.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig, sigkill = 1, int(signal.SIGKILL)

    def set_death_signal():
        prctl(pr_set_pdeathsig, sigkill)
    return set_death_signal


def start_worker(cmd: Sequence[str], env: Mapping[str, str], stderr=None) -> subprocess.Popen:
    """Start one worker in its own process group, killed if this process dies (Linux)."""
    kwargs = {}
    setter = _death_signal_setter()
    if setter is not None:
        kwargs["preexec_fn"] = setter
    return subprocess.Popen(list(cmd), env=dict(env), stderr=stderr, start_new_session=True, **kwargs)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError, OSError):
        try:
            proc.send_signal(sig)
        except (ProcessLookupError, OSError):
            pass


def stop_workers(procs: List[subprocess.Popen], grace: float = 3.0) -> None:
    """SIGTERM the workers still running (and their process groups), then SIGKILL after ``grace`` seconds."""
    alive = [p for p in procs if p.poll() is None]
    for p in alive:
        _signal_group(p, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [p for p in alive if p.poll() is None]
    for p in alive:
        _signal_group(p, signal.SIGKILL)
    for p in procs:
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    for p in procs:  # stragglers in the workers' groups (DataLoader workers) go too
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError, OSError):
            pass


if __name__ == "__main__":  # `python -m ember.distributed.launch`: PyTorch's deprecated launcher (see run.py)
    from .run import launch_main
    sys.exit(launch_main())
