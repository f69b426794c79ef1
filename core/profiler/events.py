"""What a profile holds: one :class:`FunctionEvent` per op call, backward node, module forward and
``record_function`` range, arranged in a tree by time, and their averages per name (``key_averages``).

Times are in microseconds, memory in bytes, as in ``torch.autograd.profiler_util``.
"""
from __future__ import annotations

import contextlib
import gc
import itertools
import json
from operator import attrgetter

from .table import build_table

__all__ = ["Interval", "FunctionEvent", "FunctionEventAvg", "EventList"]

# the keys ``table(sort_by=...)`` accepts; device times and memory are 0 (ember records CPU activity only)
SORT_KEYS = ("cpu_time", "cpu_time_total", "self_cpu_time_total", "cpu_memory_usage", "self_cpu_memory_usage",
             "count", "cuda_time", "cuda_time_total", "self_cuda_time_total", "cuda_memory_usage",
             "self_cuda_memory_usage", "device_time", "device_time_total", "self_device_time_total")


class Interval:
    """A time range ``[start, end]`` in microseconds."""

    __slots__ = ("start", "end")

    def __init__(self, start: float, end: float):
        self.start, self.end = start, end

    def elapsed_us(self) -> float:
        """The length of the range in microseconds."""
        return self.end - self.start


class _DeviceZeros:
    # ember records no device activity: the device columns PyTorch's sort keys name are all zero
    device_time = device_time_total = self_device_time_total = 0.0
    cuda_time = cuda_time_total = self_cuda_time_total = 0.0
    device_memory_usage = self_device_memory_usage = cuda_memory_usage = self_cuda_memory_usage = 0


class FunctionEvent(_DeviceZeros):
    """One recorded call: an op (``ember::matmul``), a backward node (``MulBackward0``), a module's forward
    (``nn.Module: Linear_0``) or a ``record_function`` range, with its place in the call tree.

    Attributes:
        id: the event's index in the trace.
        name: the name it is averaged under (``ProfilerStep#3`` becomes ``ProfilerStep*``).
        trace_name: the name the Chrome trace shows.
        category: ``"cpu_op"``, ``"autograd"``, ``"python_function"`` or ``"user_annotation"``.
        thread: the id of the thread that ran it.
        time_range: an :class:`Interval` in microseconds since the profiler started.
        input_shapes: the shapes of its inputs (``record_shapes=True``), ``[]`` for a non-tensor argument.
        stack: the user's source lines that led to it, innermost first (``with_stack=True``).
        self_cpu_memory_usage: bytes of the arrays it created itself (``profile_memory=True``).
        cpu_memory_usage: the same including its children.
        cpu_parent, cpu_children: its place in the call tree.
    """

    count = 1

    def __init__(self, id, name, trace_name, category, thread, start_ns, end_ns, input_shapes=None, stack=None,
                 self_cpu_memory_usage=0):
        self.id = id
        self.name = name
        self.trace_name = trace_name
        self.category = category
        self.thread = thread
        self._ns = (start_ns, end_ns)  # exact integers, for the trace file
        self.time_range = Interval(start_ns / 1000.0, end_ns / 1000.0)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.self_cpu_memory_usage = self_cpu_memory_usage
        self.cpu_memory_usage = self_cpu_memory_usage
        self.cpu_parent = None
        self.cpu_children = []

    @property
    def key(self) -> str:
        """The name events are averaged under."""
        return self.name

    @property
    def cpu_time_total(self) -> float:
        """Wall time from start to end, children included (us)."""
        return self.time_range.end - self.time_range.start

    @property
    def self_cpu_time_total(self) -> float:
        """Wall time not spent in children (us)."""
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        """Average time per call (us); one call for a single event."""
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_total:.3f}us "
                f"self_cpu_time={self.self_cpu_time_total:.3f}us thread={self.thread} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class FunctionEventAvg(_DeviceZeros):
    """The events of one name (and input shapes, when grouped by them) summed: totals, count and average."""

    def __init__(self, key: str, input_shapes=None, stack=None):
        self.key = key
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.stack = stack if stack is not None else []
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.cpu_parent = None  # set while every summed event is top-level-or-not alike (top_level_events_only)

    def add(self, event) -> "FunctionEventAvg":
        """Add one event (or another average) to the sums."""
        if self.count == 0:
            self.cpu_parent = event.cpu_parent
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        self.cpu_memory_usage += event.cpu_memory_usage
        self.self_cpu_memory_usage += event.self_cpu_memory_usage
        return self

    __iadd__ = add

    @property
    def cpu_time(self) -> float:
        """Average time per call (us)."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of events that prints as PyTorch's profiler table and exports as a Chrome trace."""

    def __init__(self, *args, profile_memory: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self._profile_memory = profile_memory

    def __str__(self) -> str:
        return self.table()

    @property
    def self_cpu_time_total(self) -> float:
        """The sum of all events' self times (us): the profiled wall time."""
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header=None,
              top_level_events_only: bool = False, time_unit=None) -> str:
        """The events as PyTorch's text table.

        Args:
            sort_by: the attribute to sort rows by, largest first (``"cpu_time_total"``, ``"self_cpu_time_total"``,
                ``"cpu_memory_usage"``, ``"self_cpu_memory_usage"``, ``"count"``, ...); ``None`` keeps their order.
            row_limit: the number of rows to print (``-1`` for all).
            top_level_events_only: print only events without a parent.
            time_unit: ``"s"``, ``"ms"`` or ``"us"`` for every time; by default each picks its own unit.
        """
        if sort_by is not None and sort_by not in SORT_KEYS:
            raise ValueError(f"table(sort_by={sort_by!r}): unknown key; use one of {', '.join(SORT_KEYS)}")
        if time_unit not in (None, "s", "ms", "us"):
            raise ValueError(f"table(time_unit={time_unit!r}): use 's', 'ms', 'us' or None")
        return build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width, max_src_column_width=max_src_column_width,
                           profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
                           time_unit=time_unit)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0) -> "EventList":
        """Sum the events per name (and per input shapes / top ``group_by_stack_n`` source lines if asked)."""
        stats = {}
        for event in self:
            key = (event.key,)
            if group_by_input_shapes:
                key += (str(event.input_shapes),)
            if group_by_stack_n > 0:
                key += tuple(event.stack[:group_by_stack_n])
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg(
                    event.key, event.input_shapes if group_by_input_shapes else [],
                    event.stack[:group_by_stack_n] if group_by_stack_n > 0 else [])
            avg.add(event)
        return EventList(stats.values(), profile_memory=self._profile_memory)

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one average named ``Total``."""
        total = FunctionEventAvg("Total")
        for event in self:
            total.add(event)
        return total

    def export_chrome_trace(self, path, metadata=None) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, https://ui.perfetto.dev); ``.gz`` compresses.
        ``metadata`` (a dict of strings) is added to the trace's top level."""
        write_chrome_trace(self, path, metadata)

    def export_stacks(self, path, metric: str = "self_cpu_time_total") -> None:
        """Write ``file(line): function;...;... value`` lines (flame graph input) for events recorded with stacks."""
        if metric not in ("self_cpu_time_total", "self_cuda_time_total"):
            raise ValueError(f"export_stacks(metric={metric!r}): use 'self_cpu_time_total' (ember records no "
                             "device time)")
        from ..serialization import atomic_write
        translate = str.maketrans(" ;\t\n", "____")
        lines = []
        for event in self:
            value = int(getattr(event, metric))
            if event.stack and value > 0:
                frames = ";".join(entry.translate(translate) for entry in reversed(event.stack))
                lines.append(f"{frames} {value}\n")
        atomic_write(path, lambda fh: fh.write("".join(lines).encode("utf-8")))


