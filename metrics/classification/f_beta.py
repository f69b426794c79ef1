"""F-beta and F1 metrics."""
from __future__ import annotations

from ..functional.classification.f_beta import _check_beta, _fbeta_reduce
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper
from .precision_recall import _ScoreMixin
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, _task_metric

__all__ = ["FBetaScore", "F1Score", "BinaryFBetaScore", "MulticlassFBetaScore", "MultilabelFBetaScore",
           "BinaryF1Score", "MulticlassF1Score", "MultilabelF1Score"]


class BinaryFBetaScore(_ScoreMixin, BinaryStatScores):
    """F-beta score for binary tasks: ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)``.

    Args:
        beta (float): the weight of recall relative to precision (> 0).
        other arguments: as in :class:`~ember.metrics.classification.BinaryStatScores`.
    """

    def __init__(self, beta: float, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs):
        super().__init__(threshold=threshold, multidim_average=multidim_average, ignore_index=ignore_index,
                         validate_args=validate_args, zero_division=zero_division, **kwargs)
        if validate_args:
            _check_beta(beta)
        self.beta = beta

    def compute(self):
        """The F-beta score."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_fbeta_reduce(tp, fp, tn, fn, self.beta, "binary", self.multidim_average,
                                  zero_division=self.zero_division))


class MulticlassFBetaScore(_ScoreMixin, MulticlassStatScores):
    """F-beta score for multiclass tasks, per class then averaged by ``average``."""

    def __init__(self, beta: float, num_classes: int, top_k: int = 1, average="macro",
                 multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs):
        super().__init__(num_classes=num_classes, top_k=top_k, average=average, multidim_average=multidim_average,
                         ignore_index=ignore_index, validate_args=validate_args, zero_division=zero_division,
                         **kwargs)
        if validate_args:
            _check_beta(beta)
        self.beta = beta

    def compute(self):
        """The F-beta score averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_fbeta_reduce(tp, fp, tn, fn, self.beta, self.average, self.multidim_average,
                                  zero_division=self.zero_division))


class MultilabelFBetaScore(_ScoreMixin, MultilabelStatScores):
    """F-beta score for multilabel tasks, per label then averaged by ``average``."""

    def __init__(self, beta: float, num_labels: int, threshold: float = 0.5, average="macro",
                 multidim_average: str = "global", ignore_index=None, validate_args: bool = True,
                 zero_division: float = 0, **kwargs):
        super().__init__(num_labels=num_labels, threshold=threshold, average=average,
                         multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args,
                         zero_division=zero_division, **kwargs)
        if validate_args:
            _check_beta(beta)
        self.beta = beta

    def compute(self):
        """The F-beta score averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_fbeta_reduce(tp, fp, tn, fn, self.beta, self.average, self.multidim_average, multilabel=True,
                                  zero_division=self.zero_division))


class BinaryF1Score(BinaryFBetaScore):
    """F1 score (harmonic mean of precision and recall) for binary tasks."""

    def __init__(self, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                 validate_args: bool = True, zero_division: float = 0, **kwargs):
        super().__init__(1.0, threshold, multidim_average, ignore_index, validate_args, zero_division, **kwargs)


class MulticlassF1Score(MulticlassFBetaScore):
    """F1 score for multiclass tasks."""

    def __init__(self, num_classes: int, top_k: int = 1, average="macro", multidim_average: str = "global",
                 ignore_index=None, validate_args: bool = True, zero_division: float = 0, **kwargs):
        super().__init__(1.0, num_classes, top_k, average, multidim_average, ignore_index, validate_args,
                         zero_division, **kwargs)


class MultilabelF1Score(MultilabelFBetaScore):
    """F1 score for multilabel tasks."""

    def __init__(self, num_labels: int, threshold: float = 0.5, average="macro", multidim_average: str = "global",
                 ignore_index=None, validate_args: bool = True, zero_division: float = 0, **kwargs):
        super().__init__(1.0, num_labels, threshold, average, multidim_average, ignore_index, validate_args,
                         zero_division, **kwargs)


class FBetaScore(_ClassificationTaskWrapper):
    """F-beta score for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, beta: float = 1.0, threshold: float = 0.5, num_classes=None, num_labels=None,
                average="micro", multidim_average: str = "global", top_k: int = 1, ignore_index=None,
                validate_args: bool = True, **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryFBetaScore, MulticlassFBetaScore, MultilabelFBetaScore, threshold,
                            num_classes, num_labels, average, top_k, kwargs, binary_args=(beta,), class_args=(beta,))


class F1Score(_ClassificationTaskWrapper):
    """F1 score for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryF1Score, MulticlassF1Score, MultilabelF1Score, threshold, num_classes,
                            num_labels, average, top_k, kwargs)
