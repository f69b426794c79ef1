"""Spearman rank correlation: the Pearson correlation of the ranks (ties get their average rank)."""
from __future__ import annotations

from ...utilities.compute import array_module
from ...utilities.data import wrap
from ._common import check_data_shape_to_num_outputs, prepare

__all__ = ["spearman_corrcoef"]


def _rank_data(x):
    """1-based ranks of a 1-d array, tied values sharing their average rank."""
    xp = array_module(x)
    _, inverse, counts = xp.unique(x, return_inverse=True, return_counts=True)
    ends = xp.cumsum(counts)
    average = ends - (counts - 1) / 2.0
    return average[inverse.reshape(-1)]


def _spearman_corrcoef_update(preds, target, num_outputs):
    preds, target = prepare(preds, target)
    check_data_shape_to_num_outputs(preds, target, num_outputs)
    return preds, target


def _spearman_corrcoef_compute(preds, target, eps: float = 1e-6):
    p, t = preds._data, target._data
    xp = array_module(p, t)
    dtype = p.dtype
    if p.ndim == 1:
        p, t = _rank_data(p), _rank_data(t)
    else:
        p = xp.stack([_rank_data(c) for c in p.T], axis=1)
        t = xp.stack([_rank_data(c) for c in t.T], axis=1)
    pd, td = p - p.mean(0), t - t.mean(0)
    cov = (pd * td).mean(0)
    std_p = xp.sqrt((pd * pd).mean(0))
    std_t = xp.sqrt((td * td).mean(0))
    corr = cov / (std_p * std_t + eps)
    return wrap(xp.clip(corr, -1.0, 1.0).astype(dtype))


def spearman_corrcoef(preds, target):
    """Spearman's rank correlation between ``preds`` and ``target`` (``(N,)``, or ``(N, M)`` per column)."""
    preds, target = prepare(preds, target)
    num_outputs = preds.shape[1] if preds.ndim == 2 else 1
    preds, target = _spearman_corrcoef_update(preds, target, num_outputs)
    return _spearman_corrcoef_compute(preds, target)
