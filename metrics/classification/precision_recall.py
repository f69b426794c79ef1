"""Precision and recall metrics."""
from __future__ import annotations

from ..functional.classification.precision_recall import _precision_recall_reduce
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, _task_metric

__all__ = ["Precision", "Recall", "BinaryPrecision", "MulticlassPrecision", "MultilabelPrecision", "BinaryRecall",
           "MulticlassRecall", "MultilabelRecall"]


class _ScoreMixin:
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0


class BinaryPrecision(_ScoreMixin, BinaryStatScores):
    """Precision ``tp / (tp + fp)`` for binary tasks; ``zero_division`` (0, 1 or nan; default 0) when nothing is
    predicted positive. Arguments as in :class:`~ember.metrics.classification.BinaryStatScores`."""

    def compute(self):
        """The precision."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("precision", tp, fp, tn, fn, "binary", self.multidim_average,
                                             zero_division=self.zero_division))


class MulticlassPrecision(_ScoreMixin, MulticlassStatScores):
    """Precision for multiclass tasks, per class then averaged by ``average`` (default ``"macro"``).

    A class never predicted has precision ``zero_division`` (default 0); ``"macro"`` leaves out the classes absent
    from both predictions and targets.
    """

    def compute(self):
        """The precision averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("precision", tp, fp, tn, fn, self.average, self.multidim_average,
                                             top_k=self.top_k, zero_division=self.zero_division))


class MultilabelPrecision(_ScoreMixin, MultilabelStatScores):
    """Precision for multilabel tasks, per label then averaged by ``average``."""

    def compute(self):
        """The precision averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("precision", tp, fp, tn, fn, self.average, self.multidim_average,
                                             multilabel=True, zero_division=self.zero_division))


class BinaryRecall(_ScoreMixin, BinaryStatScores):
    """Recall ``tp / (tp + fn)`` for binary tasks; ``zero_division`` when the target has no positive."""

    def compute(self):
        """The recall."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("recall", tp, fp, tn, fn, "binary", self.multidim_average,
                                             zero_division=self.zero_division))


class MulticlassRecall(_ScoreMixin, MulticlassStatScores):
    """Recall for multiclass tasks, per class then averaged by ``average``; a class absent from the targets has
    recall ``zero_division``."""

    def compute(self):
        """The recall averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("recall", tp, fp, tn, fn, self.average, self.multidim_average,
                                             top_k=self.top_k, zero_division=self.zero_division))


class MultilabelRecall(_ScoreMixin, MultilabelStatScores):
    """Recall for multilabel tasks, per label then averaged by ``average``."""

    def compute(self):
        """The recall averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_precision_recall_reduce("recall", tp, fp, tn, fn, self.average, self.multidim_average,
                                             multilabel=True, zero_division=self.zero_division))


class Precision(_ClassificationTaskWrapper):
    """Precision for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"`` (arguments as in
    :class:`~ember.metrics.Accuracy`, plus ``zero_division``)."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryPrecision, MulticlassPrecision, MultilabelPrecision, threshold,
                            num_classes, num_labels, average, top_k, kwargs)


class Recall(_ClassificationTaskWrapper):
    """Recall for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryRecall, MulticlassRecall, MultilabelRecall, threshold, num_classes,
                            num_labels, average, top_k, kwargs)
