"""Pearson correlation coefficient, accumulated with numerically stable running moments."""
from __future__ import annotations

import warnings

from ._common import check_data_shape_to_num_outputs, prepare

__all__ = ["pearson_corrcoef"]


def _batch_moments(preds, target):
    n = preds.shape[0]
    mx, my = preds.mean(0), target.mean(0)
    dx, dy = preds - mx, target - my
    return n, mx, my, (dx * dx).sum(0), (dy * dy).sum(0), (dx * dy).sum(0)


def _merge_moments(a, b):
    """Combine two sets of (n, mean_x, mean_y, M2_x, M2_y, C_xy) (Chan et al.'s parallel update)."""
    na, mxa, mya, vxa, vya, ca = a
    nb, mxb, myb, vxb, vyb, cb = b
    n = na + nb
    dx, dy = mxb - mxa, myb - mya
    f = na * nb / n
    return (n, mxa + dx * (nb / n), mya + dy * (nb / n), vxa + vxb + dx * dx * f, vya + vyb + dy * dy * f,
            ca + cb + dx * dy * f)


def _pearson_corrcoef_update(preds, target, mean_x, mean_y, var_x, var_y, corr_xy, n_prior, num_outputs):
    """Fold a batch into the running moments (``var_*`` and ``corr_xy`` are sums of squares / co-deviations)."""
    preds, target = prepare(preds, target)
    check_data_shape_to_num_outputs(preds, target, num_outputs)
    if num_outputs == 1:
        preds, target = preds.reshape(-1), target.reshape(-1)
    batch = _batch_moments(preds, target)
    merged = _merge_moments((n_prior, mean_x, mean_y, var_x, var_y, corr_xy), batch)
    return merged[1], merged[2], merged[3], merged[4], merged[5], merged[0]


def _pearson_corrcoef_compute(var_x, var_y, corr_xy, nb):
    """``C_xy / sqrt(M2_x M2_y)``, clamped to [-1, 1] (NaN, with a warning, when a variance is zero)."""
    if bool(((var_x / (nb - 1)) < 1e-8).any()) or bool(((var_y / (nb - 1)) < 1e-8).any()):
        warnings.warn("The variance of predictions or target is close to zero. This can cause instability in "
                      "Pearson correlation coefficient, leading to wrong results. Consider re-scaling the input if "
                      "possible or computing using a larger dtype (currently using "
                      f"{var_x.dtype}).", UserWarning, stacklevel=3)
    corr = corr_xy / (var_x * var_y).sqrt()
    return corr.clamp(-1.0, 1.0).squeeze()


def _final_aggregation(means_x, means_y, vars_x, vars_y, corrs_xy, nbs):
    """Merge per-process moments stacked along dim 0 (after a ``dist_reduce_fx=None`` sync)."""
    acc = (nbs[0], means_x[0], means_y[0], vars_x[0], vars_y[0], corrs_xy[0])
    for i in range(1, means_x.shape[0]):
        acc = _merge_moments(acc, (nbs[i], means_x[i], means_y[i], vars_x[i], vars_y[i], corrs_xy[i]))
    return acc[1], acc[2], acc[3], acc[4], acc[5], acc[0]


def pearson_corrcoef(preds, target):
    """Pearson correlation coefficient between ``preds`` and ``target`` (``(N,)``, or ``(N, M)`` per column)."""
    from ....core import zeros
    preds, target = prepare(preds, target)
    d = preds.shape[1] if preds.ndim == 2 else 1
    shape = (d,) if preds.ndim == 2 else ()
    z = zeros(shape, dtype=preds.dtype, device=preds.device)
    num_outputs = d if preds.ndim == 2 else 1
    _, _, var_x, var_y, corr_xy, nb = _pearson_corrcoef_update(preds, target, z, z, z, z, z, 0, num_outputs)
    return _pearson_corrcoef_compute(var_x, var_y, corr_xy, nb)
