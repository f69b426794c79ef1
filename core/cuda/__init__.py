"""``ember.cuda``: ``torch.cuda``'s API for asking about GPUs.

ember computes on the CPU with NumPy; a GPU needs CuPy (the ``"cuda"`` device's array module). Without it,
:func:`is_available` is False and :func:`device_count` is 0, so the usual first line of a tutorial picks the CPU::

    device = em.device("cuda" if em.cuda.is_available() else "cpu")

Seeding and cache calls are no-ops without a GPU, as in PyTorch; calls that need a device (``current_device``,
``get_device_name``, ``synchronize``, ...) raise an error that says how to get one.
"""
from __future__ import annotations

from . import amp  # noqa: F401  (torch.cuda.amp)
from ._runtime import _cupy, device_count, is_available

__all__ = ["is_available", "device_count", "is_initialized", "init", "current_device", "set_device",
           "get_device_name", "get_device_properties", "get_device_capability", "synchronize", "empty_cache",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "memory_allocated", "max_memory_allocated",
           "memory_reserved", "max_memory_reserved", "reset_peak_memory_stats", "amp"]


def is_initialized() -> bool:
    """True once a GPU is in use; False without one."""
    return is_available()


def _require_device(what: str):
    """The cupy module, or the error that says there is no GPU and how to get one."""
    if is_available():
        return _cupy()
    reason = ("CuPy is installed but found no CUDA device" if _cupy() is not None else
              "ember runs on the CPU with NumPy and uses a GPU only through CuPy, which is not installed")
    raise RuntimeError(f"{what} needs a CUDA device, and none is available: {reason}. Install the CuPy build for "
                       "your CUDA version (e.g. `pip install cupy-cuda12x`) on a machine with an NVIDIA GPU, or "
                       "guard the call with `em.cuda.is_available()` and use device='cpu'.")


def init() -> None:
    """Initialise the GPU state (an error without a GPU)."""
    _require_device("ember.cuda.init()")


def current_device() -> int:
    """The index of the selected GPU."""
    return int(_require_device("ember.cuda.current_device()").cuda.runtime.getDevice())


def set_device(device) -> None:
    """Select the GPU ``device`` (an index, ``"cuda:N"`` or a :class:`ember.device`)."""
    cupy = _require_device(f"ember.cuda.set_device({device!r})")
    cupy.cuda.runtime.setDevice(_index(device))


def _index(device) -> int:
    from ..device import device as device_cls
    if device is None:
        return current_device()
    if isinstance(device, int):
        return device
    dev = device_cls(device)
    return dev.index if dev.index is not None else current_device()


def get_device_properties(device=None):
    """The CUDA properties of a GPU (a dict from CuPy)."""
    cupy = _require_device("ember.cuda.get_device_properties()")
    return cupy.cuda.runtime.getDeviceProperties(_index(device))


def get_device_name(device=None) -> str:
    """The name of a GPU, e.g. ``"NVIDIA A100-SXM4-40GB"``."""
    _require_device("ember.cuda.get_device_name()")
    name = get_device_properties(device)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_capability(device=None):
    """The ``(major, minor)`` compute capability of a GPU."""
    props = get_device_properties(device)
    return int(props["major"]), int(props["minor"])


def synchronize(device=None) -> None:
    """Wait for every kernel on a GPU to finish."""
    cupy = _require_device("ember.cuda.synchronize()")
    with cupy.cuda.Device(_index(device)):
        cupy.cuda.Stream.null.synchronize()


def empty_cache() -> None:
    """Release the cached, unused GPU memory (a no-op without a GPU, as in PyTorch)."""
    if is_available():
        _cupy().get_default_memory_pool().free_all_blocks()


def manual_seed(seed: int) -> None:
    """Seed the current GPU's generator; a no-op without a GPU (CPU randomness is ``em.manual_seed``)."""
    if is_available():
        _cupy().random.seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seed every GPU's generator; a no-op without a GPU."""
    if is_available():
        cupy = _cupy()
        for i in range(device_count()):
            with cupy.cuda.Device(i):
                cupy.random.seed(int(seed))


def seed() -> None:
    """Seed the current GPU's generator with a random number; a no-op without a GPU."""
    if is_available():
        _cupy().random.seed()


def seed_all() -> None:
    """Seed every GPU's generator with a random number; a no-op without a GPU."""
    if is_available():
        cupy = _cupy()
        for i in range(device_count()):
            with cupy.cuda.Device(i):
                cupy.random.seed()


def memory_allocated(device=None) -> int:
    """Bytes of GPU memory held by tensors: 0 without a GPU, as in PyTorch."""
    return int(_cupy().get_default_memory_pool().used_bytes()) if is_available() else 0


def max_memory_allocated(device=None) -> int:
    """Peak bytes held by tensors; 0 without a GPU. (With CuPy: the pool's current total, its best estimate.)"""
    return int(_cupy().get_default_memory_pool().total_bytes()) if is_available() else 0


def memory_reserved(device=None) -> int:
    """Bytes of GPU memory reserved by the allocator: 0 without a GPU."""
    return int(_cupy().get_default_memory_pool().total_bytes()) if is_available() else 0


def max_memory_reserved(device=None) -> int:
    """Peak bytes reserved by the allocator: 0 without a GPU."""
    return memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    """Reset the peak memory counters (nothing to reset without a GPU)."""
