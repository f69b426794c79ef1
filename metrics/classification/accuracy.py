"""Accuracy metrics."""
from __future__ import annotations

from ..functional.classification.accuracy import _accuracy_reduce
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper
from .stat_scores import BinaryStatScores, MulticlassStatScores, MultilabelStatScores, _task_metric

__all__ = ["Accuracy", "BinaryAccuracy", "MulticlassAccuracy", "MultilabelAccuracy"]


class BinaryAccuracy(BinaryStatScores):
    """Accuracy for binary tasks: the fraction of correct predictions.

    Arguments as in :class:`~ember.metrics.classification.BinaryStatScores`.

    Example::

        >>> metric = BinaryAccuracy()
        >>> metric(em.tensor([0.8, 0.2, 0.6, 0.1]), em.tensor([1, 0, 0, 0]))
        tensor(0.7500)
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def compute(self):
        """The accuracy over everything seen (one value per sample with ``multidim_average="samplewise"``)."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_accuracy_reduce(tp, fp, tn, fn, "binary", self.multidim_average))


class MulticlassAccuracy(MulticlassStatScores):
    """Accuracy for multiclass tasks.

    ``average="micro"`` is the fraction of correct predictions; ``"macro"`` (the default) averages the per-class
    accuracy (recall) over the classes that appear in predictions or targets; ``"weighted"`` weighs by support;
    ``"none"``/``None`` gives one value per class. Arguments as in
    :class:`~ember.metrics.classification.MulticlassStatScores`.

    Example::

        >>> metric = MulticlassAccuracy(num_classes=3)
        >>> metric(em.tensor([2, 1, 0, 1]), em.tensor([2, 1, 0, 0]))
        tensor(0.8333)
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def compute(self):
        """The accuracy averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_accuracy_reduce(tp, fp, tn, fn, self.average, self.multidim_average, top_k=self.top_k))


class MultilabelAccuracy(MultilabelStatScores):
    """Accuracy for multilabel tasks: per label ``(tp + tn) / all``, averaged by ``average``.

    Arguments as in :class:`~ember.metrics.classification.MultilabelStatScores`.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def compute(self):
        """The accuracy averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_accuracy_reduce(tp, fp, tn, fn, self.average, self.multidim_average, multilabel=True))


class Accuracy(_ClassificationTaskWrapper):
    """Accuracy for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``.

    ``Accuracy(task="multiclass", num_classes=3)`` returns a :class:`MulticlassAccuracy`, and so on. The default
    ``average`` here is ``"micro"`` (the plain fraction of correct predictions).

    Args:
        task (str): ``"binary"``, ``"multiclass"`` or ``"multilabel"``.
        threshold (float): binary/multilabel decision threshold.
        num_classes (int): required for multiclass.
        num_labels (int): required for multilabel.
        average (str or None): ``"micro"``, ``"macro"``, ``"weighted"`` or ``"none"``/``None``.
        multidim_average (str): ``"global"`` or ``"samplewise"``.
        top_k (int): multiclass top-k accuracy.
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs.
    """

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryAccuracy, MulticlassAccuracy, MultilabelAccuracy, threshold, num_classes,
                            num_labels, average, top_k, kwargs)
