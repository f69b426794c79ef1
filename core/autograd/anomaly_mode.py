"""Anomaly detection for autograd: find the backward node that produced a NaN (or inf) and the forward op behind it.

While anomaly mode is on, two observers of :mod:`ember.core.observe` are installed:

* an op observer notes, on each backward node a forward op creates, the op's name and the stack of the forward call
  (``node.metadata["traceback_"]``, as PyTorch keeps it);
* a node observer checks the gradients each backward node returns, and raises
  ``RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.`` naming the forward op and the line
  of the user's code that created the node. When a backward node raises, the forward traceback is shown as a warning.

Off (the default), nothing is installed and autograd runs at full speed.
"""
from __future__ import annotations

import contextlib
import os
import threading
import traceback
import warnings

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_STATE = {"enabled": False, "check_nan": True}
_LOCK = threading.Lock()
_INSTALLED: list = []  # the ExitStack holding the observers while anomaly mode is on
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_EMBER_DIRS = tuple(os.path.join(_ROOT, d) + os.sep for d in ("core", "trainer", "callbacks", "metrics"))


def is_anomaly_enabled() -> bool:
    """True if anomaly detection is currently on."""
    return _STATE["enabled"]


def is_anomaly_check_nan_enabled() -> bool:
    """True if anomaly detection also checks backward outputs for NaN (and inf) values."""
    return _STATE["check_nan"]


def _user_frame(stack):
    """The innermost frame outside ember (the user's line that called the op), else the innermost frame."""
    for frame in reversed(stack):
        if not os.path.abspath(frame.filename).startswith(_EMBER_DIRS):
            return frame
    return stack[-1] if stack else None


class _ForwardRecorder:
    """Op observer: remembers which forward op (and which line of user code) created each backward node."""

    def enter(self, name, fn, args, kwargs):
        return name

    def exit(self, name, result):
        if result is None:
            return
        for out in (result if isinstance(result, (tuple, list)) else (result,)):
            node = getattr(out, "grad_fn", None)
            if node is not None and "forward_op" not in node.metadata:  # the innermost op that built it wins
                node.metadata["forward_op"] = name
                node.metadata["traceback_"] = traceback.extract_stack()[:-2]


class _BackwardChecker:
    """Node observer: checks each backward node's outputs, and explains errors raised inside backward."""

    def enter_node(self, node, grads):
        return None

    def exit_node(self, token, node, grads):
        if grads is None:  # the node raised: show where its forward came from, as PyTorch does
            stack = node.metadata.get("traceback_") if node.__dict__ else None
            where = "Traceback of forward call that caused the error:\n" + "".join(traceback.format_list(stack)) \
                if stack else "No forward pass information available (the node was not created by an ember op)."
            warnings.warn(f"Error detected in {node.name()}. {where}", RuntimeWarning, stacklevel=2)
            return
        if not _STATE["check_nan"]:
            return
        for i, g in enumerate(grads if isinstance(grads, (tuple, list)) else (grads,)):
            data = getattr(g, "_data", None)
            if data is None or data.dtype.kind not in "fc":
                continue
            xp = g._xp
            if not bool(xp.isfinite(data).all()):
                kind = "nan" if bool(xp.isnan(data).any()) else "inf"
                raise RuntimeError(f"Function '{node.name()}' returned {kind} values in its {i}th output."
                                   + _forward_description(node))


def _forward_description(node) -> str:
    meta = node.metadata if node.__dict__ else {}
    op, stack = meta.get("forward_op"), meta.get("traceback_")
    if op is None:
        return " (its forward op was run before anomaly detection was enabled)"
    frame = _user_frame(stack or [])
    where = f" at {frame.filename}:{frame.lineno} in {frame.name}" if frame is not None else ""
    return f" It was created in the forward pass by '{op}'{where}."


def _apply(enabled: bool, check_nan: bool) -> None:
    """Switch the mode, installing or removing the observers."""
    from ..observe import observe_nodes, observe_ops
    with _LOCK:
        _STATE["check_nan"] = bool(check_nan)
        if enabled == _STATE["enabled"]:
            return
        _STATE["enabled"] = bool(enabled)
        if enabled:
            stack = contextlib.ExitStack()
            stack.enter_context(observe_ops(_ForwardRecorder()))
            stack.enter_context(observe_nodes(_BackwardChecker()))
            _INSTALLED.append(stack)
        else:
            _INSTALLED.pop().close()


class set_detect_anomaly:
    r"""Context manager (or function) that sets anomaly detection on or off.

    ``set_detect_anomaly(False)`` turns it off; used as a function the setting stays, used in a ``with`` block the
    previous setting comes back at its end. See :class:`detect_anomaly` for what the mode does.

    Args:
        mode (bool): turn anomaly detection on (``True``) or off (``False``).
        check_nan (bool): also check backward outputs for NaN and inf values. Default: ``True``.
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        _apply(bool(mode), check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        _apply(self.prev, self.prev_check_nan)


class detect_anomaly:
    r"""Context manager that enables anomaly detection for the autograd engine.

    It does two things:

    - the forward pass records, for every backward node it creates, the op and the traceback of the call, so that an
      error raised in backward is shown with the forward call that caused it;
    - with ``check_nan``, any backward node whose output contains NaN (or inf) raises
      ``RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.``, naming the forward op and
      the line of code that created the node.

    .. warning::
        This mode should be enabled only for debugging: it slows every op down.

    Args:
        check_nan (bool): raise on NaN and inf values in backward outputs. Default: ``True``.

    Example::

        >>> with em.autograd.detect_anomaly():
        ...     out = model(x)
        ...     out.backward()
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        _apply(True, self.check_nan)

    def __exit__(self, *args) -> None:
        _apply(self.prev, self.prev_check_nan)

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper
