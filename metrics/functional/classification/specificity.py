"""Specificity (true negative rate): ``tn / (tn + fp)``."""
from __future__ import annotations

from ...utilities.checks import check_task
from ...utilities.compute import safe_divide
from ...utilities.data import wrap
from .stat_scores import (_adjust_weights_safe_divide, _binary_stats, _multiclass_stats, _multilabel_stats,
                          _require_int, _sum_axis)

__all__ = ["specificity", "binary_specificity", "multiclass_specificity", "multilabel_specificity"]


def _specificity_reduce(tp, fp, tn, fn, average, multidim_average="global", multilabel=False, top_k=1,
                        zero_division=0):
    if average == "binary":
        return safe_divide(tn, tn + fp, zero_division)
    if average == "micro":
        axis = 0 if multidim_average == "global" else 1
        tn, fp = _sum_axis(tn, axis), _sum_axis(fp, axis)
        return safe_divide(tn, tn + fp, zero_division)
    score = safe_divide(tn, tn + fp, zero_division)
    return _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn, top_k)


def binary_specificity(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                       validate_args: bool = True, zero_division: float = 0):
    """Specificity for binary tasks: ``tn / (tn + fp)``."""
    tp, fp, tn, fn = _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args,
                                   zero_division)
    return wrap(_specificity_reduce(tp, fp, tn, fn, "binary", multidim_average, zero_division=zero_division))


def multiclass_specificity(preds, target, num_classes: int, average="macro", top_k: int = 1,
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                           zero_division: float = 0):
    """Specificity for multiclass tasks (one-vs-rest per class), averaged by ``average``."""
    tp, fp, tn, fn = _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                       validate_args, zero_division)
    return wrap(_specificity_reduce(tp, fp, tn, fn, average, multidim_average, top_k=top_k,
                                    zero_division=zero_division))


def multilabel_specificity(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                           zero_division: float = 0):
    """Specificity for multilabel tasks, per label then averaged by ``average``."""
    tp, fp, tn, fn = _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args, zero_division)
    return wrap(_specificity_reduce(tp, fp, tn, fn, average, multidim_average, multilabel=True,
                                    zero_division=zero_division))


def specificity(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                average="micro", multidim_average: str = "global", top_k: int = 1, ignore_index=None,
                validate_args: bool = True, zero_division: float = 0):
    """Specificity for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_specificity(preds, target, threshold, multidim_average, ignore_index, validate_args,
                                  zero_division)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_specificity(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                      validate_args, zero_division)
    _require_int(num_labels, "num_labels")
    return multilabel_specificity(preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                                  validate_args, zero_division)
