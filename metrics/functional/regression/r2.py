"""Coefficient of determination R^2 (and the adjusted R^2)."""
from __future__ import annotations

import warnings

from ._common import prepare

__all__ = ["r2_score"]

_MULTIOUTPUT = ("raw_values", "uniform_average", "variance_weighted")


def _r2_score_update(preds, target):
    """Per output: sum of squared targets, sum of targets, residual sum of squares; and the number of samples."""
    preds, target = prepare(preds, target)
    if preds.ndim > 2:
        raise ValueError(f"Expected both prediction and target to be 1D or 2D tensors, but received tensors with "
                         f"dimension {tuple(preds.shape)}")
    sum_obs = target.sum(0)
    sum_squared_obs = (target * target).sum(0)
    residual = target - preds
    rss = (residual * residual).sum(0)
    return sum_squared_obs, sum_obs, rss, target.shape[0]


def _r2_score_compute(sum_squared_obs, sum_obs, rss, num_obs, adjusted: int = 0, multioutput="uniform_average"):
    """R^2 = 1 - RSS / TSS per output (1 for a perfect fit of a constant target, 0 for an imperfect one)."""
    from ....core import ones_like, where
    num_obs = int(num_obs.item()) if hasattr(num_obs, "item") else int(num_obs)
    if num_obs < 2:
        raise ValueError("Needs at least two samples to calculate r2 score.")
    if multioutput not in _MULTIOUTPUT:
        raise ValueError(f"Argument `multioutput` must be either `raw_values`, `uniform_average` or "
                         f"`variance_weighted`. Received {multioutput!r}.")
    if not isinstance(adjusted, int) or isinstance(adjusted, bool) or adjusted < 0:
        raise ValueError("`adjusted` parameter should be an integer larger or equal to 0.")
    mean_obs = sum_obs / num_obs
    tss = sum_squared_obs - sum_obs * mean_obs
    cond_rss = rss.abs() > 1e-4  # near-constant targets and near-perfect fits are treated as exact
    cond_tss = tss.abs() > 1e-4
    safe_tss = where(cond_tss, tss, ones_like(tss))
    raw = where(cond_rss & cond_tss, 1 - rss / safe_tss, ones_like(rss))
    raw = where(cond_rss & ~cond_tss, raw * 0, raw)
    if multioutput == "raw_values":
        r2 = raw
    elif multioutput == "uniform_average":
        r2 = raw.mean()
    else:
        r2 = (tss / tss.sum() * raw).sum()
    if adjusted != 0:
        if adjusted > num_obs - 1:
            warnings.warn("More independent regressions than data points in adjusted r2 score. Falls back to "
                          "standard r2 score.", UserWarning, stacklevel=3)
        elif adjusted == num_obs - 1:
            warnings.warn("Division by zero in adjusted r2 score. Falls back to standard r2 score.", UserWarning,
                          stacklevel=3)
        else:
            return 1 - (1 - r2) * (num_obs - 1) / (num_obs - adjusted - 1)
    return r2


def r2_score(preds, target, adjusted: int = 0, multioutput: str = "uniform_average"):
    """R^2 score: the share of the target's variance explained by the predictions.

    Args:
        preds (Tensor): ``(N,)`` or ``(N, M)`` predictions.
        target (Tensor): ground truth, same shape.
        adjusted (int): the number of independent regressors for the adjusted R^2 (0: plain R^2).
        multioutput (str): ``"raw_values"`` (one score per output), ``"uniform_average"`` or
            ``"variance_weighted"``.
    """
    sso, so, rss, n = _r2_score_update(preds, target)
    return _r2_score_compute(sso, so, rss, n, adjusted, multioutput)
