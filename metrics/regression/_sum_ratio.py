"""The shared shape of metrics that are a sum of per-element errors divided by a count."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..metric import Metric


class _SumOverCount(Metric):
    """States ``<name>`` (float, summed) and ``total`` (count, summed); subclasses set ``_update_fn``."""

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0
    _state_name = "sum_error"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state(self._state_name, zeros((), dtype=float32, device=self.device), dist_reduce_fx="sum")
        self.add_state("total", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    @staticmethod
    def _update_fn(preds, target):  # pragma: no cover - always overridden
        raise NotImplementedError

    def update(self, preds, target) -> None:
        """Accumulate the batch's summed error and count."""
        s, n = type(self)._update_fn(preds, target)
        d = self.__dict__
        setattr(self, self._state_name, d[self._state_name] + s)
        self.total = d["total"] + n

    def compute(self):
        """The summed error divided by the number of observations."""
        return self.__dict__[self._state_name] / self.total
