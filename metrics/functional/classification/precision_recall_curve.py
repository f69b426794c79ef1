"""Precision-recall curves, and the shared machinery of the threshold-based metrics (ROC, AUROC, AP).

Two modes, chosen by ``thresholds``:

- ``None`` (exact): the state is every prediction and target; the curve has one point per distinct score, found
  by sorting (the scikit-learn algorithm). Memory grows with the data.
- an int, a list of floats or a 1-d tensor (binned): the state is one 2x2 confusion matrix per threshold
  (a prediction is positive when ``score >= threshold``), filled by a single ``bincount``. Memory is constant.
"""
from __future__ import annotations

import numpy as np

from ....core.tensor import Tensor

from ...utilities.checks import check_ignore_index, check_same_shape, check_task
from ...utilities.compute import array_module, is_probability, safe_divide, sigmoid, softmax
from ...utilities.data import to_array, wrap
from .stat_scores import _check_binary_values, _check_class_range, _dtype_name, _require_int

__all__ = ["precision_recall_curve", "binary_precision_recall_curve", "multiclass_precision_recall_curve",
           "multilabel_precision_recall_curve"]


def _binary_clf_curve(preds, target, pos_label=1):
    """False and true positive counts at each distinct score, scores in decreasing order (sklearn's algorithm)."""
    xp = array_module(preds, target)
    order = xp.argsort(-preds, kind="stable")  # CuPy's sorts are always stable and accept kind="stable"
    preds = preds[order]
    target = target[order]
    distinct = xp.nonzero(xp.diff(preds))[0]
    last = xp.asarray([target.size - 1], dtype=distinct.dtype)
    threshold_idxs = xp.concatenate([distinct, last]).astype(np.int64, copy=False)
    positives = (target == pos_label).astype(np.int64)
    tps = xp.cumsum(positives)[threshold_idxs]
    fps = 1 + threshold_idxs - tps
    return fps, tps, preds[threshold_idxs]


def _adjust_threshold_arg(thresholds, xp):
    """An int becomes ``linspace(0, 1, thresholds)``; a list or tensor becomes an array; ``None`` stays.

    ``xp`` is the array module the thresholds will be compared in: the predictions' (or the metric's device's).
    """
    if thresholds is None:
        return None
    if isinstance(thresholds, int):
        return xp.linspace(0, 1, thresholds, dtype=np.float32)
    if isinstance(thresholds, Tensor):
        return thresholds._data
    return xp.asarray(thresholds, dtype=np.float32)


def _binary_precision_recall_curve_arg_validation(thresholds=None, ignore_index=None) -> None:
    if thresholds is not None and (isinstance(thresholds, bool) or
                                   not isinstance(thresholds, (list, int, Tensor, np.ndarray))):
        raise ValueError("Expected argument `thresholds` to either be an integer, list of floats or tensor of floats, "
                         f"but got {thresholds!r}")
    if isinstance(thresholds, int) and thresholds < 2:
        raise ValueError(f"If argument `thresholds` is an integer, expected it to be larger than 1, but got "
                         f"{thresholds}")
    if isinstance(thresholds, list) and not all(isinstance(t, float) and 0 <= t <= 1 for t in thresholds):
        raise ValueError("If argument `thresholds` is a list, expected all elements to be floats in the [0,1] range, "
                         f"but got {thresholds}")
    if isinstance(thresholds, (Tensor, np.ndarray)) and thresholds.ndim != 1:
        raise ValueError(f"If argument `thresholds` is a tensor, expected the tensor to be 1d, but got shape "
                         f"{tuple(thresholds.shape)}")
    check_ignore_index(ignore_index)


def _check_score_preds(preds) -> None:
    if preds.dtype.kind != "f":
        raise ValueError("Expected argument `preds` to be a floating tensor with probability/logit scores, but got "
                         f"tensor with dtype {_dtype_name(preds)}")


def _binary_precision_recall_curve_tensor_validation(preds, target, ignore_index=None) -> None:
    check_same_shape(preds, target)
    if target.dtype.kind in "fc":
        raise ValueError("Expected argument `target` to be an int or long tensor with ground truth labels but got "
                         f"tensor with dtype {_dtype_name(target)}")
    _check_score_preds(preds)
    _check_binary_values(target, "target", ignore_index)


