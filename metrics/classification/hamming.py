"""Hamming distance metrics."""
from __future__ import annotations

from ..functional.classification.hamming import _hamming_distance_reduce
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, _task_metric

__all__ = ["HammingDistance", "BinaryHammingDistance", "MulticlassHammingDistance", "MultilabelHammingDistance"]


class _HammingMixin:
    is_differentiable = False
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0


class BinaryHammingDistance(_HammingMixin, BinaryStatScores):
    """Hamming distance for binary tasks: the fraction of wrong predictions."""

    def compute(self):
        """The Hamming distance."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_hamming_distance_reduce(tp, fp, tn, fn, "binary", self.multidim_average))


class MulticlassHammingDistance(_HammingMixin, MulticlassStatScores):
    """Hamming distance for multiclass tasks (``1 - accuracy`` with the same averaging)."""

    def compute(self):
        """The Hamming distance averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_hamming_distance_reduce(tp, fp, tn, fn, self.average, self.multidim_average, top_k=self.top_k))


class MultilabelHammingDistance(_HammingMixin, MultilabelStatScores):
    """Hamming distance for multilabel tasks: the fraction of wrong labels."""

    def compute(self):
        """The Hamming distance averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_hamming_distance_reduce(tp, fp, tn, fn, self.average, self.multidim_average, multilabel=True))


class HammingDistance(_ClassificationTaskWrapper):
    """Hamming distance for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryHammingDistance, MulticlassHammingDistance, MultilabelHammingDistance,
                            threshold, num_classes, num_labels, average, top_k, kwargs)
