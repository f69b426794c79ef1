"""Regression metrics on fixed inputs, hand-computed (or from their defining formula), plus gradients.

Main example (scikit-learn's): preds P = [2.5, 0.0, 2.0, 8.0], target T = [3.0, -0.5, 2.0, 7.0]; errors
T - P = [0.5, -0.5, 0, -1].
"""
import math

import numpy as np
import pytest

import ember as em
import ember.metrics.functional as F
from ember.metrics import (CosineSimilarity, ExplainedVariance, KLDivergence, MeanAbsoluteError,
                           MeanAbsolutePercentageError, MeanSquaredError, MeanSquaredLogError, PearsonCorrCoef,
                           R2Score, SpearmanCorrCoef, SymmetricMeanAbsolutePercentageError)

P = em.tensor([2.5, 0.0, 2.0, 8.0])
T = em.tensor([3.0, -0.5, 2.0, 7.0])
TSS = 0.125 ** 2 + 3.375 ** 2 + 0.875 ** 2 + 4.125 ** 2  # target mean 2.875


def test_error_metrics(close):
    close(MeanSquaredError()(P, T), (0.25 + 0.25 + 0 + 1) / 4)
    close(MeanSquaredError(squared=False)(P, T), math.sqrt(0.375))
    close(MeanAbsoluteError()(P, T), (0.5 + 0.5 + 0 + 1) / 4)
    close(MeanAbsolutePercentageError()(P, T), (0.5 / 3 + 0.5 / 0.5 + 0 + 1 / 7) / 4)
    close(SymmetricMeanAbsolutePercentageError()(P, T), (1 / 5.5 + 1 / 0.5 + 0 + 2 / 15) / 4)
    p, t = [2.5, 5.0, 4.0, 8.0], [3.0, 5.0, 2.5, 7.0]
    close(MeanSquaredLogError()(em.tensor(p), em.tensor(t)),
          sum((math.log1p(a) - math.log1p(b)) ** 2 for a, b in zip(p, t)) / 4)
    close(F.mean_squared_error(P, T), 0.375)
    close(F.mean_absolute_error(P, T), 0.5)


def test_mape_with_zero_target_is_large_not_infinite():
    value = F.mean_absolute_percentage_error(em.tensor([1.0]), em.tensor([0.0])).item()
    assert value == pytest.approx(1 / 1.17e-06, rel=1e-4)


def test_multioutput_errors(close):
    preds, target = em.tensor([[1.0, 2.0], [3.0, 4.0]]), em.tensor([[0.0, 0.0], [3.0, 4.0]])
    close(MeanSquaredError(num_outputs=2)(preds, target), [0.5, 2.0])
    close(MeanAbsoluteError(num_outputs=2)(preds, target), [0.5, 1.0])
    close(F.mean_squared_error(preds, target), (1 + 4) / 4)


def test_r2_and_explained_variance(close):
    close(R2Score()(P, T), 1 - 1.5 / TSS)
    close(ExplainedVariance()(P, T), 1 - (0.375 - 0.25 ** 2) / (TSS / 4))
    close(F.r2_score(P, T, adjusted=1), 1 - (1.5 / TSS) * 3 / 2)
    yt = np.array([[0.5, 1], [-1, 1], [7, -6]])
    yp = np.array([[0, 2], [-1, 2], [8, -5]])
    rss = ((yt - yp) ** 2).sum(0)
    tss = ((yt - yt.mean(0)) ** 2).sum(0)
    raw = 1 - rss / tss
    close(R2Score(num_outputs=2, multioutput="raw_values")(em.tensor(yp), em.tensor(yt)), raw, atol=1e-5)
    close(F.r2_score(em.tensor(yp), em.tensor(yt), multioutput="variance_weighted"), (raw * tss).sum() / tss.sum(),
          atol=1e-5)
    with pytest.raises(ValueError, match="Needs at least two samples"):
        F.r2_score(em.tensor([1.0]), em.tensor([2.0]))
    with pytest.raises(ValueError, match="`multioutput`"):
        R2Score(multioutput="mean")


def test_r2_constant_target_edge_cases(close):
    close(F.r2_score(em.tensor([1.0, 1.0]), em.tensor([1.0, 1.0])), 1.0)  # perfect fit of a constant
    close(F.r2_score(em.tensor([0.0, 2.0]), em.tensor([1.0, 1.0])), 0.0)  # imperfect fit of a constant


def test_correlations(close):
    close(PearsonCorrCoef()(P, T), np.corrcoef(P.numpy(), T.numpy())[0, 1], atol=1e-6)
    close(SpearmanCorrCoef()(P, T), 1.0, atol=1e-5)
    # ties: ranks [1, 2.5, 2.5, 4] and [1, 3, 2, 4] -> correlation sqrt(0.9)
    close(F.spearman_corrcoef(em.tensor([1.0, 2.0, 2.0, 3.0]), em.tensor([1.0, 3.0, 2.0, 4.0])), math.sqrt(0.9),
          atol=1e-5)
    x = np.array([[1.0, 4.0], [2.0, 1.0], [4.0, 3.0], [3.0, 2.0]])
    y = np.array([[1.0, 1.0], [3.0, 2.0], [2.0, 4.0], [5.0, 3.0]])
    expected = [np.corrcoef(x[:, i], y[:, i])[0, 1] for i in range(2)]
    close(PearsonCorrCoef(num_outputs=2)(em.tensor(x), em.tensor(y)), expected, atol=1e-6)


