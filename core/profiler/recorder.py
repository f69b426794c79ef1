"""Recording one trace: every op call, backward node, module forward and ``record_function`` range as a raw event.

The recorder is an observer of :mod:`ember.core.observe` (ops and backward nodes) and installs the global module
forward hooks only while it records, so an idle profiler costs nothing. Raw events are small lists appended in start
order; the call tree is rebuilt from their intervals when the trace ends (:func:`events.build_tree`).
"""
from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
from time import perf_counter_ns

from ..observe import observe_nodes, observe_ops
from ..tensor import Tensor
from .events import EventList, FunctionEvent, build_tree, gc_paused, remove_duplicates

__all__ = ["Recorder"]

# the recorder that is recording, if any: record_function reads it (one slot, so checking it costs one index)
_ACTIVE = [None]

# frames in these directories are ember's own and are left out of ``with_stack`` source locations
_EMBER_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LIBRARY_DIRS = tuple(os.path.join(_EMBER_ROOT, d) + os.sep for d in ("core", "trainer", "callbacks", "metrics"))

_native_id = threading.get_native_id

# raw event slots (a trace name of None means the same as the name)
_SEQ, _NAME, _TRACE_NAME, _CATEGORY, _TID, _START, _END, _SHAPES, _STACK, _BYTES = range(10)


