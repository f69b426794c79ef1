"""Mean absolute error metric."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..functional.regression._common import check_num_outputs
from ..functional.regression.mae import _mean_absolute_error_compute, _mean_absolute_error_update
from ..metric import Metric

__all__ = ["MeanAbsoluteError"]


class MeanAbsoluteError(Metric):
    """Mean absolute error ``mean(|preds - target|)`` (per output with ``num_outputs > 1``)."""

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0

    def __init__(self, num_outputs: int = 1, **kwargs):
        super().__init__(**kwargs)
        check_num_outputs(num_outputs)
        self.num_outputs = num_outputs
        self.add_state("sum_abs_error", zeros(num_outputs, dtype=float32, device=self.device), dist_reduce_fx="sum")
        self.add_state("total", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Accumulate the absolute errors of a batch."""
        sae, n = _mean_absolute_error_update(preds, target, self.num_outputs)
        self.sum_abs_error = self.sum_abs_error + sae
        self.total = self.total + n

    def compute(self):
        """The mean absolute error."""
        return _mean_absolute_error_compute(self.sum_abs_error, self.total)
