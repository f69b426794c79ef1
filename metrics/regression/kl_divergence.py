"""KL divergence metric."""
from __future__ import annotations

from ...core.dtypes import float32, int64
from ...core.ops.creation import zeros

from ..functional.regression.kl_divergence import _check_kl_args, _kld_compute, _kld_update
from ..metric import Metric
from ..utilities.data import dim_zero_cat

__all__ = ["KLDivergence"]


class KLDivergence(Metric):
    """KL divergence ``KL(P || Q)`` between the rows of ``p`` and ``q`` (``(N, D)`` distributions).

    Args:
        log_prob (bool): the inputs are log-probabilities (otherwise each row is normalised to sum to 1).
        reduction (str or None): ``"mean"`` over rows (default), ``"sum"`` or ``"none"``/``None``.
    """

    is_differentiable = True
    higher_is_better = False
    full_state_update = False
    plot_lower_bound = 0.0

    def __init__(self, log_prob: bool = False, reduction: str = "mean", **kwargs):
        super().__init__(**kwargs)
        _check_kl_args(log_prob, reduction)
        self.log_prob = log_prob
        self.reduction = reduction
        if reduction in ("mean", "sum"):
            self.add_state("measures", zeros((), dtype=float32, device=self.device), dist_reduce_fx="sum")
        else:
            self.add_state("measures", [], dist_reduce_fx="cat")
        self.add_state("total", zeros((), dtype=int64, device=self.device), dist_reduce_fx="sum")

    def update(self, p, q) -> None:
        """Accumulate the divergences of a batch of rows."""
        measures, total = _kld_update(p, q, self.log_prob)
        if self.reduction in ("mean", "sum"):
            self.measures = self.measures + measures.sum()
        else:
            self.measures.append(measures)
        self.total = self.total + total

    def compute(self):
        """The reduced divergence."""
        measures = dim_zero_cat(self.measures) if isinstance(self.measures, list) else self.measures
        return _kld_compute(measures, self.total, self.reduction)
