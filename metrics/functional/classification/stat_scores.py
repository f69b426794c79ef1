"""Stat scores: true/false positives/negatives and support, the statistics behind most classification metrics.

Every task goes through the same four steps, each a function here that the metric classes reuse:

1. ``_*_arg_validation``: the non-tensor arguments;
2. ``_*_tensor_validation``: shapes, dtypes and values of ``preds``/``target`` (skipped with
   ``validate_args=False``);
3. ``_*_format``: probabilities/logits to labels (sigmoid when values fall outside [0, 1], then ``threshold``;
   ``argmax`` or top-k over the class dimension), extra dimensions flattened, ignored targets masked;
4. ``_*_update``: the counts, computed vectorised (a ``bincount`` of ``target * C + pred`` for multiclass).

The kernels work on arrays of the inputs' array module; the public functions take and return ember Tensors.
"""
from __future__ import annotations

import math

import numpy as np

from ...utilities.checks import (check_average, check_ignore_index, check_multidim_average, check_same_shape,
                                 check_task, check_threshold, describe_values)
from ...utilities.compute import array_module, is_probability, safe_divide, sigmoid
from ...utilities.data import to_array, wrap

__all__ = ["binary_stat_scores", "multiclass_stat_scores", "multilabel_stat_scores", "stat_scores"]

_AVERAGES = ("micro", "macro", "weighted", "none", None)


def _dtype_name(arr) -> str:
    return "ember." + ("bool" if arr.dtype == np.bool_ else arr.dtype.name)


def _check_zero_division(zero_division) -> None:
    ok = isinstance(zero_division, (int, float)) and not isinstance(zero_division, bool) and \
        (zero_division in (0, 1) or (isinstance(zero_division, float) and math.isnan(zero_division)))
    if not ok:
        raise ValueError(f"Expected argument `zero_division` to be 0, 1 or nan, but got {zero_division!r}.")


def _check_label_target(target) -> None:
    if target.dtype.kind in "fc":
        raise ValueError("Expected argument `target` to be an int or long tensor with ground truth labels but got "
                         f"tensor with dtype {_dtype_name(target)}")


def _check_binary_values(arr, name: str, ignore_index=None, suffix: str = "") -> None:
    """Raise unless every value of ``arr`` is 0 or 1 (or ``ignore_index``)."""
    if arr.dtype == np.bool_:
        return
    bad = (arr != 0) & (arr != 1)
    if ignore_index is not None:
        bad &= arr != ignore_index
    if bad.any():
        allowed = [0, 1] if ignore_index is None else [0, 1, ignore_index]
        raise RuntimeError(f"Detected the following values in `{name}`: {describe_values(arr)} but expected only the "
                           f"following values {allowed}{suffix}.")


def _check_class_range(arr, num_classes: int, name: str, ignore_index=None) -> None:
    """Raise unless every label of ``arr`` lies in ``[0, num_classes)`` (``ignore_index`` excepted)."""
    if arr.size == 0:
        return
    values = arr if ignore_index is None else arr[arr != ignore_index]
    if values.size and (values.min() < 0 or values.max() >= num_classes):
        raise RuntimeError(f"Detected the following values in `{name}`: {describe_values(values)} but expected only "
                           f"class labels in the range [0, {num_classes - 1}] (num_classes={num_classes}"
                           + ("" if ignore_index is None else f", ignore_index={ignore_index}")
                           + "). Is `num_classes` too small?")


def _sum_axis(x, axis):
    return x if x.ndim == 0 else x.sum(axis=axis)


# ------------------------------------------------------------------------------------------------------- binary
def _binary_stat_scores_arg_validation(threshold=0.5, multidim_average="global", ignore_index=None,
                                       zero_division=0) -> None:
    check_threshold(threshold)
    check_multidim_average(multidim_average)
    check_ignore_index(ignore_index)
    _check_zero_division(zero_division)


