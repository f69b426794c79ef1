"""Symmetric mean absolute percentage error metric."""
from __future__ import annotations

from ..functional.regression.smape import _symmetric_mean_absolute_percentage_error_update
from ._sum_ratio import _SumOverCount

__all__ = ["SymmetricMeanAbsolutePercentageError"]


class SymmetricMeanAbsolutePercentageError(_SumOverCount):
    """Symmetric MAPE ``mean(2 |preds - target| / max(|target| + |preds|, eps))``, in [0, 2]."""

    _state_name = "sum_abs_per_error"
    _update_fn = staticmethod(_symmetric_mean_absolute_percentage_error_update)
    plot_upper_bound = 2.0
