"""``BootStrapper``: confidence intervals of a metric from bootstrap resamples of every batch."""
from __future__ import annotations

from copy import deepcopy

from ...core.nn.modules.container import ModuleList
from ...core.ops.creation import ones, tensor
from ...core.ops.sampling import multinomial
from ...core.ops.shape import stack
from ...core.random import _gen
from ...core.tensor import Tensor
from ..metric import Metric
from ..utilities.data import apply_to_collection
from .abstract import WrapperMetric

__all__ = ["BootStrapper"]

_SAMPLING = ("poisson", "multinomial")


def _bootstrap_sampler(size: int, sampling_strategy: str = "poisson") -> Tensor:
    """Indices of one bootstrap resample of ``size`` samples: each sample repeated ``Poisson(1)`` times
    (``"poisson"``), or ``size`` draws with replacement (``"multinomial"``)."""
    if sampling_strategy == "poisson":
        counts = _gen(None).poisson(1.0, size)  # host draws from ember's generator
        return tensor(counts.nonzero()[0].repeat(counts[counts > 0]).astype("int64"))
    if sampling_strategy == "multinomial":
        return multinomial(ones(size), num_samples=size, replacement=True)
    raise ValueError("Unknown sampling strategy")


class BootStrapper(WrapperMetric):
    """Estimate the spread of ``base_metric``: each update feeds ``num_bootstraps`` copies of it with resamples
    (with replacement) of the batch; ``compute`` summarises the copies' values.

    Args:
        base_metric (Metric): the metric to bootstrap (deep-copied ``num_bootstraps`` times).
        num_bootstraps (int): the number of copies. Default: 10.
        mean (bool): return the mean of the copies' values (key ``"mean"``). Default: True.
        std (bool): return their standard deviation (``"std"``, unbiased). Default: True.
        quantile (float or Tensor, optional): return this quantile of the values (``"quantile"``).
        raw (bool): return all the values (``"raw"``, one row per copy). Default: False.
        sampling_strategy (str): ``"poisson"`` (each sample kept ``Poisson(1)`` times, the default, which also
            works for streamed data) or ``"multinomial"`` (``N`` draws with replacement).

    Randomness comes from ``ember.random``, so ``em.manual_seed`` makes the resamples repeat.
    """

    full_state_update = True

    def __init__(self, base_metric: Metric, num_bootstraps: int = 10, mean: bool = True, std: bool = True,
                 quantile=None, raw: bool = False, sampling_strategy: str = "poisson", **kwargs):
        super().__init__(**kwargs)
        if not isinstance(base_metric, Metric):
            raise ValueError(f"Expected base metric to be an instance of ember.metrics.Metric but received "
                             f"{base_metric!r}")
        if sampling_strategy not in _SAMPLING:
            raise ValueError(f"Expected argument ``sampling_strategy`` to be one of {_SAMPLING} but received "
                             f"{sampling_strategy!r}")
        self.metrics = ModuleList([deepcopy(base_metric) for _ in range(num_bootstraps)])
        self.num_bootstraps = num_bootstraps
        self.mean = mean
        self.std = std
        self.quantile = quantile
        self.raw = raw
        self.sampling_strategy = sampling_strategy

    def _resamples(self, args, kwargs):
        sizes = [len(t) for t in _tensors(args)] or [len(t) for t in _tensors(kwargs.values())]
        if not sizes:
            raise ValueError("None of the input contained tensors, so could not determine the sampling size")
        for idx in range(self.num_bootstraps):
            sample = _bootstrap_sampler(sizes[0], self.sampling_strategy)
            if sample.numel() == 0:
                yield idx, None, None
                continue
            yield (idx, apply_to_collection(args, Tensor, lambda t: t.index_select(0, sample)),
                   apply_to_collection(kwargs, Tensor, lambda t: t.index_select(0, sample)))

    def update(self, *args, **kwargs) -> None:
        """Update every copy with its own resample of the batch (an empty resample is skipped)."""
        for idx, a, kw in self._resamples(args, kwargs):
            if a is not None:
                self.metrics[idx].update(*a, **kw)

    def _summary(self, values) -> dict:
        values = stack(values, 0)
        out = {}
        if self.mean:
            out["mean"] = values.mean(0)
        if self.std:
            out["std"] = values.std(0)
        if self.quantile is not None:
            out["quantile"] = _quantile(values, self.quantile)
        if self.raw:
            out["raw"] = values
        return out

    def compute(self) -> dict:
        """``mean``, ``std``, ``quantile`` and ``raw`` (as enabled) of the copies' values."""
        return self._summary([m.compute() for m in self.metrics])

    def forward(self, *args, **kwargs) -> dict:
        """Accumulate the batch's resamples into the copies; the summary of the copies' values on them."""
        values = [self.metrics[idx](*a, **kw) for idx, a, kw in self._resamples(args, kwargs) if a is not None]
        return self._summary(values)

    def reset(self) -> None:
        """Reset every copy."""
        for m in self.metrics:
            m.reset()
        super().reset()


def _tensors(values):
    return [v for v in values if isinstance(v, Tensor)]


def _quantile(values: Tensor, q) -> Tensor:
    """``torch.quantile(values, q)`` over all elements, with linear interpolation."""
    xp = values._xp
    qs = q._data if isinstance(q, Tensor) else q
    data = values._data.reshape(-1)
    return tensor(xp.quantile(data, qs).astype(data.dtype))
