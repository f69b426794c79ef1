"""``MultioutputWrapper``: one copy of a metric per output column of multi-output predictions."""
from __future__ import annotations

from copy import deepcopy

from ...core.nn.modules.container import ModuleList
from ...core.ops.creation import tensor
from ...core.ops.shape import stack
from ...core.tensor import Tensor
from ..metric import Metric
from ..utilities.data import apply_to_collection
from .abstract import WrapperMetric

__all__ = ["MultioutputWrapper"]


def _nan_rows(*tensors) -> Tensor:
    """Rows (along dim 0) where any of ``tensors`` holds a NaN."""
    if not tensors:
        raise ValueError("Must pass at least one tensor as argument")
    rows = None
    for t in tensors:
        bad = t.reshape(t.shape[0], -1).isnan().any(1) if t.ndim > 1 else t.isnan()
        rows = bad if rows is None else rows | bad
    return rows


class MultioutputWrapper(WrapperMetric):
    """Evaluate ``base_metric`` separately on each of ``num_outputs`` outputs, e.g. an R2 score per regression
    target: every tensor argument is split along ``output_dim`` and output ``i`` goes to the ``i``-th copy.
    ``compute`` stacks the copies' values.

    Args:
        base_metric (Metric): the metric to apply to each output (deep-copied ``num_outputs`` times).
        num_outputs (int): the number of outputs.
        output_dim (int): the dimension of the outputs in the inputs. Default: -1.
        remove_nans (bool): drop, per output, the samples (rows) where any input holds a NaN. Default: True.
        squeeze_outputs (bool): squeeze ``output_dim`` out of each output's inputs. Default: True.

    Example::

        >>> r2score = MultioutputWrapper(R2Score(), 2)
        >>> r2score(em.tensor([[0., 2], [-1, 2], [8, -5]]), em.tensor([[0.5, 1], [-1, 1], [7, -6]]))
        tensor([0.9654, 0.9082])
    """

    def __init__(self, base_metric: Metric, num_outputs: int, output_dim: int = -1, remove_nans: bool = True,
                 squeeze_outputs: bool = True):
        super().__init__()
        if not isinstance(base_metric, Metric):
            raise ValueError(f"Expected argument `base_metric` to be an instance of `ember.metrics.Metric` but got "
                             f"{base_metric!r}")
        self.metrics = ModuleList([deepcopy(base_metric) for _ in range(num_outputs)])
        self.output_dim = output_dim
        self.remove_nans = remove_nans
        self.squeeze_outputs = squeeze_outputs

    def _args_kwargs_by_output(self, *args, **kwargs):
        split = []
        for i in range(len(self.metrics)):
            index = tensor([i])
            sel_args = apply_to_collection(args, Tensor, lambda t: t.index_select(self.output_dim, index))
            sel_kwargs = apply_to_collection(kwargs, Tensor, lambda t: t.index_select(self.output_dim, index))
            if self.remove_nans:
                tensors = [a for a in tuple(sel_args) + tuple(sel_kwargs.values()) if isinstance(a, Tensor)]
                keep = ~_nan_rows(*tensors)
                sel_args = [a[keep] if isinstance(a, Tensor) else a for a in sel_args]
                sel_kwargs = {k: v[keep] if isinstance(v, Tensor) else v for k, v in sel_kwargs.items()}
            if self.squeeze_outputs:
                sel_args = [a.squeeze(self.output_dim) if isinstance(a, Tensor) else a for a in sel_args]
                sel_kwargs = {k: v.squeeze(self.output_dim) if isinstance(v, Tensor) else v
                              for k, v in sel_kwargs.items()}
            split.append((sel_args, sel_kwargs))
        return split

    def update(self, *args, **kwargs) -> None:
        """Update each output's metric with its slice of the inputs."""
        for metric, (a, kw) in zip(self.metrics, self._args_kwargs_by_output(*args, **kwargs)):
            metric.update(*a, **kw)

    def compute(self) -> Tensor:
        """The values of the outputs' metrics, stacked along dim 0."""
        return stack([m.compute() for m in self.metrics], 0)

    def forward(self, *args, **kwargs):
        """Each output's metric forward on its slice; the batch values stacked."""
        results = [metric(*a, **kw) for metric, (a, kw) in zip(self.metrics,
                                                              self._args_kwargs_by_output(*args, **kwargs))]
        if results[0] is None:
            return None
        return stack(results, 0)

    def reset(self) -> None:
        """Reset every output's metric."""
        for metric in self.metrics:
            metric.reset()
        super().reset()
