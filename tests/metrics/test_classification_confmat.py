"""Confusion matrix, Matthews correlation, Cohen's kappa and Jaccard index, hand-computed.

Inputs as in test_classification_scores.py: binary confusion matrix [[tn, fp], [fn, tp]] = [[2, 1], [1, 2]];
multiclass rows (true class) [2, 1, 0], [0, 1, 1], [0, 0, 1]; multilabel per-label matrices
[[1, 0], [0, 2]], [[1, 1], [0, 1]], [[1, 1], [1, 0]].
"""
import numpy as np
import pytest

import ember as em
import ember.metrics.functional as F
from ember.metrics import (BinaryCohenKappa, BinaryConfusionMatrix, BinaryJaccardIndex, BinaryMatthewsCorrCoef,
                           CohenKappa, ConfusionMatrix, JaccardIndex, MatthewsCorrCoef, MulticlassCohenKappa,
                           MulticlassConfusionMatrix, MulticlassJaccardIndex, MulticlassMatthewsCorrCoef,
                           MultilabelConfusionMatrix, MultilabelJaccardIndex, MultilabelMatthewsCorrCoef)

BP = em.tensor([0.9, 0.2, 0.6, 0.4, 0.7, 0.1])
BT = em.tensor([1, 0, 0, 1, 1, 0])
MT = em.tensor([0, 0, 0, 1, 1, 2])
MP = em.tensor([0, 0, 1, 1, 2, 2])
LP = em.tensor([[0.9, 0.1, 0.8], [0.2, 0.7, 0.4], [0.6, 0.6, 0.1]])
LT = em.tensor([[1, 0, 0], [0, 1, 1], [1, 0, 0]])


def test_confusion_matrices(close):
    close(BinaryConfusionMatrix()(BP, BT), [[2, 1], [1, 2]])
    close(MulticlassConfusionMatrix(3)(MP, MT), [[2, 1, 0], [0, 1, 1], [0, 0, 1]])
    close(MultilabelConfusionMatrix(3)(LP, LT), [[[1, 0], [0, 2]], [[1, 1], [0, 1]], [[1, 1], [1, 0]]])
    close(F.confusion_matrix(MP, MT, task="multiclass", num_classes=3, normalize="true"),
          [[2 / 3, 1 / 3, 0], [0, 0.5, 0.5], [0, 0, 1]])
    close(F.multiclass_confusion_matrix(MP, MT, 3, normalize="pred"), [[1, 0.5, 0], [0, 0.5, 0.5], [0, 0, 0.5]])
    close(F.binary_confusion_matrix(BP, BT, normalize="all"), [[2 / 6, 1 / 6], [1 / 6, 2 / 6]])
    assert type(ConfusionMatrix(task="multilabel", num_labels=2)) is MultilabelConfusionMatrix


def test_confusion_matrix_ignore_index_and_empty_rows(close):
    close(F.multiclass_confusion_matrix(em.tensor([0, 1, 2]), em.tensor([0, -1, 2]), 3, ignore_index=-1),
          [[1, 0, 0], [0, 0, 0], [0, 0, 1]])
    # columns 1 and 2 were never predicted: 6 entries of 0/0
    with pytest.warns(UserWarning, match="6 NaN values found in confusion matrix have been replaced with zeros"):
        out = F.multiclass_confusion_matrix(em.tensor([0, 0]), em.tensor([0, 1]), 3, normalize="pred")
    close(out, [[0.5, 0, 0], [0.5, 0, 0], [0, 0, 0]])
    with pytest.raises(ValueError, match="`normalize` to be one of"):
        BinaryConfusionMatrix(normalize="rows")


def test_matthews_corrcoef(close):
    close(BinaryMatthewsCorrCoef()(BP, BT), (2 * 2 - 1 * 1) / np.sqrt(3 * 3 * 3 * 3))
    # multiclass R_K: c = 4, s = 6, t = [3, 2, 1], p = [2, 2, 2]
    close(MulticlassMatthewsCorrCoef(3)(MP, MT), (4 * 6 - 12) / np.sqrt((36 - 12) * (36 - 14)))
    # multilabel: the label matrices summed, [[3, 2], [1, 3]]
    close(MultilabelMatthewsCorrCoef(3)(LP, LT), (3 * 3 - 2 * 1) / np.sqrt(5 * 4 * 5 * 4))
    close(F.matthews_corrcoef(BT, BT, task="binary"), 1.0)
    close(F.matthews_corrcoef(1 - BT, BT, task="binary"), -1.0)
    assert type(MatthewsCorrCoef(task="multiclass", num_classes=3)) is MulticlassMatthewsCorrCoef


