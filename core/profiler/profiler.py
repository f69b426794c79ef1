"""``profile``: record ops, backward nodes, module calls and ``record_function`` ranges, as ``torch.profiler.profile``.

With a ``schedule``, ``step()`` moves through PyTorch's phases (wait: nothing recorded; warmup: nothing recorded
either, ember needs no warm-up; active: recorded, each step a ``ProfilerStep#N`` range) and ``on_trace_ready`` gets
the profiler at the end of every active cycle.
"""
from __future__ import annotations

import enum
import os
import warnings
from typing import Callable, Iterable, Optional

from .events import EventList
from .recorder import Recorder

__all__ = ["ProfilerActivity", "ProfilerAction", "schedule", "tensorboard_trace_handler", "profile",
           "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What a profile records: ``CPU`` (ember's ops); ``CUDA`` is accepted and ignored (no GPU backend yet)."""

    CPU = "CPU"
    CUDA = "CUDA"
    XPU = "XPU"
    MTIA = "MTIA"
    HPU = "HPU"
    PrivateUse1 = "PrivateUse1"


def supported_activities() -> set:
    """The activities ember can record: ``{ProfilerActivity.CPU}``."""
    return {ProfilerActivity.CPU}


class ProfilerAction(enum.Enum):
    """What the profiler does at a step: nothing, warm up, record, or record and then hand the trace over."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """A function of the step number giving the :class:`ProfilerAction`, as ``torch.profiler.schedule``.

    After ``skip_first`` steps, cycles of ``wait`` idle steps, ``warmup`` steps and ``active`` recorded steps repeat
    ``repeat`` times (0: forever); the last active step of a cycle is ``RECORD_AND_SAVE``. ``skip_first_wait=1``
    skips the first cycle's wait.
    """
    for arg, value, low in (("wait", wait, 0), ("warmup", warmup, 0), ("active", active, 1), ("repeat", repeat, 0),
                            ("skip_first", skip_first, 0), ("skip_first_wait", skip_first_wait, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"schedule({arg}={value!r}): expected an int >= {low}")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"schedule: the step must be >= 0, got {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait  # the first cycle starts with its warm-up
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name: Optional[str] = None, use_gzip: bool = False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name/<worker>.<time_ns>.pt.trace.json[.gz]``, the file
    TensorBoard's profiler plugin reads; ``worker_name`` defaults to ``<hostname>_<pid>``."""
    import socket
    import time
    dir_name = os.fspath(dir_name)

    def handler_fn(prof) -> None:
        try:
            os.makedirs(dir_name, exist_ok=True)
        except OSError as exc:
            raise RuntimeError(f"tensorboard_trace_handler: can't create directory {dir_name!r}: {exc}") from exc
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))
    return handler_fn


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """Profile the ops, backward nodes, module forwards and ``record_function`` ranges run inside the block.

    Args:
        activities: the :class:`ProfilerActivity` kinds to record (default: CPU). Asking for ``CUDA`` is accepted
            and ignored with a warning: ember has no GPU backend to trace.
        schedule: a function of the step number returning a :class:`ProfilerAction` (see :func:`schedule`);
            without one, everything between ``start()`` and ``stop()`` is recorded.
        on_trace_ready: called with the profiler when a trace is complete (e.g. :func:`tensorboard_trace_handler`).
        record_shapes: record each op's input shapes (``key_averages(group_by_input_shape=True)``).
        profile_memory: record the bytes each op allocated (the arrays it created).
        with_stack: record the user's source location of each event (``key_averages(group_by_stack_n=N)``).
        with_flops: accepted with a warning: ember does not estimate FLOPs.
        with_modules, experimental_config, execution_trace_observer, acc_events: accepted for PyTorch
            compatibility; module forwards are always recorded (``nn.Module: Linear_0``).

    Example::

        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            with record_function("model_inference"):
                model(inputs)
        print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    """

    def __init__(self, *, activities: Optional[Iterable[ProfilerActivity]] = None, schedule=None,
                 on_trace_ready=None, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None, acc_events: bool = False,
                 use_cuda: Optional[bool] = None, custom_trace_id_callback=None):
        activities = set(supported_activities() if activities is None else activities)
        bad = [a for a in activities if not isinstance(a, ProfilerActivity)]
        if bad:
            raise TypeError(f"profile(activities=...): expected ProfilerActivity members, got {bad!r}; use e.g. "
                            "activities=[ProfilerActivity.CPU]")
        if use_cuda:
            activities.add(ProfilerActivity.CUDA)
        ignored = sorted(a.name for a in activities - supported_activities())
        if ignored:
            warnings.warn(f"ember.profiler: ember records CPU activity only (no GPU backend); ignoring "
                          f"{', '.join('ProfilerActivity.' + n for n in ignored)}", stacklevel=2)
        if schedule is not None and not callable(schedule):
            raise TypeError(f"profile(schedule={schedule!r}): expected a function of the step number, e.g. "
                            "ember.profiler.schedule(wait=1, warmup=1, active=3)")
        if on_trace_ready is not None and not callable(on_trace_ready):
            raise TypeError(f"profile(on_trace_ready={on_trace_ready!r}): expected a callable taking the profiler")
        self.activities = activities
        self._record_cpu = ProfilerActivity.CPU in activities
        self.record_shapes = bool(record_shapes)
        self.profile_memory = bool(profile_memory)
        self.with_stack = bool(with_stack)
        self.with_flops = bool(with_flops)
        if self.with_flops:
            warnings.warn("ember.profiler: with_flops=True is ignored (ember does not estimate FLOPs)", stacklevel=2)
        self.with_modules = bool(with_modules)
        self.on_trace_ready = on_trace_ready
        self.schedule = schedule if schedule is not None else _always_record
        self.record_steps = schedule is not None  # ProfilerStep#N ranges only when stepping through a schedule
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._recorder: Optional[Recorder] = None
        self._events = None
        self._metadata = {}
        self._step_range = None
        self._running = False

    # ------------------------------------------------------------------------------------------------ control
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
        return False

    def start(self) -> None:
        """Begin profiling (the first step's action decides whether anything is recorded yet)."""
        if self._running:
            raise RuntimeError("profile.start(): this profiler is already running; call stop() first")
        self._running = True
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step_range()

    def stop(self) -> None:
        """End profiling: a trace being recorded is finished (and handed to ``on_trace_ready``)."""
        if not self._running:
            return
        self._close_step_range()
        self._transit(self.current_action, None)
        self._running = False

    def step(self) -> None:
        """Mark the end of a training step: the schedule moves on, ``ProfilerStep#N`` ranges close and open."""
        self._close_step_range()
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(previous, self.current_action)
        self._open_step_range()

    def _open_step_range(self) -> None:
        if self.record_steps and self._recorder is not None and self.current_action in _RECORDING:
            label = f"ProfilerStep#{self.step_num}"
            self._step_range = (self._recorder, self._recorder.begin("ProfilerStep*", label, "user_annotation"))

    def _close_step_range(self) -> None:
        if self._step_range is not None:
            recorder, event = self._step_range
            recorder.end(event)
            self._step_range = None

    # the phases, as torch.profiler: prepare (a fresh recorder), start, stop (events collected), trace ready
    def _prepare(self) -> None:
        self._recorder = Recorder(self.record_shapes, self.profile_memory, self.with_stack)

    def _start_trace(self) -> None:
        if self._recorder is None:
            self._prepare()
        if self._record_cpu:
            self._recorder.start()

    def _stop_trace(self) -> None:
        recorder, self._recorder = self._recorder, None
        if recorder is None:
            return
        recorder.stop()
        self._events = recorder.events() if self._record_cpu else EventList()  # nothing ember can record

    def _trace_ready(self) -> None:
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, previous: ProfilerAction, current: Optional[ProfilerAction]) -> None:
        A = ProfilerAction
        if previous == current and current != A.RECORD_AND_SAVE:
            return
        if previous == A.NONE:
            if current == A.WARMUP:
                self._prepare()
            elif current in _RECORDING:
                self._prepare()
                self._start_trace()
        elif previous == A.WARMUP:
            if current in _RECORDING:
                self._start_trace()
            elif current in (A.NONE, None):
                self._recorder = None  # warmed up but never recorded: nothing to hand over
        elif previous == A.RECORD:
            if current in (A.NONE, A.WARMUP):
                warnings.warn(f"Incorrect schedule: RECORD followed by {current.name}")
                self._stop_trace()
                if current == A.WARMUP:
                    self._prepare()
            elif current == A.RECORD_AND_SAVE:
                pass  # still recording; the trace is handed over at the end of this step
            elif current is None:
                self._stop_trace()
                self._trace_ready()
        elif previous == A.RECORD_AND_SAVE:
            self._stop_trace()
            self._trace_ready()
            if current == A.WARMUP:
                self._prepare()
            elif current in _RECORDING:
                self._prepare()
                self._start_trace()

    # ------------------------------------------------------------------------------------------------ results
    def events(self):
        """The last trace's events (an EventList of FunctionEvent, in start order)."""
        if self._events is None:
            raise RuntimeError("ember.profiler: no trace has been recorded yet; profile a block first (or, with a "
                               "schedule, step() through an active cycle)")
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0):
        """The last trace's events summed per name (and per input shapes / source lines); print with ``.table()``."""
        if group_by_input_shape and not self.record_shapes:
            warnings.warn("key_averages(group_by_input_shape=True) needs profile(record_shapes=True); the shapes "
                          "were not recorded", stacklevel=2)
        if group_by_stack_n > 0 and not self.with_stack:
            warnings.warn("key_averages(group_by_stack_n=...) needs profile(with_stack=True); the stacks were not "
                          "recorded", stacklevel=2)
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path) -> None:
        """Write the last trace as a Chrome trace JSON (``.gz`` compresses) for ``chrome://tracing`` or Perfetto."""
        self.events().export_chrome_trace(path, self._metadata)

    def add_metadata(self, key: str, value: str) -> None:
        """Add ``key: value`` (strings) to the top level of the exported traces."""
        self._metadata[str(key)] = str(value)

    def add_metadata_json(self, key: str, value: str) -> None:
        """Add ``key`` with ``value`` given as a JSON string to the top level of the exported traces."""
        import json
        try:
            self._metadata[str(key)] = json.loads(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"add_metadata_json({key!r}, value={value!r}): the value must be a JSON string "
                             f"({exc})") from None

    def export_stacks(self, path, metric: str = "self_cpu_time_total") -> None:
        """Write the last trace's stacks as flame-graph input (needs ``with_stack=True``)."""
        self.events().export_stacks(path, metric)
