"""``ember.accelerator``: PyTorch's device-agnostic questions about the accelerator (``torch.accelerator``).

PyTorch's own quickstart opens with::

    device = em.accelerator.current_accelerator().type if em.accelerator.is_available() else "cpu"

ember's only accelerator is a CUDA GPU through CuPy (:mod:`ember.cuda`). Without one, :func:`is_available` is False,
:func:`current_accelerator` is None and :func:`device_count` is 0, and the calls that need a device raise PyTorch's
error, as a CPU-only PyTorch does.
"""
from __future__ import annotations

import warnings

from . import cuda as _cuda
from .device import device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index", "current_device_idx",
           "set_device_index", "set_device_idx", "synchronize", "device_index"]

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """Whether an accelerator (a CUDA GPU through CuPy) can be used."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator's device (``device("cuda")``, without an index), or None when there is none."""
    return device("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices: 0 without one."""
    return _cuda.device_count()


def _require() -> None:
    if not _cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index() -> int:
    """The index of the accelerator device in use."""
    _require()
    return _cuda.current_device()


def current_device_idx() -> int:
    """Deprecated spelling of :func:`current_device_index`."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device) -> None:
    """Select the accelerator device ``device`` (an index, a device string or a :class:`ember.device`)."""
    _require()
    _cuda.set_device(device)


def set_device_idx(device) -> None:
    """Deprecated spelling of :func:`set_device_index`."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def synchronize(device=None) -> None:
    """Wait for every kernel queued on the accelerator device."""
    _require()
    _cuda.synchronize(device)


class device_index:
    """Context manager selecting accelerator device ``device`` inside the block and restoring the previous one after;
    ``None`` does nothing (so code can pass an optional index through)."""

    def __init__(self, device, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc) -> bool:
        if self.idx is not None:
            set_device_index(self.prev_idx)
        return False
