"""Stat-score metrics (accuracy, precision, recall, F-beta, specificity, Hamming), hand-computed.

Fixed inputs and their counts, worked out by hand:

- binary: probabilities P = [0.9, 0.2, 0.6, 0.4, 0.7, 0.1], target T = [1, 0, 0, 1, 1, 0]; at 0.5 the labels are
  [1, 0, 1, 0, 1, 0], so tp = 2 (items 0, 4), fp = 1 (item 2), fn = 1 (item 3), tn = 2.
- multiclass (C = 3): target [0, 0, 0, 1, 1, 2], preds [0, 0, 1, 1, 2, 2]; confusion matrix rows (true)
  [2, 1, 0], [0, 1, 1], [0, 0, 1]: tp = [2, 1, 1], fp = [0, 1, 1], fn = [1, 1, 0], tn = [3, 3, 4].
- multilabel (L = 3): labels at 0.5 [[1, 0, 1], [0, 1, 0], [1, 1, 0]] against [[1, 0, 0], [0, 1, 1], [1, 0, 0]]:
  per label (tp, fp, fn, tn) = (2, 0, 0, 1), (1, 1, 0, 1), (0, 1, 1, 1).
"""
import numpy as np
import pytest

import ember as em
import ember.metrics.functional as F
from ember.metrics import (Accuracy, BinaryAccuracy, BinaryF1Score, BinaryFBetaScore, BinaryPrecision,
                           BinaryStatScores, F1Score, FBetaScore, HammingDistance, MulticlassAccuracy,
                           MulticlassF1Score, MulticlassHammingDistance, MulticlassPrecision, MulticlassRecall,
                           MulticlassSpecificity, MulticlassStatScores, MultilabelAccuracy, MultilabelF1Score,
                           MultilabelHammingDistance, MultilabelPrecision, MultilabelRecall, Precision, Recall,
                           Specificity, StatScores)

BP = em.tensor([0.9, 0.2, 0.6, 0.4, 0.7, 0.1])
BT = em.tensor([1, 0, 0, 1, 1, 0])
BLOGITS = em.tensor([2.0, -1.5, 0.3, -0.2, 1.0, -3.0])  # outside [0, 1]: sigmoid, same decisions
BLABELS = em.tensor([1, 0, 1, 0, 1, 0])

MT = em.tensor([0, 0, 0, 1, 1, 2])
MP = em.tensor([0, 0, 1, 1, 2, 2])
MSCORES = em.tensor([[0.6, 0.3, 0.1], [0.5, 0.2, 0.3], [0.3, 0.5, 0.2],
                     [0.1, 0.7, 0.2], [0.1, 0.3, 0.6], [0.2, 0.2, 0.6]])  # argmax = MP

LP = em.tensor([[0.9, 0.1, 0.8], [0.2, 0.7, 0.4], [0.6, 0.6, 0.1]])
LT = em.tensor([[1, 0, 0], [0, 1, 1], [1, 0, 0]])


@pytest.mark.parametrize("preds", [BP, BLOGITS, BLABELS], ids=["probs", "logits", "labels"])
def test_binary_scores(preds, close):
    close(BinaryStatScores()(preds, BT), [2, 1, 2, 1, 3])
    close(F.binary_accuracy(preds, BT), 4 / 6)
    close(F.binary_precision(preds, BT), 2 / 3)
    close(F.binary_recall(preds, BT), 2 / 3)
    close(F.binary_specificity(preds, BT), 2 / 3)
    close(F.binary_f1_score(preds, BT), 2 / 3)
    close(F.binary_hamming_distance(preds, BT), 2 / 6)
    close(Accuracy(task="binary")(preds, BT), 4 / 6)


def test_binary_fbeta_when_precision_and_recall_differ(close):
    preds, target = em.tensor([1, 1, 1, 1]), em.tensor([1, 0, 1, 0])  # tp 2, fp 2, fn 0: P = 0.5, R = 1
    close(F.binary_fbeta_score(preds, target, beta=2.0), 10 / 12)
    close(F.binary_fbeta_score(preds, target, beta=0.5), 2.5 / 4.5)
    close(BinaryFBetaScore(beta=2.0)(preds, target), 10 / 12)
    close(FBetaScore(task="binary", beta=0.5)(preds, target), 2.5 / 4.5)


def test_binary_threshold_and_all_predictions_equal(close):
    close(F.binary_accuracy(BP, BT, threshold=0.65), 5 / 6)   # labels [1, 0, 0, 0, 1, 0]: only item 3 wrong
    close(F.binary_recall(BP, BT, threshold=0.65), 2 / 3)
    ones = em.tensor([0.9, 0.9, 0.9, 0.9])
    target = em.tensor([1, 0, 1, 0])
    close(F.binary_accuracy(ones, target), 0.5)
    close(F.binary_precision(ones, target), 0.5)
    close(F.binary_recall(ones, target), 1.0)
    close(F.binary_specificity(ones, target), 0.0)
    zeros = em.tensor([0.1, 0.1, 0.1, 0.1])
    close(F.binary_precision(zeros, target), 0.0)  # nothing predicted positive: zero_division
    close(F.binary_precision(zeros, target, zero_division=1), 1.0)


