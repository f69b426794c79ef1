"""``MinMaxMetric``: a scalar metric together with the smallest and largest values it has computed."""
from __future__ import annotations

import math

from ...core.ops.creation import tensor
from ...core.tensor import Tensor
from ..metric import Metric
from .abstract import WrapperMetric

__all__ = ["MinMaxMetric"]


class MinMaxMetric(WrapperMetric):
    """Track the minimum and maximum of a scalar ``base_metric`` over every ``compute`` (and ``forward``).

    ``compute`` returns ``{"raw": value, "max": largest so far, "min": smallest so far}``. The extremes survive
    :meth:`reset`, which clears only the base metric: that is what tracks the best epoch.

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
        self.min_val = tensor(math.inf)
        self.max_val = tensor(-math.inf)

    def update(self, *args, **kwargs) -> None:
        """Update the base metric."""
        self._base_metric.update(*args, **kwargs)

    def _track(self, value) -> dict:
        if not self._is_suitable_val(value):
            raise RuntimeError(f"Returned value from base metric should be a float or scalar tensor, but got "
                               f"{value}.")
        if not isinstance(value, Tensor):
            value = tensor(float(value))
        if self.max_val < value:
            self.max_val = value
        if self.min_val > value:
            self.min_val = value
        return {"raw": value, "max": self.max_val, "min": self.min_val}

    def compute(self) -> dict:
        """``{"raw", "max", "min"}``: the base metric's value and the extremes including it."""
        return self._track(self._base_metric.compute())

    def forward(self, *args, **kwargs) -> dict:
        """Accumulate the batch into the base metric; ``{"raw", "max", "min"}`` with ``raw`` the batch value."""
        return self._track(self._base_metric(*args, **kwargs))

    def reset(self) -> None:
        """Reset the base metric (the extremes are kept)."""
        super().reset()
        self._base_metric.reset()

    @staticmethod
    def _is_suitable_val(value) -> bool:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        return isinstance(value, Tensor) and value.numel() == 1