def _binary_stat_scores_tensor_validation(preds, target, multidim_average="global", ignore_index=None) -> None:
    check_same_shape(preds, target)
    _check_label_target(target)
    _check_binary_values(target, "target", ignore_index)
    if preds.dtype.kind not in "fc":
        _check_binary_values(preds, "preds", suffix=" since preds is a label tensor")
    if multidim_average != "global" and preds.ndim < 2:
        raise ValueError("Expected input to be at least 2D when multidim_average is set to `samplewise`")


def _binary_stat_scores_format(preds, target, threshold=0.5, ignore_index=None):
    """Labels of shape (N, X): bool predictions, integer targets with ignored entries set to -1."""
    if preds.dtype.kind == "f":
        if not is_probability(preds):
            preds = sigmoid(preds)
        preds = preds > threshold
    elif preds.dtype != np.bool_:
        preds = preds != 0
    n = preds.shape[0] if preds.ndim else 1
    preds = preds.reshape(n, -1)
    target = target.reshape(n, -1)
    if ignore_index is not None:
        target = array_module(target).where(target == ignore_index, -1, target)
    return preds, target


def _binary_stat_scores_update(preds, target, multidim_average="global"):
    axis = None if multidim_average == "global" else 1
    pos = target == 1
    neg = target == 0
    not_preds = ~preds
    tp = (pos & preds).sum(axis=axis, dtype=np.int64)
    fn = (pos & not_preds).sum(axis=axis, dtype=np.int64)
    fp = (neg & preds).sum(axis=axis, dtype=np.int64)
    tn = (neg & not_preds).sum(axis=axis, dtype=np.int64)
    return tp, fp, tn, fn


def _binary_stat_scores_compute(tp, fp, tn, fn, multidim_average="global"):
    xp = array_module(tp, fp, tn, fn)
    return xp.stack([tp, fp, tn, fn, tp + fn], axis=0 if multidim_average == "global" else 1)


