"""Specificity metrics."""
from __future__ import annotations

from ..functional.classification.specificity import _specificity_reduce
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper
from .precision_recall import _ScoreMixin
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, _task_metric

__all__ = ["Specificity", "BinarySpecificity", "MulticlassSpecificity", "MultilabelSpecificity"]


class BinarySpecificity(_ScoreMixin, BinaryStatScores):
    """Specificity (true negative rate) ``tn / (tn + fp)`` for binary tasks."""

    def compute(self):
        """The specificity."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_specificity_reduce(tp, fp, tn, fn, "binary", self.multidim_average,
                                        zero_division=self.zero_division))


class MulticlassSpecificity(_ScoreMixin, MulticlassStatScores):
    """Specificity for multiclass tasks (one-vs-rest per class), averaged by ``average``."""

    def compute(self):
        """The specificity averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_specificity_reduce(tp, fp, tn, fn, self.average, self.multidim_average, top_k=self.top_k,
                                        zero_division=self.zero_division))


class MultilabelSpecificity(_ScoreMixin, MultilabelStatScores):
    """Specificity for multilabel tasks, per label then averaged by ``average``."""

    def compute(self):
        """The specificity averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_specificity_reduce(tp, fp, tn, fn, self.average, self.multidim_average, multilabel=True,
                                        zero_division=self.zero_division))


class Specificity(_ClassificationTaskWrapper):
    """Specificity for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinarySpecificity, MulticlassSpecificity, MultilabelSpecificity, threshold,
                            num_classes, num_labels, average, top_k, kwargs)
