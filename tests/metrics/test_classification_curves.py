"""Precision-recall curve, ROC, AUROC, average precision and calibration error, hand-computed.

The binary example: scores [0.1, 0.4, 0.35, 0.8] with target [0, 0, 1, 1]. Sorted by decreasing score the targets
are 1 (0.8), 0 (0.4), 1 (0.35), 0 (0.1), so the cumulative (tp, fp) at each threshold are (1, 0), (1, 1), (2, 1),
(2, 2): ROC points (fpr, tpr) (0, 0), (0, .5), (.5, .5), (.5, 1), (1, 1), area 0.75; precision 1, 1/2, 2/3, 1/2
at recall 1/2, 1/2, 1, 1, so AP = 1/2 * 1 + 1/2 * 2/3 = 5/6.
"""
import numpy as np
import pytest

import ember as em
import ember.metrics.functional as F
from ember.metrics import (AUROC, ROC, AveragePrecision, BinaryAUROC, BinaryAveragePrecision,
                           BinaryCalibrationError, BinaryPrecisionRecallCurve, BinaryROC, CalibrationError,
                           MulticlassAUROC, MulticlassAveragePrecision, MulticlassCalibrationError,
                           MulticlassPrecisionRecallCurve, MulticlassROC, MultilabelAUROC, MultilabelAveragePrecision,
                           MultilabelPrecisionRecallCurve, MultilabelROC, PrecisionRecallCurve)

P = em.tensor([0.1, 0.4, 0.35, 0.8])
T = em.tensor([0, 0, 1, 1])


def test_binary_curves_exact(close):
    close(BinaryPrecisionRecallCurve()(P, T), ([0.5, 2 / 3, 0.5, 1, 1], [1, 1, 0.5, 0.5, 0], [0.1, 0.35, 0.4, 0.8]))
    close(BinaryROC()(P, T), ([0, 0, 0.5, 0.5, 1], [0, 0.5, 0.5, 1, 1], [1, 0.8, 0.4, 0.35, 0.1]))
    close(BinaryAUROC()(P, T), 0.75)
    close(BinaryAveragePrecision()(P, T), 5 / 6)
    logits = em.tensor(np.log(P.numpy() / (1 - P.numpy())))  # outside [0, 1]: sigmoid gives back P
    close(F.binary_auroc(logits, T), 0.75)


def test_binary_curves_binned(close):
    # thresholds 0, 0.5, 1 (positive when score >= threshold): (tp, fp) = (2, 2), (1, 0), (0, 0); the last
    # precision is 0/0, NaN as in torchmetrics (the average precision below still counts it as 0)
    precision, recall, thresholds = BinaryPrecisionRecallCurve(thresholds=3)(P, T)
    close((precision, recall, thresholds), ([0.5, 1, float("nan"), 1], [1, 0.5, 0, 0], [0, 0.5, 1]))
    close(BinaryROC(thresholds=[0.0, 0.5, 1.0])(P, T), ([0, 0, 1], [0, 0.5, 1], [1, 0.5, 0]))
    close(BinaryAUROC(thresholds=em.tensor([0.0, 0.5, 1.0]))(P, T), 0.75)
    close(F.binary_average_precision(P, T, thresholds=3), 0.5 * 1 + 0.5 * 0.5)


def test_auroc_with_tied_scores(close):
    close(F.binary_auroc(em.tensor([0.5, 0.5, 0.5, 0.5]), em.tensor([0, 1, 0, 1])), 0.5)
    # pairs (positive, negative): (0.4, 0.1) 1, (0.4, 0.4) tie 1/2, (0.8, 0.1) 1, (0.8, 0.4) 1
    close(F.binary_auroc(em.tensor([0.1, 0.4, 0.4, 0.8]), em.tensor([0, 0, 1, 1])), 3.5 / 4)
    close(BinaryAUROC()(em.tensor([0.3, 0.3, 0.9]), em.tensor([1, 0, 1])), (1 + 0.5) / 2)


def test_auroc_partial_max_fpr(close):
    # ROC points (0, 0), (0, .5), (.5, .5), (.5, 1), (1, 1); up to fpr 0.5 the area is 0.25 (tpr 0.5 over 0.5).
    # McClish: 0.5 * (1 + (0.25 - 0.125) / (0.5 - 0.125)).
    close(F.binary_auroc(P, T, max_fpr=0.5), 0.5 * (1 + 0.125 / 0.375))


def test_auroc_ignore_index_and_single_class_warnings(close):
    close(F.binary_auroc(em.tensor([0.1, 0.4, 0.35, 0.8, 0.9]), em.tensor([0, 0, 1, 1, -1]), ignore_index=-1), 0.75)
    with pytest.warns(UserWarning, match="No positive samples in targets"):
        close(F.binary_auroc(em.tensor([0.2, 0.6]), em.tensor([0, 0])), 0.0)
    with pytest.warns(UserWarning, match="No negative samples in targets"):
        close(F.binary_roc(em.tensor([0.2, 0.6]), em.tensor([1, 1]))[0], [0, 0, 0])


