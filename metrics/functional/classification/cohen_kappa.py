"""Cohen's kappa: agreement between predictions and targets corrected for chance, ``1 - sum(w*O) / sum(w*E)``."""
from __future__ import annotations

import numpy as np

from ...utilities.checks import check_task
from ...utilities.compute import array_module
from ...utilities.data import to_array, wrap
from .confusion_matrix import (_binary_confusion_matrix_arg_validation, _binary_confusion_matrix_format,
                               _binary_confusion_matrix_tensor_validation, _binary_confusion_matrix_update,
                               _multiclass_confusion_matrix_arg_validation, _multiclass_confusion_matrix_format,
                               _multiclass_confusion_matrix_tensor_validation, _multiclass_confusion_matrix_update)
from .stat_scores import _require_int

__all__ = ["cohen_kappa", "binary_cohen_kappa", "multiclass_cohen_kappa"]

_WEIGHTS = ("linear", "quadratic", "none", None)


def _check_weights(weights) -> None:
    if weights not in _WEIGHTS:
        raise ValueError(f"Expected argument `weight` to be one of {_WEIGHTS}, but got {weights!r}.")


def _cohen_kappa_reduce(confmat, weights=None):
    """Kappa from a confusion matrix; ``weights`` ``"linear"``/``"quadratic"`` penalise by label distance."""
    xp = array_module(confmat)
    confmat = confmat.astype(np.float64)
    n = confmat.shape[0]
    sum0 = confmat.sum(axis=0, keepdims=True)
    sum1 = confmat.sum(axis=1, keepdims=True)
    expected = sum1 @ sum0 / sum0.sum()
    if weights is None or weights == "none":
        w = 1.0 - xp.eye(n)
    else:
        grid = xp.broadcast_to(xp.arange(n, dtype=np.float64), (n, n))
        w = xp.abs(grid - grid.T) if weights == "linear" else (grid - grid.T) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):  # silences NumPy only; CuPy never warns
        k = (w * confmat).sum() / (w * expected).sum()
    return xp.asarray(1 - k, dtype=np.float32)


def binary_cohen_kappa(preds, target, threshold: float = 0.5, ignore_index=None, weights=None,
                       validate_args: bool = True):
    """Cohen's kappa for binary tasks.

    Args:
        preds, target, threshold, ignore_index, validate_args: as in the binary confusion matrix.
        weights (str or None): ``None``/``"none"``, ``"linear"`` or ``"quadratic"``.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_confusion_matrix_arg_validation(threshold, ignore_index)
        _check_weights(weights)
        _binary_confusion_matrix_tensor_validation(p, t, ignore_index)
    p, t = _binary_confusion_matrix_format(p, t, threshold, ignore_index)
    return wrap(_cohen_kappa_reduce(_binary_confusion_matrix_update(p, t), weights))


def multiclass_cohen_kappa(preds, target, num_classes: int, ignore_index=None, weights=None,
                           validate_args: bool = True):
    """Cohen's kappa for multiclass tasks (``weights`` as in :func:`binary_cohen_kappa`)."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index)
        _check_weights(weights)
        _multiclass_confusion_matrix_tensor_validation(p, t, num_classes, ignore_index)
    p, t = _multiclass_confusion_matrix_format(p, t, ignore_index)
    return wrap(_cohen_kappa_reduce(_multiclass_confusion_matrix_update(p, t, num_classes), weights))


def cohen_kappa(preds, target, task: str, threshold: float = 0.5, num_classes=None, weights=None,
                ignore_index=None, validate_args: bool = True):
    """Cohen's kappa for ``task`` ``"binary"`` or ``"multiclass"``."""
    task = check_task(task, ("binary", "multiclass"))
    if task == "binary":
        return binary_cohen_kappa(preds, target, threshold, ignore_index, weights, validate_args)
    _require_int(num_classes, "num_classes")
    return multiclass_cohen_kappa(preds, target, num_classes, ignore_index, weights, validate_args)
