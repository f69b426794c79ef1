"""``ember.metrics.wrappers``: torchmetrics' wrappers with torchmetrics' documented values and semantics."""
import math

import numpy as np
import pytest

import ember as em
from ember import metrics as M
from ember.metrics import wrappers as W


def test_namespace_lists_the_wrappers_and_running_is_the_same_class():
    assert set(W.__all__) >= {"Running", "MetricTracker", "MultioutputWrapper", "ClasswiseWrapper", "BootStrapper",
                              "MinMaxMetric"}
    assert W.Running is M.Running
    import ember.metrics.wrappers as again
    assert again is W


# ------------------------------------------------------------------------------------------- MultioutputWrapper
def test_multioutput_r2_matches_torchmetrics_example():
    target = em.tensor([[0.5, 1], [-1, 1], [7, -6]])
    preds = em.tensor([[0., 2], [-1, 2], [8, -5]])
    r2 = W.MultioutputWrapper(M.R2Score(), 2)
    np.testing.assert_allclose(r2(preds, target).numpy(), [0.9654, 0.9082], atol=1e-4)
    np.testing.assert_allclose(r2.compute().numpy(), [0.9654, 0.9082], atol=1e-4)
    r2.reset()
    assert all(m.update_count == 0 for m in r2.metrics)


def test_multioutput_removes_nan_rows_per_output_and_accumulates():
    mse = W.MultioutputWrapper(M.MeanSquaredError(), 2)
    preds = em.tensor([[1., float("nan")], [2., 2.], [3., 5.]])
    target = em.tensor([[0., 0.], [2., 0.], [3., 1.]])
    mse.update(preds, target)
    # output 0 uses all three rows: (1 + 0 + 0) / 3; output 1 drops the NaN row: (4 + 16) / 2
    np.testing.assert_allclose(mse.compute().numpy(), [1 / 3, 10.0], rtol=1e-6)
    mse.update(em.tensor([[0., 0.]]), em.tensor([[2., 0.]]))
    np.testing.assert_allclose(mse.compute().numpy(), [5 / 4, 20 / 3], rtol=1e-6)
    keep_nan = W.MultioutputWrapper(M.MeanSquaredError(), 2, remove_nans=False)
    assert math.isnan(keep_nan(preds, target)[1].item())


def test_multioutput_along_dim_0_without_squeeze():
    # outputs along dim 0; without squeezing each metric sees (1, N) inputs
    mae = W.MultioutputWrapper(M.MeanAbsoluteError(), 3, output_dim=0, squeeze_outputs=False)
    out = mae(em.tensor([[1., 2.], [0., 0.], [5., 5.]]), em.tensor([[0., 0.], [0., 1.], [5., 5.]]))
    np.testing.assert_allclose(out.numpy(), [1.5, 0.5, 0.0])


# --------------------------------------------------------------------------------------------- ClasswiseWrapper
PRED, TARGET = em.tensor([0, 1, 2, 2]), em.tensor([0, 1, 1, 2])


def test_classwise_keys_default_to_the_metric_name_and_index():
    metric = W.ClasswiseWrapper(M.MulticlassAccuracy(num_classes=3, average=None))
    out = metric(PRED, TARGET)
    assert list(out) == ["multiclassaccuracy_0", "multiclassaccuracy_1", "multiclassaccuracy_2"]
    assert [v.item() for v in out.values()] == [1.0, 0.5, 1.0]
    metric.update(em.tensor([1]), em.tensor([0]))
    assert [v.item() for v in metric.compute().values()] == [0.5, 0.5, 1.0]
    metric.reset()
    assert metric.metric.update_count == 0


def test_classwise_labels_prefix_and_postfix():
    base = M.MulticlassAccuracy(num_classes=3, average=None)
    out = W.ClasswiseWrapper(base, labels=["horse", "fish", "dog"])(PRED, TARGET)
    assert list(out) == ["multiclassaccuracy_horse", "multiclassaccuracy_fish", "multiclassaccuracy_dog"]
    out = W.ClasswiseWrapper(M.MulticlassAccuracy(num_classes=3, average=None), prefix="acc/")(PRED, TARGET)
    assert list(out) == ["acc/0", "acc/1", "acc/2"]
    out = W.ClasswiseWrapper(M.MulticlassAccuracy(num_classes=3, average=None), labels=["a", "b", "c"],
                             postfix="_acc")(PRED, TARGET)
    assert list(out) == ["a_acc", "b_acc", "c_acc"]
    with pytest.raises(ValueError, match="Expected argument `labels` to either be `None` or a list of strings"):
        W.ClasswiseWrapper(base, labels="abc")
    with pytest.raises(ValueError, match="Expected argument `metric` to be an instance of"):
        W.ClasswiseWrapper(lambda x: x)


