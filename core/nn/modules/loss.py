"""Loss modules: each stores its options and calls the function of the same name in ``ember.nn.functional``.

Class weights (``weight``, ``pos_weight``) are registered as buffers, so they follow ``.to()`` and appear in the
``state_dict`` exactly as in PyTorch.
"""
from __future__ import annotations

from .. import functional as F
from ..functional._loss import _legacy_reduction
from .module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss",
           "NLLLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss", "CosineEmbeddingLoss", "MarginRankingLoss",
           "TripletMarginLoss", "TripletMarginWithDistanceLoss", "HingeEmbeddingLoss", "MultiLabelSoftMarginLoss",
           "SoftMarginLoss", "MultiMarginLoss", "MultiLabelMarginLoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _legacy_reduction(size_average, reduce)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean absolute error between ``input`` and ``target``.

    Args:
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error between ``input`` and ``target``.

    Args:
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta`` (scaled by ``1/beta``), absolute error above.

    Args:
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        beta (float): the threshold between the two regimes. Default: 1.
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta``-scaled absolute error above (``delta * SmoothL1Loss(beta=delta)``).

    Args:
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        delta (float): the threshold. Default: 1.
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class BCELoss(_WeightedLoss):
    """Binary cross-entropy between probabilities ``input`` and targets in [0, 1].

    Args:
        weight (Tensor, optional): rescaling weight broadcast to the input.
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Sigmoid followed by binary cross-entropy, in one numerically stable expression.

    Args:
        weight (Tensor, optional): rescaling weight broadcast to the input.
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        pos_weight (Tensor, optional): weight of positive examples per class (broadcast along the last dim).
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction: str = "mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross-entropy between logits and class indices (or class probabilities): ``log_softmax`` + NLL, fused.

    Args:
        weight (Tensor, optional): ``(C,)`` rescaling weight per class.
        ignore_index (int): a target index that contributes nothing to the loss or to the mean's denominator.
            Default: -100.
        reduction (str): ``'mean'`` (default), ``'sum'`` or ``'none'``.
        label_smoothing (float): in [0, 1]; mixes the targets with the uniform distribution. Default: 0.

    Shape:
        input ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)``; target ``(N,)``, ``()`` or ``(N, d1, ...)`` indices, or
        probabilities of the input's shape.
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None, reduction: str = "mean",
                 label_smoothing: float = 0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood of class indices given log-probabilities (use after ``LogSoftmax``).

    Args:
        weight (Tensor, optional): ``(C,)`` rescaling weight per class.
        ignore_index (int): a target index that contributes nothing. Default: -100.
        reduction (str): ``'mean'`` (weighted mean), ``'sum'`` or ``'none'``.
    """

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence; ``input`` holds log-probabilities.

    Args:
        reduction (str): ``'batchmean'`` gives the mathematical KL divergence; ``'mean'`` (default, as in
            PyTorch) divides by the number of elements; also ``'sum'`` and ``'none'``.
        log_target (bool): whether ``target`` is given in log space. Default: ``False``.
    """

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean", log_target: bool = False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of a Poisson-distributed target.

    Args:
        log_input (bool): ``input`` is the log of the rate (default) or the rate itself.
        full (bool): add the Stirling approximation term.
        eps (float): added inside the log when ``log_input=False``.
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average=None, eps: float = 1e-8, reduce=None,
                 reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log likelihood of a Gaussian target with predicted mean ``input`` and variance ``var``.

    Call it as ``loss(input, target, var)``.

    Args:
        full (bool): include the constant term. Default: ``False``.
        eps (float): lower clamp of ``var``. Default: 1e-6.
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos(x1, x2)`` for pairs labelled 1, ``max(0, cos(x1, x2) - margin)`` for pairs labelled -1.

    Args:
        margin (float): in [-1, 1]; 0 to 0.5 is suggested. Default: 0.
    """

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """``max(0, -y (x1 - x2) + margin)``: ``y = 1`` means ``x1`` should rank higher."""

    def __init__(self, margin: float = 0.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm distance.

    Args:
        margin (float): Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): added to the difference for numerical stability.
        swap (bool): use the distance swap.
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """:class:`TripletMarginLoss` with a custom ``distance_function``."""

    def __init__(self, *, distance_function=None, margin: float = 1.0, swap: bool = False, reduction: str = "mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             "instead")
        self.distance_function = distance_function if distance_function is not None else F.pairwise_distance
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` for ``y = 1`` and ``max(0, margin - x)`` for ``y = -1`` (e.g. with ``x`` a distance)."""

    def __init__(self, margin: float = 1.0, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """One-versus-all logistic loss for multi-label targets in {0, 1}, averaged over classes."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss ``log(1 + exp(-y x))`` for targets in {-1, 1}."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss.

    Args:
        p (int): 1 or 2. Default: 1.
        margin (float): Default: 1.
        weight (Tensor, optional): ``(C,)`` weight per class.
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, size_average=None, reduce=None,
                 reduction: str = "mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss; targets are class indices padded with -1."""

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)
