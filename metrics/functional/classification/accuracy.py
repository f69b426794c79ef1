"""Accuracy: the fraction of correct predictions."""
from __future__ import annotations

from ...utilities.checks import check_task
from ...utilities.compute import safe_divide
from ...utilities.data import wrap
from .stat_scores import (_adjust_weights_safe_divide, _binary_stats, _multiclass_stats, _multilabel_stats,
                          _require_int, _sum_axis)

__all__ = ["accuracy", "binary_accuracy", "multiclass_accuracy", "multilabel_accuracy"]


def _accuracy_reduce(tp, fp, tn, fn, average, multidim_average="global", multilabel=False, top_k=1):
    """Accuracy from stat scores: ``(tp + tn) / all`` for binary/multilabel labels, ``tp / (tp + fn)`` per class."""
    if average == "binary":
        return safe_divide(tp + tn, tp + tn + fp + fn)
    axis = 0 if multidim_average == "global" else 1
    if average == "micro":
        tp, fn = _sum_axis(tp, axis), _sum_axis(fn, axis)
        if multilabel:
            fp, tn = _sum_axis(fp, axis), _sum_axis(tn, axis)
            return safe_divide(tp + tn, tp + tn + fp + fn)
        return safe_divide(tp, tp + fn)
    score = safe_divide(tp + tn, tp + tn + fp + fn) if multilabel else safe_divide(tp, tp + fn)
    return _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn, top_k)


def binary_accuracy(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                    validate_args: bool = True):
    """Accuracy for binary tasks: ``(tp + tn) / (tp + tn + fp + fn)``.

    Args:
        preds (Tensor): ``(N, ...)`` labels, probabilities or logits (sigmoid applied if outside [0, 1]).
        target (Tensor): ``(N, ...)`` labels in {0, 1}.
        threshold (float): the probability above which a prediction is positive.
        multidim_average (str): ``"global"`` or ``"samplewise"`` (one value per sample).
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs.

    Example::

        >>> binary_accuracy(em.tensor([0.8, 0.2, 0.6, 0.1]), em.tensor([1, 0, 0, 0]))
        tensor(0.7500)
    """
    tp, fp, tn, fn = _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args)
    return wrap(_accuracy_reduce(tp, fp, tn, fn, "binary", multidim_average))


def multiclass_accuracy(preds, target, num_classes: int, average="macro", top_k: int = 1,
                        multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Accuracy for multiclass tasks.

    With ``average="micro"`` this is the fraction of correct predictions; ``"macro"`` averages the per-class
    recall over the classes that occur in ``preds`` or ``target``; ``"weighted"`` weighs them by support;
    ``"none"``/``None`` returns one value per class.

    Args:
        preds (Tensor): ``(N, ...)`` labels or ``(N, C, ...)`` scores.
        target (Tensor): ``(N, ...)`` labels.
        num_classes (int): the number of classes.
        average (str or None): see above. Default: ``"macro"``.
        top_k (int): count a prediction correct if the target is among the ``top_k`` highest scores.
        multidim_average, ignore_index, validate_args: see :func:`binary_accuracy`.
    """
    tp, fp, tn, fn = _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                       validate_args)
    return wrap(_accuracy_reduce(tp, fp, tn, fn, average, multidim_average, top_k=top_k))


def multilabel_accuracy(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                        multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Accuracy for multilabel tasks: per label ``(tp + tn) / all``, averaged by ``average``.

    Args:
        preds (Tensor): ``(N, L, ...)`` labels or scores.
        target (Tensor): ``(N, L, ...)`` labels in {0, 1}.
        num_labels (int): the number of labels.
        threshold, average, multidim_average, ignore_index, validate_args: see :func:`multiclass_accuracy`.
    """
    tp, fp, tn, fn = _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average,
                                       ignore_index, validate_args)
    return wrap(_accuracy_reduce(tp, fp, tn, fn, average, multidim_average, multilabel=True))


def accuracy(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
             multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True):
    """Accuracy for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"`` (see the task functions)."""
    task = check_task(task)
    if task == "binary":
        return binary_accuracy(preds, target, threshold, multidim_average, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_accuracy(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                   validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_accuracy(preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                               validate_args)