def test_classwise_results_go_into_a_collection_as_separate_keys():
    collection = M.MetricCollection({"cls": W.ClasswiseWrapper(M.MulticlassAccuracy(num_classes=3, average=None))})
    collection.update(PRED, TARGET)
    out = collection.compute()  # a dict result is flattened into the collection's dict, as in torchmetrics
    assert {k: v.item() for k, v in out.items()} == {"multiclassaccuracy_0": 1.0, "multiclassaccuracy_1": 0.5,
                                                     "multiclassaccuracy_2": 1.0}


# ------------------------------------------------------------------------------------------------ MinMaxMetric
def test_minmax_matches_torchmetrics_example_and_reset_restores_the_bounds():
    minmax = W.MinMaxMetric(M.BinaryAccuracy())
    preds_1 = em.tensor([[0.1, 0.9], [0.2, 0.8]])
    preds_2 = em.tensor([[0.9, 0.1], [0.2, 0.8]])
    labels = em.tensor([[0, 1], [0, 1]])
    assert {k: v.item() for k, v in minmax(preds_1, labels).items()} == {"raw": 1.0, "max": 1.0, "min": 1.0}
    assert {k: v.item() for k, v in minmax.compute().items()} == {"raw": 1.0, "max": 1.0, "min": 1.0}
    minmax.update(preds_2, labels)
    assert {k: v.item() for k, v in minmax.compute().items()} == {"raw": 0.75, "max": 1.0, "min": 0.75}
    # forward reports the batch alone and leaves the tracked extremes as they were
    assert {k: v.item() for k, v in minmax(preds_2, labels).items()} == {"raw": 0.5, "max": 0.5, "min": 0.5}
    assert {k: v.item() for k, v in minmax.compute().items()} == pytest.approx({"raw": 2 / 3, "max": 1.0,
                                                                                 "min": 2 / 3})
    minmax.reset()
    assert minmax.max_val.item() == -math.inf and minmax.min_val.item() == math.inf
    minmax.update(em.tensor([0.9, 0.9]), em.tensor([0, 0]))
    assert {k: v.item() for k, v in minmax.compute().items()} == {"raw": 0.0, "max": 0.0, "min": 0.0}


def test_minmax_rejects_non_scalar_values():
    minmax = W.MinMaxMetric(M.MulticlassAccuracy(num_classes=3, average=None))
    minmax.update(PRED, TARGET)
    with pytest.raises(RuntimeError, match="Returned value from base metric should be a float or scalar tensor"):
        minmax.compute()
    with pytest.raises(ValueError, match="Expected base metric to be an instance"):
        W.MinMaxMetric(3)


# ------------------------------------------------------------------------------------------------ BootStrapper
def test_bootstrapper_summarises_its_copies():
    em.manual_seed(7)
    boot = W.BootStrapper(M.MeanSquaredError(), num_bootstraps=25, quantile=em.tensor([0.1, 0.9]), raw=True)
    preds, target = em.randn(200), em.randn(200)
    boot.update(preds, target)
    out = boot.compute()
    assert list(out) == ["mean", "std", "quantile", "raw"]
    raw = out["raw"].numpy()
    assert raw.shape == (25,) and len(set(raw.tolist())) > 20  # every copy saw its own resample
    np.testing.assert_allclose(out["mean"].item(), raw.mean(), rtol=1e-5)
    np.testing.assert_allclose(out["std"].item(), raw.std(ddof=1), rtol=1e-4)
    np.testing.assert_allclose(out["quantile"].numpy(), np.quantile(raw, [0.1, 0.9]), rtol=1e-5)
    full = ((preds - target) ** 2).mean().item()
    assert abs(out["mean"].item() - full) < 4 * out["std"].item()  # the resamples centre on the full value


