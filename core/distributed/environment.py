"""Who launched this process, and as which rank: the cluster environments Lightning knows.

:func:`detect_environment` reads the variables the launchers set:

* ``ember-run``/``torchrun`` and the Trainer's own launcher: ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
  ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``/``NODE_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``;
* MPI (``mpiexec``/``mpirun``): Open MPI's ``OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE,NODE_RANK}``, MPICH's
  ``PMI_RANK``/``PMI_SIZE`` with ``MPI_LOCALRANKID``/``MPI_LOCALNRANKS``, PMIx's ``PMIX_RANK``;
* SLURM (``srun``): ``SLURM_PROCID``, ``SLURM_NTASKS``, ``SLURM_LOCALID``, ``SLURM_NODEID``, ``SLURM_NNODES``,
  ``SLURM_JOB_ID`` and ``SLURM_NODELIST``; an interactive allocation (job name ``bash``/``interactive``) is not a
  launch, as in Lightning.

The order matters when several are set: explicit torchrun-style variables win (a launcher inside an allocation
set them on purpose), then MPI (``srun --mpi=pmix`` sets both), then SLURM.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Optional

__all__ = ["ClusterEnvironment", "detect_environment", "local_world_size"]


@dataclass(frozen=True)
class ClusterEnvironment:
    """The process layout a launcher gave this process.

    Attributes:
        kind: ``"torchrun"`` (also ember-run and the Trainer's launcher), ``"mpi"`` or ``"slurm"``.
        world_size, rank: the job's size and this process's global rank.
        local_rank, local_world_size: the rank among, and the number of, the processes on this machine.
        node_rank, num_nodes: this machine's index and the number of machines.
        main_address, main_port: where rank 0's rendezvous listens (``None`` when the launcher does not say).
    """

    kind: str
    world_size: int
    rank: int
    local_rank: int
    local_world_size: int
    node_rank: int
    num_nodes: int
    main_address: Optional[str] = None
    main_port: Optional[int] = None


def _int(env: Mapping[str, str], *names: str, default: Optional[int] = None) -> Optional[int]:
    for name in names:
        value = env.get(name)
        if value not in (None, ""):
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"environment variable {name}={value!r} is not an integer") from None
    return default


def _torchrun(env: Mapping[str, str]) -> Optional[ClusterEnvironment]:
    if "WORLD_SIZE" not in env or "RANK" not in env:
        return None
    world, rank = _int(env, "WORLD_SIZE"), _int(env, "RANK")
    local_world = _int(env, "LOCAL_WORLD_SIZE", default=world)
    node_rank = _int(env, "GROUP_RANK", "NODE_RANK", default=0)
    port = _int(env, "MASTER_PORT")
    return ClusterEnvironment("torchrun", world, rank, _int(env, "LOCAL_RANK", default=rank), local_world, node_rank,
                              max(1, -(-world // max(1, local_world))), env.get("MASTER_ADDR"), port)


def _mpi(env: Mapping[str, str]) -> Optional[ClusterEnvironment]:
    if "OMPI_COMM_WORLD_SIZE" in env:
        world = _int(env, "OMPI_COMM_WORLD_SIZE")
        rank = _int(env, "OMPI_COMM_WORLD_RANK", default=0)
        local_rank = _int(env, "OMPI_COMM_WORLD_LOCAL_RANK", default=rank)
        local_world = _int(env, "OMPI_COMM_WORLD_LOCAL_SIZE", default=world)
        node_rank = _int(env, "OMPI_COMM_WORLD_NODE_RANK", default=0)
    elif "PMI_SIZE" in env or "PMIX_RANK" in env:
        world = _int(env, "PMI_SIZE", "OMPI_UNIVERSE_SIZE", default=1)
        rank = _int(env, "PMI_RANK", "PMIX_RANK", default=0)
        local_rank = _int(env, "MPI_LOCALRANKID", "PMI_LOCAL_RANK", default=rank)
        local_world = _int(env, "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE", default=world)
        node_rank = _int(env, "PMI_NODE_RANK", default=0)  # unknown under Hydra: only used for display
    else:
        return None
    return ClusterEnvironment("mpi", world, rank, local_rank, local_world, node_rank,
                              max(1, -(-world // max(1, local_world))))


def _first_host(nodelist: str) -> str:
    """The first host of a SLURM node list such as ``node[003-005,010],gpu1``."""
    match = re.match(r"([^,\[]+)(\[([^\]]+)\])?", nodelist.strip())
    if not match:
        return "127.0.0.1"
    prefix, ranges = match.group(1), match.group(3)
    if not ranges:
        return prefix
    first = ranges.split(",")[0].split("-")[0]
    return prefix + first


def _slurm(env: Mapping[str, str]) -> Optional[ClusterEnvironment]:
    if "SLURM_NTASKS" not in env or "SLURM_PROCID" not in env:
        return None
    if env.get("SLURM_JOB_NAME") in ("bash", "interactive"):
        return None
    world = _int(env, "SLURM_NTASKS")
    num_nodes = _int(env, "SLURM_NNODES", "SLURM_JOB_NUM_NODES", default=1)
    ntasks_per_node = _int(env, "SLURM_NTASKS_PER_NODE", default=None) if \
        env.get("SLURM_NTASKS_PER_NODE", "").isdigit() else None
    local_world = ntasks_per_node or max(1, world // max(1, num_nodes))
    job_id = env.get("SLURM_JOB_ID", "0")
    digits = re.sub(r"\D", "", job_id)[-4:] or "0"
    address = env.get("MASTER_ADDR") or _first_host(env.get("SLURM_NODELIST", env.get("SLURM_JOB_NODELIST", "")))
    port = _int(env, "MASTER_PORT", default=15000 + int(digits))  # Lightning's convention
    return ClusterEnvironment("slurm", world, _int(env, "SLURM_PROCID"), _int(env, "SLURM_LOCALID", default=0),
                              local_world, _int(env, "SLURM_NODEID", default=0), num_nodes, address, port)


def detect_environment(env: Optional[Mapping[str, str]] = None) -> Optional[ClusterEnvironment]:
    """The launch this process is part of, or ``None`` when it was started as a plain single process.

    Args:
        env: the environment to read (default: ``os.environ``).
    """
    env = os.environ if env is None else env
    for probe in (_torchrun, _mpi, _slurm):
        found = probe(env)
        if found is not None:
            return found
    return None


def local_world_size(env: Optional[Mapping[str, str]] = None) -> int:
    """The number of processes of this job on this machine (1 without a launch)."""
    found = detect_environment(env)
    return found.local_world_size if found is not None else 1
