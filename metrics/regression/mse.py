"""Mean squared error metric."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..functional.regression._common import check_num_outputs
from ..functional.regression.mse import _mean_squared_error_compute, _mean_squared_error_update
from ..metric import Metric

__all__ = ["MeanSquaredError"]


class MeanSquaredError(Metric):
    """Mean squared error ``mean((preds - target)^2)``, or its root with ``squared=False``.

    Args:
        squared (bool): ``False`` gives the root mean squared error. Default: ``True``.
        num_outputs (int): the number of outputs; with more than one, inputs are ``(N, num_outputs)`` and one error
            per output is returned. Default: 1.
        kwargs: the :class:`~ember.metrics.Metric` options.

    Example::

        >>> metric = MeanSquaredError()
        >>> metric(em.tensor([0., 1, 2, 3]), em.tensor([0., 1, 2, 2]))
        tensor(0.2500)
    """

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0

    def __init__(self, squared: bool = True, num_outputs: int = 1, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(squared, bool):
            raise ValueError(f"Expected argument `squared` to be a boolean but got {squared!r}")
        check_num_outputs(num_outputs)
        self.squared = squared
        self.num_outputs = num_outputs
        self.add_state("sum_squared_error", zeros(num_outputs, dtype=float32, device=self.device), dist_reduce_fx="sum")
        self.add_state("total", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Accumulate the squared errors of a batch."""
        sse, n = _mean_squared_error_update(preds, target, self.num_outputs)
        self.sum_squared_error = self.sum_squared_error + sse
        self.total = self.total + n

    def compute(self):
        """The (root) mean squared error."""
        return _mean_squared_error_compute(self.sum_squared_error, self.total, self.squared)
