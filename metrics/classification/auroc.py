"""AUROC metrics."""
from __future__ import annotations

from ..functional.classification.auroc import (_binary_auroc_compute, _check_max_fpr, _multiclass_auroc_compute,
                                               _multilabel_auroc_compute)
from ..utilities.checks import check_average, check_task
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper, _require_int
from .precision_recall_curve import (BinaryPrecisionRecallCurve, MulticlassPrecisionRecallCurve,
                                     MultilabelPrecisionRecallCurve)

__all__ = ["AUROC", "BinaryAUROC", "MulticlassAUROC", "MultilabelAUROC"]


class _AUROCMixin:
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0


class BinaryAUROC(_AUROCMixin, BinaryPrecisionRecallCurve):
    """Area under the ROC curve of a binary task (tied scores count half).

    Args:
        max_fpr (float): compute the standardised partial AUC over ``fpr <= max_fpr``.
        thresholds, ignore_index, validate_args: see :class:`BinaryPrecisionRecallCurve`.
    """

    def __init__(self, max_fpr=None, thresholds=None, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args, **kwargs)
        if validate_args:
            _check_max_fpr(max_fpr)
        self.max_fpr = max_fpr

    def compute(self):
        """The AUROC."""
        return wrap(_binary_auroc_compute(self._final_state(), self._thresholds_array(), self.max_fpr))


class MulticlassAUROC(_AUROCMixin, MulticlassPrecisionRecallCurve):
    """One-vs-rest AUROC of a multiclass task, averaged by ``average`` (``"macro"``, ``"weighted"`` by support,
    ``"none"``/``None``)."""

    def __init__(self, num_classes: int, average="macro", thresholds=None, ignore_index=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(num_classes, thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args,
                         **kwargs)
        if validate_args:
            check_average(average, ("macro", "weighted", "none", None))
        self.average = average

    def compute(self):
        """The AUROC averaged by ``average``."""
        return wrap(_multiclass_auroc_compute(self._final_state(), self.num_classes, self.average,
                                              self._thresholds_array()))


class MultilabelAUROC(_AUROCMixin, MultilabelPrecisionRecallCurve):
    """AUROC of a multilabel task, per label then ``"micro"``, ``"macro"``, ``"weighted"`` or ``"none"``."""

    def __init__(self, num_labels: int, average="macro", thresholds=None, ignore_index=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(num_labels, thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args,
                         **kwargs)
        if validate_args:
            check_average(average, ("micro", "macro", "weighted", "none", None))
        self.average = average

    def compute(self):
        """The AUROC averaged by ``average``."""
        return wrap(_multilabel_auroc_compute(self._final_state(), self.num_labels, self.average,
                                              self._thresholds_array(), self.ignore_index))


class AUROC(_ClassificationTaskWrapper):
    """AUROC for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, thresholds=None, num_classes=None, num_labels=None, average="macro", max_fpr=None,
                ignore_index=None, validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryAUROC(max_fpr, **kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassAUROC(num_classes, average, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelAUROC(num_labels, average, **kwargs)
