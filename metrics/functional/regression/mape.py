"""Mean absolute percentage error."""
from __future__ import annotations

from ._common import prepare

__all__ = ["mean_absolute_percentage_error"]

EPSILON = 1.17e-06  # guards the division where the target is 0


def _mean_absolute_percentage_error_update(preds, target, epsilon: float = EPSILON):
    preds, target = prepare(preds, target)
    abs_per_error = (preds - target).abs() / target.abs().clamp(min=epsilon)
    return abs_per_error.sum(), target.numel()


def _mean_absolute_percentage_error_compute(sum_abs_per_error, num_obs):
    return sum_abs_per_error / num_obs


def mean_absolute_percentage_error(preds, target):
    """Mean absolute percentage error ``mean(|preds - target| / max(|target|, eps))`` (a fraction, not a percent).

    A target of 0 makes the error huge rather than infinite (``eps = 1.17e-06``).
    """
    s, n = _mean_absolute_percentage_error_update(preds, target)
    return _mean_absolute_percentage_error_compute(s, n)