MC_PREDS = em.tensor([[0.75, 0.05, 0.05, 0.05, 0.05], [0.05, 0.75, 0.05, 0.05, 0.05],
                      [0.05, 0.05, 0.75, 0.05, 0.05], [0.05, 0.05, 0.05, 0.75, 0.05]])
MC_TARGET = em.tensor([0, 1, 3, 2])


def test_multiclass_curves(close):
    # class 0: scores (0.75 pos, 0.05, 0.05, 0.05) -> perfect; class 2: positive is row 3 scored 0.05 (tied with two
    # negatives, below the negative 0.75) -> AUROC = (0 + 0.5 * 2) / 3; class 4 has no positive -> tpr 0 -> 0.
    with pytest.warns(UserWarning, match="No positive samples"):
        per_class = MulticlassAUROC(5, average=None)(MC_PREDS, MC_TARGET)
    close(per_class, [1, 1, 1 / 3, 1 / 3, 0])
    with pytest.warns(UserWarning):
        close(MulticlassAUROC(5)(MC_PREDS, MC_TARGET), (1 + 1 + 1 / 3 + 1 / 3 + 0) / 5)
    with pytest.warns(UserWarning):
        close(F.multiclass_auroc(MC_PREDS, MC_TARGET, 5, average="weighted"), (1 + 1 + 1 / 3 + 1 / 3) / 4)
    precision, recall, thresholds = MulticlassPrecisionRecallCurve(5)(MC_PREDS, MC_TARGET)
    close(precision[:4], [[0.25, 1, 1], [0.25, 1, 1], [0.25, 0, 1], [0.25, 0, 1]])
    close(thresholds[0], [0.05, 0.75])
    # class 4 has no positive: its AP is NaN and the macro average leaves it out (with a warning)
    with pytest.warns(UserWarning, match="Ignoring these classes in macro-average"):
        close(MulticlassAveragePrecision(5)(MC_PREDS, MC_TARGET), (1 + 1 + 0.25 + 0.25) / 4)
    fpr, tpr, _ = MulticlassROC(5, thresholds=5)(MC_PREDS, MC_TARGET)
    assert tuple(fpr.shape) == (5, 5) and tuple(tpr.shape) == (5, 5)
    close(tpr[0], [0, 1, 1, 1, 1])  # thresholds 1, .75, .5, .25, 0: class 0's positive scores .75


def test_multiclass_logits_are_softmaxed(close):
    logits = np.array([[2.0, 0.0, -1.0], [0.0, 1.0, 3.0], [1.0, 2.0, 0.0], [0.5, -2.0, 0.2]])
    target = em.tensor([0, 2, 1, 0])
    probs = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    # column 1 of the probabilities ranks row 2 (the positive) above the three negatives: AUROC 1
    assert probs[2, 1] > max(probs[0, 1], probs[1, 1], probs[3, 1])
    close(F.multiclass_auroc(em.tensor(logits), target, 3, average=None),
          F.multiclass_auroc(em.tensor(probs), target, 3, average=None), atol=1e-6)
    close(F.multiclass_auroc(em.tensor(logits), target, 3, average=None)[1], 1.0)


ML_PREDS = em.tensor([[0.9, 0.2], [0.6, 0.8], [0.3, 0.7], [0.1, 0.4]])
ML_TARGET = em.tensor([[1, 0], [0, 1], [1, 1], [0, 0]])


def test_multilabel_curves(close):
    # label 0: positives 0.9, 0.3 against negatives 0.6, 0.1 -> pairs won 1 + 1 + 0 + 1 = 3 of 4
    # label 1: positives 0.8, 0.7 against 0.2, 0.4 -> 4 of 4
    close(MultilabelAUROC(2, average=None)(ML_PREDS, ML_TARGET), [0.75, 1.0])
    close(MultilabelAUROC(2)(ML_PREDS, ML_TARGET), 0.875)
    # micro: all 8 scores pooled; positives 0.9 .3 .8 .7 vs negatives .2 .6 .4 .1: lost only .3 < .6 and .3 < .4
    close(F.multilabel_auroc(ML_PREDS, ML_TARGET, 2, average="micro"), 14 / 16)
    # label 0 AP: ranks .9 (+) .6 (-) .3 (+) -> 1/2 * 1 + 1/2 * 2/3; label 1: 1
    close(MultilabelAveragePrecision(2, average=None)(ML_PREDS, ML_TARGET), [0.5 + 1 / 3, 1.0])
    masked = em.tensor([[1, 0], [-1, 1], [1, 1], [0, 0]])  # drops label 0's negative 0.6
    close(F.multilabel_auroc(ML_PREDS, masked, 2, average=None, ignore_index=-1), [1.0, 1.0])
    close(F.multilabel_auroc(ML_PREDS, masked, 2, average=None, ignore_index=-1, thresholds=11), [1.0, 1.0])
    fpr, tpr, thr = MultilabelROC(2)(ML_PREDS, ML_TARGET)
    close(tpr[1], [0, 0.5, 1, 1, 1])
    precision, recall, _ = MultilabelPrecisionRecallCurve(2, thresholds=[0.5])(ML_PREDS, ML_TARGET)
    close(precision, [[0.5, 1], [1, 1]])