def test_binary_ignore_index_and_samplewise(close):
    target = em.tensor([1, 0, -1, 1, 1, 0])  # item 2 (a false positive) is ignored
    close(F.binary_precision(BP, target, ignore_index=-1), 1.0)
    close(F.binary_accuracy(BP, target, ignore_index=-1), 4 / 5)
    preds = em.tensor([[1, 0, 1], [0, 0, 1]])
    t = em.tensor([[1, 0, 1], [0, 1, 1]])
    close(F.binary_accuracy(preds, t, multidim_average="samplewise"), [1.0, 2 / 3])
    close(BinaryStatScores(multidim_average="samplewise")(preds, t), [[2, 0, 1, 0, 2], [1, 0, 1, 1, 2]])


@pytest.mark.parametrize("preds", [MP, MSCORES], ids=["labels", "scores"])
def test_multiclass_scores(preds, close):
    close(F.multiclass_stat_scores(preds, MT, 3, average=None),
          [[2, 0, 3, 1, 3], [1, 1, 3, 1, 2], [1, 1, 4, 0, 1]])
    close(F.multiclass_accuracy(preds, MT, 3, average="micro"), 4 / 6)
    close(F.multiclass_accuracy(preds, MT, 3, average="macro"), (2 / 3 + 1 / 2 + 1) / 3)
    close(F.multiclass_accuracy(preds, MT, 3, average="weighted"), 4 / 6)
    close(F.multiclass_accuracy(preds, MT, 3, average=None), [2 / 3, 1 / 2, 1])
    close(F.multiclass_precision(preds, MT, 3, average="macro"), 2 / 3)
    close(F.multiclass_precision(preds, MT, 3, average="weighted"), (3 * 1 + 2 * 0.5 + 1 * 0.5) / 6)
    close(F.multiclass_precision(preds, MT, 3, average="micro"), 4 / 6)
    close(F.multiclass_recall(preds, MT, 3, average="none"), [2 / 3, 1 / 2, 1])
    close(F.multiclass_f1_score(preds, MT, 3, average=None), [0.8, 0.5, 2 / 3])
    close(F.multiclass_f1_score(preds, MT, 3), (0.8 + 0.5 + 2 / 3) / 3)
    close(F.multiclass_specificity(preds, MT, 3, average=None), [1.0, 0.75, 0.8])
    close(F.multiclass_hamming_distance(preds, MT, 3), (1 / 3 + 1 / 2 + 0) / 3)
    close(MulticlassStatScores(3, average="micro")(preds, MT), [4, 2, 10, 2, 6])
    close(Accuracy(task="multiclass", num_classes=3)(preds, MT), 4 / 6)  # the task wrapper defaults to micro
    close(MulticlassAccuracy(3)(preds, MT), (2 / 3 + 1 / 2 + 1) / 3)    # the class defaults to macro


def test_multiclass_top_k(close):
    close(F.multiclass_accuracy(MSCORES, MT, 3, average="micro", top_k=2), 1.0)
    close(MulticlassAccuracy(3, top_k=2, average=None)(MSCORES, MT), [1.0, 1.0, 1.0])
    # precision at top-2: every row predicts two classes, so fp = 6 in total
    close(F.multiclass_precision(MSCORES, MT, 3, average="micro", top_k=2), 6 / 12)


def test_class_never_predicted_and_class_absent_from_targets(close):
    # class 2 never predicted nor present: left out of the macro average
    preds, target = em.tensor([0, 1, 1, 1]), em.tensor([0, 0, 1, 1])
    close(F.multiclass_precision(preds, target, 3, average=None), [1.0, 2 / 3, 0.0])
    close(F.multiclass_precision(preds, target, 3), (1 + 2 / 3) / 2)
    close(F.multiclass_recall(preds, target, 3), (0.5 + 1) / 2)
    # class 2 present but never predicted: precision 0/0 -> zero_division, and it counts in the macro average
    preds, target = em.tensor([0, 1, 1, 1]), em.tensor([0, 1, 2, 2])
    close(F.multiclass_precision(preds, target, 3), (1 + 1 / 3 + 0) / 3)
    close(F.multiclass_precision(preds, target, 3, zero_division=1), (1 + 1 / 3 + 1) / 3)
    close(MulticlassPrecision(3, zero_division=1)(preds, target), (1 + 1 / 3 + 1) / 3)
    # class 2 predicted but absent from the targets: recall 0/0 -> zero_division
    preds, target = em.tensor([0, 2, 1]), em.tensor([0, 0, 1])
    close(F.multiclass_recall(preds, target, 3, average=None), [0.5, 1.0, 0.0])
    close(F.multiclass_recall(preds, target, 3), 0.5)
    close(MulticlassRecall(3, zero_division=1)(preds, target), (0.5 + 1 + 1) / 3)


