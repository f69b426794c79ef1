"""Cosine similarity between predicted and target vectors."""
from __future__ import annotations

from ._common import prepare

__all__ = ["cosine_similarity"]

_REDUCTIONS = ("sum", "mean", "none", None)


def _check_reduction(reduction) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Expected argument `reduction` to be one of {_REDUCTIONS} but got {reduction!r}")


def _cosine_similarity_update(preds, target):
    return prepare(preds, target)


def _cosine_similarity_compute(preds, target, reduction="sum"):
    dot = (preds * target).sum(-1)
    similarity = dot / (preds.norm(dim=-1) * target.norm(dim=-1))
    if reduction == "sum":
        return similarity.sum()
    if reduction == "mean":
        return similarity.mean()
    return similarity


def cosine_similarity(preds, target, reduction: str = "sum"):
    """Cosine similarity of each row of ``preds`` with the same row of ``target`` (along the last dimension).

    Args:
        preds (Tensor): ``(N, D)`` (or any shape; the last dimension is the vector).
        target (Tensor): same shape.
        reduction (str or None): ``"sum"``, ``"mean"`` or ``"none"``/``None`` (one value per row).
    """
    _check_reduction(reduction)
    preds, target = _cosine_similarity_update(preds, target)
    return _cosine_similarity_compute(preds, target, reduction)
