"""Mean absolute percentage error metric."""
from __future__ import annotations

from ..functional.regression.mape import _mean_absolute_percentage_error_update
from ._sum_ratio import _SumOverCount

__all__ = ["MeanAbsolutePercentageError"]


class MeanAbsolutePercentageError(_SumOverCount):
    """Mean absolute percentage error ``mean(|preds - target| / max(|target|, 1.17e-06))`` (a fraction).

    A zero target gives a very large error rather than infinity.
    """

    _state_name = "sum_abs_per_error"
    _update_fn = staticmethod(_mean_absolute_percentage_error_update)
