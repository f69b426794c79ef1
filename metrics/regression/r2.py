"""R^2 score metric."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..functional.regression._common import check_num_outputs
from ..functional.regression.r2 import _MULTIOUTPUT, _r2_score_compute, _r2_score_update
from ..metric import Metric

__all__ = ["R2Score"]


class R2Score(Metric):
    """Coefficient of determination R^2 (or the adjusted R^2).

    Args:
        num_outputs (int): the number of outputs (columns of ``(N, M)`` inputs). Default: 1.
        adjusted (int): the number of independent regressors for the adjusted R^2 (0: plain R^2).
        multioutput (str): ``"raw_values"``, ``"uniform_average"`` (default) or ``"variance_weighted"``.
    """

    is_differentiable = True
    higher_is_better = True
    full_state_update = False
    plot_upper_bound = 1.0

    def __init__(self, num_outputs: int = 1, adjusted: int = 0, multioutput: str = "uniform_average", **kwargs):
        super().__init__(**kwargs)
        check_num_outputs(num_outputs)
        if not isinstance(adjusted, int) or isinstance(adjusted, bool) or adjusted < 0:
            raise ValueError("`adjusted` parameter should be an integer larger or equal to 0.")
        if multioutput not in _MULTIOUTPUT:
            raise ValueError(f"Invalid input to argument `multioutput`. Choose one of the following: {_MULTIOUTPUT}, "
                             f"got {multioutput!r}")
        self.num_outputs = num_outputs
        self.adjusted = adjusted
        self.multioutput = multioutput
        zero = zeros(num_outputs, dtype=float32, device=self.device)
        self.add_state("sum_squared_error", zero, dist_reduce_fx="sum")
        self.add_state("sum_error", zero, dist_reduce_fx="sum")
        self.add_state("residual", zero, dist_reduce_fx="sum")
        self.add_state("total", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, preds, target) -> None:
        """Accumulate the sums of a batch."""
        sso, so, rss, n = _r2_score_update(preds, target)
        self.sum_squared_error = self.sum_squared_error + sso
        self.sum_error = self.sum_error + so
        self.residual = self.residual + rss
        self.total = self.total + n

    def compute(self):
        """R^2 over everything seen."""
        return _r2_score_compute(self.sum_squared_error, self.sum_error, self.residual, self.total, self.adjusted,
                                 self.multioutput)
