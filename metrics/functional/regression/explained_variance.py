"""Explained variance: ``1 - Var(target - preds) / Var(target)``."""
from __future__ import annotations

from ._common import prepare

__all__ = ["explained_variance"]

_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def _check_multioutput(multioutput) -> None:
    if multioutput not in _MULTIOUTPUT:
        raise ValueError(f"Invalid input to argument `multioutput`. Choose one of the following: {_MULTIOUTPUT}, "
                         f"got {multioutput!r}")


def _explained_variance_update(preds, target):
    preds, target = prepare(preds, target)
    diff = target - preds
    return (preds.shape[0], diff.sum(0), (diff * diff).sum(0), target.sum(0), (target * target).sum(0))


def _explained_variance_compute(num_obs, sum_error, sum_squared_error, sum_target, sum_squared_target,
                                multioutput="uniform_average"):
    from ....core import ones_like, where
    diff_avg = sum_error / num_obs
    numerator = sum_squared_error / num_obs - diff_avg * diff_avg
    target_avg = sum_target / num_obs
    denominator = sum_squared_target / num_obs - target_avg * target_avg
    nonzero_num = numerator != 0
    nonzero_den = denominator != 0
    safe_den = where(nonzero_den, denominator, ones_like(denominator))
    scores = where(nonzero_num & nonzero_den, 1.0 - numerator / safe_den, ones_like(numerator))
    scores = where(nonzero_num & ~nonzero_den, scores * 0, scores)
    if multioutput == "raw_values":
        return scores
    if multioutput == "uniform_average":
        return scores.mean()
    return (denominator / denominator.sum() * scores).sum()


def explained_variance(preds, target, multioutput: str = "uniform_average"):
    """Explained variance score (``multioutput`` as in :func:`r2_score`)."""
    _check_multioutput(multioutput)
    return _explained_variance_compute(*_explained_variance_update(preds, target), multioutput=multioutput)
