"""``ember.cuda.amp``: ``torch.cuda.amp``'s ``autocast`` and ``GradScaler``.

ember has no half-precision GPU kernels, so both behave as PyTorch's do when CUDA is not available: they warn once
and disable themselves. Training code written for mixed precision (``scaler.scale(loss).backward()``,
``scaler.step(optimizer)``, ``scaler.update()``) then runs unchanged in full precision.
"""
from __future__ import annotations

import functools
import warnings

__all__ = ["autocast", "GradScaler"]


def _unavailable_reason() -> str:
    from ._runtime import is_available
    return ("CUDA is not available" if not is_available() else
            "ember has no half-precision GPU kernels yet, so it runs in full precision")


class autocast:
    """Context manager (and decorator) for mixed precision on the GPU; disabled with a warning in ember.

    Args:
        enabled (bool): whether autocasting was requested.
        dtype: the lower precision dtype (``em.float16`` in PyTorch).
        cache_enabled (bool): accepted for compatibility.
    """

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        if enabled:
            warnings.warn(f"User provided device_type of 'cuda', but {_unavailable_reason()}. Disabling",
                          UserWarning, stacklevel=2)
        self.enabled = False
        self.fast_dtype = dtype

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


class GradScaler:
    """Loss scaling for float16 training; disabled (a pass-through) in ember, as PyTorch's is without CUDA.

    ``scale(loss)`` returns ``loss``, ``step(optimizer)`` calls ``optimizer.step()``, ``update()`` does nothing and
    ``get_scale()`` is 1.0, so the usual three lines work unchanged.
    """

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        if enabled:
            warnings.warn(f"ember.cuda.amp.GradScaler is enabled, but {_unavailable_reason()}. Disabling.",
                          UserWarning, stacklevel=2)
        self._enabled = False
        self._init_scale = init_scale
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval

    def is_enabled(self) -> bool:
        """False: ember's scaler is always a pass-through."""
        return self._enabled

    def scale(self, outputs):
        """``outputs`` unchanged (no scaling when disabled)."""
        return outputs

    def unscale_(self, optimizer) -> None:
        """Nothing to unscale when disabled."""

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)``."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        """Nothing to update when disabled."""

    def get_scale(self) -> float:
        """1.0 when disabled, as in PyTorch."""
        return 1.0

    def get_growth_factor(self) -> float:
        """The configured growth factor."""
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        """The configured backoff factor."""
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        """The configured growth interval."""
        return self._growth_interval

    def state_dict(self) -> dict:
        """An empty dict when disabled, as in PyTorch."""
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        """Ignored when disabled."""
