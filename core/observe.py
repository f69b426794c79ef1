"""Watch ops and backward nodes as they run: the one seam shared by the profiler, the ONNX exporter and anomaly mode.

Idle cost is zero. Nothing is wrapped until an observer is installed: :func:`observe_ops` then replaces every public
op (the functions of ``ember.core.ops``, ``nn.functional``, ``linalg`` and ``fft``, and the ``Tensor`` methods defined
by those modules) with a wrapper, in every loaded ember module and in the ``Tensor`` class, and puts the originals
back when the last observer leaves. Ops that call other ops call them through the same (patched) names, so an
observer sees nested calls, e.g. ``linear`` around ``matmul``; an observer that wants only the outermost call keeps a
depth counter of its own.

An op observer has two methods::

    enter(name, fn, args, kwargs) -> token     # before the op; ``name`` is PyTorch's op name ("add", "conv2d")
    exit(token, result)                        # after it; ``result`` is None when the op raised

A node observer (:func:`observe_nodes`) sees each backward node the engine runs::

    enter_node(node, grads) -> token           # before ``node.apply``, with the gradients it receives
    exit_node(token, node, grads)              # after it, with the gradients the node returned

Several observers may be active at once; they are called in the order they were installed (and exited in reverse).
"""
from __future__ import annotations

import contextlib
import inspect
import sys
import threading

from .autograd import engine as _engine
from .tensor import Tensor

__all__ = ["observe_ops", "observe_nodes", "op_name"]

_OP_OBSERVERS: list = []
_LOCK = threading.Lock()
_PATCHES: list = []  # (owner, attribute, original) to put back when the last op observer leaves

# the op namespaces; functions (and Tensor methods) defined in these packages or their modules are ops
_OP_NAMESPACES = ("ember.core.ops", "ember.core.nn.functional", "ember.core.linalg", "ember.core.fft")

# PyTorch's op names for Tensor's operator methods (reflected forms name the same op; in-place forms end in "_")
_DUNDER_NAMES = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "floordiv": "floor_divide", "mod": "remainder",
    "pow": "pow", "matmul": "matmul", "neg": "neg", "pos": "positive", "abs": "abs", "invert": "bitwise_not",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift", "eq": "eq", "ne": "ne", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge",
    "getitem": "index", "setitem": "index_put_",
}


def op_name(attribute: str) -> str:
    """PyTorch's name for the op bound as ``attribute`` (``"__radd__"`` -> ``"add"``, ``"__imul__"`` -> ``"mul_"``)."""
    if not (attribute.startswith("__") and attribute.endswith("__")):
        return attribute
    core = attribute[2:-2]
    if core in _DUNDER_NAMES:
        return _DUNDER_NAMES[core]
    if core[:1] in ("r", "i") and core[1:] in _DUNDER_NAMES:
        base = _DUNDER_NAMES[core[1:]]
        return base + "_" if core[0] == "i" else base
    return core


def _is_op(value) -> bool:
    return inspect.isfunction(value) and value.__module__.startswith(_OP_NAMESPACES)


def _wrap(fn, name):
    def observed(*args, **kwargs):
        observers = tuple(_OP_OBSERVERS)
        tokens = [obs.enter(name, fn, args, kwargs) for obs in observers]
        result = None
        try:
            result = fn(*args, **kwargs)
            return result
        finally:
            for obs, token in zip(reversed(observers), reversed(tokens)):
                obs.exit(token, result)

    observed.__wrapped__ = fn
    observed.__name__ = getattr(fn, "__name__", name)
    observed.__doc__ = fn.__doc__
    observed.__module__ = fn.__module__
    return observed


def _collect_ops() -> dict:
    """original function -> op name, over the op namespaces and Tensor's op methods."""
    import importlib
    ops = {}
    for namespace in _OP_NAMESPACES:
        module = importlib.import_module(namespace)
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for attr in names:
            value = getattr(module, attr, None)
            if _is_op(value):
                ops.setdefault(value, op_name(attr))
    for attr, value in vars(Tensor).items():
        if _is_op(value):
            ops.setdefault(value, op_name(attr))
    return ops


def _install() -> None:
    wrappers = {fn: _wrap(fn, name) for fn, name in _collect_ops().items()}
    owners = [Tensor] + [module for name, module in list(sys.modules.items())
                         if module is not None and (name == "ember" or name.startswith("ember."))]
    for owner in owners:
        for attr, value in list(getattr(owner, "__dict__", {}).items()):
            if _hashable(value) and value in wrappers:
                _PATCHES.append((owner, attr, value))
                setattr(owner, attr, wrappers[value])


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _uninstall() -> None:
    while _PATCHES:
        owner, attr, original = _PATCHES.pop()
        setattr(owner, attr, original)


@contextlib.contextmanager
def observe_ops(observer):
    """Call ``observer.enter``/``observer.exit`` around every op run inside the block (see the module docstring)."""
    with _LOCK:
        if not _OP_OBSERVERS:
            _install()
        _OP_OBSERVERS.append(observer)
    try:
        yield observer
    finally:
        with _LOCK:
            _OP_OBSERVERS.remove(observer)
            if not _OP_OBSERVERS:
                _uninstall()


@contextlib.contextmanager
def observe_nodes(observer):
    """Call ``observer.enter_node``/``observer.exit_node`` around every backward node run inside the block."""
    with _LOCK:
        _engine.NODE_OBSERVERS.append(observer)
    try:
        yield observer
    finally:
        with _LOCK:
            _engine.NODE_OBSERVERS.remove(observer)
