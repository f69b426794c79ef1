"""Confusion-matrix metrics (also the base of Matthews, Cohen's kappa and Jaccard)."""
from __future__ import annotations

from ...core.dtypes import int64
from ...core.ops.creation import zeros

from ..functional.classification.confusion_matrix import (_binary_confusion_matrix_arg_validation,
                                                          _binary_confusion_matrix_format,
                                                          _binary_confusion_matrix_tensor_validation,
                                                          _binary_confusion_matrix_update, _confusion_matrix_reduce,
                                                          _multiclass_confusion_matrix_arg_validation,
                                                          _multiclass_confusion_matrix_format,
                                                          _multiclass_confusion_matrix_tensor_validation,
                                                          _multiclass_confusion_matrix_update,
                                                          _multilabel_confusion_matrix_arg_validation,
                                                          _multilabel_confusion_matrix_format,
                                                          _multilabel_confusion_matrix_tensor_validation,
                                                          _multilabel_confusion_matrix_update)
from ..metric import Metric
from ..utilities.checks import check_task
from ..utilities.data import wrap
from .base import _arrays, _ClassificationTaskWrapper, _require_int

__all__ = ["ConfusionMatrix", "BinaryConfusionMatrix", "MulticlassConfusionMatrix", "MultilabelConfusionMatrix"]


class BinaryConfusionMatrix(Metric):
    """The 2x2 confusion matrix ``[[tn, fp], [fn, tp]]`` of a binary task.

    Args:
        threshold (float): the probability above which a prediction is positive.
        ignore_index (int): a target value to leave out.
        normalize (str or None): ``"true"`` (rows sum to 1), ``"pred"`` (columns), ``"all"`` or
            ``None``/``"none"``.
        validate_args (bool): check the inputs on every update.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, threshold: float = 0.5, ignore_index=None, normalize=None, validate_args: bool = True,
                 **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _binary_confusion_matrix_arg_validation(threshold, ignore_index, normalize)
        self.threshold = threshold
        self.ignore_index = ignore_index
        self.normalize = normalize
        self.validate_args = validate_args
        self.add_state("confmat", zeros((2, 2), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Count the batch into the matrix."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _binary_confusion_matrix_tensor_validation(p, t, self.ignore_index)
        p, t = _binary_confusion_matrix_format(p, t, self.threshold, self.ignore_index)
        self.confmat._data += _binary_confusion_matrix_update(p, t)

    def compute(self):
        """The (normalised) confusion matrix."""
        return wrap(_confusion_matrix_reduce(self.confmat._data, self.normalize))


class MulticlassConfusionMatrix(Metric):
    """The ``C x C`` confusion matrix of a multiclass task (rows: true class, columns: predicted class).

    Args:
        num_classes (int): the number of classes.
        ignore_index, normalize, validate_args: see :class:`BinaryConfusionMatrix`.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, num_classes: int, ignore_index=None, normalize=None, validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _multiclass_confusion_matrix_arg_validation(num_classes, ignore_index, normalize)
        self.num_classes = num_classes
        self.ignore_index = ignore_index
        self.normalize = normalize
        self.validate_args = validate_args
        self.add_state("confmat", zeros((num_classes, num_classes), dtype=int64, device=self.device),
                       dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Count the batch into the matrix."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multiclass_confusion_matrix_tensor_validation(p, t, self.num_classes, self.ignore_index)
        p, t = _multiclass_confusion_matrix_format(p, t, self.ignore_index)
        self.confmat._data += _multiclass_confusion_matrix_update(p, t, self.num_classes)

    def compute(self):
        """The (normalised) confusion matrix."""
        return wrap(_confusion_matrix_reduce(self.confmat._data, self.normalize))


class MultilabelConfusionMatrix(Metric):
    """One 2x2 confusion matrix per label, shape ``(L, 2, 2)``.

    Args:
        num_labels (int): the number of labels.
        threshold, ignore_index, normalize, validate_args: see :class:`BinaryConfusionMatrix`.
    """

    is_differentiable = False
    higher_is_better = None
    full_state_update = False

    def __init__(self, num_labels: int, threshold: float = 0.5, ignore_index=None, normalize=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _multilabel_confusion_matrix_arg_validation(num_labels, threshold, ignore_index, normalize)
        self.num_labels = num_labels
        self.threshold = threshold
        self.ignore_index = ignore_index
        self.normalize = normalize
        self.validate_args = validate_args
        self.add_state("confmat", zeros((num_labels, 2, 2), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Count the batch into the matrices."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multilabel_confusion_matrix_tensor_validation(p, t, self.num_labels, self.ignore_index)
        p, t = _multilabel_confusion_matrix_format(p, t, self.num_labels, self.threshold, self.ignore_index)
        self.confmat._data += _multilabel_confusion_matrix_update(p, t, self.num_labels)

    def compute(self):
        """The (normalised) confusion matrices."""
        return wrap(_confusion_matrix_reduce(self.confmat._data, self.normalize))


class ConfusionMatrix(_ClassificationTaskWrapper):
    """The confusion matrix for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, normalize=None,
                ignore_index=None, validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(normalize=normalize, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryConfusionMatrix(threshold, **kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassConfusionMatrix(num_classes, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelConfusionMatrix(num_labels, threshold, **kwargs)