def binary_stat_scores(preds, target, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                       validate_args: bool = True):
    """True positives, false positives, true negatives, false negatives and support for binary tasks.

    Args:
        preds (Tensor): ``(N, ...)`` labels (0/1) or scores; float values outside [0, 1] are taken as logits and
            passed through a sigmoid, then compared with ``threshold``.
        target (Tensor): ``(N, ...)`` integer labels in {0, 1}.
        threshold (float): the probability above which a prediction is positive. Default: 0.5.
        multidim_average (str): ``"global"`` flattens extra dimensions into the batch; ``"samplewise"`` computes
            the statistics per sample over the extra dimensions.
        ignore_index (int): a target value whose entries do not count.
        validate_args (bool): check the inputs (set ``False`` for speed).

    Returns:
        Tensor: ``[tp, fp, tn, fn, support]`` of shape ``(5,)``, or ``(N, 5)`` samplewise.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_stat_scores_arg_validation(threshold, multidim_average, ignore_index)
        _binary_stat_scores_tensor_validation(p, t, multidim_average, ignore_index)
    p, t = _binary_stat_scores_format(p, t, threshold, ignore_index)
    tp, fp, tn, fn = _binary_stat_scores_update(p, t, multidim_average)
    return wrap(_binary_stat_scores_compute(tp, fp, tn, fn, multidim_average))


# --------------------------------------------------------------------------------------------------- multiclass
def _multiclass_stat_scores_arg_validation(num_classes, top_k=1, average="macro", multidim_average="global",
                                           ignore_index=None, zero_division=0) -> None:
    if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
        raise ValueError(f"Expected argument `num_classes` to be an integer larger than 1, but got {num_classes!r}")
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
        raise ValueError(f"Expected argument `top_k` to be an integer larger than or equal to 1, but got {top_k!r}")
    if top_k > num_classes:
        raise ValueError(f"Expected argument `top_k` to be smaller or equal to `num_classes` but got {top_k} and "
                         f"{num_classes}")
    check_average(average, _AVERAGES)
    check_multidim_average(multidim_average)
    check_ignore_index(ignore_index)
    _check_zero_division(zero_division)


def _multiclass_stat_scores_tensor_validation(preds, target, num_classes, multidim_average="global",
                                              ignore_index=None, top_k=1) -> None:
    if preds.ndim == target.ndim + 1:
        if preds.dtype.kind != "f":
            raise ValueError("If `preds` have one dimension more than `target`, `preds` should be a float tensor of "
                             f"scores, but got dtype {_dtype_name(preds)}.")
        if preds.shape[1] != num_classes:
            raise ValueError("If `preds` have one dimension more than `target`, `preds.shape[1]` should be equal to "
                             f"number of classes ({num_classes}), but got preds of shape {tuple(preds.shape)}.")
        if preds.shape[2:] != target.shape[1:] or preds.shape[0] != target.shape[0]:
            raise ValueError("If `preds` have one dimension more than `target`, the shape of `preds` should be "
                             "(N, C, ...), and the shape of `target` should be (N, ...), but got "
                             f"{tuple(preds.shape)} and {tuple(target.shape)}.")
        if multidim_average != "global" and target.ndim < 2:
            raise ValueError("Expected input to be at least 2D when multidim_average is set to `samplewise`")
    elif preds.ndim == target.ndim:
        if preds.shape != target.shape:
            raise ValueError("The `preds` and `target` should have the same shape, got `preds` with shape="
                             f"{tuple(preds.shape)} and `target` with shape={tuple(target.shape)}.")
        if preds.dtype.kind in "fc":
            raise ValueError("Expected `preds` to be an int tensor of class labels when it has the same shape as "
                             f"`target` (scores should have shape (N, C, ...)), but got dtype {_dtype_name(preds)}.")
        if top_k > 1:
            raise ValueError(f"`top_k={top_k}` needs `preds` with scores of shape (N, C, ...), but got labels of "
                             f"shape {tuple(preds.shape)}.")
        if multidim_average != "global" and preds.ndim < 2:
            raise ValueError("Expected input to be at least 2D when multidim_average is set to `samplewise`")
    else:
        raise ValueError("Either `preds` and `target` both should have the (same) shape (N, ...), or `target` should "
                         f"be (N, ...) and `preds` should be (N, C, ...), but got {tuple(preds.shape)} and "
                         f"{tuple(target.shape)}.")
    if target.dtype.kind in "fc":
        raise ValueError("Expected argument `target` to be an int or long tensor of class labels, but got tensor with "
                         f"dtype {_dtype_name(target)}")
    _check_class_range(target, num_classes, "target", ignore_index)
    if preds.dtype.kind not in "fc":
        _check_class_range(preds, num_classes, "preds")


def _multiclass_stat_scores_format(preds, target, top_k=1):
    """Labels (N, X) (argmax over the class dimension) or, for ``top_k > 1``, scores (N, C, X)."""
    if preds.ndim == target.ndim + 1 and top_k == 1:
        preds = preds.argmax(axis=1)
    n = target.shape[0] if target.ndim else 1
    preds = preds.reshape(n, preds.shape[1], -1) if top_k != 1 else preds.reshape(n, -1)
    target = target.reshape(n, -1)
    return preds, target


def _select_topk(scores, top_k: int):
    """One-hot (N, C, X) bool mask of the ``top_k`` highest scores along dim 1."""
    xp = array_module(scores)
    idx = xp.argpartition(-scores, top_k - 1, axis=1)[:, :top_k]  # (CuPy sorts fully here: same top-k)
    mask = xp.zeros(scores.shape, dtype=bool)
    xp.put_along_axis(mask, idx, True, axis=1)  # in current CuPy; older releases lack it
    return mask


def _multiclass_stat_scores_update(preds, target, num_classes, top_k=1, average="macro",
                                   multidim_average="global", ignore_index=None):
    xp = array_module(preds, target)
    if multidim_average == "samplewise" or top_k != 1:
        classes = xp.arange(num_classes)
        if top_k > 1:
            preds_oh = xp.moveaxis(_select_topk(preds, top_k), 1, -1)  # (N, X, C)
        else:
            preds_oh = preds[..., None] == classes
        target_oh = target[..., None] == classes
        valid = None if ignore_index is None else (target != ignore_index)[..., None]
        axis = (0, 1) if multidim_average == "global" else 1
        not_p, not_t = ~preds_oh, ~target_oh
        counts = []
        for mask in (preds_oh & target_oh, preds_oh & not_t, not_p & not_t, not_p & target_oh):
            if valid is not None:
                mask = mask & valid
            counts.append(mask.sum(axis=axis, dtype=np.int64))
        tp, fp, tn, fn = counts
        return tp, fp, tn, fn
    preds = preds.reshape(-1)
    target = target.reshape(-1)
    if ignore_index is not None:
        keep = target != ignore_index
        preds, target = preds[keep], target[keep]
    if average == "micro":
        tp = xp.asarray((preds == target).sum(dtype=np.int64))
        fp = xp.asarray(preds.size - tp, dtype=np.int64)
        fn = fp.copy()
        tn = xp.asarray(num_classes * preds.size - (fp + fn + tp), dtype=np.int64)
        return tp, fp, tn, fn
    confmat = xp.bincount(target.astype(np.int64, copy=False) * num_classes + preds,
                          minlength=num_classes * num_classes).reshape(num_classes, num_classes)
    tp = confmat.diagonal().copy()
    predicted = confmat.sum(axis=0)  # tp + fp per class
    fp = predicted - tp
    fn = confmat.sum(axis=1) - tp
    tn = preds.size - (predicted + fn)
    return tp, fp, tn, fn


def _multiclass_stat_scores_compute(tp, fp, tn, fn, average="macro", multidim_average="global"):
    res = array_module(tp, fp, tn, fn).stack([tp, fp, tn, fn, tp + fn], axis=-1)
    axis = 0 if multidim_average == "global" else 1
    if average == "micro":
        return res.sum(axis=axis) if res.ndim > 1 else res
    if average == "macro":
        return res.astype(np.float32).mean(axis=axis)
    if average == "weighted":
        weight = (tp + fn).astype(np.float32)
        if multidim_average == "global":
            w = safe_divide(weight, weight.sum())
        else:
            w = safe_divide(weight, weight.sum(-1, keepdims=True))
        return (res * w[..., None]).sum(axis=axis)
    return res


def multiclass_stat_scores(preds, target, num_classes: int, average="macro", top_k: int = 1,
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Stat scores ``[tp, fp, tn, fn, support]`` for multiclass tasks.

    Args:
        preds (Tensor): ``(N, ...)`` integer labels or ``(N, C, ...)`` scores (argmax, or top-k, over ``C``).
        target (Tensor): ``(N, ...)`` integer labels in ``[0, num_classes)``.
        num_classes (int): the number of classes.
        average (str or None): ``"micro"`` (sum over classes), ``"macro"`` (mean over classes), ``"weighted"``
            (mean weighted by support) or ``"none"``/``None`` (per class).
        top_k (int): a prediction is correct if the target is among the ``top_k`` highest scores.
        multidim_average (str): ``"global"`` or ``"samplewise"``.
        ignore_index (int): a target value whose entries do not count.
        validate_args (bool): check the inputs.

    Returns:
        Tensor: shape ``(5,)`` (``(C, 5)`` with ``average=None``), with a leading ``N`` samplewise.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_stat_scores_arg_validation(num_classes, top_k, average, multidim_average, ignore_index)
        _multiclass_stat_scores_tensor_validation(p, t, num_classes, multidim_average, ignore_index, top_k)
    p, t = _multiclass_stat_scores_format(p, t, top_k)
    tp, fp, tn, fn = _multiclass_stat_scores_update(p, t, num_classes, top_k, average, multidim_average,
                                                    ignore_index)
    return wrap(_multiclass_stat_scores_compute(tp, fp, tn, fn, average, multidim_average))


# --------------------------------------------------------------------------------------------------- multilabel
def _multilabel_stat_scores_arg_validation(num_labels, threshold=0.5, average="macro", multidim_average="global",
                                           ignore_index=None, zero_division=0) -> None:
    if not isinstance(num_labels, int) or isinstance(num_labels, bool) or num_labels < 2:
        raise ValueError(f"Expected argument `num_labels` to be an integer larger than 1, but got {num_labels!r}")
    check_threshold(threshold)
    check_average(average, _AVERAGES)
    check_multidim_average(multidim_average)
    check_ignore_index(ignore_index)
    _check_zero_division(zero_division)


def _multilabel_stat_scores_tensor_validation(preds, target, num_labels, multidim_average="global",
                                              ignore_index=None) -> None:
    check_same_shape(preds, target)
    if preds.ndim < 2 or preds.shape[1] != num_labels:
        raise ValueError("Expected both `target.shape[1]` and `preds.shape[1]` to be equal to the number of labels "
                         f"({num_labels}), but got shape {tuple(preds.shape)}")
    _check_label_target(target)
    _check_binary_values(target, "target", ignore_index)
    if preds.dtype.kind not in "fc":
        _check_binary_values(preds, "preds", suffix=" since preds is a label tensor")
    if multidim_average != "global" and preds.ndim < 3:
        raise ValueError("Expected input to be at least 3D when multidim_average is set to `samplewise`")


def _multilabel_stat_scores_format(preds, target, num_labels, threshold=0.5, ignore_index=None):
    """Bool predictions and integer targets of shape (N, L, X), ignored targets set to -1."""
    if preds.dtype.kind == "f":
        if not is_probability(preds):
            preds = sigmoid(preds)
        preds = preds > threshold
    elif preds.dtype != np.bool_:
        preds = preds != 0
    preds = preds.reshape(preds.shape[0], preds.shape[1], -1)
    target = target.reshape(target.shape[0], target.shape[1], -1)
    if ignore_index is not None:
        target = array_module(target).where(target == ignore_index, -1, target)
    return preds, target


def _multilabel_stat_scores_update(preds, target, multidim_average="global"):
    axis = (0, 2) if multidim_average == "global" else 2
    pos = target == 1
    neg = target == 0
    not_preds = ~preds
    tp = (pos & preds).sum(axis=axis, dtype=np.int64)
    fn = (pos & not_preds).sum(axis=axis, dtype=np.int64)
    fp = (neg & preds).sum(axis=axis, dtype=np.int64)
    tn = (neg & not_preds).sum(axis=axis, dtype=np.int64)
    return tp, fp, tn, fn


def _multilabel_stat_scores_compute(tp, fp, tn, fn, average="macro", multidim_average="global"):
    return _multiclass_stat_scores_compute(tp, fp, tn, fn, average, multidim_average)


def multilabel_stat_scores(preds, target, num_labels: int, threshold: float = 0.5, average="macro",
                           multidim_average: str = "global", ignore_index=None, validate_args: bool = True):
    """Stat scores ``[tp, fp, tn, fn, support]`` for multilabel tasks.

    Args:
        preds (Tensor): ``(N, L, ...)`` labels or scores (sigmoid if outside [0, 1], then ``threshold``).
        target (Tensor): ``(N, L, ...)`` integer labels in {0, 1}.
        num_labels (int): the number of labels ``L``.
        threshold (float): the probability above which a label is predicted.
        average, multidim_average, ignore_index, validate_args: as in :func:`multiclass_stat_scores`.
    """
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_stat_scores_arg_validation(num_labels, threshold, average, multidim_average, ignore_index)
        _multilabel_stat_scores_tensor_validation(p, t, num_labels, multidim_average, ignore_index)
    p, t = _multilabel_stat_scores_format(p, t, num_labels, threshold, ignore_index)
    tp, fp, tn, fn = _multilabel_stat_scores_update(p, t, multidim_average)
    return wrap(_multilabel_stat_scores_compute(tp, fp, tn, fn, average, multidim_average))


def stat_scores(preds, target, task: str, threshold: float = 0.5, num_classes=None, num_labels=None,
                average="micro", multidim_average: str = "global", top_k: int = 1, ignore_index=None,
                validate_args: bool = True):
    """Stat scores for the given ``task`` (``"binary"``, ``"multiclass"`` or ``"multilabel"``)."""
    task = check_task(task)
    if task == "binary":
        return binary_stat_scores(preds, target, threshold, multidim_average, ignore_index, validate_args)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_stat_scores(preds, target, num_classes, average, top_k, multidim_average, ignore_index,
                                      validate_args)
    _require_int(num_labels, "num_labels")
    return multilabel_stat_scores(preds, target, num_labels, threshold, average, multidim_average, ignore_index,
                                  validate_args)


def _require_int(value, name: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"`{name}` is expected to be `int` but `{type(value).__name__}` was passed.")


# -------------------------------------------------------------------------------------------------- reductions
def _adjust_weights_safe_divide(score, average, multilabel, tp, fp, fn, top_k=1):
    """Average a per-class ``score`` over the last dimension (macro: classes absent everywhere are skipped)."""
    if average is None or average == "none":
        return score
    if average == "weighted":
        weights = (tp + fn).astype(score.dtype)
    elif multilabel:
        weights = array_module(score).ones_like(score)
    else:
        absent = (tp + fp + fn == 0) if top_k == 1 else (tp + fn == 0)
        weights = (~absent).astype(score.dtype)
    return safe_divide((weights * score).sum(-1), weights.sum(-1))


# ------------------------------------------------------------------------- shared front end of the score functions
def _binary_stats(preds, target, threshold, multidim_average, ignore_index, validate_args, zero_division=0):
    """Validate, format and count: the ``(tp, fp, tn, fn)`` arrays of a binary score function."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _binary_stat_scores_arg_validation(threshold, multidim_average, ignore_index, zero_division)
        _binary_stat_scores_tensor_validation(p, t, multidim_average, ignore_index)
    p, t = _binary_stat_scores_format(p, t, threshold, ignore_index)
    return _binary_stat_scores_update(p, t, multidim_average)


