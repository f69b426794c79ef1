"""``GradScaler``: PyTorch's dynamic loss scaling, with its rules, errors and state dict.

One iteration: ``scaler.scale(loss).backward()``, optionally ``scaler.unscale_(optimizer)`` (to clip gradients),
``scaler.step(optimizer)``, ``scaler.update()``. ``step`` unscales the gradients if ``unscale_`` was not called and
skips ``optimizer.step()`` when any of them is inf or NaN; ``update`` then multiplies the scale by
``backoff_factor``, or by ``growth_factor`` after ``growth_interval`` steps in a row without one (PyTorch's
``_amp_update_scale_``). The scale is a float32 0-d tensor, created by the first ``scale`` call.
"""
from __future__ import annotations

import math
import warnings
from collections import abc, defaultdict
from enum import Enum
from typing import Any, Dict

import numpy as np

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the current iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> Dict[str, Any]:
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    """Dynamic loss scaling for mixed-precision training (``torch.amp.GradScaler``).

    Args:
        device (str): the device type of the gradients; ``"cuda"`` (PyTorch's default) disables the scaler with a
            warning when no GPU is available.
        init_scale (float): the scale of the first iteration.
        growth_factor (float): the factor the scale grows by after ``growth_interval`` steps without inf/NaN.
        backoff_factor (float): the factor the scale shrinks by after a step with an inf/NaN gradient.
        growth_interval (int): consecutive unskipped steps before the scale grows.
        enabled (bool): ``False`` makes every method a pass-through.
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from ..cuda._runtime import is_available
            if not is_available():
                warnings.warn("ember.amp.GradScaler is enabled, but CUDA is not available. Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None  # float32 0-d tensor, made by the first scale() (PyTorch's lazy init)
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer_states: Dict[int, Dict[str, Any]] = defaultdict(_fresh_state)

    # -------------------------------------------------------------------------------------------------- scaling
    def scale(self, outputs):
        """``outputs`` (a tensor, or a possibly nested list/tuple/iterable of tensors) multiplied by the scale;
        unchanged when the scaler is disabled."""
        if not self._enabled:
            return outputs
        from ..tensor import Tensor

        def apply(value):
            if isinstance(value, Tensor):
                return value * self._scale_tensor()
            if isinstance(value, abc.Iterable):
                scaled = map(apply, value)
                return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _scale_tensor(self):
        if self._scale is None:
            from ..ops.creation import tensor
            from ..dtypes import float32
            self._scale = tensor(self._init_scale, dtype=float32)
        return self._scale

    def _check_scaled(self, funcname: str):
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  This may indicate your script did not "
                                 "use scaler.scale(loss or outputs) earlier in the iteration.")
        return self._scale

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and record whether any is inf or NaN. Call it
        at most once per optimizer per iteration, before ``step`` (e.g. to clip the true gradients)."""
        if not self._enabled:
            return
        self._check_scaled("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # PyTorch's inverse: the reciprocal taken in float64, then rounded to float32
        inv_scale = float(_to_float32(1.0 / float(self._scale.item())))
        state["found_inf"] = self._unscale_grads(optimizer, inv_scale)
        state["stage"] = OptState.UNSCALED

    @staticmethod
    def _unscale_grads(optimizer, inv_scale: float) -> bool:
        """Multiply every gradient by ``inv_scale`` in place; whether any gradient holds an inf or NaN."""
        from ..autograd.grad_mode import no_grad
        from ..dtypes import float16
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    if grad.dtype == float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not found_inf and not bool(grad.isfinite().all()):
                        found_inf = True
                    grad.mul_(inv_scale)
        return found_inf

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` after unscaling its gradients, unless one is inf or NaN (then the
        step is skipped and None returned)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scaled("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None) -> None:
        """Set the scale for the next iteration: ``new_scale`` if given, else PyTorch's backoff/growth rule from
        the inf checks of this iteration's steps. Call it once per iteration, after every ``step``."""
        if not self._enabled:
            return
        scale = self._check_scaled("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor "
                          "with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale.reshape(()))
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(scale, any(found))
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _update_scale(self, scale, found_inf: bool) -> None:
        """PyTorch's ``_amp_update_scale_``: the float32 scale times a float64 factor, rounded to float32."""
        value = float(scale.item())
        if found_inf:
            scale.fill_(float(_to_float32(value * self._backoff_factor)))
            self._growth_tracker = 0
            return
        successful = self._growth_tracker + 1
        if successful == self._growth_interval:
            grown = float(_to_float32(value * self._growth_factor))
            if math.isfinite(grown):  # a scale that would overflow float32 stays where it is
                scale.fill_(grown)
            self._growth_tracker = 0
        else:
            self._growth_tracker = successful

    # ---------------------------------------------------------------------------------------------- accessors
    def get_scale(self) -> float:
        """The current scale (``init_scale`` before the first ``scale``), or 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        """The scale's growth factor."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the scale's growth factor."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The scale's backoff factor."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the scale's backoff factor."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """Consecutive unskipped steps before the scale grows."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set the growth interval."""
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False when disabled by the user or for want of CUDA)."""
        return self._enabled

    def state_dict(self) -> Dict[str, Any]:
        """``{"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"}``, or ``{}`` when
        disabled (PyTorch's keys, so checkpoints carry over). Take it after ``update``."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        """Restore a :meth:`state_dict`; a no-op when disabled."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


def _to_float32(value: float):
    """``value`` rounded to float32, as a float32 tensor element holds it (inf beyond its range, silently)."""
    with np.errstate(over="ignore"):
        return np.float32(value)
