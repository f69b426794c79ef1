"""Devices and their array modules.

Ops never call ``numpy`` on tensor data directly: they ask :func:`array_module` (or ``Tensor._xp``) for the module
that owns the data, the Chainer ``xp`` idiom. Today ``"cpu"`` is NumPy; a CuPy backend for ``"cuda"`` slots in by
returning ``cupy`` here, without touching the ops.
"""
from __future__ import annotations

import numpy as np

__all__ = ["device", "array_module", "module_for_device", "device_of", "get_default_device", "set_default_device"]


class device:
    """Where a tensor's data lives: ``device("cpu")``, ``device("cuda")`` or ``device("cuda", 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type  # torch.device(0) is the first GPU
        if not isinstance(type, str):
            raise TypeError(f"device() expected a string such as 'cpu' or 'cuda:0', got {type!r}")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
            raise RuntimeError(f"Device index must not be negative, got {index!r}")
        if ":" in type:
            type, _, idx = type.partition(":")
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'")
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except RuntimeError:
                return False  # not a device string, so not this device
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else \
            f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")


def get_default_device() -> device:
    """The device factory functions create tensors on when given none: always the CPU in ember."""
    return CPU


def set_default_device(device_) -> None:
    """Set the device factory functions use by default (``torch.set_default_device``).

    ember's factories always create on the CPU unless told ``device=``, so the CPU (or None, which restores it) is
    the only default it takes; a GPU default is refused now rather than ignored, with how to get there instead.
    """
    if device_ is None:
        return
    dev = device(device_)
    if dev.type != "cpu":
        module_for_device(dev)  # no GPU: the error that says how to get one
        raise NotImplementedError(f"set_default_device({str(device_)!r}): ember's factory functions do not follow "
                                  "a default device; pass device='cuda' to them, or move the model and batches "
                                  "with .to('cuda').")


def module_for_device(dev) -> object:
    """Return the array module for ``dev`` (numpy for cpu); ``cuda`` needs CuPy and says how to install it."""
    dev = dev if isinstance(dev, device) else device(dev)
    if dev.type == "cpu":
        return np
    try:
        import cupy  # noqa: F401  (optional GPU backend)
    except ImportError:
        raise RuntimeError(
            f"device '{dev}' is not available: no CUDA device can be used, because a GPU needs CuPy, which is not "
            "installed. Install the build for your CUDA version, e.g. `pip install cupy-cuda12x`, or use "
            "device='cpu' (`em.cuda.is_available()` tells which).") from None
    return cupy


def array_module(*arrays):
    """The array module (numpy or cupy) that owns ``arrays``; numpy when none of them is a GPU array.

    This is ember's one array-module lookup (the Chainer ``xp`` idiom): ops, optimizers and metrics ask it (or
    ``Tensor._xp``, which asks it) instead of calling numpy on tensor data, so a CuPy backend slots in.
    """
    for a in arrays:
        if type(a) is np.ndarray:  # the common case, without a string test
            continue
        mod = type(a).__module__
        if mod.startswith("cupy"):
            import cupy
            return cupy
    return np


def device_of(array) -> device:
    """The device an array lives on."""
    if type(array).__module__.startswith("cupy"):
        return device("cuda", array.device.id)
    return CPU
