"""Cosine similarity metric."""
from __future__ import annotations

from ..functional.regression.cosine_similarity import (_check_reduction, _cosine_similarity_compute,
                                                       _cosine_similarity_update)
from ..metric import Metric
from ..utilities.data import dim_zero_cat

__all__ = ["CosineSimilarity"]


class CosineSimilarity(Metric):
    """Cosine similarity between each predicted row and its target row, reduced over rows.

    Args:
        reduction (str or None): ``"sum"`` (default), ``"mean"`` or ``"none"``/``None`` (one value per row).
    """

    is_differentiable = True
    higher_is_better = True
    full_state_update = False
    plot_lower_bound = -1.0
    plot_upper_bound = 1.0

    def __init__(self, reduction: str = "sum", **kwargs):
        super().__init__(**kwargs)
        _check_reduction(reduction)
        self.reduction = reduction
        self.add_state("preds", [], dist_reduce_fx="cat")
        self.add_state("target", [], dist_reduce_fx="cat")

    def update(self, preds, target) -> None:
        """Store a batch of ``(N, D)`` vectors."""
        preds, target = _cosine_similarity_update(preds, target)
        if preds.ndim != 2:
            raise ValueError("Expected input to cosine similarity to be 2D tensors of shape `[N,D]` where `N` is the "
                             "number of samples and `D` is the number of dimensions, but got tensor of shape "
                             f"{tuple(preds.shape)}")
        self.preds.append(preds)
        self.target.append(target)

    def compute(self):
        """The reduced cosine similarity."""
        return _cosine_similarity_compute(dim_zero_cat(self.preds), dim_zero_cat(self.target), self.reduction)
