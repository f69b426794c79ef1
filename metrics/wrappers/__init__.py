"""``ember.metrics.wrappers``: metrics that wrap other metrics, as ``torchmetrics.wrappers``.

* :class:`Running`: the metric over a sliding window of the last updates;
* :class:`MetricTracker`: one copy per epoch, and the best epoch;
* :class:`MultioutputWrapper`: one copy per output of multi-output predictions;
* :class:`ClasswiseWrapper`: a per-class result as a dict with a key per class;
* :class:`BootStrapper`: mean, std and quantiles over bootstrap resamples;
* :class:`MinMaxMetric`: a scalar metric with its minimum and maximum so far.
"""
from .abstract import WrapperMetric
from .bootstrapping import BootStrapper
from .classwise import ClasswiseWrapper
from .minmax import MinMaxMetric
from .multioutput import MultioutputWrapper
from .running import Running
from .tracker import MetricTracker

__all__ = ["WrapperMetric", "Running", "MetricTracker", "MultioutputWrapper", "ClasswiseWrapper", "BootStrapper",
           "MinMaxMetric"]
