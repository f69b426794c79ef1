"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode``.

Each works as a context manager and as a decorator. The flag lives in a one-element list, ``GRAD_ENABLED``, that
ops read on their hot path (``GRAD_ENABLED[0]``) without a function call.
"""
from __future__ import annotations

import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

GRAD_ENABLED = [True]
_INFERENCE = [False]


def is_grad_enabled() -> bool:
    """Return True if gradient recording is currently on."""
    return GRAD_ENABLED[0]


def is_inference_mode_enabled() -> bool:
    """Return True inside an ``inference_mode()`` block."""
    return _INFERENCE[0]


class _GradModeContext:
    """Base for grad-mode switches: context manager, decorator, and clone for re-entrant use."""

    _mode = True

    def __enter__(self):
        self._prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = self._mode
        return self

    def __exit__(self, *exc):
        GRAD_ENABLED[0] = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        """A fresh context manager of the same kind (for re-entrant decorator use)."""
        return type(self)()


class no_grad(_GradModeContext):
    """Disable gradient recording: ops behave as if none of their inputs required grad.

    Usable as ``with em.no_grad():`` or as the decorator ``@em.no_grad()``.
    """

    _mode = False


class enable_grad(_GradModeContext):
    """Enable gradient recording inside a ``no_grad`` block; a context manager or decorator."""

    _mode = True


class set_grad_enabled(_GradModeContext):
    """Set gradient recording on or off. Takes effect at once, and also works as a context manager or decorator."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, got {type(mode).__name__}")
        self._prev = GRAD_ENABLED[0]
        self._mode = mode
        GRAD_ENABLED[0] = mode

    def __enter__(self):
        return self

    def clone(self):
        """A fresh context manager with the same mode (for re-entrant decorator use)."""
        return set_grad_enabled(self._mode)


class inference_mode(_GradModeContext):
    """Like ``no_grad``, for code that will never backpropagate; ``inference_mode(False)`` is a no-op."""

    def __init__(self, mode: bool = True):
        self._enabled = mode
        self._mode = not mode if mode else GRAD_ENABLED[0]

    def __enter__(self):
        self._prev_inf = _INFERENCE[0]
        _INFERENCE[0] = bool(self._enabled)  # inference_mode(False) leaves inference mode, as PyTorch's guard does
        if self._enabled:
            return super().__enter__()
        self._prev = GRAD_ENABLED[0]
        return self

    def __exit__(self, *exc):
        _INFERENCE[0] = self._prev_inf
        GRAD_ENABLED[0] = self._prev
        return False

    def __call__(self, func):
        if not callable(func) or isinstance(func, bool):
            raise TypeError("inference_mode() used as a decorator takes the function, not a flag")
        return super().__call__(func)

    def clone(self):
        """A fresh context manager with the same mode (for re-entrant decorator use)."""
        return inference_mode(self._enabled)
