"""torchmetrics' documented examples that ember must reproduce: F-beta dtypes, binned curves' NaN, and 0-d
one-element results from ``compute``."""
import math

import pytest

import ember as em
from ember import metrics as M
from ember.metrics.functional import classification as F

P2, T2 = em.tensor([0, 1, 1, 0]), em.tensor([0, 1, 0, 0])
MC_P, MC_T = em.tensor([2, 1, 0, 1]), em.tensor([2, 1, 0, 0])
ML_P, ML_T = em.tensor([[0, 0, 1], [1, 0, 1]]), em.tensor([[0, 1, 0], [1, 0, 1]])

FBETA_CASES = [
    ("fbeta_score", lambda: F.fbeta_score(P2, T2, task="binary", beta=2.0)),
    ("f1_score", lambda: F.f1_score(MC_P, MC_T, task="multiclass", num_classes=3)),
    ("binary_fbeta_score", lambda: F.binary_fbeta_score(P2, T2, beta=0.5)),
    ("multiclass_fbeta_score", lambda: F.multiclass_fbeta_score(MC_P, MC_T, beta=2.0, num_classes=3, average=None)),
    ("multilabel_fbeta_score", lambda: F.multilabel_fbeta_score(ML_P, ML_T, beta=2.0, num_labels=3,
                                                                 average="weighted")),
    ("binary_f1_score", lambda: F.binary_f1_score(P2, T2)),
    ("multiclass_f1_score", lambda: F.multiclass_f1_score(MC_P, MC_T, num_classes=3, average="micro")),
    ("multilabel_f1_score", lambda: F.multilabel_f1_score(ML_P[..., None], ML_T[..., None], num_labels=3,
                                                           multidim_average="samplewise")),
    ("FBetaScore", lambda: M.FBetaScore(task="multiclass", num_classes=3, beta=0.5)(MC_P, MC_T)),
    ("F1Score", lambda: M.F1Score(task="binary")(P2, T2)),
    ("BinaryFBetaScore", lambda: M.BinaryFBetaScore(beta=2.0)(P2, T2)),
    ("MulticlassFBetaScore", lambda: M.MulticlassFBetaScore(beta=2.0, num_classes=3)(MC_P, MC_T)),
    ("MultilabelFBetaScore", lambda: M.MultilabelFBetaScore(beta=2.0, num_labels=3)(ML_P, ML_T)),
    ("BinaryF1Score", lambda: M.BinaryF1Score()(P2.float() * 0.9, T2)),
    ("MulticlassF1Score", lambda: M.MulticlassF1Score(num_classes=3, average=None)(MC_P, MC_T)),
    ("MultilabelF1Score", lambda: M.MultilabelF1Score(num_labels=3)(ML_P, ML_T)),
]


@pytest.mark.parametrize("name, call", FBETA_CASES, ids=[c[0] for c in FBETA_CASES])
def test_fbeta_family_returns_float32(name, call):
    assert call().dtype == em.float32


def test_fbeta_values_are_unchanged_by_the_dtype():
    # binary: tp 1, fp 1, fn 0 -> F1 = 2 / 3; F2 = 5 / (5 + 0 + 1)
    assert F.binary_f1_score(P2, T2).item() == pytest.approx(2 / 3)
    assert F.binary_fbeta_score(P2, T2, beta=2.0).item() == pytest.approx(5 / 6)
    with em.no_grad():
        em.set_default_dtype(em.float64)
        try:
            assert F.binary_f1_score(P2, T2).dtype == em.float64  # follows the default dtype, as PyTorch does
        finally:
            em.set_default_dtype(em.float32)


def test_binned_binary_curve_gives_nan_for_undefined_precision():
    # torchmetrics' documented example: at threshold 1.0 nothing is predicted positive, precision 0/0 is NaN
    preds, target = em.tensor([0, 0.5, 0.7, 0.8]), em.tensor([0, 1, 1, 0])
    for precision, recall, thresholds in (F.binary_precision_recall_curve(preds, target, thresholds=5),
                                          M.BinaryPrecisionRecallCurve(thresholds=5)(preds, target)):
        got = precision.tolist()
        assert [round(v, 4) for v in got[:4]] == [0.5, 0.6667, 0.6667, 0.0]
        assert math.isnan(got[4]) and got[5] == 1.0
        assert recall.tolist() == [1., 1., 1., 0., 0., 0.]
        assert thresholds.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    # the areas built on the curve still count an undefined precision as 0
    assert F.binary_average_precision(preds, target, thresholds=5).item() == pytest.approx(2 / 3, abs=1e-6)


def test_binned_multiclass_and_multilabel_curves_give_nan_for_undefined_recall():
    preds = em.tensor([[0.75, 0.05, 0.2], [0.05, 0.75, 0.2], [0.1, 0.1, 0.8]])
    precision, recall, _ = F.multiclass_precision_recall_curve(preds, em.tensor([0, 1, 1]), num_classes=3,
                                                               thresholds=3)
    assert all(math.isnan(v) for v in recall[2, :3].tolist())  # class 2 never occurs: recall 0/0
    assert math.isnan(precision[0, 2].item())                  # nothing scores >= 1 for class 0
    precision, recall, _ = M.MultilabelPrecisionRecallCurve(num_labels=2, thresholds=3)(
        em.tensor([[0.2, 0.9], [0.6, 0.4]]), em.tensor([[0, 1], [0, 1]]))
    assert all(math.isnan(v) for v in recall[0, :3].tolist())


def test_multiclass_curve_with_one_threshold_returns_a_0d_tensor():
    # torchmetrics' documented example: class 4 scores 0.05 everywhere, a single threshold
    preds = em.tensor([[0.75, 0.05, 0.05, 0.05, 0.05], [0.05, 0.75, 0.05, 0.05, 0.05],
                       [0.05, 0.05, 0.75, 0.05, 0.05], [0.05, 0.05, 0.05, 0.75, 0.05]])
    precision, recall, thresholds = M.PrecisionRecallCurve(task="multiclass", num_classes=5)(preds,
                                                                                           em.tensor([0, 1, 3, 2]))
    assert [t.shape for t in thresholds] == [(2,), (2,), (2,), (2,), ()]
    assert thresholds[4].item() == pytest.approx(0.05)
    assert math.isnan(recall[4][0].item()) and recall[4].shape == (2,)
    assert repr(thresholds[4]) == "tensor(0.0500)"
