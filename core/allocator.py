"""Keep freed memory for reuse: glibc's malloc thresholds, set once when ember is imported.

By default glibc serves every block over ~128 KiB-32 MiB (the threshold adapts) with a fresh ``mmap`` and gives it
back to the OS on ``free``; the top of the heap is also trimmed whenever 128 KiB are free there. A training step
frees and re-allocates the same large temporaries every step, so each step page-faults on memory the kernel must
zero again (a quarter of the time of some steps). Raising both thresholds keeps those blocks in the heap: the next
step reuses them without a fault. The cost is resident memory that stays at the high-water mark of a step instead
of falling between steps (``benchmarks/jobs.py`` prints each side's peak RSS).

Switch: ``EMBER_MALLOC_TUNE=0`` in the environment leaves the allocator untouched. Only glibc (Linux) is tuned;
elsewhere this does nothing.
"""
from __future__ import annotations

import os
import sys

__all__ = ["tune_allocator", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

_M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
_M_MMAP_THRESHOLD = -3
# 32 MiB is glibc's ceiling for the mmap threshold on 64-bit (HEAP_MAX_SIZE / 2); larger blocks are mmapped anyway
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 512 << 20

_tuned = [None]


def tune_allocator() -> bool:
    """Raise glibc's mmap and trim thresholds (once); ``True`` if the allocator is tuned."""
    if _tuned[0] is not None:
        return _tuned[0]
    _tuned[0] = False
    if os.environ.get("EMBER_MALLOC_TUNE", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # already loaded by NumPy
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # glibc only: musl's mallopt is a no-op with other numbers
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _tuned[0] = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD,
                                                                                  TRIM_THRESHOLD))
    return _tuned[0]
