"""Area under the ROC curve: the probability that a random positive scores above a random negative."""
from __future__ import annotations

import numpy as np

from ...utilities.checks import check_average, check_task
from ...utilities.compute import array_module, average_class_scores, trapezoid
from ...utilities.data import to_array, wrap
from .precision_recall_curve import (_binary_precision_recall_curve_arg_validation,
                                     _binary_precision_recall_curve_format,
                                     _binary_precision_recall_curve_tensor_validation,
                                     _binary_precision_recall_curve_update,
                                     _multiclass_precision_recall_curve_arg_validation,
                                     _multiclass_precision_recall_curve_format,
                                     _multiclass_precision_recall_curve_tensor_validation,
                                     _multiclass_precision_recall_curve_update,
                                     _multilabel_precision_recall_curve_arg_validation,
                                     _multilabel_precision_recall_curve_format,
                                     _multilabel_precision_recall_curve_tensor_validation,
                                     _multilabel_precision_recall_curve_update)
from .roc import _binary_roc_compute, _multiclass_roc_compute, _multilabel_roc_compute
from .stat_scores import _require_int

__all__ = ["auroc", "binary_auroc", "multiclass_auroc", "multilabel_auroc"]


def _check_max_fpr(max_fpr) -> None:
    if max_fpr is not None and not (isinstance(max_fpr, float) and 0 < max_fpr <= 1):
        raise ValueError(f"Arguments `max_fpr` should be a float in range (0, 1], but got: {max_fpr!r}")


def _reduce_auroc(fpr, tpr, average="macro", weights=None):
    """Per-class areas, then their mean (``"macro"``) or support-weighted mean; NaN classes are skipped.

    ``fpr``/``tpr`` are ``(C, T)`` arrays (binned) or lists of one curve per class (exact).
    """
    if not isinstance(fpr, list) and fpr.ndim == 2:
        res = trapezoid(tpr, fpr, axis=1)
    else:
        res = array_module(*fpr, *tpr).stack([trapezoid(y, x) for x, y in zip(fpr, tpr)])
    return average_class_scores(res, average, weights)


def _binary_auroc_compute(state, thresholds, max_fpr=None, pos_label=1):
    fpr, tpr, _ = _binary_roc_compute(state, thresholds, pos_label)
    xp = array_module(fpr, tpr)
    if max_fpr is None or max_fpr == 1 or fpr.sum() == 0 or tpr.sum() == 0:
        return xp.asarray(trapezoid(tpr, fpr, xp=xp), dtype=np.float32)
    # partial AUC up to max_fpr (interpolating the curve at max_fpr), McClish-standardised; max_fpr stays a float64
    # array, as NumPy compares (and appends) a Python float
    stop = int(xp.searchsorted(fpr, xp.asarray(max_fpr), side="right"))
    weight = (max_fpr - fpr[stop - 1]) / (fpr[stop] - fpr[stop - 1])
    interp_tpr = tpr[stop - 1] + weight * (tpr[stop] - tpr[stop - 1])
    tpr = xp.concatenate([tpr[:stop], xp.asarray(interp_tpr).reshape(1)])
    fpr = xp.concatenate([fpr[:stop], xp.asarray([max_fpr])])
    partial_auc = trapezoid(tpr, fpr, xp=xp)
    min_area = 0.5 * max_fpr ** 2
    return xp.asarray(0.5 * (1 + (partial_auc - min_area) / (max_fpr - min_area)), dtype=np.float32)


def binary_auroc(preds, target, max_fpr=None, thresholds=None, ignore_index=None, validate_args: bool = True):
    """Area under the ROC curve of a binary task.

    Tied scores count half (the curve joins tied points by a straight segment).

    Args:
        preds (Tensor): ``(N, ...)`` probabilities or logits.
        target (Tensor): ``(N, ...)`` labels in {0, 1}.
        max_fpr (float): compute the standardised partial AUC over ``fpr <= max_fpr`` instead.
        thresholds, ignore_index, validate_args: see :func:`binary_precision_recall_curve`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _check_max_fpr(max_fpr)
        _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)
        _binary_precision_recall_curve_tensor_validation(p, t, ignore_index)
    p, t, thr = _binary_precision_recall_curve_format(p, t, thresholds, ignore_index)
    state = _binary_precision_recall_curve_update(p, t, thr)
    return wrap(_binary_auroc_compute(state, thr, max_fpr))


def _multiclass_auroc_compute(state, num_classes, average="macro", thresholds=None):
    fpr, tpr, _ = _multiclass_roc_compute(state, num_classes, thresholds)
    if thresholds is None or isinstance(state, tuple):
        labels = state[1].astype(np.int64, copy=False)
        weights = array_module(labels).bincount(labels, minlength=num_classes).astype(np.float32)
    else:
        weights = state[0][:, 1, :].sum(-1).astype(np.float32)
    return _reduce_auroc(fpr, tpr, average, weights)


def multiclass_auroc(preds, target, num_classes: int, average="macro", thresholds=None, ignore_index=None,
                     validate_args: bool = True):
    """One-vs-rest AUROC of a multiclass task, averaged over classes (``"macro"``, ``"weighted"`` by support, or
    ``"none"``/``None`` per class)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds, ignore_index)
        check_average(average, ("macro", "weighted", "none", None))
        _multiclass_precision_recall_curve_tensor_validation(p, t, num_classes, ignore_index)
    p, t, thr = _multiclass_precision_recall_curve_format(p, t, num_classes, thresholds, ignore_index)
    state = _multiclass_precision_recall_curve_update(p, t, num_classes, thr)
    return wrap(_multiclass_auroc_compute(state, num_classes, average, thr))


def _multilabel_auroc_compute(state, num_labels, average="macro", thresholds=None, ignore_index=None):
    if average == "micro":
        if thresholds is not None and not isinstance(state, tuple):
            return _binary_auroc_compute(state.sum(1), thresholds, None)
        preds, target = state
        keep = target.reshape(-1) >= 0
        return _binary_auroc_compute((preds.reshape(-1)[keep], target.reshape(-1)[keep]), None, None)
    fpr, tpr, _ = _multilabel_roc_compute(state, num_labels, thresholds, ignore_index)
    if thresholds is None or isinstance(state, tuple):
        weights = (state[1] == 1).sum(axis=0).astype(np.float32)
    else:
        weights = state[0][:, 1, :].sum(-1).astype(np.float32)
    return _reduce_auroc(fpr, tpr, average, weights)


def multilabel_auroc(preds, target, num_labels: int, average="macro", thresholds=None, ignore_index=None,
                     validate_args: bool = True):
    """AUROC of a multilabel task: per label, then ``"micro"`` (all labels pooled), ``"macro"``, ``"weighted"``
    or ``"none"``/``None``."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds, ignore_index)
        check_average(average, ("micro", "macro", "weighted", "none", None))
        _multilabel_precision_recall_curve_tensor_validation(p, t, num_labels, ignore_index)
    p, t, thr = _multilabel_precision_recall_curve_format(p, t, num_labels, thresholds, ignore_index)
    state = _multilabel_precision_recall_curve_update(p, t, num_labels, thr)
    return wrap(_multilabel_auroc_compute(state, num_labels, average, thr, ignore_index))


def auroc(preds, target, task: str, thresholds=None, num_classes=None, num_labels=None, average="macro",
          max_fpr=None, ignore_index=None, validate_args: bool = True):
    """AUROC for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_auroc(preds, target, max_fpr, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_auroc(preds, target, num_classes, average, thresholds, ignore_index, validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_auroc(preds, target, num_labels, average, thresholds, ignore_index, validate_args)
