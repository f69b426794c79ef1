"""``ember.metrics``: metrics with states that accumulate over batches and sync across processes.

Subclass :class:`Metric`, declare states with ``add_state(name, default, dist_reduce_fx=...)``, and implement
``update`` and ``compute``: the framework computes the metric correctly across processes, with no distributed code
in the metric. The standard families (aggregation, classification, regression) are here as classes and, without
state, in :mod:`ember.metrics.functional`. Names and semantics follow torchmetrics.
"""
from . import functional, wrappers  # noqa: F401
from .aggregation import (CatMetric, MaxMetric, MeanMetric, MinMetric, RunningMean, RunningSum,  # noqa: F401
                          SumMetric)
from .classification import *  # noqa: F401,F403
from .classification import __all__ as _classification_all
from .collection import MetricCollection  # noqa: F401
from .compositional import CompositionalMetric  # noqa: F401
from .metric import Metric  # noqa: F401
from .regression import *  # noqa: F401,F403
from .regression import __all__ as _regression_all
from .wrappers import Running  # noqa: F401

__all__ = (["Metric", "MetricCollection", "CompositionalMetric", "Running", "CatMetric", "MaxMetric", "MeanMetric",
            "MinMetric", "RunningMean", "RunningSum", "SumMetric", "functional", "wrappers"]
           + list(_classification_all) + list(_regression_all))
