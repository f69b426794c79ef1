"""F-beta score ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)`` and its special case F1."""
from __future__ import annotations

from ....core.dtypes import get_default_dtype
from ...utilities.checks import check_task
from ...utilities.compute import safe_divide
from ...utilities.data import wrap
from .stat_scores import (_adjust_weights_safe_divide, _binary_stats, _multiclass_stats, _multilabel_stats,
                          _require_int, _sum_axis)

__all__ = ["fbeta_score", "f1_score", "binary_fbeta_score", "multiclass_fbeta_score", "multilabel_fbeta_score",
           "binary_f1_score", "multiclass_f1_score", "multilabel_f1_score"]


def _check_beta(beta) -> None:
    if not (isinstance(beta, float) and beta > 0):
        raise ValueError(f"Expected argument `beta` to be a float larger than 0, but got {beta!r}.")


def _fbeta_reduce(tp, fp, tn, fn, beta, average, multidim_average="global", multilabel=False, zero_division=0):
    # torchmetrics computes on the integer counts times Python floats, which PyTorch types as the default float
    # dtype (float32); NumPy would promote int64 * float to float64
    fdtype = get_default_dtype().np
    tp, fp, fn = (x.astype(fdtype) if x.dtype.kind in "iub" else x for x in (tp, fp, fn))
    beta2 = beta ** 2
    if average == "binary":
        return safe_divide((1 + beta2) * tp, (1 + beta2) * tp + beta2 * fn + fp, zero_division)
    if average == "micro":
        axis = 0 if multidim_average == "global" else 1
        tp, fn, fp = _sum_axis(tp, axis), _sum_axis(fn, axis), _sum_axis(fp, axis)
        return safe_divide((1 + beta2) * tp, (1 + beta2) * tp + beta2 * fn + fp, zero_division)
    score = safe_divide((1 + beta2) * tp, (1 + beta2) * tp + beta2 * fn + fp, zero_division)
    return _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn)


def binary_fbeta_score(preds, target, beta: float, threshold: float = 0.5, multidim_average: str = "global",
                       ignore_index=None, validate_args: bool = True, zero_division: float = 0):
    """F-beta score for binary tasks (``beta`` > 0 weighs recall ``beta`` times as much as precision)."""
    if validate_args:
        _check_beta(beta)
    tp, fp, tn, fn = _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args,
                                   zero_division)
    return wrap(_fbeta_reduce(tp, fp, tn, fn, beta, "binary", multidim_average, zero_division=zero_division))


def multiclass_fbeta_score(preds, target, beta: float, num_classes: int, average="macro", top_k: int = 1,
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                           zero_division: float = 0):
    """F-beta score for multiclass tasks, per class then averaged by ``average``."""
    if validate_args:
        _check_beta(beta)
    tp, fp, tn, fn = _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                       validate_args, zero_division)
    return wrap(_fbeta_reduce(tp, fp, tn, fn, beta, average, multidim_average, zero_division=zero_division))


def multilabel_fbeta_score(preds, target, beta: float, num_labels: int, threshold: float = 0.5, average="macro",
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                           zero_division: float = 0):
    """F-beta score for multilabel tasks, per label then averaged by ``average``."""
    if validate_args:
        _check_beta(beta)
    tp, fp, tn, fn = _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args, zero_division)
    return wrap(_fbeta_reduce(tp, fp, tn, fn, beta, average, multidim_average, multilabel=True,
                              zero_division=zero_division))


def binary_f1_score(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                    validate_args: bool = True, zero_division: float = 0):
    """F1 score (harmonic mean of precision and recall) for binary tasks."""
    return binary_fbeta_score(preds, target, 1.0, threshold, multidim_average, ignore_index, validate_args,
                              zero_division)


def multiclass_f1_score(preds, target, num_classes: int, average="macro", top_k: int = 1,
                        multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                        zero_division: float = 0):
    """F1 score for multiclass tasks."""
    return multiclass_fbeta_score(preds, target, 1.0, num_classes, average, top_k, multidim_average, ignore_index,
                                  validate_args, zero_division)


def multilabel_f1_score(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                        multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                        zero_division: float = 0):
    """F1 score for multilabel tasks."""
    return multilabel_fbeta_score(preds, target, 1.0, num_labels, threshold, average, multidim_average,
                                  ignore_index, validate_args, zero_division)


def fbeta_score(preds, target, task: str, beta: float = 1.0, threshold: float = 0.5, num_classes=None,
                num_labels=None, average="micro", multidim_average: str = "global", top_k: int = 1,
                ignore_index=None, validate_args: bool = True, zero_division: float = 0):
    """F-beta score for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_fbeta_score(preds, target, beta, threshold, multidim_average, ignore_index, validate_args,
                                  zero_division)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_fbeta_score(preds, target, beta, num_classes, average, top_k, multidim_average,
                                      ignore_index, validate_args, zero_division)
    _require_int(num_labels, "num_labels")
    return multilabel_fbeta_score(preds, target, beta, num_labels, threshold, average, multidim_average,
                                  ignore_index, validate_args, zero_division)


def f1_score(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
             multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
             zero_division: float = 0):
    """F1 score for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    return fbeta_score(preds, target, task, 1.0, threshold, num_classes, num_labels, average, multidim_average,
                       top_k, ignore_index, validate_args, zero_division)
