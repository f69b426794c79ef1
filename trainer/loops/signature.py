"""Which arguments a step method takes: Lightning 2.x passes only those its signature asks for.

``training_step(self, batch)`` gets no ``batch_idx``; ``validation_step(self, batch, batch_idx)`` with several
dataloaders gets no ``dataloader_idx`` only if it cannot take it (then Lightning raises, and so do we).
"""
from __future__ import annotations

import inspect
from typing import Any, Optional, Tuple

__all__ = ["takes_param", "step_args"]


def takes_param(fn, name: str, min_args: Optional[int] = None) -> bool:
    """Lightning's rule: ``fn`` takes ``name`` if it names it, has ``*args``, or has at least ``min_args``
    positional parameters (``self`` not counted)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.name == name for p in params):
        return True
    return min_args is not None and len(positional) >= min_args


def step_args(fn, batch: Any, batch_idx: int, dataloader_idx: Optional[int] = None,
              optimizer_idx: Optional[int] = None) -> Tuple[Any, ...]:
    """The positional arguments for a step method ``fn`` (bound to the module)."""
    if optimizer_idx is not None:
        return (batch, batch_idx, optimizer_idx)
    if dataloader_idx is not None:
        return (batch, batch_idx, dataloader_idx)
    if _takes_batch_idx(fn):
        return (batch, batch_idx)
    return (batch,)


def _takes_batch_idx(fn) -> bool:
    func = getattr(fn, "__func__", fn)
    code = getattr(func, "__code__", None)
    if code is not None:  # inspect.signature is slow for a per-batch call: cache the answer per function body
        cached = _CACHE.get(code)
        if cached is None:
            cached = _CACHE[code] = takes_param(fn, "batch_idx", min_args=2)
        return cached
    return takes_param(fn, "batch_idx", min_args=2)


_CACHE: dict = {}  # code object -> takes batch_idx
