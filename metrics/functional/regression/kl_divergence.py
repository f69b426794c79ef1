"""Kullback-Leibler divergence ``KL(P || Q) = sum_i p_i log(p_i / q_i)`` between rows of distributions."""
from __future__ import annotations

from ...utilities.checks import check_same_shape
from ._common import as_float_tensor

__all__ = ["kl_divergence"]

_REDUCTIONS = ("mean", "sum", "none", None)


def _check_kl_args(log_prob, reduction) -> None:
    if not isinstance(log_prob, bool):
        raise ValueError(f"Expected argument `log_prob` to be bool but got {log_prob!r}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Expected argument `reduction` to be one of {_REDUCTIONS} but got {reduction!r}")


def _kld_update(p, q, log_prob: bool):
    """One divergence per row, and the number of rows."""
    from ....core import xlogy
    p, q = as_float_tensor(p, "p"), as_float_tensor(q, "q")
    check_same_shape(p, q)
    if p.ndim != 2 or q.ndim != 2:
        raise ValueError(f"Expected both p and q distribution to be 2D but got {p.ndim} and {q.ndim} respectively")
    total = p.shape[0]
    if log_prob:
        measures = (p.exp() * (p - q)).sum(-1)
    else:
        p = p / p.sum(-1, keepdim=True)
        q = q / q.sum(-1, keepdim=True)
        measures = xlogy(p, p / q).sum(-1)
    return measures, total


def _kld_compute(measures, total, reduction="mean"):
    if reduction == "sum":
        return measures.sum()
    if reduction == "mean":
        return measures.sum() / total
    return measures


def kl_divergence(p, q, log_prob: bool = False, reduction: str = "mean"):
    """KL divergence between the distributions in the rows of ``p`` and ``q``.

    Args:
        p (Tensor): ``(N, D)`` the data distributions (normalised per row unless ``log_prob``).
        q (Tensor): ``(N, D)`` the prior/approximating distributions.
        log_prob (bool): the inputs are log-probabilities.
        reduction (str or None): ``"mean"`` over rows, ``"sum"``, or ``"none"``/``None`` per row.
    """
    _check_kl_args(log_prob, reduction)
    measures, total = _kld_update(p, q, log_prob)
    return _kld_compute(measures, total, reduction)
