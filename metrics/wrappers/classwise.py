"""``ClasswiseWrapper``: a per-class metric's result as a dict with one named entry per class."""
from __future__ import annotations

from ..metric import Metric
from .abstract import WrapperMetric

__all__ = ["ClasswiseWrapper"]


class ClasswiseWrapper(WrapperMetric):
    """Turn the per-class result of ``metric`` (e.g. ``MulticlassAccuracy(average=None)``) into a dict
    ``{f"{prefix}{label}{postfix}": value}``, handy for logging each class on its own.

    Args:
        metric (Metric): a metric returning one value per class.
        labels (list of str, optional): the class names; by default the class indices.
        prefix (str, optional): put before each key. When neither ``prefix`` nor ``postfix`` is given, the prefix
            is the metric's class name in lower case followed by ``_`` (``multiclassaccuracy_0``).
        postfix (str, optional): put after each key.

    Example::

        >>> metric = ClasswiseWrapper(MulticlassAccuracy(num_classes=3, average=None), labels=["horse", "fish", "dog"])
        >>> metric(preds, target)
        {'multiclassaccuracy_horse': tensor(0.5000), 'multiclassaccuracy_fish': tensor(1.), ...}
    """

    def __init__(self, metric: Metric, labels=None, prefix=None, postfix=None):
        super().__init__()
        if not isinstance(metric, Metric):
            raise ValueError(f"Expected argument `metric` to be an instance of `ember.metrics.Metric` but got "
                             f"{metric!r}")
        if labels is not None and not (isinstance(labels, list) and all(isinstance(lab, str) for lab in labels)):
            raise ValueError(f"Expected argument `labels` to either be `None` or a list of strings but got {labels!r}")
        for name, value in (("prefix", prefix), ("postfix", postfix)):
            if value is not None and not isinstance(value, str):
                raise ValueError(f"Expected argument `{name}` to either be `None` or a string but got {value!r}")
        self.metric = metric
        self.labels = labels
        self._prefix = prefix
        self._postfix = postfix
        self.__dict__["_update_count"] = 1  # the wrapped metric warns about compute-before-update itself

    def _filter_kwargs(self, **kwargs) -> dict:
        return self.metric._filter_kwargs(**kwargs)

    def _convert_output(self, values) -> dict:
        if not self._prefix and not self._postfix:
            prefix, postfix = f"{type(self.metric).__name__.lower()}_", ""
        else:
            prefix, postfix = self._prefix or "", self._postfix or ""
        names = range(len(values)) if self.labels is None else self.labels
        return {f"{prefix}{name}{postfix}": value for name, value in zip(names, values)}

    def forward(self, *args, **kwargs) -> dict:
        """The wrapped metric's batch value, one entry per class."""
        return self._convert_output(self.metric(*args, **kwargs))

    def update(self, *args, **kwargs) -> None:
        """Update the wrapped metric."""
        self.metric.update(*args, **kwargs)

    def compute(self) -> dict:
        """The wrapped metric's value, one entry per class."""
        return self._convert_output(self.metric.compute())

    def reset(self) -> None:
        """Reset the wrapped metric."""
        self.metric.reset()
