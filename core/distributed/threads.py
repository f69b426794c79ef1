"""BLAS threads per rank: ``cores / local ranks`` unless the user chose.

N ranks on one machine that each run a BLAS with one thread per core oversubscribe the cores N times, which makes
every matmul slower. Each rank therefore limits its BLAS to ``cores // local_world_size`` threads, unless one of
``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ``BLIS_NUM_THREADS``,
``VECLIB_MAXIMUM_THREADS`` or ``NUMEXPR_NUM_THREADS`` is set (the user's choice wins).

The environment variables only act when set before NumPy loads its BLAS, so launchers set them for the processes
they start (:func:`thread_env`); inside a running process the limit goes through ``threadpoolctl`` when it is
installed, or else straight through the BLAS library's ``*_set_num_threads`` entry point.
"""
from __future__ import annotations

import os
from typing import Dict, Mapping, Optional

from ..blas import get_blas_threads, set_blas_threads  # noqa: F401  (re-exported: this module's API)

__all__ = ["THREAD_VARIABLES", "user_set_threads", "threads_per_rank", "thread_env", "set_blas_threads",
           "get_blas_threads"]

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

def user_set_threads(env: Optional[Mapping[str, str]] = None) -> bool:
    """True if the user fixed a thread count through one of :data:`THREAD_VARIABLES`."""
    env = os.environ if env is None else env
    return any(env.get(name) for name in THREAD_VARIABLES)


def threads_per_rank(local_world_size: int) -> int:
    """``cores // local_world_size``, at least 1."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, cores // max(1, int(local_world_size)))


def thread_env(local_world_size: int, env: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The variables a launcher adds to a child's environment (nothing when the user set a thread count)."""
    if user_set_threads(env):
        return {}
    n = str(threads_per_rank(local_world_size))
    return {name: n for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def apply_rank_threads(local_world_size: int) -> Optional[int]:
    """Give this rank ``cores // local_world_size`` BLAS threads unless the user set a count; returns the count set."""
    if user_set_threads() or local_world_size <= 1:
        return None
    n = threads_per_rank(local_world_size)
    return n if set_blas_threads(n) else None
