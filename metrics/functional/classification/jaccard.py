"""Jaccard index (intersection over union): ``tp / (tp + fp + fn)`` per class."""
from __future__ import annotations

import numpy as np

from ...utilities.checks import check_average, check_task
from ...utilities.compute import array_module, safe_divide
from ...utilities.data import to_array, wrap
from .confusion_matrix import (_binary_confusion_matrix_arg_validation, _binary_confusion_matrix_format,
                               _binary_confusion_matrix_tensor_validation, _binary_confusion_matrix_update,
                               _multiclass_confusion_matrix_arg_validation, _multiclass_confusion_matrix_format,
                               _multiclass_confusion_matrix_tensor_validation, _multiclass_confusion_matrix_update,
                               _multilabel_confusion_matrix_arg_validation, _multilabel_confusion_matrix_format,
                               _multilabel_confusion_matrix_tensor_validation, _multilabel_confusion_matrix_update)
from .stat_scores import _check_zero_division, _require_int

__all__ = ["jaccard_index", "binary_jaccard_index", "multiclass_jaccard_index", "multilabel_jaccard_index"]

_AVERAGES = ("micro", "macro", "weighted", "none", None)


def _jaccard_index_reduce(confmat, average, ignore_index=None, zero_division=0.0):
    """IoU from a confusion matrix; ``"macro"`` skips classes absent from both predictions and targets."""
    confmat = confmat.astype(np.float32)
    if average == "binary":
        return safe_divide(confmat[1, 1], confmat[0, 1] + confmat[1, 0] + confmat[1, 1], zero_division)
    ignore_in_range = ignore_index is not None and 0 <= ignore_index < confmat.shape[0]
    multilabel = confmat.ndim == 3
    if multilabel:
        num = confmat[:, 1, 1]
        denom = confmat[:, 1, 1] + confmat[:, 0, 1] + confmat[:, 1, 0]
    else:
        num = confmat.diagonal().copy()
        denom = confmat.sum(axis=0) + confmat.sum(axis=1) - num
    if average == "micro":
        num = num.sum()
        denom = denom.sum() - (denom[ignore_index] if ignore_in_range else 0.0)
    jaccard = safe_divide(num, denom, zero_division)
    if average is None or average in ("none", "micro"):
        return jaccard
    if average == "weighted":
        weights = confmat[:, 1, 1] + confmat[:, 1, 0] if multilabel else confmat.sum(axis=1)
    else:
        weights = array_module(jaccard).ones_like(jaccard)
        if ignore_in_range:
            weights[ignore_index] = 0.0
        if not multilabel:
            weights[confmat.sum(axis=1) + confmat.sum(axis=0) == 0] = 0.0
    return safe_divide((weights * jaccard).sum(), weights.sum())


def binary_jaccard_index(preds, target, threshold: float = 0.5, ignore_index=None, validate_args: bool = True,
                         zero_division: float = 0):
    """Jaccard index of the positive class for binary tasks; ``zero_division`` if there is no positive at all."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_confusion_matrix_arg_validation(threshold, ignore_index)
        _check_zero_division(zero_division)
        _binary_confusion_matrix_tensor_validation(p, t, ignore_index)
    p, t = _binary_confusion_matrix_format(p, t, threshold, ignore_index)
    return wrap(_jaccard_index_reduce(_binary_confusion_matrix_update(p, t), "binary", zero_division=zero_division))


def multiclass_jaccard_index(preds, target, num_classes: int, average="macro", ignore_index=None,
                             validate_args: bool = True, zero_division: float = 0):
    """Jaccard index for multiclass tasks, per class then averaged by ``average``."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index)
        check_average(average, _AVERAGES)
        _check_zero_division(zero_division)
        _multiclass_confusion_matrix_tensor_validation(p, t, num_classes, ignore_index)
    p, t = _multiclass_confusion_matrix_format(p, t, ignore_index)
    confmat = _multiclass_confusion_matrix_update(p, t, num_classes)
    return wrap(_jaccard_index_reduce(confmat, average, ignore_index, zero_division))


def multilabel_jaccard_index(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                             ignore_index=None, validate_args: bool = True, zero_division: float = 0):
    """Jaccard index for multilabel tasks, per label then averaged by ``average``."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_confusion_matrix_arg_validation(num_labels, threshold, ignore_index)
        check_average(average, _AVERAGES)
        _check_zero_division(zero_division)
        _multilabel_confusion_matrix_tensor_validation(p, t, num_labels, ignore_index)
    p, t = _multilabel_confusion_matrix_format(p, t, num_labels, threshold, ignore_index)
    confmat = _multilabel_confusion_matrix_update(p, t, num_labels)
    return wrap(_jaccard_index_reduce(confmat, average, ignore_index, zero_division))


def jaccard_index(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                  average="macro", ignore_index=None, validate_args: bool = True, zero_division: float = 0):
    """Jaccard index for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_jaccard_index(preds, target, threshold, ignore_index, validate_args, zero_division)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_jaccard_index(preds, target, num_classes, average, ignore_index, validate_args,
                                        zero_division)
    _require_int(num_labels, "num_labels")
    return multilabel_jaccard_index(preds, target, num_labels, threshold, average, ignore_index, validate_args,
                                    zero_division)
