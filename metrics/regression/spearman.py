"""Spearman rank correlation metric."""
from __future__ import annotations

from ..functional.regression._common import check_num_outputs
from ..functional.regression.spearman import _spearman_corrcoef_compute, _spearman_corrcoef_update
from ..metric import Metric
from ..utilities.data import dim_zero_cat

__all__ = ["SpearmanCorrCoef"]


class SpearmanCorrCoef(Metric):
    """Spearman's rank correlation (the Pearson correlation of the ranks; ties share their average rank).

    Every prediction and target is kept (``"cat"`` states), since ranks need all the data.

    Args:
        num_outputs (int): the number of outputs (columns of ``(N, M)`` inputs). Default: 1.
    """

    is_differentiable = False
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0

    def __init__(self, num_outputs: int = 1, **kwargs):
        super().__init__(**kwargs)
        check_num_outputs(num_outputs)
        self.num_outputs = num_outputs
        self.add_state("preds", [], dist_reduce_fx="cat")
        self.add_state("target", [], dist_reduce_fx="cat")

    def update(self, preds, target) -> None:
        """Store the batch."""
        preds, target = _spearman_corrcoef_update(preds, target, self.num_outputs)
        self.preds.append(preds.detach().clone())
        self.target.append(target.detach().clone())

    def compute(self):
        """The rank correlation over everything seen."""
        return _spearman_corrcoef_compute(dim_zero_cat(self.preds), dim_zero_cat(self.target))