def _binary_precision_recall_curve_format(preds, target, thresholds=None, ignore_index=None):
    """Flatten, drop ignored entries, sigmoid if the scores are not probabilities."""
    preds = preds.reshape(-1)
    target = target.reshape(-1)
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    if not is_probability(preds):
        preds = sigmoid(preds)
    return preds, target, None if thresholds is None else _adjust_threshold_arg(thresholds, array_module(preds))


def _binary_precision_recall_curve_update(preds, target, thresholds):
    """The state: ``(preds, target)`` in exact mode, else a ``(T, 2, 2)`` confusion matrix per threshold."""
    if thresholds is None:
        return preds, target
    xp = array_module(preds, target, thresholds)
    n_t = thresholds.shape[0]
    preds_t = (preds[:, None] >= thresholds[None, :]).astype(np.int64)
    mapping = preds_t + 2 * target.astype(np.int64, copy=False)[:, None] + 4 * xp.arange(n_t)
    return xp.bincount(mapping.reshape(-1), minlength=4 * n_t).reshape(n_t, 2, 2)


# the binned curves' value for a 0/0 precision or recall at a threshold, as torchmetrics returns it
UNDEFINED = float("nan")


def _binary_precision_recall_curve_compute(state, thresholds, pos_label=1, undefined=0.0):
    """``(precision, recall, thresholds)``: thresholds increasing, precision ending in 1 and recall in 0.

    Binned, a 0/0 precision or recall is ``undefined``: NaN for the public curves (torchmetrics' curves), 0 for the
    areas computed from them.
    """
    if thresholds is not None and not isinstance(state, tuple):
        xp = array_module(state)
        tps, fps, fns = state[:, 1, 1], state[:, 0, 1], state[:, 1, 0]
        precision = safe_divide(tps, tps + fps, undefined, xp=xp)
        recall = safe_divide(tps, tps + fns, undefined, xp=xp)
        precision = xp.concatenate([precision, xp.ones(1, dtype=precision.dtype)])
        recall = xp.concatenate([recall, xp.zeros(1, dtype=recall.dtype)])
        return precision, recall, thresholds
    preds, target = state
    xp = array_module(preds, target)
    if preds.size == 0:
        empty = xp.zeros(0, dtype=np.float32)
        return xp.ones(1, dtype=np.float32), xp.zeros(1, dtype=np.float32), empty
    fps, tps, thres = _binary_clf_curve(preds, target, pos_label)
    dtype = np.float64 if preds.dtype == np.float64 else np.float32
    precision = (tps / (tps + fps)).astype(dtype)
    with np.errstate(invalid="ignore", divide="ignore"):  # silences NumPy only; CuPy never warns
        recall = (tps / tps[-1]).astype(dtype)  # NaN when the target has no positive (undefined recall)
    precision = xp.concatenate([precision[::-1], xp.ones(1, dtype=dtype)])
    recall = xp.concatenate([recall[::-1], xp.zeros(1, dtype=dtype)])
    return precision, recall, thres[::-1].copy()


