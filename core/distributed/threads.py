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

import ctypes
import os
import re
from typing import Dict, Mapping, Optional

from ..threads import BLAS_GETTERS as _GETTERS, BLAS_SETTERS as _SETTERS  # one list of BLAS entry points

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


def _blas_libraries():
    """The BLAS shared libraries loaded in this process (Linux: read from ``/proc/self/maps``)."""
    paths = []
    try:
        with open("/proc/self/maps") as fh:
            for path in set(re.findall(r"(/\S*(?:openblas|mkl_rt|libmkl|blis)\S*\.so[.\d]*)", fh.read())):
                paths.append(path)
    except OSError:
        pass
    libs = []
    for path in sorted(paths):
        try:
            libs.append(ctypes.CDLL(path))
        except OSError:
            pass
    return libs


def _find(names):
    for lib in _blas_libraries():
        for name in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                return fn
    return None


def set_blas_threads(n: int) -> bool:
    """Limit the BLAS thread pool of this process to ``n`` threads. Returns ``False`` if no BLAS could be reached."""
    n = max(1, int(n))
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        threadpool_limits(limits=n, user_api="blas")
        return True
    setter = _find(_SETTERS)
    if setter is None:
        return False
    setter(ctypes.c_int(n))
    return True


def get_blas_threads() -> Optional[int]:
    """The BLAS thread count of this process, or ``None`` if it cannot be read."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        counts = [info["num_threads"] for info in threadpool_info() if info.get("user_api") == "blas"]
        return counts[0] if counts else None
    getter = _find(_GETTERS)
    return int(getter()) if getter is not None else None


def apply_rank_threads(local_world_size: int) -> Optional[int]:
    """Give this rank ``cores // local_world_size`` BLAS threads unless the user set a count; returns the count set."""
    if user_set_threads() or local_world_size <= 1:
        return None
    n = threads_per_rank(local_world_size)
    return n if set_blas_threads(n) else None
