"""Confusion matrices: ``confmat[i, j]`` counts the samples of true class ``i`` predicted as class ``j``.

Built with one ``bincount`` of ``target * C + pred``. Binary gives a 2x2 matrix, multiclass ``C x C`` and
multilabel one 2x2 matrix per label (``L x 2 x 2``).
"""
from __future__ import annotations

import warnings

import numpy as np

from ...utilities.checks import check_ignore_index, check_task, check_threshold
from ...utilities.compute import array_module, is_probability, sigmoid
from ...utilities.data import to_array, wrap
from .stat_scores import (_binary_stat_scores_tensor_validation, _multiclass_stat_scores_tensor_validation,
                          _multilabel_stat_scores_tensor_validation, _require_int)

__all__ = ["confusion_matrix", "binary_confusion_matrix", "multiclass_confusion_matrix",
           "multilabel_confusion_matrix"]

_NORMALIZE = ("true", "pred", "all", "none", None)


def _check_normalize(normalize) -> None:
    if normalize not in _NORMALIZE:
        raise ValueError(f"Expected argument `normalize` to be one of {_NORMALIZE}, but got {normalize!r}.")


def _confusion_matrix_reduce(confmat, normalize=None):
    """Normalise over the true labels (rows, ``"true"``), the predictions (columns, ``"pred"``) or everything."""
    if normalize is None or normalize == "none":
        return confmat
    confmat = confmat.astype(np.float32) if confmat.dtype.kind != "f" else confmat
    if normalize == "true":
        denom = confmat.sum(axis=-1, keepdims=True)
    elif normalize == "pred":
        denom = confmat.sum(axis=-2, keepdims=True)
    else:
        denom = confmat.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):  # silences NumPy only; CuPy never warns
        confmat = confmat / denom
    xp = array_module(confmat)
    nans = xp.isnan(confmat)
    if nans.any():
        confmat = xp.where(nans, 0, confmat).astype(confmat.dtype)
        warnings.warn(f"{int(nans.sum())} NaN values found in confusion matrix have been replaced with zeros.",
                      UserWarning, stacklevel=3)
    return confmat


# ------------------------------------------------------------------------------------------------------- binary
def _binary_confusion_matrix_arg_validation(threshold=0.5, ignore_index=None, normalize=None) -> None:
    check_threshold(threshold)
    check_ignore_index(ignore_index)
    _check_normalize(normalize)


def _binary_confusion_matrix_tensor_validation(preds, target, ignore_index=None) -> None:
    _binary_stat_scores_tensor_validation(preds, target, "global", ignore_index)


def _binary_confusion_matrix_format(preds, target, threshold=0.5, ignore_index=None, convert_to_labels=True):
    """Flatten, drop ignored entries, turn scores into 0/1 labels (or probabilities if not ``convert_to_labels``)."""
    preds = preds.reshape(-1)
    target = target.reshape(-1)
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    if preds.dtype.kind == "f":
        if not is_probability(preds):
            preds = sigmoid(preds)
        if convert_to_labels:
            preds = preds > threshold
    return preds, target


def _binary_confusion_matrix_update(preds, target):
    mapping = target.astype(np.int64, copy=False) * 2 + preds.astype(np.int64, copy=False)
    return array_module(mapping).bincount(mapping, minlength=4).reshape(2, 2)


