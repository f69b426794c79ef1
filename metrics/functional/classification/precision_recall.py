"""Precision ``tp / (tp + fp)`` and recall ``tp / (tp + fn)``."""
from __future__ import annotations

from ...utilities.checks import check_task
from ...utilities.compute import safe_divide
from ...utilities.data import wrap
from .stat_scores import (_adjust_weights_safe_divide, _binary_stats, _multiclass_stats, _multilabel_stats,
                          _require_int, _sum_axis)

__all__ = ["precision", "recall", "binary_precision", "multiclass_precision", "multilabel_precision",
           "binary_recall", "multiclass_recall", "multilabel_recall"]


def _precision_recall_reduce(stat, tp, fp, tn, fn, average, multidim_average="global", multilabel=False, top_k=1,
                             zero_division=0):
    """Precision (``stat="precision"``) or recall from stat scores; ``zero_division`` where undefined."""
    other = fp if stat == "precision" else fn
    if average == "binary":
        return safe_divide(tp, tp + other, zero_division)
    if average == "micro":
        axis = 0 if multidim_average == "global" else 1
        tp, other = _sum_axis(tp, axis), _sum_axis(other, axis)
        return safe_divide(tp, tp + other, zero_division)
    score = safe_divide(tp, tp + other, zero_division)
    return _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn, top_k)


def _binary(stat, preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division):
    tp, fp, tn, fn = _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args,
                                   zero_division)
    return wrap(_precision_recall_reduce(stat, tp, fp, tn, fn, "binary", multidim_average,
                                         zero_division=zero_division))


def _multiclass(stat, preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args,
                zero_division):
    tp, fp, tn, fn = _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                       validate_args, zero_division)
    return wrap(_precision_recall_reduce(stat, tp, fp, tn, fn, average, multidim_average, top_k=top_k,
                                         zero_division=zero_division))


def _multilabel(stat, preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args,
                zero_division):
    tp, fp, tn, fn = _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args, zero_division)
    return wrap(_precision_recall_reduce(stat, tp, fp, tn, fn, average, multidim_average, multilabel=True,
                                         zero_division=zero_division))


def binary_precision(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                     validate_args: bool = True, zero_division: float = 0):
    """Precision for binary tasks: ``tp / (tp + fp)``; ``zero_division`` (0, 1 or nan) when nothing is predicted
    positive. Arguments as in :func:`~ember.metrics.functional.binary_accuracy`."""
    return _binary("precision", preds, target, threshold, multidim_average, ignore_index, validate_args,
                   zero_division)


def binary_recall(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                  validate_args: bool = True, zero_division: float = 0):
    """Recall for binary tasks: ``tp / (tp + fn)``; ``zero_division`` when the target has no positive."""
    return _binary("recall", preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)


def multiclass_precision(preds, target, num_classes: int, average="macro", top_k: int = 1,
                         multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                         zero_division: float = 0):
    """Precision for multiclass tasks, averaged by ``average``.

    A class that is never predicted has precision ``zero_division`` (default 0). ``"macro"`` leaves out the
    classes absent from both ``preds`` and ``target``. Arguments as in
    :func:`~ember.metrics.functional.multiclass_accuracy`.
    """
    return _multiclass("precision", preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                       validate_args, zero_division)


def multiclass_recall(preds, target, num_classes: int, average="macro", top_k: int = 1,
                      multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                      zero_division: float = 0):
    """Recall for multiclass tasks, averaged by ``average``; a class absent from ``target`` has recall
    ``zero_division``."""
    return _multiclass("recall", preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                       validate_args, zero_division)


def multilabel_precision(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                         multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                         zero_division: float = 0):
    """Precision for multilabel tasks, per label then averaged by ``average``."""
    return _multilabel("precision", preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                       validate_args, zero_division)


def multilabel_recall(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                      multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                      zero_division: float = 0):
    """Recall for multilabel tasks, per label then averaged by ``average``."""
    return _multilabel("recall", preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                       validate_args, zero_division)


def _task_dispatch(stat, preds, target, task, threshold, num_classes, num_labels, average, multidim_average,
                   top_k, ignore_index, validate_args, zero_division):
    task = check_task(task)
    if task == "binary":
        return _binary(stat, preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return _multiclass(stat, preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                           validate_args, zero_division)
    _require_int(num_labels, "num_labels")
    return _multilabel(stat, preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                       validate_args, zero_division)


def precision(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
              multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
              zero_division: float = 0):
    """Precision for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    return _task_dispatch("precision", preds, target, task, threshold, num_classes, num_labels, average,
                          multidim_average, top_k, ignore_index, validate_args, zero_division)


def recall(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
           multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
           zero_division: float = 0):
    """Recall for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    return _task_dispatch("recall", preds, target, task, threshold, num_classes, num_labels, average,
                          multidim_average, top_k, ignore_index, validate_args, zero_division)
