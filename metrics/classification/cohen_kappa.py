"""Cohen's kappa metrics."""
from __future__ import annotations

from ..functional.classification.cohen_kappa import _check_weights, _cohen_kappa_reduce
from ..utilities.checks import check_task
from ..utilities.data import wrap
from .base import _ClassificationTaskWrapper, _require_int
from .confusion_matrix import BinaryConfusionMatrix, MulticlassConfusionMatrix

__all__ = ["CohenKappa", "BinaryCohenKappa", "MulticlassCohenKappa"]


class _KappaMixin:
    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0


class BinaryCohenKappa(_KappaMixin, BinaryConfusionMatrix):
    """Cohen's kappa for binary tasks.

    Args:
        threshold (float), ignore_index (int), validate_args (bool): as in :class:`BinaryConfusionMatrix`.
        weights (str or None): ``None``/``"none"``, ``"linear"`` or ``"quadratic"``.
    """

    def __init__(self, threshold: float = 0.5, ignore_index=None, weights=None, validate_args: bool = True,
                 **kwargs):
        super().__init__(threshold, ignore_index, normalize=None, validate_args=validate_args, **kwargs)
        if validate_args:
            _check_weights(weights)
        self.weights = weights

    def compute(self):
        """Kappa."""
        return wrap(_cohen_kappa_reduce(self.confmat._data, self.weights))


class MulticlassCohenKappa(_KappaMixin, MulticlassConfusionMatrix):
    """Cohen's kappa for multiclass tasks (``weights`` as in :class:`BinaryCohenKappa`)."""

    def __init__(self, num_classes: int, ignore_index=None, weights=None, validate_args: bool = True, **kwargs):
        super().__init__(num_classes, ignore_index, normalize=None, validate_args=validate_args, **kwargs)
        if validate_args:
            _check_weights(weights)
        self.weights = weights

    def compute(self):
        """Kappa."""
        return wrap(_cohen_kappa_reduce(self.confmat._data, self.weights))


class CohenKappa(_ClassificationTaskWrapper):
    """Cohen's kappa for ``task`` ``"binary"`` or ``"multiclass"``."""

    def __new__(cls, task: str, threshold: float = 0.5, num_classes=None, weights=None, ignore_index=None,
                validate_args: bool = True, **kwargs):
        task = check_task(task, ("binary", "multiclass"))
        kwargs.update(weights=weights, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryCohenKappa(threshold, **kwargs)
        _require_int(num_classes, "num_classes")
        return MulticlassCohenKappa(num_classes, **kwargs)
