"""``ember.amp``: ``torch.amp``'s automatic mixed precision API.

* :class:`GradScaler` is PyTorch's loss scaler, working: it scales the loss, unscales the gradients, skips the
  optimizer step when a gradient is inf or NaN, and grows or backs off the scale, with PyTorch's rules and state
  dict. In float32 training a power-of-two scale changes no bit of a finite gradient, so ``GradScaler("cpu")``
  trains exactly as PyTorch's does, skipped steps included. ``GradScaler("cuda")`` without a GPU disables itself
  with PyTorch's warning.
* :class:`autocast` (also ``ember.autocast``) has no lower-precision kernels to run: NumPy has no bfloat16 and no
  fast float16 GEMMs. Asked to autocast, it says so in a warning and runs the block in full precision, as PyTorch
  does for a device or dtype it cannot autocast.
"""
from __future__ import annotations

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler, OptState

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler", "OptState"]
