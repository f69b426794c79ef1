"""Hamming distance: the fraction of wrong labels, ``1 - accuracy``."""
from __future__ import annotations

from ...utilities.checks import check_task
from ...utilities.compute import safe_divide
from ...utilities.data import wrap
from .accuracy import _accuracy_reduce
from .stat_scores import (_adjust_weights_safe_divide, _binary_stats, _multiclass_stats, _multilabel_stats,
                          _require_int)

__all__ = ["hamming_distance", "binary_hamming_distance", "multiclass_hamming_distance",
           "multilabel_hamming_distance"]


def _hamming_distance_reduce(tp, fp, tn, fn, average, multidim_average="global", multilabel=False, top_k=1):
    """``1 - accuracy`` per class or label, averaged like accuracy."""
    if average in ("binary", "micro"):
        return 1 - _accuracy_reduce(tp, fp, tn, fn, average, multidim_average, multilabel, top_k)
    score = 1 - (safe_divide(tp + tn, tp + tn + fp + fn) if multilabel else safe_divide(tp, tp + fn))
    return _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn, top_k)


def binary_hamming_distance(preds, target, threshold: float = 0.5, multidim_average: str = "global",
                            ignore_index=None, validate_args: bool = True):
    """Hamming distance for binary tasks: the fraction of wrong predictions."""
    tp, fp, tn, fn = _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args)
    return wrap(_hamming_distance_reduce(tp, fp, tn, fn, "binary", multidim_average))


def multiclass_hamming_distance(preds, target, num_classes: int, average="macro", top_k: int = 1,
                                multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Hamming distance for multiclass tasks (``1 - accuracy`` with the same averaging)."""
    tp, fp, tn, fn = _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                       validate_args)
    return wrap(_hamming_distance_reduce(tp, fp, tn, fn, average, multidim_average, top_k=top_k))


def multilabel_hamming_distance(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                                multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Hamming distance for multilabel tasks: the fraction of wrong labels."""
    tp, fp, tn, fn = _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args)
    return wrap(_hamming_distance_reduce(tp, fp, tn, fn, average, multidim_average, multilabel=True))


def hamming_distance(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                     average="micro", multidim_average: str = "global", top_k: int = 1, ignore_index=None,
                     validate_args: bool = True):
    """Hamming distance for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_hamming_distance(preds, target, threshold, multidim_average, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_hamming_distance(preds, target, num_classes, average, top_k, multidim_average,
                                           ignore_index, validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_hamming_distance(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args)
