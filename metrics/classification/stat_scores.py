"""Stat-score metrics: ``[tp, fp, tn, fn, support]`` per task."""
from __future__ import annotations

from ..functional.classification.stat_scores import (_binary_stat_scores_arg_validation,
                                                     _binary_stat_scores_compute, _binary_stat_scores_format,
                                                     _binary_stat_scores_tensor_validation,
                                                     _binary_stat_scores_update,
                                                     _multiclass_stat_scores_arg_validation,
                                                     _multiclass_stat_scores_compute, _multiclass_stat_scores_format,
                                                     _multiclass_stat_scores_tensor_validation,
                                                     _multiclass_stat_scores_update,
                                                     _multilabel_stat_scores_arg_validation,
                                                     _multilabel_stat_scores_compute, _multilabel_stat_scores_format,
                                                     _multilabel_stat_scores_tensor_validation,
                                                     _multilabel_stat_scores_update)
from ..utilities.checks import check_task
from ..utilities.data import wrap
from .base import _AbstractStatScores, _arrays, _ClassificationTaskWrapper, _require_int

__all__ = ["BinaryStatScores", "MulticlassStatScores", "MultilabelStatScores", "StatScores"]


class BinaryStatScores(_AbstractStatScores):
    """``[tp, fp, tn, fn, support]`` for binary tasks.

    ``preds`` are labels, probabilities or logits (sigmoid applied when outside [0, 1]) of shape ``(N, ...)``;
    ``target`` holds labels in {0, 1}.

    Args:
        threshold (float): the probability above which a prediction is positive. Default: 0.5.
        multidim_average (str): ``"global"`` (extra dimensions flattened into the batch) or ``"samplewise"``
            (one result per sample).
        ignore_index (int): a target value whose entries do not count.
        validate_args (bool): check the inputs on every update (set ``False`` for speed).
        kwargs: the :class:`~ember.metrics.Metric` options.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, threshold: float = 0.5, multidim_average: str = "global", ignore_index=None,
                 validate_args: bool = True, **kwargs):
        zero_division = kwargs.pop("zero_division", 0)
        super().__init__(**kwargs)
        if validate_args:
            _binary_stat_scores_arg_validation(threshold, multidim_average, ignore_index, zero_division)
        self.threshold = threshold
        self.multidim_average = multidim_average
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self.zero_division = zero_division
        self._create_state(size=(), multidim_average=multidim_average)

    def update(self, preds, target) -> None:
        """Accumulate the stat scores of a batch."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _binary_stat_scores_tensor_validation(p, t, self.multidim_average, self.ignore_index)
        p, t = _binary_stat_scores_format(p, t, self.threshold, self.ignore_index)
        self._update_state(*_binary_stat_scores_update(p, t, self.multidim_average))

    def compute(self):
        """``[tp, fp, tn, fn, support]``, shape ``(5,)`` (``(N, 5)`` samplewise)."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_binary_stat_scores_compute(tp, fp, tn, fn, self.multidim_average))


class MulticlassStatScores(_AbstractStatScores):
    """``[tp, fp, tn, fn, support]`` for multiclass tasks.

    ``preds`` are labels ``(N, ...)`` or scores ``(N, C, ...)`` (argmax, or top-k, over ``C``); ``target`` holds
    labels in ``[0, num_classes)``.

    Args:
        num_classes (int): the number of classes.
        top_k (int): a prediction counts as correct if the target is among its ``top_k`` highest scores.
        average (str or None): ``"micro"``, ``"macro"`` (default), ``"weighted"`` or ``"none"``/``None``.
        multidim_average, ignore_index, validate_args: see :class:`BinaryStatScores`.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, num_classes: int, top_k: int = 1, average="macro", multidim_average: str = "global",
                 ignore_index=None, validate_args: bool = True, **kwargs):
        zero_division = kwargs.pop("zero_division", 0)
        super().__init__(**kwargs)
        if validate_args:
            _multiclass_stat_scores_arg_validation(num_classes, top_k, average, multidim_average, ignore_index,
                                                   zero_division)
        self.num_classes = num_classes
        self.top_k = top_k
        self.average = average
        self.multidim_average = multidim_average
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self.zero_division = zero_division
        size = () if (average == "micro" and top_k == 1) else (num_classes,)
        self._create_state(size=size, multidim_average=multidim_average)

    def update(self, preds, target) -> None:
        """Accumulate the stat scores of a batch."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multiclass_stat_scores_tensor_validation(p, t, self.num_classes, self.multidim_average,
                                                      self.ignore_index, self.top_k)
        p, t = _multiclass_stat_scores_format(p, t, self.top_k)
        self._update_state(*_multiclass_stat_scores_update(p, t, self.num_classes, self.top_k, self.average,
                                                           self.multidim_average, self.ignore_index))

    def compute(self):
        """``[tp, fp, tn, fn, support]`` averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_multiclass_stat_scores_compute(tp, fp, tn, fn, self.average, self.multidim_average))


