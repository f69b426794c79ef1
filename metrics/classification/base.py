"""The task wrapper behind ``Accuracy(task=...)`` and friends, and the stat-score state shared by many metrics."""
from __future__ import annotations

from ...core.dtypes import int64
from ...core.ops.creation import zeros
from ...core.tensor import Tensor

from ..metric import Metric
from ..utilities.data import dim_zero_cat, to_array, wrap

__all__ = []


class _ClassificationTaskWrapper(Metric):
    """Base of the task wrappers: ``Accuracy(task="binary", ...)`` returns a ``BinaryAccuracy`` from ``__new__``."""

    def update(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"{type(self).__name__} metric does not have a global `update` method. Use the "
                                  "task specific metric.")

    def compute(self):
        raise NotImplementedError(f"{type(self).__name__} metric does not have a global `compute` method. Use the "
                                  "task specific metric.")


def _require_int(value, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"`{name}` is expected to be `int` but `{type(value).__name__}` was passed.")


def _arrays(preds, target):
    """The arrays behind the inputs (the fast path for tensors)."""
    p = preds._data if isinstance(preds, Tensor) else to_array(preds, "preds")
    t = target._data if isinstance(target, Tensor) else to_array(target, "target")
    return p, t


class _AbstractStatScores(Metric):
    """Holds the ``tp``/``fp``/``tn``/``fn`` states: summed tensors globally, lists of per-sample rows samplewise."""

    _STATS = ("tp", "fp", "tn", "fn")

    def _create_state(self, size, multidim_average: str = "global") -> None:
        for name in self._STATS:
            if multidim_average == "samplewise":
                self.add_state(name, [], dist_reduce_fx="cat")
            else:
                self.add_state(name, zeros(size, dtype=int64, device=self.device), dist_reduce_fx="sum")

    def _update_state(self, tp, fp, tn, fn) -> None:
        d = self.__dict__
        if self.multidim_average == "samplewise":
            for name, value in zip(self._STATS, (tp, fp, tn, fn)):
                d[name].append(wrap(value))
        else:
            # in place: states are private copies (reset copies the defaults), and compute groups share them
            d["tp"]._data += tp
            d["fp"]._data += fp
            d["tn"]._data += tn
            d["fn"]._data += fn

    def _final_state(self):
        d = self.__dict__
        out = []
        for name in self._STATS:
            value = d[name]
            out.append((dim_zero_cat(value) if isinstance(value, list) else value)._data)
        return out
