"""Calibration error metrics."""
from __future__ import annotations

from ..functional.classification.calibration_error import (_binary_calibration_error_tensor_validation,
                                                           _binary_calibration_error_update, _ce_arg_validation,
                                                           _ce_compute, _multiclass_calibration_error_update)
from ..functional.classification.confusion_matrix import _binary_confusion_matrix_format
from ..functional.classification.precision_recall_curve import _multiclass_precision_recall_curve_tensor_validation
from ..metric import Metric
from ..utilities.checks import check_task
from ..utilities.compute import array_module
from ..utilities.data import dim_zero_cat, wrap
from .base import _arrays, _ClassificationTaskWrapper, _require_int

__all__ = ["CalibrationError", "BinaryCalibrationError", "MulticlassCalibrationError"]


class _CalibrationStates(Metric):
    is_differentiable = False
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0
    plot_upper_bound = 1.0

    def _init_states(self) -> None:
        self.add_state("confidences", [], dist_reduce_fx="cat")
        self.add_state("accuracies", [], dist_reduce_fx="cat")

    def compute(self):
        """The calibration error over everything seen."""
        confidences = dim_zero_cat(self.confidences)._data
        accuracies = dim_zero_cat(self.accuracies)._data
        return wrap(_ce_compute(confidences, accuracies, self.n_bins, self.norm))


class BinaryCalibrationError(_CalibrationStates):
    """Calibration error of a binary task (confidence = positive-class probability, sigmoid applied to logits).

    Args:
        n_bins (int): the number of equal-width confidence bins. Default: 15.
        norm (str): ``"l1"`` (expected calibration error), ``"l2"`` (RMS) or ``"max"``.
        ignore_index (int): a target value to leave out.
        validate_args (bool): check the inputs on every update.
    """

    def __init__(self, n_bins: int = 15, norm: str = "l1", ignore_index=None, validate_args: bool = True,
                 **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            _ce_arg_validation(n_bins, norm, ignore_index)
        self.n_bins = n_bins
        self.norm = norm
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self._init_states()

    def update(self, preds, target) -> None:
        """Store the batch's confidences and outcomes."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _binary_calibration_error_tensor_validation(p, t, self.ignore_index)
        p, t = _binary_confusion_matrix_format(p, t, ignore_index=self.ignore_index, convert_to_labels=False)
        confidences, accuracies = _binary_calibration_error_update(p, t)
        self.confidences.append(wrap(confidences.copy()))  # may be a view of the caller's tensor
        self.accuracies.append(wrap(accuracies.astype(confidences.dtype)))


class MulticlassCalibrationError(_CalibrationStates):
    """Calibration error of a multiclass task (top-label confidence, softmax applied to logits).

    Args:
        num_classes (int): the number of classes.
        n_bins, norm, ignore_index, validate_args: see :class:`BinaryCalibrationError`.
    """

    def __init__(self, num_classes: int, n_bins: int = 15, norm: str = "l1", ignore_index=None,
                 validate_args: bool = True, **kwargs):
        super().__init__(**kwargs)
        if validate_args:
            if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 2:
                raise ValueError(f"Expected argument `num_classes` to be an integer larger than 1, but got "
                                 f"{num_classes!r}")
            _ce_arg_validation(n_bins, norm, ignore_index)
        self.num_classes = num_classes
        self.n_bins = n_bins
        self.norm = norm
        self.ignore_index = ignore_index
        self.validate_args = validate_args
        self._init_states()

    def update(self, preds, target) -> None:
        """Store the batch's top-label confidences and whether they were right."""
        p, t = _arrays(preds, target)
        if self.validate_args:
            _multiclass_precision_recall_curve_tensor_validation(p, t, self.num_classes, self.ignore_index)
        p = array_module(p).moveaxis(p, 1, -1).reshape(-1, p.shape[1])
        t = t.reshape(-1)
        if self.ignore_index is not None:
            keep = t != self.ignore_index
            p, t = p[keep], t[keep]
        confidences, accuracies = _multiclass_calibration_error_update(p, t)
        self.confidences.append(wrap(confidences))
        self.accuracies.append(wrap(accuracies))


class CalibrationError(_ClassificationTaskWrapper):
    """Calibration error for ``task`` ``"binary"`` or ``"multiclass"``."""

    def __new__(cls, task: str, n_bins: int = 15, norm: str = "l1", num_classes=None, ignore_index=None,
                validate_args: bool = True, **kwargs):
        task = check_task(task, ("binary", "multiclass"))
        kwargs.update(n_bins=n_bins, norm=norm, ignore_index=ignore_index, validate_args=validate_args)
        if task == "binary":
            return BinaryCalibrationError(**kwargs)
        _require_int(num_classes, "num_classes")
        return MulticlassCalibrationError(num_classes, **kwargs)
