"""Explained variance metric."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..functional.regression.explained_variance import (_check_multioutput, _explained_variance_compute,
                                                        _explained_variance_update)
from ..metric import Metric

__all__ = ["ExplainedVariance"]


class ExplainedVariance(Metric):
    """Explained variance ``1 - Var(target - preds) / Var(target)``.

    Args:
        multioutput (str): ``"raw_values"``, ``"uniform_average"`` (default) or ``"variance_weighted"``.
    """

    is_differentiable = True
    higher_is_better = True
    full_state_update = False
    plot_upper_bound = 1.0

    def __init__(self, multioutput: str = "uniform_average", **kwargs):
        super().__init__(**kwargs)
        _check_multioutput(multioutput)
        self.multioutput = multioutput
        zero = zeros((), dtype=float32, device=self.device)
        for name in ("sum_error", "sum_squared_error", "sum_target", "sum_squared_target"):
            self.add_state(name, zero, dist_reduce_fx="sum")
        self.add_state("num_obs", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Accumulate the sums of a batch."""
        n, se, sse, st, sst = _explained_variance_update(preds, target)
        self.num_obs = self.num_obs + n
        self.sum_error = self.sum_error + se
        self.sum_squared_error = self.sum_squared_error + sse
        self.sum_target = self.sum_target + st
        self.sum_squared_target = self.sum_squared_target + sst

    def compute(self):
        """The explained variance over everything seen."""
        return _explained_variance_compute(self.num_obs, self.sum_error, self.sum_squared_error, self.sum_target,
                                           self.sum_squared_target, self.multioutput)
