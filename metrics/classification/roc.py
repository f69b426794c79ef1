"""ROC curve metrics."""
from __future__ import annotations

from ..functional.classification.precision_recall_curve import _wrap_curves
from ..functional.classification.roc import _binary_roc_compute, _multiclass_roc_compute, _multilabel_roc_compute
from ..utilities.checks import check_task
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper, _require_int
from .precision_recall_curve import (BinaryPrecisionRecallCurve, MulticlassPrecisionRecallCurve,
                                     MultilabelPrecisionRecallCurve)

__all__ = ["ROC", "BinaryROC", "MulticlassROC", "MultilabelROC"]


class BinaryROC(BinaryPrecisionRecallCurve):
    """The ROC curve of a binary task: ``compute()`` returns ``(fpr, tpr, thresholds)`` with thresholds decreasing
    (the exact curve starts at (0, 0) with threshold 1). Arguments as in :class:`BinaryPrecisionRecallCurve`."""

    def compute(self):
        """``(fpr, tpr, thresholds)``."""
        return tuple(wrap(x) for x in _binary_roc_compute(self._final_state(), self._thresholds_array()))


class MulticlassROC(MulticlassPrecisionRecallCurve):
    """One-vs-rest ROC curves of a multiclass task (lists when exact, ``(C, T)`` tensors when binned)."""

    def compute(self):
        """``(fpr, tpr, thresholds)`` per class."""
        return _wrap_curves(_multiclass_roc_compute(self._final_state(), self.num_classes, self._thresholds_array()))


class MultilabelROC(MultilabelPrecisionRecallCurve):
    """ROC curves of each label of a multilabel task."""

    def compute(self):
        """``(fpr, tpr, thresholds)`` per label."""
        return _wrap_curves(_multilabel_roc_compute(self._final_state(), self.num_labels, self._thresholds_array(),
                                                    self.ignore_index))


class ROC(_ClassificationTaskWrapper):
    """The ROC curve for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, thresholds=None, num_classes=None, num_labels=None, ignore_index=None,
                validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryROC(**kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassROC(num_classes, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelROC(num_labels, **kwargs)
