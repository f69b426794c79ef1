"""Jaccard index (intersection over union) metrics."""
from __future__ import annotations

from ..functional.classification.jaccard import _AVERAGES, _jaccard_index_reduce
from ..functional.classification.stat_scores import _check_zero_division
from ..utilities.checks import check_average, check_task
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper, _require_int
from .confusion_matrix import BinaryConfusionMatrix, MulticlassConfusionMatrix, MultilabelConfusionMatrix

__all__ = ["JaccardIndex", "BinaryJaccardIndex", "MulticlassJaccardIndex", "MultilabelJaccardIndex"]


class _JaccardMixin:
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0


class BinaryJaccardIndex(_JaccardMixin, BinaryConfusionMatrix):
    """Jaccard index of the positive class ``tp / (tp + fp + fn)`` for binary tasks; ``zero_division`` when there
    is no positive in either predictions or targets."""

    def __init__(self, threshold: float = 0.5, ignore_index=None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs):
        super().__init__(threshold, ignore_index, normalize=None, validate_args=validate_args, **kwargs)
        if validate_args:
            _check_zero_division(zero_division)
        self.zero_division = zero_division

    def compute(self):
        """The Jaccard index."""
        return wrap(_jaccard_index_reduce(self.confmat._data, "binary", zero_division=self.zero_division))


class MulticlassJaccardIndex(_JaccardMixin, MulticlassConfusionMatrix):
    """Jaccard index for multiclass tasks, per class then averaged by ``average`` (default ``"macro"``, which
    skips classes absent from both predictions and targets, and the ``ignore_index`` class)."""

    def __init__(self, num_classes: int, average="macro", ignore_index=None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs):
        super().__init__(num_classes, ignore_index, normalize=None, validate_args=validate_args, **kwargs)
        if validate_args:
            check_average(average, _AVERAGES)
            _check_zero_division(zero_division)
        self.average = average
        self.zero_division = zero_division

    def compute(self):
        """The Jaccard index averaged by ``average``."""
        return wrap(_jaccard_index_reduce(self.confmat._data, self.average, self.ignore_index, self.zero_division))


class MultilabelJaccardIndex(_JaccardMixin, MultilabelConfusionMatrix):
    """Jaccard index for multilabel tasks, per label then averaged by ``average``."""

    def __init__(self, num_labels: int, threshold: float = 0.5, average="macro", ignore_index=None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs):
        super().__init__(num_labels, threshold, ignore_index, normalize=None, validate_args=validate_args, **kwargs)
        if validate_args:
            check_average(average, _AVERAGES)
            _check_zero_division(zero_division)
        self.average = average
        self.zero_division = zero_division

    def compute(self):
        """The Jaccard index averaged by ``average``."""
        return wrap(_jaccard_index_reduce(self.confmat._data, self.average, self.ignore_index, self.zero_division))


class JaccardIndex(_ClassificationTaskWrapper):
    """Jaccard index for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="macro",
                ignore_index=None, validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryJaccardIndex(threshold, **kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassJaccardIndex(num_classes, average, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelJaccardIndex(num_labels, threshold, average, **kwargs)
