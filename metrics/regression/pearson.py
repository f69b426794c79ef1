"""Pearson correlation coefficient metric."""
from __future__ import annotations

from ...core.dtypes import float32
from ...core.ops.creation import zeros

from ..functional.regression._common import check_num_outputs
from ..functional.regression.pearson import (_final_aggregation, _pearson_corrcoef_compute,
                                             _pearson_corrcoef_update)
from ..metric import Metric

__all__ = ["PearsonCorrCoef"]


class PearsonCorrCoef(Metric):
    """Pearson correlation coefficient, accumulated as running means and (co)variance sums.

    The states are synced with ``dist_reduce_fx=None``: each process's moments arrive stacked and ``compute``
    merges them exactly (parallel variance formulas), so the distributed result equals the single-process one.

    Args:
        num_outputs (int): the number of outputs (columns of ``(N, M)`` inputs). Default: 1.
    """

    is_differentiable = True
    higher_is_better = None
    full_state_update = True
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0

    def __init__(self, num_outputs: int = 1, **kwargs):
        super().__init__(**kwargs)
        check_num_outputs(num_outputs)
        self.num_outputs = num_outputs
        zero = zeros(num_outputs, dtype=float32, device=self.device)
        for name in ("mean_x", "mean_y", "var_x", "var_y", "corr_xy", "n_total"):
            self.add_state(name, zero, dist_reduce_fx=None)

    def update(self, preds, target) -> None:
        """Fold a batch into the running moments."""
        (self.mean_x, self.mean_y, self.var_x, self.var_y, self.corr_xy,
         self.n_total) = _pearson_corrcoef_update(preds, target, self.mean_x, self.mean_y, self.var_x, self.var_y,
                                                  self.corr_xy, self.n_total, self.num_outputs)

    def compute(self):
        """The correlation (one per output)."""
        synced = (self.num_outputs == 1 and self.mean_x.numel() > 1) or (self.num_outputs > 1 and self.mean_x.ndim > 1)
        if synced:  # per-process moments stacked by the sync
            _, _, var_x, var_y, corr_xy, n_total = _final_aggregation(self.mean_x, self.mean_y, self.var_x,
                                                                      self.var_y, self.corr_xy, self.n_total)
        else:
            var_x, var_y, corr_xy, n_total = self.var_x, self.var_y, self.corr_xy, self.n_total
        return _pearson_corrcoef_compute(var_x, var_y, corr_xy, n_total)
