"""Process-wide switches PyTorch exposes at the top level, which training scripts set on their first lines:
``set_float32_matmul_precision``, ``use_deterministic_algorithms`` and ``compile``.

ember computes float32 GEMMs in float32 at every setting, its kernels give the same result on every run with the
same thread count, and it has no graph compiler, so these record the caller's choice (readable back through the
getters, as in PyTorch) and change nothing else. Arguments are checked as PyTorch checks them.
"""
from __future__ import annotations

import warnings

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled", "compile"]

_PRECISIONS = ("highest", "high", "medium")
_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
_state = {"matmul_precision": "highest", "deterministic": False, "warn_only": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Record the float32 matmul precision (``"highest"``, ``"high"`` or ``"medium"``; another value warns and
    changes nothing, as in PyTorch). ember's float32 GEMMs are float32 at every setting."""
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The float32 matmul precision last set (``"highest"`` by default)."""
    return _state["matmul_precision"]


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Record whether deterministic algorithms are required. ember's kernels already give the same result on every
    run with the same thread count (no atomics, no nondeterministic reductions), so nothing else changes."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _state["deterministic"], _state["warn_only"] = mode, warn_only


def are_deterministic_algorithms_enabled() -> bool:
    """Whether :func:`use_deterministic_algorithms` was last called with ``True``."""
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether deterministic algorithms were required with ``warn_only=True``."""
    return _state["warn_only"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None, name=None,
            disable=False, **kwargs):
    """``torch.compile``'s signature without a compiler: returns ``model`` itself (a module or function), or, called
    without one, a decorator that does. The model runs as written, with the same results; ``mode`` and
    ``options`` are checked as PyTorch checks them."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, name=name, disable=disable, **kwargs)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model
