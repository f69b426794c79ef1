"""Aggregation metrics: running mean, sum, max, min and concatenation of a stream of values.

Each takes ``nan_strategy``:

- ``"error"``: raise on a NaN;
- ``"warn"``: warn and drop the NaN values;
- ``"ignore"``: drop them silently;
- ``"disable"``: do not look for NaNs at all (fastest; a NaN then propagates);
- a float: replace each NaN by that value.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..core.dtypes import float32
from ..core.ops.creation import full, zeros
from ..core.tensor import Tensor

from .metric import Metric
from .wrappers.running import Running
from .utilities.compute import array_module, module_for_device
from .utilities.data import dim_zero_cat, wrap

__all__ = ["BaseAggregator", "MaxMetric", "MinMetric", "SumMetric", "MeanMetric", "CatMetric", "RunningMean",
           "RunningSum"]

_ALLOWED_NAN = ("error", "warn", "ignore", "disable")


def _check_nan_strategy(nan_strategy) -> None:
    if nan_strategy not in _ALLOWED_NAN and not isinstance(nan_strategy, float):
        raise ValueError(f"Arg `nan_strategy` should either be a float or one of {_ALLOWED_NAN} but got "
                         f"{nan_strategy!r}.")


class BaseAggregator(Metric):
    """Base class of the aggregation metrics.

    Args:
        fn (str or callable): the state's ``dist_reduce_fx``.
        default_value (Tensor or list): the state's default.
        nan_strategy (str or float): what to do with NaN inputs (see the module doc). Default: ``"error"``.
        state_name (str): the name of the state. Default: ``"value"``.
        kwargs: the :class:`~ember.metrics.Metric` options.
    """

    is_differentiable = None
    higher_is_better = None
    full_state_update = False

    def __init__(self, fn, default_value, nan_strategy="error", state_name: str = "value", **kwargs):
        super().__init__(**kwargs)
        _check_nan_strategy(nan_strategy)
        self.nan_strategy = nan_strategy
        self.add_state(state_name, default=default_value, dist_reduce_fx=fn)
        self.state_name = state_name

    def _as_float_array(self, x):
        if isinstance(x, Tensor):
            arr = x._data
        elif isinstance(x, np.ndarray):
            arr = x
        elif isinstance(x, (int, float, bool, list, tuple, np.generic)):
            arr = module_for_device(self.__dict__["_device"]).asarray(x)  # a Python value joins the states' device
        else:
            raise TypeError(f"Expected the value of {type(self).__name__} to be a float or a Tensor, got "
                            f"{type(x).__name__}")
        return arr.astype(self.__dict__["_dtype"].np, copy=False)  # (the ``dtype`` property, without its call)

    def _cast_and_nan_check_input(self, x, weight=None, need_weight: bool = True):
        """Cast ``x`` (and ``weight``) to float arrays of the metric's dtype and apply the NaN strategy.

        Without ``weight`` the returned weight is ``ones_like(x)``, or ``None`` when ``need_weight`` is ``False``
        (the unweighted aggregators, which would throw it away).
        """
        x = self._as_float_array(x)
        if weight is not None:
            weight = self._as_float_array(weight)
        return self._nan_check(x, weight, need_weight)

    def _nan_check(self, x, weight=None, need_weight: bool = True):
        """Apply the NaN strategy to float arrays ``x`` and ``weight`` (see :meth:`_cast_and_nan_check_input`)."""
        xp = array_module(x)
        if self.nan_strategy != "disable":
            nans = xp.isnan(x)
            nans_weight = xp.isnan(weight) if weight is not None else None
            any_nan = bool(nans.any()) or (nans_weight is not None and bool(nans_weight.any()))
            if any_nan:
                if self.nan_strategy == "error":
                    raise RuntimeError("Encountered `nan` values in tensor")
                if self.nan_strategy in ("ignore", "warn"):
                    if self.nan_strategy == "warn":
                        warnings.warn("Encountered `nan` values in tensor. Will be removed.", UserWarning,
                                      stacklevel=3)
                    keep = ~(nans | nans_weight) if nans_weight is not None else ~nans
                    x = x[keep]
                    weight = weight[keep] if weight is not None else None
                else:
                    x = xp.where(nans, xp.asarray(self.nan_strategy, dtype=x.dtype), x)
                    if weight is not None:
                        weight = xp.where(nans_weight, xp.asarray(self.nan_strategy, dtype=weight.dtype), weight)
        if weight is None and need_weight:
            weight = xp.ones_like(x)
        return x, weight

    def update(self, value) -> None:
        """Overridden by each aggregator."""

    def compute(self):
        """The aggregated value."""
        return getattr(self, self.state_name)


class MaxMetric(BaseAggregator):
    """The maximum of a stream of values.

    Example::

        >>> metric = MaxMetric()
        >>> metric.update(1)
        >>> metric.update(em.tensor([2, 3]))
        >>> metric.compute()
        tensor(3.)
    """

    full_state_update = True
    higher_is_better = True

    def __init__(self, nan_strategy="warn", **kwargs):
        super().__init__("max", full((), -math.inf, dtype=float32), nan_strategy, state_name="max_value",
                         **kwargs)

    def update(self, value) -> None:
        """Take the maximum with the values of ``value`` (a float or a tensor of any shape)."""
        value, _ = self._cast_and_nan_check_input(value, need_weight=False)
        if value.size:
            state = self.max_value._data
            self.max_value = wrap(array_module(state).maximum(state, value.max()).astype(state.dtype))


class MinMetric(BaseAggregator):
    """The minimum of a stream of values.

    Example::

        >>> metric = MinMetric()
        >>> metric.update(1)
        >>> metric.update(em.tensor([2, 3]))
        >>> metric.compute()
        tensor(1.)
    """

    full_state_update = True
    higher_is_better = False

    def __init__(self, nan_strategy="warn", **kwargs):
        super().__init__("min", full((), math.inf, dtype=float32), nan_strategy, state_name="min_value",
                         **kwargs)

    def update(self, value) -> None:
        """Take the minimum with the values of ``value`` (a float or a tensor of any shape)."""
        value, _ = self._cast_and_nan_check_input(value, need_weight=False)
        if value.size:
            state = self.min_value._data
            self.min_value = wrap(array_module(state).minimum(state, value.min()).astype(state.dtype))


class SumMetric(BaseAggregator):
    """The sum of a stream of values.

    Example::

        >>> metric = SumMetric()
        >>> metric.update(1)
        >>> metric.update(em.tensor([2, 3]))
        >>> metric.compute()
        tensor(6.)
    """

    def __init__(self, nan_strategy="warn", **kwargs):
        super().__init__("sum", zeros((), dtype=float32), nan_strategy, state_name="sum_value",
                         **kwargs)

    def update(self, value) -> None:
        """Add the values of ``value`` (a float or a tensor of any shape)."""
        value, _ = self._cast_and_nan_check_input(value, need_weight=False)
        if value.size:
            state = self.sum_value._data
            self.sum_value = wrap(array_module(state).asarray(state + value.sum(), dtype=state.dtype))


class CatMetric(BaseAggregator):
    """The concatenation of a stream of values (flattened).

    Example::

        >>> metric = CatMetric()
        >>> metric.update(1)
        >>> metric.update(em.tensor([2, 3]))
        >>> metric.compute()
        tensor([1., 2., 3.])
    """

    def __init__(self, nan_strategy="warn", **kwargs):
        super().__init__("cat", [], nan_strategy, **kwargs)

    def update(self, value) -> None:
        """Append the values of ``value`` (a float or a tensor of any shape)."""
        value, _ = self._cast_and_nan_check_input(value, need_weight=False)
        if value.size:
            self.value.append(wrap(value.reshape(-1).copy()))

    def compute(self):
        """All values seen, concatenated (an empty list if none)."""
        if isinstance(self.value, list) and self.value:
            return dim_zero_cat(self.value)
        return self.value


class MeanMetric(BaseAggregator):
    """The (weighted) mean of a stream of values.

    ``update(value, weight=1.0)``: ``weight`` broadcasts to ``value``'s shape. The result is
    ``sum(value * weight) / sum(weight)`` over everything seen.

    Example::

        >>> metric = MeanMetric()
        >>> metric.update(1)
        >>> metric.update(em.tensor([2, 3]))
        >>> metric.compute()
        tensor(2.)
    """

    def __init__(self, nan_strategy="warn", **kwargs):
        super().__init__("sum", zeros((), dtype=float32), nan_strategy, state_name="mean_value",
                         **kwargs)
        self.add_state("weight", default=zeros((), dtype=float32), dist_reduce_fx="sum")

    def update(self, value, weight=1.0) -> None:
        """Accumulate ``value`` with ``weight``."""
        value_arr = self._as_float_array(value)
        weight_arr = self._as_float_array(1.0 if weight is None else weight)
        xp = array_module(value_arr, weight_arr)
        try:
            if weight_arr.shape != value_arr.shape:  # equal shapes (a scalar loss and weight) skip a slow call
                weight_arr = xp.broadcast_to(weight_arr, value_arr.shape)
        except ValueError:
            raise ValueError(f"The shape of `weight` {tuple(weight_arr.shape)} cannot be broadcast to the shape of "
                             f"`value` {tuple(value_arr.shape)}") from None
        value_arr, weight_arr = self._nan_check(value_arr, weight_arr)  # both are cast already
        if value_arr.size == 0:
            return
        dtype = self.mean_value._data.dtype
        self.mean_value = wrap(xp.asarray(self.mean_value._data + (value_arr * weight_arr).sum(), dtype=dtype))
        self.weight = wrap(xp.asarray(self.weight._data + weight_arr.sum(), dtype=dtype))

    def compute(self):
        """``sum(value * weight) / sum(weight)``."""
        return self.mean_value / self.weight


class RunningMean(Running):
    """The mean of the values of the last ``window`` updates (each update's values weighing by their count).

    Args:
        window (int): how many updates to keep. Default: 5.
        nan_strategy (str or float): see :class:`MeanMetric`. Default: ``"warn"``.
    """

    def __init__(self, window: int = 5, nan_strategy="warn", **kwargs):
        super().__init__(base_metric=MeanMetric(nan_strategy=nan_strategy, **kwargs), window=window)


class RunningSum(Running):
    """The sum of the values of the last ``window`` updates.

    Args:
        window (int): how many updates to keep. Default: 5.
        nan_strategy (str or float): see :class:`SumMetric`. Default: ``"warn"``.
    """

    def __init__(self, window: int = 5, nan_strategy="warn", **kwargs):
        super().__init__(base_metric=SumMetric(nan_strategy=nan_strategy, **kwargs), window=window)