def binary_precision_recall_curve(preds, target, thresholds=None, ignore_index=None, validate_args: bool = True):
    """Precision and recall at every threshold of a binary task.

    Args:
        preds (Tensor): ``(N, ...)`` probabilities or logits (sigmoid applied if outside [0, 1]).
        target (Tensor): ``(N, ...)`` labels in {0, 1}.
        thresholds (None, int, list or Tensor): ``None`` for the exact curve (one point per distinct score); an int
            for that many thresholds evenly spaced in [0, 1]; a list or 1-d tensor of thresholds.
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs.

    Returns:
        tuple: ``precision`` and ``recall`` (``T + 1`` values, ending at precision 1 and recall 0) and the ``T``
        increasing ``thresholds``.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)
        _binary_precision_recall_curve_tensor_validation(p, t, ignore_index)
    p, t, thr = _binary_precision_recall_curve_format(p, t, thresholds, ignore_index)
    state = _binary_precision_recall_curve_update(p, t, thr)
    return tuple(wrap(x) for x in _binary_precision_recall_curve_compute(state, thr, undefined=UNDEFINED))


# --------------------------------------------------------------------------------------------------- multiclass
def _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds=None, ignore_index=None) -> None:
    if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
        raise ValueError(f"Expected argument `num_classes` to be an integer larger than 1, but got {num_classes!r}")
    _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)


def _multiclass_precision_recall_curve_tensor_validation(preds, target, num_classes, ignore_index=None) -> None:
    if preds.ndim != target.ndim + 1:
        raise ValueError(f"Expected `preds` to have one more dimension than `target` but got {preds.ndim} and "
                         f"{target.ndim}")
    if target.dtype.kind in "fc":
        raise ValueError("Expected argument `target` to be an int or long tensor, but got tensor with dtype "
                         f"{_dtype_name(target)}")
    _check_score_preds(preds)
    if preds.shape[1] != num_classes:
        raise ValueError(f"Expected `preds.shape[1]` to be equal to the number of classes but got {preds.shape[1]} "
                         f"and {num_classes}.")
    if preds.shape[0] != target.shape[0] or preds.shape[2:] != target.shape[1:]:
        raise ValueError("Expected the shape of `preds` should be (N, C, ...) and the shape of `target` should be "
                         f"(N, ...) but got {tuple(preds.shape)} and {tuple(target.shape)}")
    _check_class_range(target, num_classes, "target", ignore_index)


def _multiclass_precision_recall_curve_format(preds, target, num_classes, thresholds=None, ignore_index=None):
    """(M, C) scores and (M,) labels; softmax if the scores are not probabilities."""
    xp = array_module(preds, target)
    preds = xp.moveaxis(preds, 1, -1).reshape(-1, num_classes)
    target = target.reshape(-1)
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    if not is_probability(preds):
        preds = softmax(preds, axis=1)
    return preds, target, _adjust_threshold_arg(thresholds, xp)


def _multiclass_precision_recall_curve_update(preds, target, num_classes, thresholds):
    if thresholds is None:
        return preds, target
    xp = array_module(preds, target, thresholds)
    n_t = thresholds.shape[0]
    preds_t = (preds[:, :, None] >= thresholds[None, None, :]).astype(np.int64)  # (M, C, T)
    target_oh = (target[:, None] == xp.arange(num_classes)).astype(np.int64)
    mapping = preds_t + 2 * target_oh[:, :, None] + 4 * xp.arange(num_classes)[None, :, None] \
        + 4 * num_classes * xp.arange(n_t)
    return xp.bincount(mapping.reshape(-1), minlength=4 * num_classes * n_t).reshape(n_t, num_classes, 2, 2)


def _multiclass_precision_recall_curve_compute(state, num_classes, thresholds, undefined=0.0):
    """Binned: ``(C, T + 1)`` precision/recall arrays (0/0 gives ``undefined``); exact: lists with one curve per class
    (one-vs-rest)."""
    if thresholds is not None and not isinstance(state, tuple):
        xp = array_module(state)
        tps, fps, fns = state[:, :, 1, 1], state[:, :, 0, 1], state[:, :, 1, 0]
        precision = safe_divide(tps, tps + fps, undefined, xp=xp)
        recall = safe_divide(tps, tps + fns, undefined, xp=xp)
        precision = xp.concatenate([precision, xp.ones((1, num_classes), dtype=precision.dtype)])
        recall = xp.concatenate([recall, xp.zeros((1, num_classes), dtype=recall.dtype)])
        return precision.T, recall.T, thresholds
    preds, target = state
    results = [_binary_precision_recall_curve_compute((preds[:, i], target), None, pos_label=i)
               for i in range(num_classes)]
    return [r[0] for r in results], [r[1] for r in results], [r[2] for r in results]


def _wrap_curves(result):
    return tuple([wrap(x) for x in r] if isinstance(r, list) else wrap(r) for r in result)


def multiclass_precision_recall_curve(preds, target, num_classes: int, thresholds=None, ignore_index=None,
                                      validate_args: bool = True):
    """One-vs-rest precision-recall curves for a multiclass task.

    Args:
        preds (Tensor): ``(N, C, ...)`` probabilities or logits (softmax applied if outside [0, 1]).
        target (Tensor): ``(N, ...)`` labels.
        num_classes (int): the number of classes.
        thresholds, ignore_index, validate_args: see :func:`binary_precision_recall_curve`.

    Returns:
        tuple: with ``thresholds=None``, lists of one precision, recall and thresholds tensor per class; binned, a
        ``(C, T + 1)`` precision, a ``(C, T + 1)`` recall and the ``(T,)`` thresholds.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds, ignore_index)
        _multiclass_precision_recall_curve_tensor_validation(p, t, num_classes, ignore_index)
    p, t, thr = _multiclass_precision_recall_curve_format(p, t, num_classes, thresholds, ignore_index)
    state = _multiclass_precision_recall_curve_update(p, t, num_classes, thr)
    return _wrap_curves(_multiclass_precision_recall_curve_compute(state, num_classes, thr, UNDEFINED))


