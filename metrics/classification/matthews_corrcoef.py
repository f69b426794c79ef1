"""Matthews correlation coefficient metrics."""
from __future__ import annotations

from ..functional.classification.matthews_corrcoef import _matthews_corrcoef_reduce
from ..utilities.checks import check_task
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper, _require_int
from .confusion_matrix import BinaryConfusionMatrix, MulticlassConfusionMatrix, MultilabelConfusionMatrix

__all__ = ["MatthewsCorrCoef", "BinaryMatthewsCorrCoef", "MulticlassMatthewsCorrCoef", "MultilabelMatthewsCorrCoef"]


class _MCCMixin:
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0


class BinaryMatthewsCorrCoef(_MCCMixin, BinaryConfusionMatrix):
    """Matthews correlation coefficient for binary tasks, in [-1, 1].

    Args:
        threshold (float), ignore_index (int), validate_args (bool): as in :class:`BinaryConfusionMatrix`.
    """

    def __init__(self, threshold: float = 0.5, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(threshold, ignore_index, normalize=None, validate_args=validate_args, **kwargs)

    def compute(self):
        """The coefficient."""
        return wrap(_matthews_corrcoef_reduce(self.confmat._data))


class MulticlassMatthewsCorrCoef(_MCCMixin, MulticlassConfusionMatrix):
    """Matthews correlation coefficient for multiclass tasks."""

    def __init__(self, num_classes: int, ignore_index=None, validate_args: bool = True, **kwargs):
        super().__init__(num_classes, ignore_index, normalize=None, validate_args=validate_args, **kwargs)

    def compute(self):
        """The coefficient."""
        return wrap(_matthews_corrcoef_reduce(self.confmat._data))


class MultilabelMatthewsCorrCoef(_MCCMixin, MultilabelConfusionMatrix):
    """Matthews correlation coefficient for multilabel tasks (labels pooled into one binary problem)."""

    def __init__(self, num_labels: int, threshold: float = 0.5, ignore_index=None, validate_args: bool = True,
                 **kwargs):
        super().__init__(num_labels, threshold, ignore_index, normalize=None, validate_args=validate_args, **kwargs)

    def compute(self):
        """The coefficient."""
        return wrap(_matthews_corrcoef_reduce(self.confmat._data))


class MatthewsCorrCoef(_ClassificationTaskWrapper):
    """Matthews correlation coefficient for ``task`` ``"binary"``, ``"multiclass"`` or ``"multilabel"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, num_labels=None, ignore_index=None,
                validate_args: bool = True, **kwargs):
        task = check_task(task)
        kwargs.update(ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryMatthewsCorrCoef(threshold, **kwargs)
        if task == "multiclass":
            _require_int(num_classes, "num_classes")
            return MulticlassMatthewsCorrCoef(num_classes, **kwargs)
        _require_int(num_labels, "num_labels")
        return MultilabelMatthewsCorrCoef(num_labels, threshold, **kwargs)
