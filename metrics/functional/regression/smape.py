"""Symmetric mean absolute percentage error."""
from __future__ import annotations

from ._common import prepare
from .mape import EPSILON

__all__ = ["symmetric_mean_absolute_percentage_error"]


def _symmetric_mean_absolute_percentage_error_update(preds, target, epsilon: float = EPSILON):
    preds, target = prepare(preds, target)
    abs_per_error = (preds - target).abs() / (target.abs() + preds.abs()).clamp(min=epsilon)
    return 2 * abs_per_error.sum(), target.numel()


def _symmetric_mean_absolute_percentage_error_compute(sum_abs_per_error, num_obs):
    return sum_abs_per_error / num_obs


def symmetric_mean_absolute_percentage_error(preds, target):
    """Symmetric MAPE ``mean(2 |preds - target| / max(|target| + |preds|, eps))``, in [0, 2]."""
    s, n = _symmetric_mean_absolute_percentage_error_update(preds, target)
    return _symmetric_mean_absolute_percentage_error_compute(s, n)