class MultilabelStatScores(_AbstractStatScores):
    """``[tp, fp, tn, fn, support]`` for multilabel tasks (``preds``/``target`` of shape ``(N, L, ...)``).

    Args:
        num_labels (int): the number of labels.
        threshold (float): the probability above which a label is predicted.
        average, multidim_average, ignore_index, validate_args: see :class:`MulticlassStatScores`.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, num_labels: int, threshold: float = 0.5, average="macro", multidim_average: str = "global",
                 ignore_index=None, validate_args: bool = True, **kwargs):
        zero_division = kwargs.pop("zero_division", 0)
        super().__init__(**kwargs)
        if validate_args:
            _multilabel_stat_scores_arg_validation(num_labels, threshold, average, multidim_average, ignore_index,
                                                   zero_division)
        self.num_labels = num_labels
        self.threshold = threshold
        self.average = average
        self.multidim_average = multidim_average
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self.zero_division = zero_division
        self._create_state(size=(num_labels,), multidim_average=multidim_average)

    def update(self, preds, target) -> None:
        """Accumulate the stat scores of a batch."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multilabel_stat_scores_tensor_validation(p, t, self.num_labels, self.multidim_average,
                                                      self.ignore_index)
        p, t = _multilabel_stat_scores_format(p, t, self.num_labels, self.threshold, self.ignore_index)
        self._update_state(*_multilabel_stat_scores_update(p, t, self.multidim_average))

    def compute(self):
        """``[tp, fp, tn, fn, support]`` averaged by ``average``."""
        tp, fp, tn, fn = self._final_state()
        return wrap(_multilabel_stat_scores_compute(tp, fp, tn, fn, self.average, self.multidim_average))


def _task_metric(task, binary_cls, multiclass_cls, multilabel_cls, threshold, num_classes, num_labels, average,
                 top_k, kwargs, binary_args=(), class_args=()):
    """Build the task-specific metric for the stat-score family (shared by the wrappers' ``__new__``)."""
    task = check_task(task)
    if task == "binary":
        return binary_cls(*binary_args, threshold, **kwargs)
    if task == "multiclass":
        _require_int(num_classes, "num_classes")
        _require_int(top_k, "top_k")
        return multiclass_cls(*class_args, num_classes, top_k, average, **kwargs)
    _require_int(num_labels, "num_labels")
    return multilabel_cls(*class_args, num_labels, threshold, average, **kwargs)


class StatScores(_ClassificationTaskWrapper):
    """Stat scores for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``: returns a
    :class:`BinaryStatScores`, :class:`MulticlassStatScores` or :class:`MultilabelStatScores`."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, average="micro",
                multidim_average: str = "global", top_k: int = 1, ignore_index=None, validate_args: bool = True,
                **kwargs):
        kwargs.update(multidim_average=multidim_average, ignore_index=ignore_index, validate_args=validate_args)
        return _task_metric(task, BinaryStatScores, MulticlassStatScores, MultilabelStatScores, threshold,
                            num_classes, num_labels, average, top_k, kwargs)
