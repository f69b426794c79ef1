"""Which arguments a step method takes: Lightning 2.x passes only those its signature asks for.

``training_step(self, batch)`` gets no ``batch_idx``; ``validation_step(self, batch, batch_idx)`` with several
dataloaders gets no ``dataloader_idx`` only if it cannot take it (then Lightning raises, and so do we).
"""
from __future__ import annotations

import inspect
from typing import Any, Optional, Tuple

__all__ = ["takes_param", "step_args", "check_dataloader_idx"]


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
    # inspect.signature is slow for a per-batch call: the answer is cached per function body
    code = getattr(fn, "__code__", None)  # a bound method forwards this to its function
    takes = _CACHE.get(code) if code is not None else None
    if takes is None:
        takes = takes_param(fn, "batch_idx", min_args=2)
        if code is not None:
            _CACHE[code] = takes
    return (batch, batch_idx) if takes else (batch,)


_CACHE: dict = {}  # code object -> takes batch_idx


def check_dataloader_idx(fn, hook: str, prefix: str, num_loaders: int) -> None:
    """Lightning's check: several loaders need a step that takes ``dataloader_idx``; a single loader must not
    require one (a default value is fine)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return
    param = params.get("dataloader_idx")
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params.values())
    if num_loaders > 1 and param is None and not varargs:
        raise RuntimeError(f"You provided multiple `{prefix}` dataloaders, but no `dataloader_idx` argument in "
                           f"`{hook}()`. Try adding `dataloader_idx=0` to its signature.")
    if num_loaders == 1 and param is not None and param.default is param.empty:
        raise RuntimeError(f"You provided only a single `{prefix}` dataloader, but have included `dataloader_idx` "
                           f"in `{hook}()`. Either remove the argument or give it a default value i.e. "
                           "`dataloader_idx=0`.")