class Recorder:
    """Collects raw events between :meth:`start` and :meth:`stop`; :meth:`events` turns them into an EventList."""

    def __init__(self, record_shapes: bool = False, profile_memory: bool = False, with_stack: bool = False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self._plain = not (record_shapes or profile_memory or with_stack)
        self.raw = []
        self._seq = itertools.count()
        self._local = threading.local()
        self._module_names = {}
        self._class_counts = {}
        self._modules = []  # keeps the named modules alive, so their ids stay theirs while recording
        self._exit = contextlib.ExitStack()
        self.start_ns = self.stop_ns = None

    # ------------------------------------------------------------------------------------------------ lifetime
    def start(self) -> None:
        """Install the observers and the module hooks; from now on everything is recorded."""
        if _ACTIVE[0] is not None:
            raise RuntimeError("Profiler is already enabled: stop the running `ember.profiler.profile` before "
                               "starting another")
        from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
        self._exit.enter_context(observe_ops(self))
        self._exit.enter_context(observe_nodes(self))
        self._exit.callback(register_module_forward_pre_hook(self._module_enter).remove)
        self._exit.callback(register_module_forward_hook(self._module_exit, always_call=True).remove)
        self.start_ns = perf_counter_ns()
        _ACTIVE[0] = self

    def stop(self) -> None:
        """Remove the observers and hooks (the ops are their plain selves again)."""
        self.stop_ns = perf_counter_ns()
        if _ACTIVE[0] is self:
            _ACTIVE[0] = None
        self._exit.close()
        self._modules = []

    # ------------------------------------------------------------------------------------------------- ranges
    def begin(self, name: str, trace_name: str, category: str, shapes=None) -> list:
        """Open a range on this thread; pass the returned event to :meth:`end`."""
        event = [next(self._seq), name, trace_name, category, _native_id(), 0, None, shapes,
                 _user_stack() if self.with_stack else None, 0]
        self.raw.append(event)
        event[_START] = perf_counter_ns()  # last, so the bookkeeping above is not timed as part of the range
        return event

    @staticmethod
    def end(event: list) -> None:
        """Close a range opened by :meth:`begin`."""
        event[_END] = perf_counter_ns()

    # ----------------------------------------------------------------------------------- op and node observer
    def enter(self, name, fn, args, kwargs):
        """Before an op: open ``ember::<name>``."""
        if self._plain:  # the common case, inlined: this runs for every op while recording
            event = [next(self._seq), "ember::" + name, None, "cpu_op", _native_id(), 0, None, None, None, 0]
            self.raw.append(event)
            event[_START] = perf_counter_ns()
            return event
        shapes = _input_shapes(args, kwargs) if self.record_shapes else None
        if self.profile_memory:
            self._push_frame((args, tuple(kwargs.values())))
        return self.begin("ember::" + name, None, "cpu_op", shapes)

    def exit(self, event, result) -> None:
        """After an op: close its range and count the arrays it created."""
        event[_END] = perf_counter_ns()
        if self.profile_memory:
            event[_BYTES] = self._pop_frame(result)

    def enter_node(self, node, grads):
        """Before a backward node: open a range named after the node (``MulBackward0``)."""
        if self.profile_memory:
            self._push_frame(grads)
        name = type(node).__name__
        return self.begin(name, name, "cpu_op")

    def exit_node(self, event, node, grads) -> None:
        """After a backward node: close its range and count the gradients it created."""
        event[_END] = perf_counter_ns()
        if self.profile_memory:
            event[_BYTES] = self._pop_frame(grads)

    # ------------------------------------------------------------------------------------- module forward calls
    def _thread_list(self, name: str) -> list:
        value = getattr(self._local, name, None)
        if value is None:
            value = []
            setattr(self._local, name, value)
        return value

    def _module_enter(self, module, args):
        name = self._module_names.get(id(module))
        if name is None:
            cls = type(module).__name__
            index = self._class_counts.get(cls, 0)
            self._class_counts[cls] = index + 1
            name = self._module_names[id(module)] = f"nn.Module: {cls}_{index}"
            self._modules.append(module)
        self._thread_list("modules").append((module, self.begin(name, name, "python_function")))

    def _module_exit(self, module, args, output):
        stack = self._thread_list("modules")
        for i in range(len(stack) - 1, -1, -1):  # innermost first; a forward entered before start() has no range
            if stack[i][0] is module:
                self.end(stack.pop(i)[1])
                break

    # ------------------------------------------------------------------------------------------------- memory
    # An op's own allocation is the arrays among its outputs that are neither its inputs (or views of them) nor the
    # outputs of ops it called; each frame remembers the arrays it knows of (and holds them, so ids stay unique).
    def _push_frame(self, inputs) -> None:
        roots = [_root(a) for a in _arrays(inputs)]
        self._thread_list("frames").append(({id(r) for r in roots}, roots))

    def _pop_frame(self, outputs) -> int:
        frames = self._thread_list("frames")
        if not frames:
            return 0
        known, _ = frames.pop()
        nbytes = 0
        roots = [_root(a) for a in _arrays(outputs)]
        for root in roots:
            if id(root) not in known:
                known.add(id(root))
                nbytes += getattr(root, "nbytes", 0)
        if frames:
            parent_known, parent_refs = frames[-1]
            parent_known.update(id(r) for r in roots)
            parent_refs.extend(roots)
        return nbytes

    # ------------------------------------------------------------------------------------------------- result
    def events(self) -> EventList:
        """The recorded events as an EventList, linked into a call tree (ranges still open end at stop)."""
        with gc_paused():
            return self._events()

    def _events(self) -> EventList:
        stop = self.stop_ns if self.stop_ns is not None else perf_counter_ns()
        origin = self.start_ns
        out = []
        for raw in self.raw:
            end = raw[_END] if raw[_END] is not None else stop
            out.append(FunctionEvent(raw[_SEQ], raw[_NAME], raw[_TRACE_NAME] or raw[_NAME], raw[_CATEGORY], raw[_TID],
                                     raw[_START] - origin, end - origin, raw[_SHAPES],
                                     raw[_STACK], raw[_BYTES]))
        build_tree(out)
        return EventList(remove_duplicates(out), profile_memory=self.profile_memory)


def _arrays(obj):
    """The arrays of the tensors in ``obj`` (a tensor, or a list/tuple nesting of them)."""
    if isinstance(obj, Tensor):
        yield obj._data
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            if isinstance(item, (Tensor, list, tuple)):
                yield from _arrays(item)


def _root(array):
    """The array that owns ``array``'s memory (following views)."""
    while True:
        base = getattr(array, "base", None)
        if base is None or not hasattr(base, "nbytes"):
            return array
        array = base


def _shape(value):
    if isinstance(value, Tensor):
        return list(value._data.shape)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tensor) for v in value):
        return [list(v._data.shape) for v in value]
    return []


def _input_shapes(args, kwargs) -> list:
    shapes = [_shape(a) for a in args]
    if kwargs:  # keyword arguments in order, but not ember's private ones (``_who``)
        shapes += [_shape(v) for k, v in kwargs.items() if not k.startswith("_")]
    return shapes


def _user_stack() -> list:
    """The user's source lines leading here, innermost first, as ``file(line): function`` (ember's own skipped)."""
    frame = sys._getframe(2)
    out = []
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_LIBRARY_DIRS):
            out.append(f"{filename}({frame.f_lineno}): {frame.f_code.co_name}")
        frame = frame.f_back
    return out