def test_matthews_corrcoef_when_all_predictions_are_equal(close):
    close(F.binary_matthews_corrcoef(em.tensor([1, 1, 1, 1]), em.tensor([1, 0, 1, 0])), 0.0)
    close(F.multiclass_matthews_corrcoef(em.tensor([2, 2, 2]), em.tensor([0, 1, 2]), 3), 0.0)


def test_cohen_kappa(close):
    close(BinaryCohenKappa()(BP, BT), (4 / 6 - 0.5) / (1 - 0.5))
    close(MulticlassCohenKappa(3)(MP, MT), (4 / 6 - 1 / 3) / (1 - 1 / 3))
    # linear weights |i - j|: observed sum = 1 + 1 = 2 (two off-by-one errors); expected = sum w * r c / n
    rows, cols = np.array([3, 2, 1]), np.array([2, 2, 2])
    w = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    close(F.multiclass_cohen_kappa(MP, MT, 3, weights="linear"), 1 - 2 / (w * np.outer(rows, cols) / 6).sum())
    wq = w ** 2
    close(CohenKappa(task="multiclass", num_classes=3, weights="quadratic")(MP, MT),
          1 - 2 / (wq * np.outer(rows, cols) / 6).sum())
    with pytest.raises(ValueError, match="`weight` to be one of"):
        BinaryCohenKappa(weights="cubic")
    with pytest.raises(ValueError, match="Invalid Classification"):
        CohenKappa(task="multilabel")


def test_jaccard_index(close):
    close(BinaryJaccardIndex()(BP, BT), 2 / (2 + 1 + 1))
    close(MulticlassJaccardIndex(3, average=None)(MP, MT), [2 / 3, 1 / 3, 1 / 2])
    close(MulticlassJaccardIndex(3)(MP, MT), (2 / 3 + 1 / 3 + 1 / 2) / 3)
    close(F.multiclass_jaccard_index(MP, MT, 3, average="micro"), 4 / 8)
    close(F.multiclass_jaccard_index(MP, MT, 3, average="weighted"), (3 * 2 / 3 + 2 * 1 / 3 + 1 * 1 / 2) / 6)
    close(MultilabelJaccardIndex(3, average=None)(LP, LT), [1, 0.5, 0])
    close(JaccardIndex(task="multilabel", num_labels=3)(LP, LT), 0.5)
    # a class absent from both predictions and targets is left out of the macro average
    close(F.multiclass_jaccard_index(em.tensor([0, 1]), em.tensor([0, 1]), 3), 1.0)
    # and the ignore_index class too
    close(F.multiclass_jaccard_index(em.tensor([0, 1, 2]), em.tensor([0, 1, 1]), 3, ignore_index=1), 1.0)
    close(F.binary_jaccard_index(em.tensor([0, 0]), em.tensor([0, 0])), 0.0)
    close(F.binary_jaccard_index(em.tensor([0, 0]), em.tensor([0, 0]), zero_division=1), 1.0)


@pytest.mark.parametrize("full_state_update", [False, True])
def test_confusion_matrix_accumulates_across_forward_calls(full_state_update, close):
    metric = MulticlassConfusionMatrix(3)
    if full_state_update:
        metric.__class__ = type("Safe", (MulticlassConfusionMatrix,), {"full_state_update": True})
    close(metric(MP[:3], MT[:3]), [[2, 1, 0], [0, 0, 0], [0, 0, 0]])
    close(metric(MP[3:], MT[3:]), [[0, 0, 0], [0, 1, 1], [0, 0, 1]])
    close(metric.compute(), [[2, 1, 0], [0, 1, 1], [0, 0, 1]])
