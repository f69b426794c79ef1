"""Whether a GPU is there: CuPy's presence and its device count (below ``amp``, which asks too)."""
from __future__ import annotations

import importlib.util

__all__ = ["device_count", "is_available"]


def _cupy():
    """The cupy module when it is installed, else None (importing it is slow, so only on demand)."""
    if importlib.util.find_spec("cupy") is None:
        return None
    import cupy
    return cupy


def device_count() -> int:
    """The number of GPUs ember can use: 0 without CuPy or without a CUDA driver."""
    cupy = _cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # CuPy without a driver or a device raises its own runtime error
        return 0


def is_available() -> bool:
    """True if a GPU can be used (CuPy installed and at least one CUDA device); False on a CPU-only machine."""
    return device_count() > 0
