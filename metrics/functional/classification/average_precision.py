"""Average precision: the precision-recall curve summarised as ``sum_n (R_n - R_{n-1}) P_n``."""
from __future__ import annotations

import numpy as np

from ...utilities.checks import check_average, check_task
from ...utilities.compute import array_module, average_class_scores
from ...utilities.data import to_array, wrap
from .precision_recall_curve import (_binary_precision_recall_curve_arg_validation,
                                     _binary_precision_recall_curve_compute, _binary_precision_recall_curve_format,
                                     _binary_precision_recall_curve_tensor_validation,
                                     _binary_precision_recall_curve_update,
                                     _multiclass_precision_recall_curve_arg_validation,
                                     _multiclass_precision_recall_curve_compute,
                                     _multiclass_precision_recall_curve_format,
                                     _multiclass_precision_recall_curve_tensor_validation,
                                     _multiclass_precision_recall_curve_update,
                                     _multilabel_precision_recall_curve_arg_validation,
                                     _multilabel_precision_recall_curve_compute,
                                     _multilabel_precision_recall_curve_format,
                                     _multilabel_precision_recall_curve_tensor_validation,
                                     _multilabel_precision_recall_curve_update)
from .stat_scores import _require_int

__all__ = ["average_precision", "binary_average_precision", "multiclass_average_precision",
           "multilabel_average_precision"]


def _ap_from_curve(precision, recall):
    return -((recall[1:] - recall[:-1]) * precision[:-1]).sum()


def _reduce_average_precision(precision, recall, average="macro", weights=None):
    """Per-class AP from ``(C, T + 1)`` curves (binned) or lists of one curve per class (exact), then averaged."""
    if not isinstance(precision, list) and precision.ndim == 2:
        res = -((recall[:, 1:] - recall[:, :-1]) * precision[:, :-1]).sum(axis=1)
    else:
        res = array_module(*precision, *recall).stack([_ap_from_curve(p, r) for p, r in zip(precision, recall)])
    return average_class_scores(res, average, weights)


def _binary_average_precision_compute(state, thresholds):
    precision, recall, _ = _binary_precision_recall_curve_compute(state, thresholds)
    return array_module(precision, recall).asarray(_ap_from_curve(precision, recall), dtype=np.float32)


def binary_average_precision(preds, target, thresholds=None, ignore_index=None, validate_args: bool = True):
    """Average precision of a binary task (NaN when the target has no positive: recall is undefined).

    Arguments as in :func:`~ember.metrics.functional.binary_precision_recall_curve`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)
        _binary_precision_recall_curve_tensor_validation(p, t, ignore_index)
    p, t, thr = _binary_precision_recall_curve_format(p, t, thresholds, ignore_index)
    state = _binary_precision_recall_curve_update(p, t, thr)
    return wrap(_binary_average_precision_compute(state, thr))


def _multiclass_average_precision_compute(state, num_classes, average="macro", thresholds=None):
    precision, recall, _ = _multiclass_precision_recall_curve_compute(state, num_classes, thresholds)
    if thresholds is None or isinstance(state, tuple):
        labels = state[1].astype(np.int64, copy=False)
        weights = array_module(labels).bincount(labels, minlength=num_classes).astype(np.float32)
    else:
        weights = state[0][:, 1, :].sum(-1).astype(np.float32)
    return _reduce_average_precision(precision, recall, average, weights)


def multiclass_average_precision(preds, target, num_classes: int, average="macro", thresholds=None,
                                 ignore_index=None, validate_args: bool = True):
    """One-vs-rest average precision of a multiclass task, averaged by ``average`` (``"macro"``, ``"weighted"``,
    ``"none"``/``None``); classes without positives give NaN and are left out of the averages (with a warning)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds, ignore_index)
        check_average(average, ("macro", "weighted", "none", None))
        _multiclass_precision_recall_curve_tensor_validation(p, t, num_classes, ignore_index)
    p, t, thr = _multiclass_precision_recall_curve_format(p, t, num_classes, thresholds, ignore_index)
    state = _multiclass_precision_recall_curve_update(p, t, num_classes, thr)
    return wrap(_multiclass_average_precision_compute(state, num_classes, average, thr))


def _multilabel_average_precision_compute(state, num_labels, average="macro", thresholds=None, ignore_index=None):
    if average == "micro":
        if thresholds is not None and not isinstance(state, tuple):
            return _binary_average_precision_compute(state.sum(1), thresholds)
        preds, target = state
        keep = target.reshape(-1) >= 0
        return _binary_average_precision_compute((preds.reshape(-1)[keep], target.reshape(-1)[keep]), None)
    precision, recall, _ = _multilabel_precision_recall_curve_compute(state, num_labels, thresholds, ignore_index)
    if thresholds is None or isinstance(state, tuple):
        weights = (state[1] == 1).sum(axis=0).astype(np.float32)
    else:
        weights = state[0][:, 1, :].sum(-1).astype(np.float32)
    return _reduce_average_precision(precision, recall, average, weights)


def multilabel_average_precision(preds, target, num_labels: int, average="macro", thresholds=None,
                                 ignore_index=None, validate_args: bool = True):
    """Average precision of a multilabel task: per label, then ``"micro"``, ``"macro"``, ``"weighted"`` or
    ``"none"``/``None``."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds, ignore_index)
        check_average(average, ("micro", "macro", "weighted", "none", None))
        _multilabel_precision_recall_curve_tensor_validation(p, t, num_labels, ignore_index)
    p, t, thr = _multilabel_precision_recall_curve_format(p, t, num_labels, thresholds, ignore_index)
    state = _multilabel_precision_recall_curve_update(p, t, num_labels, thr)
    return wrap(_multilabel_average_precision_compute(state, num_labels, average, thr, ignore_index))


def average_precision(preds, target, task: str, thresholds=None, num_classes=None, num_labels=None,
                      average="macro", ignore_index=None, validate_args: bool = True):
    """Average precision for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_average_precision(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_average_precision(preds, target, num_classes, average, thresholds, ignore_index,
                                            validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_average_precision(preds, target, num_labels, average, thresholds, ignore_index,
                                        validate_args)
