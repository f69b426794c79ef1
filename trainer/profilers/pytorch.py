"""``PyTorchProfiler``: Lightning's operator-level profiler, built on :mod:`ember.profiler`.

Every Trainer action becomes a ``record_function("[pl][profile]<action>")`` range, so the ops, backward nodes and
module forwards recorded by ``ember.profiler.profile`` nest under the hook that ran them. The summary is
``key_averages().table(...)``; the trace is exported for Chrome/Perfetto/TensorBoard into ``dirpath``.
"""
from __future__ import annotations

import inspect
import warnings
from typing import Any, Dict, Optional

from ...core import profiler as em_profiler
from ..exceptions import MisconfigurationException
from .profiler import Profiler

__all__ = ["PyTorchProfiler"]


class PyTorchProfiler(Profiler):
    """Profile the ops inside each Trainer action with :class:`ember.profiler.profile` (Lightning's
    ``PyTorchProfiler``; ``Trainer(profiler="pytorch")``).

    Args:
        dirpath: where ``filename`` and the Chrome traces are written (default: ``trainer.log_dir``).
        filename: write the report to ``<stage>-<filename>.txt`` instead of printing it.
        group_by_input_shapes: one row per op and input shapes (needs ``record_shapes=True``).
        emit_nvtx: not available (no CUDA in ember); must stay False.
        export_to_chrome: write each trace as ``<stage>[-<filename>].<time_ns>.pt.trace.json`` into ``dirpath``.
        row_limit: rows in the table (``-1``: all).
        sort_by_key: the table's sort key (default ``"cpu_time_total"``); one of :attr:`AVAILABLE_SORT_KEYS`.
        record_module_names: accepted for Lightning compatibility: module forwards are always recorded
            (``nn.Module: Linear_0``).
        table_kwargs: more keyword arguments for ``EventList.table`` (not ``sort_by``/``row_limit``).
        **profiler_kwargs: passed to :class:`ember.profiler.profile` (``record_shapes``, ``profile_memory``,
            ``with_stack``, ``schedule``, ``on_trace_ready``, ``activities``, ...).

    Raises:
        MisconfigurationException: for an unknown ``sort_by_key``, a ``schedule`` that is not a function returning a
            ``ProfilerAction``, or ``emit_nvtx=True``.
    """

    STEP_FUNCTIONS = {"training_step", "validation_step", "test_step", "predict_step"}
    AVAILABLE_SORT_KEYS = {"cpu_time", "cuda_time", "cpu_time_total", "cuda_time_total", "cpu_memory_usage",
                           "cuda_memory_usage", "self_cpu_memory_usage", "self_cuda_memory_usage", "count"}

    def __init__(self, dirpath=None, filename: Optional[str] = None, group_by_input_shapes: bool = False,
                 emit_nvtx: bool = False, export_to_chrome: bool = True, row_limit: int = 20,
                 sort_by_key: Optional[str] = None, record_module_names: bool = True,
                 table_kwargs: Optional[Dict[str, Any]] = None, **profiler_kwargs: Any) -> None:
        super().__init__(dirpath=dirpath, filename=filename)
        if emit_nvtx:
            raise MisconfigurationException("`PyTorchProfiler(emit_nvtx=True)` needs CUDA's NVTX, which ember does "
                                            "not have; remove the argument")
        self._group_by_input_shapes = group_by_input_shapes and profiler_kwargs.get("record_shapes", False)
        self._export_to_chrome = export_to_chrome
        self._row_limit = row_limit
        self._sort_by_key = sort_by_key or "cpu_time_total"
        self._record_module_names = record_module_names
        self._table_kwargs = dict(table_kwargs or {})
        if self._sort_by_key not in self.AVAILABLE_SORT_KEYS:
            raise MisconfigurationException(
                f"Found sort_by_key: {self._sort_by_key}. Should be within {sorted(self.AVAILABLE_SORT_KEYS)}. ")
        valid_table_keys = set(inspect.signature(em_profiler.EventList.table).parameters) - {"self", "sort_by",
                                                                                             "row_limit"}
        for key in self._table_kwargs:
            if key in ("sort_by", "row_limit"):
                raise KeyError(f"Found invalid table_kwargs key: {key}. This is already a positional argument of "
                               "the Profiler.")
            if key not in valid_table_keys:
                raise KeyError(f"Found invalid table_kwargs key: {key}. Should be within {sorted(valid_table_keys)}.")
        schedule = profiler_kwargs.get("schedule")
        if schedule is not None:
            if not callable(schedule):
                raise MisconfigurationException(f"Schedule should be a callable. Found: {schedule}")
            action = schedule(0)
            if not isinstance(action, em_profiler.ProfilerAction):
                raise MisconfigurationException(
                    f"Schedule should return a `ember.profiler.ProfilerAction`. Found: {action}")
        self._has_schedule = schedule is not None
        self._has_on_trace_ready = profiler_kwargs.get("on_trace_ready") is not None
        accepted = set(inspect.signature(em_profiler.profile.__init__).parameters) - {"self"}
        self._profiler_kwargs = {k: v for k, v in profiler_kwargs.items() if k in accepted}
        self.profiler: Optional[em_profiler.profile] = None
        self.function_events = None
        self._recording_map: Dict[str, em_profiler.record_function] = {}
        self._trace_action: Optional[str] = None

    def start(self, action_name: str) -> None:
        """Start the ember profiler on the first action; open a ``[pl][profile]<action>`` range."""
        if self.profiler is None:
            kwargs = dict(self._profiler_kwargs)
            if not self._has_on_trace_ready:
                kwargs["on_trace_ready"] = self._export_trace
            self.profiler = em_profiler.profile(**kwargs)
            self.profiler.add_metadata("Framework", "ember")
            self.profiler.start()
        if action_name not in self._recording_map:
            recording = em_profiler.record_function("[pl][profile]" + action_name)
            recording.__enter__()
            self._recording_map[action_name] = recording

    def stop(self, action_name: str) -> None:
        """Close the action's range; after a step function, advance the ember profiler's schedule."""
        recording = self._recording_map.pop(action_name, None)
        if recording is not None:
            recording.__exit__(None, None, None)
        if self.profiler is not None and self._has_schedule and \
                any(action_name.endswith(fn) for fn in self.STEP_FUNCTIONS):
            self._trace_action = action_name
            self.profiler.step()

    def _export_trace(self, prof) -> None:
        if not self._export_to_chrome:
            return
        if self.dirpath is None:
            warnings.warn("The PyTorchProfiler failed to export trace as `dirpath` is None")
            return
        name = self._prepare_filename(action_name=self._trace_action, extension="")
        em_profiler.tensorboard_trace_handler(self.dirpath, name)(prof)

    def _stop_profiler(self) -> None:
        for recording in reversed(list(self._recording_map.values())):
            recording.__exit__(None, None, None)
        self._recording_map.clear()
        if self.profiler is not None:
            profiler, self.profiler = self.profiler, None
            self._trace_action = None
            profiler.stop()
            try:
                self.function_events = profiler.events()
            except RuntimeError:  # a schedule that never reached an active step
                self.function_events = None

    def summary(self) -> str:
        """The ops table (``key_averages().table``) of the last trace, under Lightning's report header."""
        self._stop_profiler()
        if not self.function_events:
            return ""
        data = self.function_events.key_averages(group_by_input_shapes=self._group_by_input_shapes)
        table = data.table(sort_by=self._sort_by_key, row_limit=self._row_limit, **self._table_kwargs)
        return self._stats_to_str({"records": table})

    def teardown(self, stage: Optional[str]) -> None:
        """Stop the ember profiler if it still runs."""
        self._stop_profiler()
        super().teardown(stage=stage)