def test_pearson_accumulates_exactly_across_batches(close):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    metric = PearsonCorrCoef()
    for i in range(0, 50, 7):
        metric.update(em.tensor(x[i:i + 7]), em.tensor(y[i:i + 7]))
    close(metric.compute(), np.corrcoef(x, y)[0, 1], atol=1e-5)


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_pearson_warns_on_constant_input():
    with pytest.warns(UserWarning, match="variance of predictions or target is close to zero"):
        F.pearson_corrcoef(em.tensor([1.0, 1.0, 1.0]), em.tensor([1.0, 2.0, 3.0]))


def test_cosine_similarity_and_kl_divergence(close):
    preds, target = em.tensor([[1.0, 0.0], [1.0, 1.0]]), em.tensor([[1.0, 0.0], [0.0, 1.0]])
    close(CosineSimilarity()(preds, target), 1 + 1 / math.sqrt(2))
    close(CosineSimilarity(reduction="mean")(preds, target), (1 + 1 / math.sqrt(2)) / 2)
    close(F.cosine_similarity(preds, target, reduction="none"), [1, 1 / math.sqrt(2)])
    kl = 0.5 * math.log(0.5 / 0.25) + 0.5 * math.log(0.5 / 0.75)
    close(KLDivergence()(em.tensor([[1.0, 1.0]]), em.tensor([[0.25, 0.75]])), kl)  # rows normalised
    close(KLDivergence(log_prob=True)(em.tensor([[0.5, 0.5]]).log(), em.tensor([[0.25, 0.75]]).log()), kl)
    close(KLDivergence(reduction="none")(em.tensor([[0.5, 0.5], [0.5, 0.5]]), em.tensor([[0.25, 0.75],
                                                                                            [0.5, 0.5]])), [kl, 0.0])
    close(F.kl_divergence(em.tensor([[0.5, 0.5], [0.5, 0.5]]), em.tensor([[0.25, 0.75], [0.5, 0.5]]),
                          reduction="sum"), kl)


_ACCUMULATION_CASES = [(make, fn, mode) for make, fn in [
    (MeanSquaredError, F.mean_squared_error), (R2Score, F.r2_score), (ExplainedVariance, F.explained_variance),
    (SpearmanCorrCoef, F.spearman_corrcoef), (MeanAbsolutePercentageError, F.mean_absolute_percentage_error),
] for mode in (False, True)] + [(PearsonCorrCoef, F.pearson_corrcoef, True)]  # its None-reduced moments need
#                                                                               the full-state forward (its default)


@pytest.mark.parametrize("make, fn, full_state_update", _ACCUMULATION_CASES)
def test_forward_batches_then_compute_equals_all_at_once(make, fn, full_state_update, close):
    rng = np.random.default_rng(2)
    preds, target = rng.standard_normal(24), rng.standard_normal(24)
    metric = make()
    metric.__class__ = type("Variant", (make,), {"full_state_update": full_state_update})
    for i in range(0, 24, 8):
        p, t = em.tensor(preds[i:i + 8]), em.tensor(target[i:i + 8])
        close(metric(p, t), fn(p, t), atol=1e-5)
    close(metric.compute(), fn(em.tensor(preds), em.tensor(target)), atol=1e-5)


def test_gradients_of_differentiable_metrics():
    gradcheck = em.autograd.gradcheck
    rng = np.random.default_rng(4)
    p = em.tensor(rng.standard_normal(6), dtype=em.float64, requires_grad=True)
    t = em.tensor(rng.standard_normal(6), dtype=em.float64)
    assert gradcheck(lambda x: F.mean_squared_error(x, t), (p,))
    assert gradcheck(lambda x: F.mean_squared_error(x, t, squared=False), (p,))
    assert gradcheck(lambda x: F.r2_score(x, t), (p,))
    assert gradcheck(lambda x: F.pearson_corrcoef(x, t), (p,))
    assert gradcheck(lambda x: F.explained_variance(x, t), (p,))
    m = em.tensor(rng.standard_normal((3, 4)), dtype=em.float64, requires_grad=True)
    n = em.tensor(rng.standard_normal((3, 4)), dtype=em.float64)
    assert gradcheck(lambda x: F.cosine_similarity(x, n), (m,))
    q = em.tensor(rng.random((3, 4)) + 0.1, dtype=em.float64, requires_grad=True)
    r = em.tensor(rng.random((3, 4)) + 0.1, dtype=em.float64)
    assert gradcheck(lambda x: F.kl_divergence(x, r), (q,))


def test_bad_regression_inputs():
    with pytest.raises(RuntimeError, match=r"same shape, but got \(4,\) and \(3,\)"):
        MeanSquaredError()(P, T[:3])
    with pytest.raises(ValueError, match="`squared` to be a boolean"):
        MeanSquaredError(squared="no")
    with pytest.raises(ValueError, match="num_outputs to be a positive integer"):
        MeanAbsoluteError(num_outputs=0)
    with pytest.raises(ValueError, match="`num_outputs` to match the second dimension"):
        PearsonCorrCoef(num_outputs=3)(em.zeros(4, 2), em.zeros(4, 2))
    with pytest.raises(ValueError, match="2D tensors of shape `\\[N,D\\]`"):
        CosineSimilarity()(P, T)
    with pytest.raises(ValueError, match="`reduction` to be one of"):
        KLDivergence(reduction="avg")
    with pytest.raises(ValueError, match="p and q distribution to be 2D"):
        F.kl_divergence(P, T)
