"""Argument checks shared by the ``nn.functional`` modules."""
from __future__ import annotations

from ...ops._base import Tensor


def _tensor_arg(value, name, fn, pos):
    """``value`` if it is a Tensor; else the TypeError PyTorch raises for argument ``name`` at ``pos`` of ``fn``."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(value).__name__}")
    return value
