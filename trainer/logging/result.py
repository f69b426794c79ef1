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
    """One logged key: the latest step value and the epoch accumulator."""

    __slots__ = ("meta", "value", "total", "count", "has_step", "has_epoch", "metric", "dtype")

    def __init__(self, meta: LogMeta):
        self.meta = meta
        self.value = None
        self.metric = None
        self.dtype = None
        self.reset()

    def reset(self) -> None:
        self.total = None
        self.count = 0.0
        self.has_step = False
        self.has_epoch = False

    def update(self, value, batch_size: int) -> None:
        if self.meta.is_metric:
            self.metric = value
            self.has_step = self.has_epoch = True
            return
        self.value = value
        self.has_step = True
        if not self.meta.on_epoch:
            return
        v = value.item() if isinstance(value, Tensor) else float(value)
        reduce = self.meta.reduce_fx
        if reduce == "mean":
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
    if value is None:
        return None
    if isinstance(value, Tensor):
        # a logged tensor is already detached (unless logged with enable_graph); one that is detached, floating and
        # 0-d is returned as is, sharing its data as a detached copy or a reshaped view would
        if value.requires_grad:
            value = value.detach()
        if value.dtype.category < 2:
            value = value.float()
        return value.reshape(()) if value.ndim and value.numel() == 1 else value
    return Tensor._make(np.asarray(value, dtype=dtype or np.float32))


class ResultCollection(dict):
    """Maps ``"<hook>.<name>"`` to :class:`ResultMetric` for one stage (training, or one evaluation run)."""

    def __init__(self, training: bool):
        super().__init__()
        self.training = training
        self.batch = None
        self.batch_size: Optional[int] = None
        self.dataloader_idx: Optional[int] = None
        self.warned_ambiguous = False

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

    def log(self, meta: LogMeta, value, batch_size: Optional[int]) -> None:
        key = f"{meta.fx}.{meta.name}"
        result = self.get(key)
        if result is None:
            result = self[key] = ResultMetric(meta)
            if isinstance(value, Tensor) and value.dtype.category >= 2:
                result.dtype = value._data.dtype
        elif result.meta is not meta and result.meta.options() != meta.options():
            raise MisconfigurationException(
                f"You called `self.log({meta.name}, ...)` twice in `{meta.fx}` with different arguments. This is not "
                "allowed")
        if batch_size is None:
            batch_size = self.current_batch_size() if meta.on_epoch and meta.reduce_fx == "mean" \
                and not meta.is_metric else 1
        result.update(value, batch_size)

    def metrics(self, on_step: bool, sync=None, dataloader_idx=None) -> Dict[str, Dict[str, Any]]:
        """The values to publish: ``{"log": ..., "pbar": ..., "callback": ...}`` for the step or the epoch; with
        ``dataloader_idx``, only that loader's keys and those logged outside any loader (epoch-end hooks)."""
        out = {"log": {}, "pbar": {}, "callback": {}}
        for result in self.values():
            meta = result.meta
            if dataloader_idx is not None and meta.dataloader_idx not in (None, dataloader_idx):
                continue
            if on_step:
                if not meta.on_step or not result.has_step:
                    continue
                value = result.step_value()
                suffix = "_step"
            else:
                if not meta.on_epoch or not result.has_epoch:
                    continue
                value = result.epoch_value(sync)
                suffix = "_epoch"
            if value is None:
                continue
            name = meta.name
            is_forked = meta.on_step and meta.on_epoch  # meta.forked, without a property call per key and step
            forked = name + suffix if is_forked else name
            if meta.logger:
                out["log"][forked] = value
            if meta.prog_bar:  # the progress bar shows numbers: Python floats, as in Lightning
                out["pbar"][forked] = value.item() if isinstance(value, Tensor) else float(value)
            # rank-zero-only values can't be monitored (other ranks lack them); evaluation step values are not
            # monitored at all (Lightning), so they never linger in callback_metrics after the epoch
            if not meta.rank_zero_only and (self.training or not on_step):
                out["callback"][name] = value
                if is_forked:
                    out["callback"][forked] = value
        return out

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