def test_bootstrapper_is_seeded_and_multinomial_keeps_the_batch_size():
    def run(strategy):
        em.manual_seed(3)
        boot = W.BootStrapper(M.SumMetric(), num_bootstraps=4, raw=True, sampling_strategy=strategy)
        boot.update(em.ones(10))
        return boot.compute()["raw"].tolist()
    assert run("poisson") == run("poisson")
    assert run("multinomial") == [10.0] * 4  # N draws with replacement of ones: the sum is always N
    with pytest.raises(ValueError, match="Expected argument ``sampling_strategy`` to be one of"):
        W.BootStrapper(M.SumMetric(), sampling_strategy="jackknife")


def test_bootstrapper_forward_returns_the_batch_summary_and_accumulates():
    em.manual_seed(0)
    boot = W.BootStrapper(M.SumMetric(), num_bootstraps=3, mean=True, std=False, sampling_strategy="multinomial")
    first = boot(em.ones(5))  # every resample of five ones sums to 5
    assert list(first) == ["mean"] and first["mean"].item() == 5.0
    assert boot(em.ones(5) * 2)["mean"].item() == 10.0  # the batch value alone
    assert boot.compute()["mean"].item() == 15.0     # the copies accumulated both batches
    boot.reset()
    assert all(m.update_count == 0 for m in boot.metrics)


# ----------------------------------------------------------------------------------------------- MetricTracker
def test_tracker_steps_values_and_best():
    tracker = W.MetricTracker(M.MulticlassAccuracy(num_classes=3))
    with pytest.raises(ValueError, match=r"`update` cannot be called before `.increment\(\)` has been called."):
        tracker.update(PRED, TARGET)
    targets = [TARGET, PRED, em.tensor([1, 1, 1, 1])]
    for t in targets:
        tracker.increment()
        tracker.update(PRED, t)
    assert tracker.n_steps == 3 and len(tracker) == 4
    # macro accuracy; the last step's target is all 1s: recall 1/4 for class 1, 0 for the predicted 0 and 2
    np.testing.assert_allclose(tracker.compute_all().numpy(), [5 / 6, 1.0, 1 / 12], rtol=1e-6)
    assert tracker.compute().item() == pytest.approx(1 / 12)
    assert tracker.best_metric() == 1.0
    assert tracker.best_metric(return_step=True) == (1.0, 1)
    low = W.MetricTracker(M.MeanSquaredError(), maximize=False)
    for d in (2.0, 0.5, 1.0):
        low.increment()
        low.update(em.zeros(2), em.full((2,), d))
    assert low.best_metric(return_step=True) == (0.25, 1)
    tracker.reset()
    assert tracker[-1].update_count == 0
    with pytest.warns(UserWarning, match="was called before the ``update`` method"):
        assert tracker.compute_all().shape == (3,)


def test_tracker_of_a_collection_and_argument_checks():
    tracker = W.MetricTracker(M.MetricCollection([M.MeanSquaredError(), M.MeanAbsoluteError()]),
                              maximize=[False, False])
    for d in (3.0, 1.0):
        tracker.increment()
        tracker.update(em.zeros(2), em.full((2,), d))
    all_values = tracker.compute_all()
    assert {k: v.tolist() for k, v in all_values.items()} == {"MeanSquaredError": [9.0, 1.0],
                                                              "MeanAbsoluteError": [3.0, 1.0]}
    assert tracker.best_metric(return_step=True) == ({"MeanSquaredError": 1.0, "MeanAbsoluteError": 1.0},
                                                     {"MeanSquaredError": 1, "MeanAbsoluteError": 1})
    with pytest.raises(TypeError, match="Metric arg need to be an instance"):
        W.MetricTracker(3)
    with pytest.raises(ValueError, match="should be a single bool when `metric` is a single Metric"):
        W.MetricTracker(M.MeanSquaredError(), maximize=[True])
    with pytest.raises(ValueError, match="should match the length of the metric collection"):
        W.MetricTracker(M.MetricCollection([M.MeanSquaredError()]), maximize=[True, False])


def test_tracker_best_of_a_non_scalar_metric_warns_and_returns_none():
    tracker = W.MetricTracker(M.MulticlassAccuracy(num_classes=3, average=None))
    tracker.increment()
    tracker.update(PRED, TARGET)
    with pytest.warns(UserWarning, match="Encountered the following error when trying to get the best metric"):
        assert tracker.best_metric(return_step=True) == (None, None)