def _multiclass_stats(preds, target, num_classes, average, top_k, multidim_average, ignore_index, validate_args,
                      zero_division=0):
    """Validate, format and count: the ``(tp, fp, tn, fn)`` arrays of a multiclass score function."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multiclass_stat_scores_arg_validation(num_classes, top_k, average, multidim_average, ignore_index,
                                               zero_division)
        _multiclass_stat_scores_tensor_validation(p, t, num_classes, multidim_average, ignore_index, top_k)
    p, t = _multiclass_stat_scores_format(p, t, top_k)
    return _multiclass_stat_scores_update(p, t, num_classes, top_k, average, multidim_average, ignore_index)


def _multilabel_stats(preds, target, num_labels, threshold, average, multidim_average, ignore_index, validate_args,
                      zero_division=0):
    """Validate, format and count: the ``(tp, fp, tn, fn)`` arrays of a multilabel score function."""
    p, t = to_array(preds, "preds"), to_array(target, "target")
    if validate_args:
        _multilabel_stat_scores_arg_validation(num_labels, threshold, average, multidim_average, ignore_index,
                                               zero_division)
        _multilabel_stat_scores_tensor_validation(p, t, num_labels, multidim_average, ignore_index)
    p, t = _multilabel_stat_scores_format(p, t, num_labels, threshold, ignore_index)
    return _multilabel_stat_scores_update(p, t, multidim_average)