def test_task_wrappers():
    assert type(AUROC(task="binary", max_fpr=0.3)) is BinaryAUROC
    assert type(ROC(task="multilabel", num_labels=3)) is MultilabelROC
    assert type(AveragePrecision(task="multiclass", num_classes=3)) is MulticlassAveragePrecision
    assert type(PrecisionRecallCurve(task="binary", thresholds=10)) is BinaryPrecisionRecallCurve
    assert type(CalibrationError(task="multiclass", num_classes=3)) is MulticlassCalibrationError


@pytest.mark.parametrize("thresholds", [None, 101])
@pytest.mark.parametrize("full_state_update", [False, True])
def test_accumulation_over_forward_calls_equals_all_at_once(thresholds, full_state_update, close):
    rng = np.random.default_rng(3)
    preds = rng.random(40).astype(np.float32)
    target = (rng.random(40) < preds).astype(np.int64)
    metric = BinaryAUROC(thresholds=thresholds)
    if full_state_update:
        metric.__class__ = type("Safe", (BinaryAUROC,), {"full_state_update": True})
    for i in range(0, 40, 10):
        p, t = em.tensor(preds[i:i + 10]), em.tensor(target[i:i + 10])
        close(metric(p, t), F.binary_auroc(p, t, thresholds=thresholds))
    close(metric.compute(), F.binary_auroc(em.tensor(preds), em.tensor(target), thresholds=thresholds))


def test_exact_state_does_not_alias_the_callers_tensor(close):
    metric = BinaryAUROC()
    p = em.tensor([0.1, 0.4, 0.35, 0.8])
    metric.update(p, T)
    p.numpy()[:] = [0.9, 0.9, 0.1, 0.1]  # the caller reuses its buffer
    close(metric.compute(), 0.75)


def test_calibration_error(close):
    preds, target = em.tensor([0.2, 0.3, 0.9, 0.9, 0.6]), em.tensor([0, 1, 1, 1, 0])
    # 2 bins: [0, .5) holds .2 .3 (confidence .25, accuracy .5, 2/5 of the data); [.5, 1] holds .9 .9 .6
    # (confidence .8, accuracy 2/3, 3/5)
    gaps, props = np.array([0.25, 0.8 - 2 / 3]), np.array([0.4, 0.6])
    close(BinaryCalibrationError(n_bins=2)(preds, target), (gaps * props).sum())
    close(F.binary_calibration_error(preds, target, n_bins=2, norm="max"), 0.25)
    close(F.binary_calibration_error(preds, target, n_bins=2, norm="l2"), np.sqrt((gaps ** 2 * props).sum()))
    mc = em.tensor([[0.7, 0.2, 0.1], [0.4, 0.5, 0.1], [0.1, 0.1, 0.8]])
    # top confidences .7 (right), .5 (wrong), .8 (right); 4 bins: [.5, .75) holds .7, .5; [.75, 1] holds .8
    close(MulticlassCalibrationError(3, n_bins=4)(mc, em.tensor([0, 0, 2])), 0.1 * 2 / 3 + 0.2 * 1 / 3)
    with pytest.raises(ValueError, match="`norm` to be one of"):
        BinaryCalibrationError(norm="l3")
    with pytest.raises(ValueError, match="floating tensor with probability/logit scores"):
        BinaryCalibrationError()(em.tensor([0, 1]), em.tensor([0, 1]))


def test_bad_curve_arguments():
    with pytest.raises(ValueError, match="`thresholds` is an integer, expected it to be larger than 1"):
        BinaryROC(thresholds=1)
    with pytest.raises(ValueError, match="list, expected all elements to be floats in the \\[0,1\\] range"):
        BinaryROC(thresholds=[0.5, 2.0])
    with pytest.raises(ValueError, match="`preds` to be a floating tensor with probability/logit scores"):
        BinaryAUROC()(em.tensor([0, 1]), em.tensor([0, 1]))
    with pytest.raises(ValueError, match="`max_fpr` should be a float in range \\(0, 1\\]"):
        BinaryAUROC(max_fpr=1.5)
    with pytest.raises(ValueError, match="one more dimension than `target`"):
        MulticlassAUROC(3)(em.tensor([0.1, 0.2]), em.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="Is `num_classes` too small"):
        MulticlassAUROC(2)(em.tensor([[0.1, 0.9], [0.8, 0.2]]), em.tensor([0, 2]))
    with pytest.raises(ValueError, match="Expected argument `average` to be one of"):
        MulticlassAUROC(3, average="micro")
