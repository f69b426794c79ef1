"""Mean squared logarithmic error."""
from __future__ import annotations

from ._common import prepare

__all__ = ["mean_squared_log_error"]


def _mean_squared_log_error_update(preds, target):
    preds, target = prepare(preds, target)
    diff = preds.log1p() - target.log1p()
    return (diff * diff).sum(), target.numel()


def _mean_squared_log_error_compute(sum_squared_log_error, num_obs):
    return sum_squared_log_error / num_obs


def mean_squared_log_error(preds, target):
    """Mean squared log error ``mean((log(1 + preds) - log(1 + target))^2)`` (for values > -1)."""
    s, n = _mean_squared_log_error_update(preds, target)
    return _mean_squared_log_error_compute(s, n)
