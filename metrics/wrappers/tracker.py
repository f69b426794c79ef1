"""``MetricTracker``: one copy of a metric (or collection) per epoch, and the best of them."""
from __future__ import annotations

import warnings
from copy import deepcopy

from ...core.nn.modules.container import ModuleList
from ...core.ops.reduce import max as _max, min as _min
from ...core.ops.shape import stack
from ..collection import MetricCollection
from ..metric import Metric

__all__ = ["MetricTracker"]


class MetricTracker(ModuleList):
    """Keep the values of a metric over time: call :meth:`increment` at the start of each epoch (a fresh copy of
    the metric is appended), ``update``/``forward``/``compute`` act on the newest copy, and :meth:`compute_all` and
    :meth:`best_metric` look at all of them.

    Args:
        metric (Metric or MetricCollection): the metric to track (deep-copied at each increment).
        maximize (bool or list of bool): whether higher is better (one flag per metric of a collection, or one
            for all). Default: True.

    As in torchmetrics, the base metric is registered as the first module of the list, so ``len(tracker)`` is
    ``n_steps + 1``.
    """

    def __init__(self, metric, maximize=True):
        super().__init__()
        if not isinstance(metric, (Metric, MetricCollection)):
            raise TypeError(f"Metric arg need to be an instance of a ember.metrics `Metric` or `MetricCollection` "
                            f"but got {metric}")
        self._base_metric = metric
        if not isinstance(maximize, (bool, list)):
            raise ValueError("Argument `maximize` should either be a single bool or list of bool")
        if isinstance(maximize, list) and isinstance(metric, MetricCollection) and len(maximize) != len(metric):
            raise ValueError("The len of argument `maximize` should match the length of the metric collection")
        if isinstance(metric, Metric) and not isinstance(maximize, bool):
            raise ValueError("Argument `maximize` should be a single bool when `metric` is a single Metric")
        self.maximize = maximize
        self._increment_called = False

    @property
    def n_steps(self) -> int:
        """The number of times :meth:`increment` has been called."""
        return len(self) - 1  # the base metric is the first module

    def increment(self) -> None:
        """Start tracking a new step (epoch) with a fresh copy of the base metric."""
        self._increment_called = True
        self.append(deepcopy(self._base_metric))

    def forward(self, *args, **kwargs):
        """Forward on the newest copy."""
        self._check_for_increment("forward")
        return self[-1](*args, **kwargs)

    def update(self, *args, **kwargs) -> None:
        """Update the newest copy."""
        self._check_for_increment("update")
        self[-1].update(*args, **kwargs)

    def compute(self):
        """The newest copy's value."""
        self._check_for_increment("compute")
        return self[-1].compute()

    def compute_all(self):
        """Every step's value, stacked along dim 0 (a dict of stacks for a collection); the plain list when the
        values cannot be stacked."""
        self._check_for_increment("compute_all")
        res = [metric.compute() for i, metric in enumerate(self) if i != 0]
        try:
            if isinstance(res[0], dict):
                return {k: stack([r[k] for r in res], 0) for k in res[0]}
            if isinstance(res[0], list):
                return stack([stack(r, 0) for r in res], 0)
            return stack(res, 0)
        except (TypeError, RuntimeError):
            return res

    def reset(self) -> None:
        """Reset the newest copy."""
        self[-1].reset()

    def reset_all(self) -> None:
        """Reset every copy (and the base metric)."""
        for metric in self:
            metric.reset()

    def best_metric(self, return_step: bool = False):
        """The best value over the steps (per metric for a collection), and with ``return_step`` its step index.

        Returns None (with a warning) where "best" is not defined, e.g. for a metric with several values.
        """
        res = self.compute_all()
        if isinstance(res, list):
            warnings.warn("Encountered nested structure. You are probably using a metric collection inside a metric "
                          "collection, or a metric wrapper inside a metric collection, which is not supported by "
                          "`.best_metric()` method. Returning `None` instead.", UserWarning, stacklevel=2)
            return (None, None) if return_step else None
        if isinstance(self._base_metric, Metric):
            value, idx = self._best(res, self.maximize)
            return (value, idx) if return_step else value
        maximize = self.maximize if isinstance(self.maximize, list) else len(res) * [self.maximize]
        values, steps = {}, {}
        for i, (k, v) in enumerate(res.items()):
            values[k], steps[k] = self._best(v, maximize[i])
        return (values, steps) if return_step else values

    @staticmethod
    def _best(values, maximize):
        try:
            value, idx = (_max if maximize else _min)(values, 0)
            return value.item(), idx.item()
        except (ValueError, RuntimeError) as error:
            warnings.warn(f"Encountered the following error when trying to get the best metric: {error}this is "
                          "probably due to the 'best' not being defined for this metric.Returning `None` instead.",
                          UserWarning, stacklevel=3)
            return None, None

    def _check_for_increment(self, method: str) -> None:
        if not self._increment_called:
            raise ValueError(f"`{method}` cannot be called before `.increment()` has been called.")