def binary_confusion_matrix(preds, target, threshold: float = 0.5, normalize=None, ignore_index=None,
                            validate_args: bool = True):
    """The 2x2 confusion matrix ``[[tn, fp], [fn, tp]]`` of a binary task.

    Args:
        preds (Tensor): ``(N, ...)`` labels, probabilities or logits.
        target (Tensor): ``(N, ...)`` labels in {0, 1}.
        threshold (float): the probability above which a prediction is positive.
        normalize (str or None): ``"true"`` (rows sum to 1), ``"pred"`` (columns), ``"all"`` or ``None``/``"none"``.
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_confusion_matrix_arg_validation(threshold, ignore_index, normalize)
        _binary_confusion_matrix_tensor_validation(p, t, ignore_index)
    p, t = _binary_confusion_matrix_format(p, t, threshold, ignore_index)
    return wrap(_confusion_matrix_reduce(_binary_confusion_matrix_update(p, t), normalize))


# --------------------------------------------------------------------------------------------------- multiclass
def _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index=None, normalize=None) -> None:
    if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
        raise ValueError(f"Expected argument `num_classes` to be an integer larger than 1, but got {num_classes!r}")
    check_ignore_index(ignore_index)
    _check_normalize(normalize)


def _multiclass_confusion_matrix_tensor_validation(preds, target, num_classes, ignore_index=None) -> None:
    _multiclass_stat_scores_tensor_validation(preds, target, num_classes, "global", ignore_index)


def _multiclass_confusion_matrix_format(preds, target, ignore_index=None, convert_to_labels=True):
    """Labels flattened to (N*X,) (argmax over the class dimension), ignored entries dropped."""
    if preds.ndim == target.ndim + 1 and convert_to_labels:
        preds = preds.argmax(axis=1)
    if convert_to_labels:
        preds = preds.reshape(-1)
    else:
        preds = array_module(preds).moveaxis(preds, 1, -1).reshape(-1, preds.shape[1])
    target = target.reshape(-1)
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    return preds, target


def _multiclass_confusion_matrix_update(preds, target, num_classes):
    mapping = target.astype(np.int64, copy=False) * num_classes + preds.astype(np.int64, copy=False)
    xp = array_module(mapping)
    return xp.bincount(mapping, minlength=num_classes * num_classes).reshape(num_classes, num_classes)


def multiclass_confusion_matrix(preds, target, num_classes: int, normalize=None, ignore_index=None,
                                validate_args: bool = True):
    """The ``C x C`` confusion matrix of a multiclass task (rows: true class, columns: predicted class).

    Args:
        preds (Tensor): ``(N, ...)`` labels or ``(N, C, ...)`` scores (argmax over ``C``).
        target (Tensor): ``(N, ...)`` labels.
        num_classes (int): the number of classes.
        normalize, ignore_index, validate_args: see :func:`binary_confusion_matrix`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index, normalize)
        _multiclass_confusion_matrix_tensor_validation(p, t, num_classes, ignore_index)
    p, t = _multiclass_confusion_matrix_format(p, t, ignore_index)
    return wrap(_confusion_matrix_reduce(_multiclass_confusion_matrix_update(p, t, num_classes), normalize))


# --------------------------------------------------------------------------------------------------- multilabel
def _multilabel_confusion_matrix_arg_validation(num_labels, threshold=0.5, ignore_index=None, normalize=None):
    if not isinstance(num_labels, int) or isinstance(num_labels, bool) or num_labels < 2:
        raise ValueError(f"Expected argument `num_labels` to be an integer larger than 1, but got {num_labels!r}")
    check_threshold(threshold)
    check_ignore_index(ignore_index)
    _check_normalize(normalize)


def _multilabel_confusion_matrix_tensor_validation(preds, target, num_labels, ignore_index=None) -> None:
    _multilabel_stat_scores_tensor_validation(preds, target, num_labels, "global", ignore_index)


def _multilabel_confusion_matrix_format(preds, target, num_labels, threshold=0.5, ignore_index=None,
                                        should_threshold=True):
    """(M, L) predictions and targets (extra dimensions folded into M); ignored targets become -1."""
    xp = array_module(preds, target)
    if preds.dtype.kind == "f":
        if not is_probability(preds):
            preds = sigmoid(preds, xp)
        if should_threshold:
            preds = preds > threshold
    preds = xp.moveaxis(preds, 1, -1).reshape(-1, num_labels)
    target = xp.moveaxis(target, 1, -1).reshape(-1, num_labels)
    if ignore_index is not None:
        target = xp.where(target == ignore_index, -1, target)
    return preds, target


def _multilabel_confusion_matrix_update(preds, target, num_labels):
    xp = array_module(preds, target)
    valid = target >= 0
    mapping = 2 * target.astype(np.int64, copy=False) + preds.astype(np.int64, copy=False) + 4 * xp.arange(num_labels)
    return xp.bincount(mapping[valid], minlength=4 * num_labels).reshape(num_labels, 2, 2)


def multilabel_confusion_matrix(preds, target, num_labels: int, threshold: float = 0.5, normalize=None,
                                ignore_index=None, validate_args: bool = True):
    """One 2x2 confusion matrix per label, shape ``(L, 2, 2)``.

    Args:
        preds (Tensor): ``(N, L, ...)`` labels or scores.
        target (Tensor): ``(N, L, ...)`` labels in {0, 1}.
        num_labels (int): the number of labels.
        threshold, normalize, ignore_index, validate_args: see :func:`binary_confusion_matrix`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_confusion_matrix_arg_validation(num_labels, threshold, ignore_index, normalize)
        _multilabel_confusion_matrix_tensor_validation(p, t, num_labels, ignore_index)
    p, t = _multilabel_confusion_matrix_format(p, t, num_labels, threshold, ignore_index)
    return wrap(_confusion_matrix_reduce(_multilabel_confusion_matrix_update(p, t, num_labels), normalize))


def confusion_matrix(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                     normalize=None, ignore_index=None, validate_args: bool = True):
    """The confusion matrix for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_confusion_matrix(preds, target, threshold, normalize, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_confusion_matrix(preds, target, num_classes, normalize, ignore_index, validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_confusion_matrix(preds, target, num_labels, threshold, normalize, ignore_index,
                                       validate_args)
