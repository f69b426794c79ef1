"""Average precision metrics."""
from __future__ import annotations

from ..functional.classification.average_precision import (_binary_average_precision_compute,
                                                           _multiclass_average_precision_compute,
                                                           _multilabel_average_precision_compute)
from ..utilities.checks import check_average, check_task
from ..utilities.data import wrap
from .auroc import _AUROCMixin
from .base import _ClassificationTaskWrapper, _require_int
from .precision_recall_curve import (BinaryPrecisionRecallCurve, MulticlassPrecisionRecallCurve,
                                     MultilabelPrecisionRecallCurve)

__all__ = ["AveragePrecision", "BinaryAveragePrecision", "MulticlassAveragePrecision",
           "MultilabelAveragePrecision"]


class BinaryAveragePrecision(_AUROCMixin, BinaryPrecisionRecallCurve):
    """Average precision ``sum_n (R_n - R_{n-1}) P_n`` of a binary task (NaN if the target has no positive).
    Arguments as in :class:`BinaryPrecisionRecallCurve`."""

    def compute(self):
        """The average precision."""
        return wrap(_binary_average_precision_compute(self._final_state(), self._thresholds_array()))


class MulticlassAveragePrecision(_AUROCMixin, MulticlassPrecisionRecallCurve):
    """One-vs-rest average precision of a multiclass task, averaged by ``average``; classes without positives are
    NaN and left out of the averages (with a warning)."""

    def __init__(self, num_classes: int, average="macro", thresholds=None, ignore_index=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(num_classes, thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args,
                         **kwargs)
        if validate_args:
            check_average(average, ("macro", "weighted", "none", None))
        self.average = average

    def compute(self):
        """The average precision averaged by ``average``."""
        return wrap(_multiclass_average_precision_compute(self._final_state(), self.num_classes, self.average,
                                                          self._thresholds_array()))


class MultilabelAveragePrecision(_AUROCMixin, MultilabelPrecisionRecallCurve):
    """Average precision of a multilabel task, per label then ``"micro"``, ``"macro"``, ``"weighted"`` or
    ``"none"``."""

    def __init__(self, num_labels: int, average="macro", thresholds=None, ignore_index=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(num_labels, thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args,
                         **kwargs)
        if validate_args:
            check_average(average, ("micro", "macro", "weighted", "none", None))
        self.average = average

    def compute(self):
        """The average precision averaged by ``average``."""
        return wrap(_multilabel_average_precision_compute(self._final_state(), self.num_labels, self.average,
                                                          self._thresholds_array(), self.ignore_index))


class AveragePrecision(_ClassificationTaskWrapper):
    """Average precision for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, thresholds=None, num_classes=None, num_labels=None, average="macro",
                ignore_index=None, validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(thresholds=thresholds, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryAveragePrecision(**kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassAveragePrecision(num_classes, average, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelAveragePrecision(num_labels, average, **kwargs)
