"""Mean absolute error."""
from __future__ import annotations

from ._common import check_num_outputs, prepare

__all__ = ["mean_absolute_error"]


def _mean_absolute_error_update(preds, target, num_outputs: int = 1):
    """The sum of absolute errors (per output) and the number of observations."""
    preds, target = prepare(preds, target)
    if num_outputs == 1:
        preds, target = preds.reshape(-1), target.reshape(-1)
    return (preds - target).abs().sum(0), target.shape[0]


def _mean_absolute_error_compute(sum_abs_error, num_obs):
    return sum_abs_error / num_obs


def mean_absolute_error(preds, target, num_outputs: int = 1):
    """Mean absolute error ``mean(|preds - target|)`` (per output with ``num_outputs > 1``)."""
    check_num_outputs(num_outputs)
    sae, n = _mean_absolute_error_update(preds, target, num_outputs)
    return _mean_absolute_error_compute(sae, n)
