"""Intra-op threads per rank: ``cores / local ranks`` unless the user chose.

N ranks on one machine that each use one thread per core oversubscribe the cores N times, which makes every kernel
slower. Each rank therefore runs ``cores // local_world_size`` intra-op threads, unless one of ``OMP_NUM_THREADS``,
``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS``, ``BLIS_NUM_THREADS``, ``VECLIB_MAXIMUM_THREADS`` or
``NUMEXPR_NUM_THREADS`` is set (the user's choice wins).

The count goes through ember's one threading policy (:func:`ember.set_num_threads`, ``core/threads.py``): the BLAS
library stays single-threaded and ember's own pool splits large GEMMs and kernels. Launchers also set the
environment variables for the processes they start (:func:`thread_env`), so a rank's default count, and any other
library in it, already sees its share.
"""
from __future__ import annotations

import os
from typing import Dict, Mapping, Optional

from ..blas import get_blas_threads, set_blas_threads  # noqa: F401  (re-exported: this module's API)
from ..threads import set_num_threads

__all__ = ["THREAD_VARIABLES", "user_set_threads", "threads_per_rank", "thread_env", "apply_rank_threads",
           "set_blas_threads", "get_blas_threads"]

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
    """Give this rank ``cores // local_world_size`` threads through :func:`ember.set_num_threads` (BLAS stays
    single-threaded) unless the user set a count; returns the count set, or ``None``."""
    if user_set_threads() or local_world_size <= 1:
        return None
    n = threads_per_rank(local_world_size)
    set_num_threads(n)
    return n
