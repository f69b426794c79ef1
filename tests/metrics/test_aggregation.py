"""Aggregation metrics and every nan_strategy."""
import math

import numpy as np
import pytest

import ember as em
from ember.metrics import CatMetric, MaxMetric, MeanMetric, MinMetric, RunningMean, RunningSum, SumMetric
from ember.metrics.wrappers import Running

NAN = float("nan")


def test_values_on_a_stream_of_floats_and_tensors():
    stream = [1, em.tensor([2.0, 3.0]), em.tensor([[-4.0], [10.0]])]
    expected = {MeanMetric: 12 / 5, SumMetric: 12.0, MaxMetric: 10.0, MinMetric: -4.0}
    for cls, value in expected.items():
        m = cls()
        for v in stream:
            m.update(v)
        assert m.compute().item() == pytest.approx(value), cls.__name__
    cat = CatMetric()
    for v in stream:
        cat.update(v)
    np.testing.assert_array_equal(cat.compute().numpy(), [1, 2, 3, -4, 10])


def test_mean_metric_weights():
    m = MeanMetric()
    m.update(em.tensor([1.0, 3.0]), weight=em.tensor([3.0, 1.0]))   # (3 + 3) / 4
    m.update(5.0, weight=2.0)                                      # + 10, weight 2
    assert m.compute().item() == pytest.approx((6 + 10) / 6)
    with pytest.raises(ValueError, match="cannot be broadcast"):
        m.update(em.tensor([1.0, 2.0]), weight=em.tensor([1.0, 2.0, 3.0]))


def test_nan_strategy_error():
    m = SumMetric(nan_strategy="error")
    with pytest.raises(RuntimeError, match="Encountered `nan` values in tensor"):
        m.update(em.tensor([1.0, NAN]))


def test_nan_strategy_warn_and_ignore_drop_the_nans():
    for strategy in ("warn", "ignore"):
        mean = MeanMetric(nan_strategy=strategy)
        if strategy == "warn":
            with pytest.warns(UserWarning, match="Encountered `nan` values in tensor. Will be removed."):
                mean.update(em.tensor([1.0, NAN, 3.0]))
        else:
            mean.update(em.tensor([1.0, NAN, 3.0]))
        assert mean.compute().item() == pytest.approx(2.0)
    weighted = MeanMetric(nan_strategy="ignore")
    weighted.update(em.tensor([1.0, 2.0, 3.0]), weight=em.tensor([1.0, NAN, 1.0]))  # the NaN weight drops 2.0
    assert weighted.compute().item() == pytest.approx(2.0)
    mx = MaxMetric(nan_strategy="ignore")
    mx.update(em.tensor([NAN, NAN]))
    assert mx.compute().item() == -math.inf  # nothing left: still the default


def test_nan_strategy_float_imputes():
    s = SumMetric(nan_strategy=10.0)
    s.update(em.tensor([1.0, NAN]))
    assert s.compute().item() == pytest.approx(11.0)
    m = MeanMetric(nan_strategy=0.0)
    m.update(em.tensor([NAN, 4.0]))
    assert m.compute().item() == pytest.approx(2.0)
    c = CatMetric(nan_strategy=-1.0)
    c.update(em.tensor([NAN, 2.0]))
    np.testing.assert_array_equal(c.compute().numpy(), [-1.0, 2.0])


def test_nan_strategy_disable_lets_nan_through():
    s = SumMetric(nan_strategy="disable")
    s.update(em.tensor([1.0, NAN]))
    assert math.isnan(s.compute().item())


def test_bad_nan_strategy():
    with pytest.raises(ValueError, match="Arg `nan_strategy` should either be a float or one of"):
        MeanMetric(nan_strategy="drop")


def test_forward_batch_values_and_fast_merge():
    mean = MeanMetric()
    assert mean(em.tensor([1.0, 3.0])).item() == 2.0
    assert mean(em.tensor([10.0])).item() == 10.0
    assert mean.compute().item() == pytest.approx(14 / 3)
    mx = MaxMetric()
    assert mx(em.tensor([1.0, 3.0])).item() == 3.0 and mx(em.tensor([2.0])).item() == 2.0
    assert mx.compute().item() == 3.0
    cat = CatMetric()
    cat(em.tensor([1.0]))
    cat(em.tensor([2.0, 3.0]))
    np.testing.assert_array_equal(cat.compute().numpy(), [1, 2, 3])


def test_running_mean_and_sum_over_a_window():
    rm = RunningMean(window=2)
    rs = RunningSum(window=2)
    batches = [em.tensor([1.0, 3.0]), em.tensor([5.0]), em.tensor([7.0, 9.0])]
    outs = [(rm(b).item(), rs(b).item()) for b in batches]
    assert outs == [(2.0, 4.0), (5.0, 5.0), (8.0, 16.0)]  # forward: the batch value
    assert rm.compute().item() == pytest.approx((5 + 7 + 9) / 3)  # the last two batches only
    assert rs.compute().item() == pytest.approx(21.0)
    rs.update(em.tensor([100.0]))
    assert rs.compute().item() == pytest.approx(116.0)
    rs.reset()
    rs.update(em.tensor([1.0]))
    assert rs.compute().item() == 1.0


def test_running_rejects_bad_arguments():
    with pytest.raises(ValueError, match="Expected argument `window` to be a positive integer"):
        RunningMean(window=0)
    with pytest.raises(ValueError, match="`full_state_update` set to `False`"):
        Running(MaxMetric())