def test_multiclass_ignore_index_inside_and_outside_the_class_range(close):
    close(F.multiclass_accuracy(em.tensor([0, 2, 2, 2]), em.tensor([0, 1, -1, 2]), 3, average="micro",
                                ignore_index=-1), 2 / 3)
    preds, target = em.tensor([0, 2, 1, 2]), em.tensor([0, 1, 1, 2])
    close(F.multiclass_accuracy(preds, target, 3, average="micro", ignore_index=1), 1.0)
    close(F.multiclass_accuracy(preds, target, 3, ignore_index=1), 1.0)
    close(F.multiclass_accuracy(MSCORES, em.tensor([0, 0, -100, 1, 1, 2]), 3, average="micro", top_k=1,
                                ignore_index=-100), 4 / 5)
    close(MulticlassAccuracy(3, multidim_average="samplewise", average="micro", ignore_index=-1)(
        em.tensor([[0, 1, 2], [2, 2, 2]]), em.tensor([[0, 2, -1], [2, -1, 1]])), [0.5, 0.5])


def test_multiclass_samplewise(close):
    preds = em.tensor([[0, 1, 2], [2, 2, 2]])
    target = em.tensor([[0, 1, 1], [2, 0, 1]])
    close(F.multiclass_accuracy(preds, target, 3, average="micro", multidim_average="samplewise"), [2 / 3, 1 / 3])
    scores = em.tensor(np.eye(3, dtype=np.float32)[[[0, 1, 2], [2, 2, 2]]].transpose(0, 2, 1).copy())
    close(F.multiclass_accuracy(scores, target, 3, average="micro", multidim_average="samplewise"), [2 / 3, 1 / 3])


def test_multilabel_scores(close):
    close(F.multilabel_stat_scores(LP, LT, 3, average=None), [[2, 0, 1, 0, 2], [1, 1, 1, 0, 1], [0, 1, 1, 1, 1]])
    close(F.multilabel_accuracy(LP, LT, 3), (1 + 2 / 3 + 1 / 3) / 3)
    close(F.multilabel_accuracy(LP, LT, 3, average="micro"), 6 / 9)
    close(F.multilabel_precision(LP, LT, 3), (1 + 0.5 + 0) / 3)
    close(F.multilabel_precision(LP, LT, 3, average="micro"), 3 / 5)
    close(F.multilabel_recall(LP, LT, 3, average=None), [1, 1, 0])
    close(F.multilabel_recall(LP, LT, 3, average="micro"), 3 / 4)
    close(F.multilabel_f1_score(LP, LT, 3), (1 + 2 / 3 + 0) / 3)
    close(F.multilabel_f1_score(LP, LT, 3, average="micro"), 6 / 9)
    close(F.multilabel_hamming_distance(LP, LT, 3, average="micro"), 3 / 9)
    close(MultilabelHammingDistance(3, average=None)(LP, LT), [0, 1 / 3, 2 / 3])
    close(F.multilabel_specificity(LP, LT, 3, average=None), [1.0, 0.5, 0.5])
    close(MultilabelAccuracy(3)(LP, LT), 2 / 3)
    close(Accuracy(task="multilabel", num_labels=3, average="micro")(LP, LT), 6 / 9)
    lt_ignore = em.tensor([[1, 0, 0], [0, 1, 1], [1, -1, 0]])  # drops label 1's false positive
    close(MultilabelPrecision(3, ignore_index=-1)(LP, lt_ignore), (1 + 1 + 0) / 3)
    logits = em.tensor(np.log(LP.numpy() / (1 - LP.numpy())))
    close(MultilabelRecall(3, average=None)(logits, LT), [1, 1, 0])


def test_task_wrappers_return_the_task_classes():
    assert type(Accuracy(task="binary")) is BinaryAccuracy
    assert type(Precision(task="multiclass", num_classes=4)) is MulticlassPrecision
    assert type(Recall(task="multilabel", num_labels=2)) is MultilabelRecall
    assert type(F1Score(task="binary")) is BinaryF1Score
    assert type(F1Score(task="multiclass", num_classes=3)) is MulticlassF1Score
    assert type(F1Score(task="multilabel", num_labels=3)) is MultilabelF1Score
    assert type(HammingDistance(task="multiclass", num_classes=3)) is MulticlassHammingDistance
    assert type(Specificity(task="MultiClass", num_classes=3)) is MulticlassSpecificity
    assert type(StatScores(task="binary")) is BinaryStatScores
    assert type(Precision(task="binary", zero_division=1)) is BinaryPrecision


