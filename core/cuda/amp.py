"""``ember.cuda.amp``: ``torch.cuda.amp``'s ``autocast`` and ``GradScaler``, deprecated in favour of ``ember.amp``.

Both are ``ember.amp``'s classes for the ``"cuda"`` device type, with PyTorch's ``FutureWarning``. Without a GPU they
disable themselves with a warning, as PyTorch's do, so training code written for mixed precision
(``scaler.scale(loss).backward()``, ``scaler.step(optimizer)``, ``scaler.update()``) runs unchanged in full
precision.
"""
from __future__ import annotations

import warnings

from .. import amp as _amp

__all__ = ["autocast", "GradScaler"]


class autocast(_amp.autocast):
    """``ember.amp.autocast("cuda", ...)`` under its deprecated name (see :class:`ember.amp.autocast`)."""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True) -> None:
        warnings.warn("`ember.cuda.amp.autocast(args...)` is deprecated. Please use `ember.amp.autocast('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        from ..dtypes import float16
        super().__init__("cuda", dtype=float16 if dtype is None else dtype, enabled=enabled,
                         cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``ember.amp.GradScaler("cuda", ...)`` under its deprecated name (see :class:`ember.amp.GradScaler`)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`ember.cuda.amp.GradScaler(args...)` is deprecated. Please use `ember.amp.GradScaler('cuda', "
                      "args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)
