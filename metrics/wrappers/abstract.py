"""``WrapperMetric``: the base of metrics that wrap other metrics and keep no states of their own."""
from __future__ import annotations

from ..metric import Metric

__all__ = ["WrapperMetric"]


class WrapperMetric(Metric):
    """Base of the wrappers (as torchmetrics' ``WrapperMetric``): the wrapped metrics count their updates, cache
    their values and sync across processes; the wrapper's own ``update`` and ``compute`` are plain calls, not
    wrapped with that machinery, so a wrapper never caches a stale value of the metrics it holds."""

    def __init_subclass__(cls, **kwargs):
        super(Metric, cls).__init_subclass__(**kwargs)  # skip Metric's update/compute wrapping
