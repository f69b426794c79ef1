"""``ember.nn.attention``: choose the implementation behind ``F.scaled_dot_product_attention``.

ember has two, as PyTorch has on the CPU:

* ``SDPBackend.FLASH_ATTENTION``: the fused kernel (a few batched NumPy calls, one backward node, the output laid out
  like the query). It is the default.
* ``SDPBackend.MATH``: the reference composition of ember ops (``q @ k^T``, softmax, dropout, ``@ v``), whose graph
  is a chain of ordinary nodes.

``EFFICIENT_ATTENTION`` and ``CUDNN_ATTENTION`` are GPU kernels; enabling only those leaves no kernel, which is an
error, as in PyTorch on a CPU. Select with :func:`sdpa_kernel`::

    with sdpa_kernel(SDPBackend.MATH):
        y = F.scaled_dot_product_attention(q, k, v)
"""
from __future__ import annotations

import contextlib
import enum
from typing import Iterable, Union

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The implementations of scaled dot-product attention (PyTorch's values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# which backends scaled_dot_product_attention may use (all, by default)
_ENABLED = {b: True for b in SDPBackend if b is not SDPBackend.ERROR}


def _is_enabled(backend: SDPBackend) -> bool:
    return _ENABLED[backend]


def _set_enabled(backend: SDPBackend, on: bool) -> None:
    _ENABLED[backend] = bool(on)


def _select() -> SDPBackend:
    """The implementation to run: the fused kernel, else the math one; an error if only GPU kernels are enabled."""
    if _ENABLED[SDPBackend.FLASH_ATTENTION]:
        return SDPBackend.FLASH_ATTENTION
    if _ENABLED[SDPBackend.MATH]:
        return SDPBackend.MATH
    enabled = [b.name for b, on in _ENABLED.items() if on]
    raise RuntimeError(f"No available kernel. Aborting execution. The enabled backends {enabled} need a CUDA "
                       "device; enable SDPBackend.FLASH_ATTENTION or SDPBackend.MATH to run on the CPU.")


@contextlib.contextmanager
def sdpa_kernel(backends: Union[SDPBackend, Iterable[SDPBackend]], set_priority: bool = False):
    """Within the block, let ``scaled_dot_product_attention`` use only ``backends`` (one or a list); the previous
    choice is restored on exit. ``set_priority`` is accepted for compatibility (ember tries fused, then math)."""
    chosen = [backends] if isinstance(backends, (SDPBackend, str)) else list(backends)
    for b in chosen:
        if not isinstance(b, SDPBackend):
            raise TypeError(f"sdpa_kernel(backends=...) expects SDPBackend values, got {b!r}")
    previous = dict(_ENABLED)
    for b in _ENABLED:
        _ENABLED[b] = b in chosen
    try:
        yield {}
    finally:
        _ENABLED.update(previous)
