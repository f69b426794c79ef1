"""``MinMaxMetric``: a scalar metric together with the smallest and largest values it has computed."""
from __future__ import annotations

import math

from ...core.ops.creation import tensor
from ...core.tensor import Tensor
from ..metric import Metric
from .abstract import WrapperMetric

__all__ = ["MinMaxMetric"]


class MinMaxMetric(WrapperMetric):
    """Track the minimum and maximum of a scalar ``base_metric`` over its ``compute`` calls.

    ``compute`` returns ``{"raw": value, "max": largest so far, "min": smallest so far}``. The extremes are metric
    states (reduced with min/max across processes) and :meth:`reset` sets them back to ``+inf``/``-inf``, as in
    torchmetrics. ``forward`` gives the batch value as ``raw``, ``max`` and ``min`` (the extremes of that batch
    alone) and leaves the tracked extremes alone.

    Args:
        base_metric (Metric): a metric whose value is a number or a one-element tensor.
    """

    full_state_update = True

    def __init__(self, base_metric: Metric, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(base_metric, Metric):
            raise ValueError(f"Expected base metric to be an instance of `ember.metrics.Metric` but received "
                             f"{type(base_metric)}")
        self._base_metric = base_metric
        self.add_state("min_val", default=tensor(math.inf), dist_reduce_fx="min")
        self.add_state("max_val", default=tensor(-math.inf), dist_reduce_fx="max")

    def update(self, *args, **kwargs) -> None:
        """Update the base metric."""
        self._base_metric.update(*args, **kwargs)

    def _checked(self, value) -> Tensor:
        if not self._is_suitable_val(value):
            raise RuntimeError(f"Returned value from base metric should be a float or scalar tensor, but got "
                               f"{value}.")
        return value if isinstance(value, Tensor) else tensor(float(value))

    def compute(self) -> dict:
        """``{"raw", "max", "min"}``: the base metric's value and the extremes including it."""
        value = self._checked(self._base_metric.compute())
        if self.max_val < value:
            self.max_val = value
        if self.min_val > value:
            self.min_val = value
        return {"raw": value, "max": self.max_val, "min": self.min_val}

    def forward(self, *args, **kwargs) -> dict:
        """Accumulate the batch into the base metric; ``raw``, ``max`` and ``min`` are the batch value."""
        value = self._checked(self._base_metric(*args, **kwargs))
        return {"raw": value, "max": value, "min": value}

    def reset(self) -> None:
        """Reset the base metric (the extremes are kept)."""
        super().reset()
        self._base_metric.reset()

    @staticmethod
    def _is_suitable_val(value) -> bool:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        return isinstance(value, Tensor) and value.numel() == 1
