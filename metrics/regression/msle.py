"""Mean squared logarithmic error metric."""
from __future__ import annotations

from ..functional.regression.msle import _mean_squared_log_error_update
from ._sum_ratio import _SumOverCount

__all__ = ["MeanSquaredLogError"]


class MeanSquaredLogError(_SumOverCount):
    """Mean squared log error ``mean((log(1 + preds) - log(1 + target))^2)``."""

    _state_name = "sum_squared_log_error"
    _update_fn = staticmethod(_mean_squared_log_error_update)
