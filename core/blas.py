"""Reaching this process's BLAS library: its thread count (set and read) through threadpoolctl when installed, else
through the library's own ``*_set_num_threads``/``*_get_num_threads`` entry points.

The one place that knows the BLAS entry-point names; the threading policy (``core/threads.py``) and the per-rank
limits of the launchers (``core/distributed/threads.py``) both use it.
"""
from __future__ import annotations

import ctypes
import os
import re
from typing import Optional

__all__ = ["BLAS_SETTERS", "BLAS_GETTERS", "set_blas_threads", "get_blas_threads", "wheel_blas_setter"]

# entry points of the BLAS builds NumPy ships with or links against (the scipy-openblas wheels rename the symbols)
BLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads_64_",
                "scipy_openblas_set_num_threads", "openblas_set_num_threads64_", "openblas_set_num_threads",
                "MKL_Set_Num_Threads", "bli_thread_set_num_threads")
BLAS_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads_64_",
                "scipy_openblas_get_num_threads", "openblas_get_num_threads64_", "openblas_get_num_threads",
                "MKL_Get_Max_Threads", "bli_thread_get_num_threads")


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
    setter = _find(BLAS_SETTERS)
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
    getter = _find(BLAS_GETTERS)
    return int(getter()) if getter is not None else None


def wheel_blas_setter():
    """``openblas_set_num_threads`` of the OpenBLAS bundled in NumPy's wheel (``numpy.libs``), or None."""
    import numpy
    libs = os.path.join(os.path.dirname(os.path.dirname(numpy.__file__)), "numpy.libs")
    try:
        names = sorted(n for n in os.listdir(libs) if "openblas" in n)
    except OSError:
        return None
    for name in names:
        try:
            lib = ctypes.CDLL(os.path.join(libs, name))  # already loaded by NumPy: dlopen only bumps a count
        except OSError:
            continue
        for symbol in BLAS_SETTERS:
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.argtypes = (ctypes.c_int,)
                return fn
    return None