# --------------------------------------------------------------------------------------------------- multilabel
def _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds=None, ignore_index=None) -> None:
    if not isinstance(num_labels, int) or isinstance(num_labels, bool) or num_labels < 2:
        raise ValueError(f"Expected argument `num_labels` to be an integer larger than 1, but got {num_labels!r}")
    _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)


def _multilabel_precision_recall_curve_tensor_validation(preds, target, num_labels, ignore_index=None) -> None:
    _binary_precision_recall_curve_tensor_validation(preds, target, ignore_index)
    if preds.ndim < 2 or preds.shape[1] != num_labels:
        raise ValueError("Expected both `target.shape[1]` and `preds.shape[1]` to be equal to the number of labels "
                         f"({num_labels}), but got shape {tuple(preds.shape)}")


def _multilabel_precision_recall_curve_format(preds, target, num_labels, thresholds=None, ignore_index=None):
    """(M, L) scores and labels; ignored targets become -1 (left out of every count)."""
    xp = array_module(preds, target)
    preds = xp.moveaxis(preds, 1, -1).reshape(-1, num_labels)
    target = xp.moveaxis(target, 1, -1).reshape(-1, num_labels)
    if not is_probability(preds):
        preds = sigmoid(preds, xp)
    if ignore_index is not None:
        target = xp.where(target == ignore_index, -1, target)
    return preds, target, _adjust_threshold_arg(thresholds, xp)


def _multilabel_precision_recall_curve_update(preds, target, num_labels, thresholds):
    if thresholds is None:
        return preds, target
    xp = array_module(preds, target, thresholds)
    n_t = thresholds.shape[0]
    preds_t = (preds[:, :, None] >= thresholds[None, None, :]).astype(np.int64)
    mapping = preds_t + 2 * target.astype(np.int64, copy=False)[:, :, None] \
        + 4 * xp.arange(num_labels)[None, :, None] + 4 * num_labels * xp.arange(n_t)
    valid = xp.broadcast_to((target >= 0)[:, :, None], mapping.shape)
    return xp.bincount(mapping[valid], minlength=4 * num_labels * n_t).reshape(n_t, num_labels, 2, 2)


def _multilabel_precision_recall_curve_compute(state, num_labels, thresholds, ignore_index=None, undefined=0.0):
    if thresholds is not None and not isinstance(state, tuple):
        return _multiclass_precision_recall_curve_compute(state, num_labels, thresholds, undefined)
    preds, target = state
    precision, recall, thres = [], [], []
    for i in range(num_labels):
        p, t = preds[:, i], target[:, i]
        keep = t >= 0
        res = _binary_precision_recall_curve_compute((p[keep], t[keep]), None)
        precision.append(res[0])
        recall.append(res[1])
        thres.append(res[2])
    return precision, recall, thres


def multilabel_precision_recall_curve(preds, target, num_labels: int, thresholds=None, ignore_index=None,
                                      validate_args: bool = True):
    """Precision-recall curves for each label of a multilabel task.

    Args:
        preds (Tensor): ``(N, L, ...)`` probabilities or logits.
        target (Tensor): ``(N, L, ...)`` labels in {0, 1}.
        num_labels (int): the number of labels.
        thresholds, ignore_index, validate_args: see :func:`binary_precision_recall_curve`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds, ignore_index)
        _multilabel_precision_recall_curve_tensor_validation(p, t, num_labels, ignore_index)
    p, t, thr = _multilabel_precision_recall_curve_format(p, t, num_labels, thresholds, ignore_index)
    state = _multilabel_precision_recall_curve_update(p, t, num_labels, thr)
    return _wrap_curves(_multilabel_precision_recall_curve_compute(state, num_labels, thr, ignore_index, UNDEFINED))


def precision_recall_curve(preds, target, task: str, thresholds=None, num_classes=None, num_labels=None,
                           ignore_index=None, validate_args: bool = True):
    """Precision-recall curve(s) for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""
    task = check_task(task)
    if task == "binary":
        return binary_precision_recall_curve(preds, target, thresholds, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        return multiclass_precision_recall_curve(preds, target, num_classes, thresholds, ignore_index,
                                                 validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_precision_recall_curve(preds, target, num_labels, thresholds, ignore_index, validate_args)
