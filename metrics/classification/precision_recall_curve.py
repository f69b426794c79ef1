"""Precision-recall curve metrics, the base of the ROC, AUROC and average-precision metrics.

With ``thresholds=None`` the metric keeps every prediction and target (``"cat"`` list states, memory grows with
the data) and the curve is exact; with thresholds it keeps one 2x2 confusion matrix per threshold (a summed
state of constant size).
"""
from __future__ import annotations

from ...core.dtypes import int64
from ...core.ops.creation import zeros

from ..functional.classification.precision_recall_curve import (
    _adjust_threshold_arg, _binary_precision_recall_curve_arg_validation, _binary_precision_recall_curve_compute,
    _binary_precision_recall_curve_format, _binary_precision_recall_curve_tensor_validation,
    _binary_precision_recall_curve_update, _multiclass_precision_recall_curve_arg_validation,
    _multiclass_precision_recall_curve_compute, _multiclass_precision_recall_curve_format,
    _multiclass_precision_recall_curve_tensor_validation, _multiclass_precision_recall_curve_update,
    _multilabel_precision_recall_curve_arg_validation, _multilabel_precision_recall_curve_compute,
    _multilabel_precision_recall_curve_format, _multilabel_precision_recall_curve_tensor_validation,
    _multilabel_precision_recall_curve_update, UNDEFINED, _wrap_curves)
from ..metric import Metric
from ..utilities.checks import check_task
from ..utilities.compute import module_for_device
from ..utilities.data import dim_zero_cat, wrap
from .base import _arrays, _ClassificationTaskWrapper, _require_int

__all__ = ["PrecisionRecallCurve", "BinaryPrecisionRecallCurve", "MulticlassPrecisionRecallCurve",
           "MultilabelPrecisionRecallCurve"]


class _CurveStates(Metric):
    """``preds``/``target`` list states (exact) or a per-threshold ``confmat`` (binned), plus the thresholds."""

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def _init_curve_states(self, thresholds, confmat_shape) -> None:
        thr = _adjust_threshold_arg(thresholds, module_for_device(self.device))
        if thr is None:
            self.thresholds = None
            self.add_state("preds", [], dist_reduce_fx="cat")
            self.add_state("target", [], dist_reduce_fx="cat")
        else:
            self.register_buffer("thresholds", wrap(thr), persistent=False)
            shape = (thr.shape[0],) + tuple(confmat_shape)
            self.add_state("confmat", zeros(shape, dtype=int64, device=self.device), dist_reduce_fx="sum")

    def _thresholds_array(self):
        return None if self.thresholds is None else self.thresholds._data

    def _store(self, state) -> None:
        if isinstance(state, tuple):
            # copies: the formatted arrays may be views of the caller's tensors
            self.preds.append(wrap(state[0].copy()))
            self.target.append(wrap(state[1].copy()))
        else:
            self.confmat._data += state

    def _final_state(self):
        if self.thresholds is None:
            return dim_zero_cat(self.preds)._data, dim_zero_cat(self.target)._data
        return self.confmat._data


class BinaryPrecisionRecallCurve(_CurveStates):
    """The precision-recall curve of a binary task.

    Args:
        thresholds (None, int, list or Tensor): ``None`` for the exact curve; an int for that many thresholds
            evenly spaced in [0, 1]; a list or 1-d tensor of thresholds (binned, constant memory).
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs on every update.

    ``compute()`` returns ``(precision, recall, thresholds)``: precision and recall have one more value than
    thresholds (the final point precision 1, recall 0); thresholds increase.
    """

    def __init__(self, thresholds=None, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _binary_precision_recall_curve_arg_validation(thresholds, ignore_index)
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self._init_curve_states(thresholds, (2, 2))

    def update(self, preds, target) -> None:
        """Store the batch (exact) or count it into the per-threshold matrices (binned)."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _binary_precision_recall_curve_tensor_validation(p, t, self.ignore_index)
        p, t, _ = _binary_precision_recall_curve_format(p, t, None, self.ignore_index)
        self._store(_binary_precision_recall_curve_update(p, t, self._thresholds_array()))

    def compute(self):
        """``(precision, recall, thresholds)``."""
        return tuple(wrap(x) for x in _binary_precision_recall_curve_compute(
            self._final_state(), self._thresholds_array(), undefined=UNDEFINED))


class MulticlassPrecisionRecallCurve(_CurveStates):
    """One-vs-rest precision-recall curves of a multiclass task (``preds`` of shape ``(N, C, ...)``).

    Args:
        num_classes (int): the number of classes.
        thresholds, ignore_index, validate_args: see :class:`BinaryPrecisionRecallCurve`.
    """

    def __init__(self, num_classes: int, thresholds=None, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _multiclass_precision_recall_curve_arg_validation(num_classes, thresholds, ignore_index)
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self._init_curve_states(thresholds, (num_classes, 2, 2))

    def update(self, preds, target) -> None:
        """Store the batch (exact) or count it into the per-threshold matrices (binned)."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multiclass_precision_recall_curve_tensor_validation(p, t, self.num_classes, self.ignore_index)
        p, t, _ = _multiclass_precision_recall_curve_format(p, t, self.num_classes, None, self.ignore_index)
        self._store(_multiclass_precision_recall_curve_update(p, t, self.num_classes, self._thresholds_array()))

    def compute(self):
        """Per-class curves: lists when exact, ``(C, T + 1)`` tensors when binned."""
        return _wrap_curves(_multiclass_precision_recall_curve_compute(self._final_state(), self.num_classes,
                                                                       self._thresholds_array(), UNDEFINED))


class MultilabelPrecisionRecallCurve(_CurveStates):
    """Precision-recall curves of each label of a multilabel task (``preds``/``target`` ``(N, L, ...)``).

    Args:
        num_labels (int): the number of labels.
        thresholds, ignore_index, validate_args: see :class:`BinaryPrecisionRecallCurve`.
    """

    def __init__(self, num_labels: int, thresholds=None, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _multilabel_precision_recall_curve_arg_validation(num_labels, thresholds, ignore_index)
        self.num_labels = num_labels
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self._init_curve_states(thresholds, (num_labels, 2, 2))

    def update(self, preds, target) -> None:
        """Store the batch (exact) or count it into the per-threshold matrices (binned)."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multilabel_precision_recall_curve_tensor_validation(p, t, self.num_labels, self.ignore_index)
        p, t, _ = _multilabel_precision_recall_curve_format(p, t, self.num_labels, None, self.ignore_index)
        self._store(_multilabel_precision_recall_curve_update(p, t, self.num_labels, self._thresholds_array()))

    def compute(self):
        """Per-label curves: lists when exact, ``(L, T + 1)`` tensors when binned."""
        return _wrap_curves(_multilabel_precision_recall_curve_compute(
            self._final_state(), self.num_labels, self._thresholds_array(), self.ignore_index, UNDEFINED))


class PrecisionRecallCurve(_ClassificationTaskWrapper):
    """The precision-recall curve for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, thresholds=None, num_classes=None, num_labels=None, ignore_index=None,
                validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryPrecisionRecallCurve(**kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassPrecisionRecallCurve(num_classes, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelPrecisionRecallCurve(num_labels, **kwargs)


