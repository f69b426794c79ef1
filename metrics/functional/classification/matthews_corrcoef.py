"""Matthews correlation coefficient: the correlation between predicted and true labels, in [-1, 1]."""
from __future__ import annotations

import math

import numpy as np

from ...utilities.checks import check_task
from ...utilities.compute import array_module
from ...utilities.data import to_array, wrap
from .confusion_matrix import (_binary_confusion_matrix_arg_validation, _binary_confusion_matrix_format,
                               _binary_confusion_matrix_tensor_validation, _binary_confusion_matrix_update,
                               _multiclass_confusion_matrix_arg_validation, _multiclass_confusion_matrix_format,
                               _multiclass_confusion_matrix_tensor_validation, _multiclass_confusion_matrix_update,
                               _multilabel_confusion_matrix_arg_validation, _multilabel_confusion_matrix_format,
                               _multilabel_confusion_matrix_tensor_validation, _multilabel_confusion_matrix_update)
from .stat_scores import _require_int

__all__ = ["matthews_corrcoef", "binary_matthews_corrcoef", "multiclass_matthews_corrcoef",
           "multilabel_matthews_corrcoef"]


def _matthews_corrcoef_reduce(confmat):
    """MCC from a confusion matrix (multilabel matrices are summed into one binary matrix first).

    Degenerate binary cases follow torchmetrics: all predictions right gives 1, all wrong gives -1, and when a whole
    row or column is empty (e.g. every prediction is the same class) a small-epsilon limit of the formula is used
    instead of 0/0.
    """
    xp = array_module(confmat)
    confmat = confmat.sum(axis=0) if confmat.ndim == 3 else confmat
    confmat = confmat.astype(np.float64)
    if confmat.size == 4:
        tn, fp, fn, tp = confmat.reshape(-1)
        if tp + tn != 0 and fp + fn == 0:
            return xp.asarray(1.0, dtype=np.float32)
        if tp + tn == 0 and fp + fn != 0:
            return xp.asarray(-1.0, dtype=np.float32)
    tk = confmat.sum(axis=-1)
    pk = confmat.sum(axis=-2)
    c = xp.trace(confmat)
    s = confmat.sum()
    cov_ytyp = c * s - (tk * pk).sum()
    cov_ypyp = s ** 2 - (pk * pk).sum()
    cov_ytyt = s ** 2 - (tk * tk).sum()
    numerator = cov_ytyp
    denom = cov_ypyp * cov_ytyt
    if denom == 0 and confmat.size == 4:
        a = tp + tn if (tp == 0 or tn == 0) else 0.0
        b = fp + fn if (fp == 0 or fn == 0) else 0.0
        eps = float(np.finfo(np.float32).eps)
        numerator = math.sqrt(eps) * (a - b)
        denom = (tp + fp + eps) * (tp + fn + eps) * (tn + fp + eps) * (tn + fn + eps)
    elif denom == 0:
        return xp.asarray(0.0, dtype=np.float32)
    return xp.asarray(numerator / xp.sqrt(denom), dtype=np.float32)


def binary_matthews_corrcoef(preds, target, threshold: float = 0.5, ignore_index=None,
                             validate_args: bool = True):
    """Matthews correlation coefficient for binary tasks (arguments as in the binary confusion matrix)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_confusion_matrix_arg_validation(threshold, ignore_index)
        _binary_confusion_matrix_tensor_validation(p, t, ignore_index)
    p, t = _binary_confusion_matrix_format(p, t, threshold, ignore_index)
    return wrap(_matthews_corrcoef_reduce(_binary_confusion_matrix_update(p, t)))


def multiclass_matthews_corrcoef(preds, target, num_classes: int, ignore_index=None, validate_args: bool = True):
    """Matthews correlation coefficient for multiclass tasks (the multiclass generalisation, R_K)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index)
        _multiclass_confusion_matrix_tensor_validation(p, t, num_classes, ignore_index)
    p, t = _multiclass_confusion_matrix_format(p, t, ignore_index)
    return wrap(_matthews_corrcoef_reduce(_multiclass_confusion_matrix_update(p, t, num_classes)))


def multilabel_matthews_corrcoef(preds, target, num_labels: int, threshold: float = 0.5, ignore_index=None,
                                 validate_args: bool = True):
    """Matthews correlation coefficient for multilabel tasks (all labels pooled into one binary problem)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_confusion_matrix_arg_validation(num_labels, threshold, ignore_index)
        _multilabel_confusion_matrix_tensor_validation(p, t, num_labels, ignore_index)
    p, t = _multilabel_confusion_matrix_format(p, t, num_labels, threshold, ignore_index)
    return wrap(_matthews_corrcoef_reduce(_multilabel_confusion_matrix_update(p, t, num_labels)))


def matthews_corrcoef(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                      ignore_index=None, validate_args: bool = True):
    """Matthews correlation coefficient for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_matthews_corrcoef(preds, target, threshold, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_matthews_corrcoef(preds, target, num_classes, ignore_index, validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_matthews_corrcoef(preds, target, num_labels, threshold, ignore_index, validate_args)
