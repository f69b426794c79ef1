"""``autocast``: PyTorch's mixed-precision context manager, which in ember always runs in full precision.

PyTorch runs the ops of an ``autocast`` block (GEMMs, convolutions) in bfloat16 or float16. ember has no such
kernels (NumPy has no bfloat16, and its float16 GEMMs are slower than float32 ones), so an ``autocast`` that was
asked for warns and disables itself, as PyTorch's does for a device or dtype it cannot autocast. The block then runs
in full precision: results differ from PyTorch's only by the rounding autocast would have added.
"""
from __future__ import annotations

import functools
import warnings

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available", "is_autocast_enabled"]


def _device_type(device_type, fn: str = "autocast") -> str:
    """``device_type`` checked as PyTorch checks it: a string naming a known device type ("cuda:0" is accepted)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    from ..device import device
    return device(device_type).type  # raises PyTorch's error for an unknown device type


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can lower the precision on ``device_type``: never in ember (see the module docstring)."""
    if not isinstance(device_type, str):
        raise TypeError("_is_autocast_available(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    _device_type(device_type)
    return False


def is_autocast_enabled(device_type=None) -> bool:
    """Whether an enabled ``autocast`` block is running: always False, since ember's autocast disables itself."""
    if device_type is not None:
        _device_type(device_type)
    return False


def _reason(device: str) -> str:
    from ..cuda._runtime import is_available
    if device == "cuda" and not is_available():
        return "CUDA is not available. Disabling autocast."
    return (f"In {device.upper()} autocast, but ember has no lower-precision kernels: NumPy has no bfloat16 and no "
            "fast float16 GEMMs. Disabling autocast; the block runs in full precision.")


class autocast:
    """Context manager and decorator for mixed precision (``torch.autocast``), disabled with a warning in ember.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"`` (PyTorch's device-type strings).
        dtype: the lower-precision dtype asked for (kept as :attr:`fast_dtype`).
        enabled (bool): whether autocasting was asked for; ``False`` makes the block a silent no-op, as in PyTorch.
        cache_enabled (bool): accepted for compatibility.
    """

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled=None) -> None:
        self.device = _device_type(device_type)
        if dtype is None:
            from ..dtypes import float16
            dtype = float16  # PyTorch's CUDA default; its CPU default (bfloat16) does not exist in NumPy
        self.fast_dtype = dtype
        self._cache_enabled = True if cache_enabled is None else bool(cache_enabled)
        if enabled:
            warnings.warn(_reason(self.device), UserWarning, stacklevel=2)
        self._enabled = False

    def __enter__(self) -> "autocast":
        return self

    def __exit__(self, *exc) -> bool:
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run_in_block(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return run_in_block


def custom_fwd(fwd=None, *, device_type: str, cast_inputs=None):
    """Decorator for a custom ``autograd.Function``'s ``forward`` (``torch.amp.custom_fwd``). With autocast never
    enabled in ember, ``forward`` runs as written (``cast_inputs`` would only apply inside an enabled block)."""
    _device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd=None, *, device_type: str):
    """Decorator for a custom ``autograd.Function``'s ``backward`` (``torch.amp.custom_bwd``): it runs with the
    forward's autocast state, which in ember is always disabled, so ``backward`` runs as written."""
    _device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