@pytest.mark.parametrize("full_state_update", [False, True])
@pytest.mark.parametrize("make, fn", [
    (lambda: MulticlassAccuracy(3), lambda p, t: F.multiclass_accuracy(p, t, 3)),
    (lambda: MulticlassF1Score(3, average="weighted"), lambda p, t: F.multiclass_f1_score(p, t, 3, "weighted")),
    (lambda: MulticlassAccuracy(3, multidim_average="samplewise", average="micro"),
     lambda p, t: F.multiclass_accuracy(p, t, 3, "micro", multidim_average="samplewise")),
])
def test_forward_batches_then_compute_equals_all_at_once(make, fn, full_state_update, close):
    rng = np.random.default_rng(1)
    preds = rng.integers(0, 3, (12, 4))
    target = rng.integers(0, 3, (12, 4))
    metric = make()
    if full_state_update:
        metric.__class__ = type("Safe" + type(metric).__name__, (type(metric),), {"full_state_update": True})
    for i in range(0, 12, 4):
        p, t = em.tensor(preds[i:i + 4]), em.tensor(target[i:i + 4])
        close(metric(p, t), fn(p, t))  # forward: the batch's own value
    close(metric.compute(), fn(em.tensor(preds), em.tensor(target)))


def test_bad_inputs_are_rejected_with_what_was_expected():
    with pytest.raises(RuntimeError, match=r"same shape, but got \(2,\) and \(3,\)"):
        BinaryAccuracy()(em.tensor([0.1, 0.8]), em.tensor([0, 1, 1]))
    with pytest.raises(ValueError, match="`target` to be an int or long tensor"):
        BinaryAccuracy()(em.tensor([0.1, 0.8]), em.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="should have the same shape"):
        MulticlassAccuracy(3)(em.tensor([0, 1]), em.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match=r"int tensor of class labels .* but got dtype ember.float32"):
        MulticlassAccuracy(3)(em.tensor([0.0, 1.0]), em.tensor([0, 1]))
    with pytest.raises(ValueError, match="`target` to be an int or long tensor of class labels"):
        MulticlassAccuracy(3)(MSCORES, MT.float())
    with pytest.raises(RuntimeError, match=r"range \[0, 2\] \(num_classes=3\)\. Is `num_classes` too small\?"):
        MulticlassAccuracy(3)(em.tensor([0, 1, 2]), em.tensor([0, 1, 5]))
    with pytest.raises(RuntimeError, match=r"values in `preds`.*range \[0, 1\]"):
        F.multiclass_accuracy(em.tensor([0, 4]), em.tensor([0, 1]), 2)
    with pytest.raises(RuntimeError, match=r"Detected the following values in `target`: \[0, 2\] but expected only "
                                           r"the following values \[0, 1\]"):
        BinaryAccuracy()(BLABELS[:2], em.tensor([0, 2]))
    with pytest.raises(ValueError, match=r"preds.shape\[1\]` should be equal to number of classes \(3\)"):
        MulticlassAccuracy(3)(em.zeros(6, 4), MT)
    with pytest.raises(ValueError, match="Invalid Classification: expected one of"):
        Accuracy(task="multi")
    with pytest.raises(ValueError, match="`num_classes` is expected to be `int`"):
        Accuracy(task="multiclass")
    with pytest.raises(ValueError, match=r"Expected argument `average` to be one of \('micro', 'macro', "
                                         r"'weighted', 'none', None\), but got 'mean'"):
        MulticlassAccuracy(3, average="mean")
    with pytest.raises(ValueError, match="`threshold` to be a float in the \\[0,1\\] range"):
        BinaryAccuracy(threshold=2.0)
    with pytest.raises(ValueError, match="`num_classes` to be an integer larger than 1"):
        MulticlassAccuracy(1)
    with pytest.raises(ValueError, match="`top_k` to be smaller or equal to `num_classes`"):
        MulticlassAccuracy(3, top_k=4)
    with pytest.raises(ValueError, match="`beta` to be a float larger than 0"):
        BinaryFBetaScore(beta=0.0)
    with pytest.raises(ValueError, match=r"number of labels \(3\)"):
        MultilabelAccuracy(3)(em.zeros(2, 2), em.zeros(2, 2, dtype=em.int64))
    with pytest.raises(ValueError, match="multidim_average"):
        BinaryAccuracy(multidim_average="local")


def test_validate_args_false_skips_the_checks(close):
    metric = MulticlassAccuracy(3, validate_args=False)
    close(metric(MP, MT), (2 / 3 + 1 / 2 + 1) / 3)
