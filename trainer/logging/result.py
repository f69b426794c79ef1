"""The result collection: what ``self.log`` stores per hook and key, and how it becomes step and epoch values.

Each logged key keeps the latest step value and an epoch accumulator for its ``reduce_fx``. The default "mean" is
weighted by batch size: sum(value * batch_size) / sum(batch_size). A logged ``Metric`` is held by reference: its
step value is the batch value from ``forward``, its epoch value is ``compute()``, after which it is reset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

import numpy as np

from ...core.dtypes import FLOAT
from ...core.tensor import Tensor
from ..exceptions import MisconfigurationException

__all__ = ["LogMeta", "ResultMetric", "ResultCollection"]

_REDUCE_ALIASES = {"mean": "mean", "avg": "mean", "sum": "sum", "max": "max", "min": "min"}


def _normalize_reduce_fx(reduce_fx) -> str:
    """Lightning's spellings: ``"mean"``/``"avg"``/``"sum"``/``"max"``/``"min"`` in any case, or the reduction
    function itself (``em.sum``, the builtin ``max``, ...)."""
    if callable(reduce_fx):
        name = getattr(reduce_fx, "__name__", "")
        name = {"amax": "max", "amin": "min"}.get(name, name)
    else:
        name = reduce_fx.lower() if isinstance(reduce_fx, str) else reduce_fx
    if name not in _REDUCE_ALIASES:
        raise MisconfigurationException("Only `self.log(..., reduce_fx={min,max,mean,sum})` are supported. If you "
                                        "need a custom reduction, please log a `Metric` instead. Found: "
                                        f"{reduce_fx!r}")
    return _REDUCE_ALIASES[name]


def is_metric(value) -> bool:
    """Duck-typed check for a ``Metric``: anything with update/compute/reset."""
    return (not isinstance(value, Tensor) and callable(getattr(value, "compute", None))
            and callable(getattr(value, "reset", None)) and callable(getattr(value, "update", None)))


@dataclass
class LogMeta:
    """The options of one logged key in one hook."""

    fx: str
    name: str
    prog_bar: bool
    logger: bool
    on_step: bool
    on_epoch: bool
    reduce_fx: str
    enable_graph: bool
    sync_dist: bool
    rank_zero_only: bool
    dataloader_idx: Optional[int]
    is_metric: bool

    @property
    def forked(self) -> bool:
        return self.on_step and self.on_epoch

    def options(self) -> tuple:
        return (self.prog_bar, self.logger, self.on_step, self.on_epoch, self.reduce_fx, self.enable_graph,
                self.sync_dist, self.rank_zero_only, self.is_metric)


class ResultMetric:
    """One logged key: the latest step value and the epoch accumulator.

    The names it is published under are worked out once, here: ``name_step``/``name_epoch`` when the key is
    forked (logged both on step and on epoch), else ``name``.
    """

    __slots__ = ("meta", "value", "total", "count", "has_step", "has_epoch", "metric", "dtype", "forked", "step_key",
                 "epoch_key")

    def __init__(self, meta: LogMeta):
        self.meta = meta
        self.value = None
        self.metric = None
        self.dtype = None
        self.forked = meta.forked
        self.step_key = meta.name + "_step" if self.forked else meta.name
        self.epoch_key = meta.name + "_epoch" if self.forked else meta.name
        self.reset()

    def reset(self) -> None:
        self.total = None
        self.count = 0.0
        self.has_step = False
        self.has_epoch = False

    def update(self, value, batch_size: Optional[int], results: "ResultCollection") -> None:
        """Record one logged value. ``batch_size`` None means the size of ``results``' current batch: it is only
        inferred where it is used, by the batch-size-weighted epoch mean."""
        meta = self.meta
        if meta.is_metric:
            self.metric = value
            self.has_step = self.has_epoch = True
            return
        self.value = value
        self.has_step = True
        if not meta.on_epoch:
            return
        v = value.item() if isinstance(value, Tensor) else float(value)
        reduce = meta.reduce_fx
        if reduce == "mean":
            if batch_size is None:
                batch_size = results.current_batch_size()
            self.total = v * batch_size if self.total is None else self.total + v * batch_size
            self.count += batch_size
        elif reduce == "sum":
            self.total = v if self.total is None else self.total + v
        elif reduce == "max":
            self.total = v if self.total is None or v > self.total or math.isnan(v) else self.total
        else:
            self.total = v if self.total is None or v < self.total or math.isnan(v) else self.total
        self.has_epoch = True

    def step_value(self):
        if self.meta.is_metric:
            cached = getattr(self.metric, "_forward_cache", None)
            return None if cached is None else _as_tensor(cached)
        return self.value if self.meta.enable_graph and isinstance(self.value, Tensor) else _as_tensor(self.value)

    def epoch_value(self, sync=None):
        if self.meta.is_metric:
            return _as_tensor(self.metric.compute())
        if self.total is None:
            return None
        total = self.total
        if sync is not None and self.meta.sync_dist:
            total = sync(total, self.meta.reduce_fx if self.meta.reduce_fx != "mean" else "sum")
            if self.meta.reduce_fx == "mean":
                count = sync(self.count, "sum")
                return _as_tensor(total / count, self.dtype)
        if self.meta.reduce_fx == "mean":
            return _as_tensor(total / self.count, self.dtype)
        return _as_tensor(total, self.dtype)


def _as_tensor(value, dtype=None) -> Optional[Tensor]:
    """A published value: a detached floating tensor, 0-d when it has one element (a number becomes one)."""
    if value is None:
        return None
    if isinstance(value, Tensor):
        # a logged tensor is already detached (unless logged with enable_graph); one that is detached, floating and
        # 0-d is returned as is, sharing its data as a detached copy or a reshaped view would. The slots and the
        # NumPy dtype's kind are read directly (as Tensor.is_floating_point does): this runs for every logged value
        # of every step
        if value._requires_grad:
            value = value.detach()
        data = value._data
        if data.dtype.kind not in "fc":  # bool and integer values are published as floats
            value = value.float()
        return value.reshape(()) if data.ndim and data.size == 1 else value
    return Tensor._make(np.asarray(value, dtype=dtype or np.float32))


class ResultCollection(dict):
    """Maps ``"<hook>.<name>"`` to :class:`ResultMetric` for one stage (training, or one evaluation run).

    ``call_sites`` remembers, for each distinct set of ``self.log`` arguments already validated in this collection,
    the entry they log to; the logger connector looks it up first, so a key logged every step is validated once.
    """

    def __init__(self, training: bool):
        super().__init__()
        self.training = training
        self.batch = None
        self.batch_size: Optional[int] = None
        self.dataloader_idx: Optional[int] = None
        self.warned_ambiguous = False
        self.call_sites: Dict[tuple, ResultMetric] = {}

    def set_dataloader_idx(self, idx: Optional[int]) -> None:
        """Log to evaluation loader ``idx`` from now on (None: to no loader, as the epoch-end hooks do)."""
        if idx != self.dataloader_idx:
            self.dataloader_idx = idx
            self.call_sites.clear()  # an entry's name and meta depend on the loader

    def current_batch_size(self) -> int:
        """The inferred batch size of the current batch (computed once per batch)."""
        if self.batch_size is None:
            from ..utilities import extract_batch_size
            import warnings
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    self.batch_size = extract_batch_size(self.batch) if self.batch is not None else 1
                except RuntimeError:
                    self.batch_size = 1
            for w in caught:
                if not self.warned_ambiguous:
                    self.warned_ambiguous = True
                    warnings.warn(w.message, w.category)
        return self.batch_size

    def entry(self, meta: LogMeta, value) -> ResultMetric:
        """The entry ``meta`` logs to, made on its first use (the dtype of a floating tensor is kept, for the epoch
        value); logging a key again in the same hook with other options raises."""
        key = f"{meta.fx}.{meta.name}"
        result = self.get(key)
        if result is None:
            result = self[key] = ResultMetric(meta)
            if isinstance(value, Tensor) and value.dtype.category >= FLOAT:
                result.dtype = value._data.dtype
        elif result.meta is not meta and result.meta.options() != meta.options():
            raise MisconfigurationException(
                f"You called `self.log({meta.name}, ...)` twice in `{meta.fx}` with different arguments. This is not "
                "allowed")
        return result

    def collect(self, on_step: bool, log: Optional[dict] = None, pbar: Optional[dict] = None,
                callback: Optional[dict] = None, sync=None, dataloader_idx=None) -> None:
        """Write the step (``on_step``) or epoch values into the dicts given (those left None are not wanted):
        ``log`` for the loggers and ``callback`` for monitoring, as tensors, and ``pbar`` as Python floats, which
        the progress bar shows (as in Lightning). With ``dataloader_idx``, only that loader's keys and those
        logged outside any loader (epoch-end hooks)."""
        if not self.training and on_step:
            callback = None  # evaluation step values are not monitored at all (Lightning), so they never linger
        for result in self.values():
            meta = result.meta
            if dataloader_idx is not None and meta.dataloader_idx not in (None, dataloader_idx):
                continue
            if on_step:
                if not meta.on_step or not result.has_step:
                    continue
                value = result.step_value()
                key = result.step_key
            else:
                if not meta.on_epoch or not result.has_epoch:
                    continue
                value = result.epoch_value(sync)
                key = result.epoch_key
            if value is None:
                continue
            if log is not None and meta.logger:
                log[key] = value
            if pbar is not None and meta.prog_bar:
                pbar[key] = value.item()
            # rank-zero-only values can't be monitored: other ranks lack them
            if callback is not None and not meta.rank_zero_only:
                callback[meta.name] = value
                if result.forked:
                    callback[key] = value

    def state_dict(self) -> Dict[str, Any]:
        """The epoch accumulators (plain numbers) so a mid-epoch resume gives the same epoch values."""
        out = {}
        for key, result in self.items():
            if result.meta.is_metric or result.total is None:
                continue
            out[key] = {"meta": dict(vars(result.meta)), "total": result.total, "count": result.count,
                        "dtype": None if result.dtype is None else str(result.dtype)}
        return out

    def load_state_dict(self, state: Dict[str, Any]) -> None:
        for key, entry in state.items():
            result = ResultMetric(LogMeta(**entry["meta"]))
            result.total, result.count, result.has_epoch = entry["total"], entry["count"], True
            result.dtype = None if entry["dtype"] is None else np.dtype(entry["dtype"])
            self[key] = result
        self.call_sites.clear()  # they point at the entries just replaced

    def reset_epoch(self) -> None:
        """Reset the epoch accumulators and the logged Metric objects."""
        for result in self.values():
            if result.meta.is_metric and result.metric is not None and result.has_epoch:
                result.metric.reset()
            result.reset()

    def clear_step(self) -> None:
        """Forget the per-step flags before the next batch (epoch accumulators stay)."""
        for result in self.values():
            result.has_step = False
        self.batch = None
        self.batch_size = None
