"""Receiver operating characteristic: false positive rate against true positive rate over thresholds."""
from __future__ import annotations

import warnings

import numpy as np

from ...utilities.checks import check_task
from ...utilities.compute import array_module, safe_divide
from ...utilities.data import to_array, wrap
from .precision_recall_curve import (_binary_clf_curve, _binary_precision_recall_curve_arg_validation,
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
                                     _multilabel_precision_recall_curve_update, _wrap_curves)
from .stat_scores import _require_int

__all__ = ["roc", "binary_roc", "multiclass_roc", "multilabel_roc"]


def _binary_roc_compute(state, thresholds, pos_label=1):
    """``(fpr, tpr, thresholds)`` with thresholds decreasing; the exact curve starts at (0, 0) (threshold 1)."""
    if thresholds is not None and not isinstance(state, tuple):
        tps, fps, fns, tns = state[:, 1, 1], state[:, 0, 1], state[:, 1, 0], state[:, 0, 0]
        tpr = safe_divide(tps, tps + fns)[::-1].copy()
        fpr = safe_divide(fps, fps + tns)[::-1].copy()
        return fpr, tpr, thresholds[::-1].copy()
    preds, target = state
    xp = array_module(preds, target)
    dtype = np.float64 if preds.dtype == np.float64 else np.float32
    if preds.size == 0:
        fps = tps = xp.zeros(1, dtype=np.int64)
        thres = xp.ones(1, dtype=dtype)
    else:
        fps, tps, thres = _binary_clf_curve(preds, target, pos_label)
        tps = xp.concatenate([xp.zeros(1, dtype=tps.dtype), tps])
        fps = xp.concatenate([xp.zeros(1, dtype=fps.dtype), fps])
        thres = xp.concatenate([xp.ones(1, dtype=thres.dtype), thres])
    if fps[-1] <= 0:
        warnings.warn("No negative samples in targets, false positive value should be meaningless. Returning zero "
                      "tensor in false positive score", UserWarning, stacklevel=3)
        fpr = xp.zeros(thres.shape, dtype=dtype)
    else:
        fpr = (fps / fps[-1]).astype(dtype)
    if tps[-1] <= 0:
        warnings.warn("No positive samples in targets, true positive value should be meaningless. Returning zero "
                      "tensor in true positive score", UserWarning, stacklevel=3)
        tpr = xp.zeros(thres.shape, dtype=dtype)
    else:
        tpr = (tps / tps[-1]).astype(dtype)
    return fpr, tpr, thres


def binary_roc(preds, target, thresholds=None, ignore_index=None, validate_args: bool = True):
    """The ROC curve of a binary task: ``(fpr, tpr, thresholds)``, thresholds decreasing.

    Arguments as in :func:`~ember.metrics.functional.binary_precision_recall_curve`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)
        _binary_precision_recall_curve_tensor_validation(p, t, ignore_index)
    p, t, thr = _binary_precision_recall_curve_format(p, t, thresholds, ignore_index)
    state = _binary_precision_recall_curve_update(p, t, thr)
    return tuple(wrap(x) for x in _binary_roc_compute(state, thr))


def _multiclass_roc_compute(state, num_classes, thresholds):
    if thresholds is not None and not isinstance(state, tuple):
        tps, fps, fns, tns = state[:, :, 1, 1], state[:, :, 0, 1], state[:, :, 1, 0], state[:, :, 0, 0]
        tpr = safe_divide(tps, tps + fns)[::-1].T.copy()
        fpr = safe_divide(fps, fps + tns)[::-1].T.copy()
        return fpr, tpr, thresholds[::-1].copy()
    preds, target = state
    results = [_binary_roc_compute((preds[:, i], target), None, pos_label=i) for i in range(num_classes)]
    return [r[0] for r in results], [r[1] for r in results], [r[2] for r in results]


def multiclass_roc(preds, target, num_classes: int, thresholds=None, ignore_index=None, validate_args: bool = True):
    """One-vs-rest ROC curves of a multiclass task (lists per class when exact, ``(C, T)`` arrays when binned)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds, ignore_index)
        _multiclass_precision_recall_curve_tensor_validation(p, t, num_classes, ignore_index)
    p, t, thr = _multiclass_precision_recall_curve_format(p, t, num_classes, thresholds, ignore_index)
    state = _multiclass_precision_recall_curve_update(p, t, num_classes, thr)
    return _wrap_curves(_multiclass_roc_compute(state, num_classes, thr))


def _multilabel_roc_compute(state, num_labels, thresholds, ignore_index=None):
    if thresholds is not None and not isinstance(state, tuple):
        return _multiclass_roc_compute(state, num_labels, thresholds)
    preds, target = state
    fpr, tpr, thres = [], [], []
    for i in range(num_labels):
        keep = target[:, i] >= 0
        res = _binary_roc_compute((preds[keep, i], target[keep, i]), None)
        fpr.append(res[0])
        tpr.append(res[1])
        thres.append(res[2])
    return fpr, tpr, thres


def multilabel_roc(preds, target, num_labels: int, thresholds=None, ignore_index=None, validate_args: bool = True):
    """ROC curves for each label of a multilabel task."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds, ignore_index)
        _multilabel_precision_recall_curve_tensor_validation(p, t, num_labels, ignore_index)
    p, t, thr = _multilabel_precision_recall_curve_format(p, t, num_labels, thresholds, ignore_index)
    state = _multilabel_precision_recall_curve_update(p, t, num_labels, thr)
    return _wrap_curves(_multilabel_roc_compute(state, num_labels, thr, ignore_index))


def roc(preds, target, task: str, thresholds=None, num_classes=None, num_labels=None, ignore_index=None,
        validate_args: bool = True):
    """ROC curve(s) for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_roc(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_roc(preds, target, num_classes, thresholds, ignore_index, validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_roc(preds, target, num_labels, thresholds, ignore_index, validate_args)
