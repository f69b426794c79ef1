"""Calibration error: how far predicted confidences are from observed accuracies, over confidence bins."""
from __future__ import annotations

import numpy as np

from ...utilities.checks import check_ignore_index, check_task
from ...utilities.compute import array_module, is_probability, softmax
from ...utilities.data import to_array, wrap
from .confusion_matrix import _binary_confusion_matrix_format, _binary_confusion_matrix_tensor_validation
from .precision_recall_curve import _check_score_preds, _multiclass_precision_recall_curve_tensor_validation
from .stat_scores import _require_int

__all__ = ["calibration_error", "binary_calibration_error", "multiclass_calibration_error"]

_NORMS = ("l1", "l2", "max")


def _ce_arg_validation(n_bins, norm, ignore_index) -> None:
    if not isinstance(n_bins, int) or isinstance(n_bins, bool) or n_bins < 1:
        raise ValueError(f"Expected argument `n_bins` to be an integer larger than 0, but got {n_bins!r}")
    if norm not in _NORMS:
        raise ValueError(f"Expected argument `norm` to be one of {_NORMS}, but got {norm!r}.")
    check_ignore_index(ignore_index)


def _binning(confidences, accuracies, n_bins):
    """Per-bin mean accuracy, mean confidence and share of samples (bins ``[b_i, b_{i+1})``, 1.0 in the last)."""
    xp = array_module(confidences, accuracies)
    dtype = np.float64 if confidences.dtype == np.float64 else np.float32
    bounds = xp.linspace(0, 1, n_bins + 1, dtype=dtype)
    idx = xp.clip(xp.searchsorted(bounds, confidences, side="right") - 1, 0, n_bins - 1)
    count = xp.bincount(idx, minlength=n_bins).astype(dtype)
    conf_sum = xp.bincount(idx, weights=confidences, minlength=n_bins)
    acc_sum = xp.bincount(idx, weights=accuracies.astype(dtype), minlength=n_bins)
    safe = xp.where(count == 0, 1, count)
    conf_bin = xp.where(count == 0, 0, conf_sum / safe)
    acc_bin = xp.where(count == 0, 0, acc_sum / safe)
    prop_bin = count / max(count.sum(), 1)
    return acc_bin, conf_bin, prop_bin


def _ce_compute(confidences, accuracies, n_bins, norm="l1"):
    """Expected (``"l1"``), root-mean-square (``"l2"``) or maximum (``"max"``) calibration error."""
    xp = array_module(confidences, accuracies)
    if confidences.size == 0:
        return xp.asarray(0.0, dtype=np.float32)
    acc_bin, conf_bin, prop_bin = _binning(confidences, accuracies, n_bins)
    gap = xp.abs(acc_bin - conf_bin)
    if norm == "l1":
        ce = (gap * prop_bin).sum()
    elif norm == "max":
        ce = gap[prop_bin > 0].max()
    else:
        ce = xp.sqrt((gap ** 2 * prop_bin).sum())
    return xp.asarray(ce, dtype=np.float32)


def _binary_calibration_error_tensor_validation(preds, target, ignore_index=None) -> None:
    _binary_confusion_matrix_tensor_validation(preds, target, ignore_index)
    _check_score_preds(preds)


def _binary_calibration_error_update(preds, target):
    return preds, target


def binary_calibration_error(preds, target, n_bins: int = 15, norm: str = "l1", ignore_index=None,
                             validate_args: bool = True):
    """Calibration error of a binary task: confidences are the positive-class probabilities (sigmoid applied to
    logits) and accuracies the targets.

    Args:
        preds (Tensor): ``(N, ...)`` probabilities or logits.
        target (Tensor): ``(N, ...)`` labels in {0, 1}.
        n_bins (int): the number of equal-width confidence bins in [0, 1].
        norm (str): ``"l1"`` (expected calibration error), ``"l2"`` (RMS) or ``"max"`` (maximum).
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _ce_arg_validation(n_bins, norm, ignore_index)
        _binary_calibration_error_tensor_validation(p, t, ignore_index)
    p, t = _binary_confusion_matrix_format(p, t, ignore_index=ignore_index, convert_to_labels=False)
    return wrap(_ce_compute(*_binary_calibration_error_update(p, t), n_bins, norm))


def _multiclass_calibration_error_update(preds, target):
    """Confidence = the top probability (softmax applied to logits); accuracy = whether its class is right."""
    if not is_probability(preds):
        preds = softmax(preds, axis=1)
    predictions = preds.argmax(axis=1)
    confidences = preds.max(axis=1)
    return confidences, (predictions == target).astype(confidences.dtype)


def multiclass_calibration_error(preds, target, num_classes: int, n_bins: int = 15, norm: str = "l1",
                                 ignore_index=None, validate_args: bool = True):
    """Calibration error of a multiclass task (top-label confidence). Arguments as in
    :func:`binary_calibration_error`, plus ``num_classes``; ``preds`` has shape ``(N, C, ...)``."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
            raise ValueError(f"Expected argument `num_classes` to be an integer larger than 1, but got "
                             f"{num_classes!r}")
        _ce_arg_validation(n_bins, norm, ignore_index)
        _multiclass_precision_recall_curve_tensor_validation(p, t, num_classes, ignore_index)
    p = array_module(p).moveaxis(p, 1, -1).reshape(-1, p.shape[1])
    t = t.reshape(-1)
    if ignore_index is not None:
        keep = t != ignore_index
        p, t = p[keep], t[keep]
    return wrap(_ce_compute(*_multiclass_calibration_error_update(p, t), n_bins, norm))


def calibration_error(preds, target, task: str, n_bins: int = 15, norm: str = "l1", num_classes=None,
                      ignore_index=None, validate_args: bool = True):
    """Calibration error for ``task`` ``"binary"`` or ``"multiclass"``."""
    task = check_task(task, ("binary", "multiclass"))
    if task == "binary":
        return binary_calibration_error(preds, target, n_bins, norm, ignore_index, validate_args)
    _require_int(num_classes, "num_classes")
    return multiclass_calibration_error(preds, target, num_classes, n_bins, norm, ignore_index, validate_args)