def build_tree(events: list) -> None:
    """Link each event to its parent: the innermost event on the same thread whose interval contains it.

    Events are sorted by start (longest first on ties); a stack of open intervals per thread finds each parent, as
    PyTorch does, so ranges that are not properly nested (a ``ProfilerStep`` crossing a user range) do not nest.
    """
    for _tid, group in itertools.groupby(sorted(events, key=attrgetter("thread")), key=attrgetter("thread")):
        stack = []
        for event in sorted(group, key=lambda e: (e.time_range.start, -e.time_range.end, e.id)):
            while stack:
                parent = stack[-1]
                if event.time_range.start >= parent.time_range.end and parent.cpu_time_total > 0 or \
                        event.time_range.end > parent.time_range.end:
                    stack.pop()
                else:
                    parent.cpu_children.append(event)
                    event.cpu_parent = parent
                    break
            stack.append(event)
    # memory including children: children end before their parents, so visit by end time
    for event in sorted(events, key=lambda e: (e.time_range.end, -e.time_range.start, -e.id)):
        if event.cpu_parent is not None:
            event.cpu_parent.cpu_memory_usage += event.cpu_memory_usage


def remove_duplicates(events: list) -> list:
    """Fold an event into its parent when both have one name and it is the only child (``F.relu`` calling the op
    ``relu``), as PyTorch does, so one call counts once. Returns the remaining events in their order."""
    removed = set()
    for event in events:
        parent = event.cpu_parent
        if parent is not None and parent.name == event.name and len(parent.cpu_children) == 1:
            parent.cpu_children = event.cpu_children
            for child in event.cpu_children:
                child.cpu_parent = parent
            parent.self_cpu_memory_usage += event.self_cpu_memory_usage
            removed.add(event.id)
    return [event for event in events if event.id not in removed] if removed else events


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic GC while building many objects that all survive (it would rescan them again and again)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def write_chrome_trace(events, path, metadata=None) -> None:
    """Write ``events`` as Chrome's JSON trace format: complete (``"ph": "X"``) events plus process/thread names."""
    with gc_paused():
        _write_chrome_trace(events, path, metadata or {})


def _write_chrome_trace(events, path, metadata) -> None:
    import os
    from ..serialization import atomic_write
    pid = os.getpid()
    threads = sorted({event.thread for event in events})
    trace = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": f"python {pid}"}}]
    trace += [{"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": f"thread {tid}"}}
              for tid in threads]
    for event in events:
        args = {}
        if event.input_shapes:
            args["Input Dims"] = event.input_shapes
        if event.self_cpu_memory_usage:
            args["Allocated Bytes"] = event.self_cpu_memory_usage
        start, end = event._ns
        trace.append({"ph": "X", "cat": event.category, "name": event.trace_name, "pid": pid, "tid": event.thread,
                      "ts": start / 1000, "dur": (end - start) / 1000, "args": args})
    document = {"schemaVersion": 1, **metadata, "deviceProperties": [], "displayTimeUnit": "ms", "traceEvents": trace,
                "traceName": os.fspath(path)}
    data = json.dumps(document).encode("utf-8")
    if os.fspath(path).endswith(".gz"):
        import gzip
        data = gzip.compress(data)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    atomic_write(path, lambda fh: fh.write(data))

