"""Cross-process sync through a fake two-process group (threads): every ``dist_reduce_fx`` kind must give exactly
the value of one metric over the union of the data, and leave the local states as they were."""
import numpy as np
import pytest

import ember as em
from ember.metrics import (BinaryAUROC, CatMetric, MaxMetric, MeanSquaredError, Metric, MinMetric,
                           MulticlassAccuracy, PearsonCorrCoef, SpearmanCorrCoef)
from ember.metrics.utilities import MetricsUserError, distributed
from ember.metrics.utilities.distributed import distributed_available, gather_all_tensors


class MyAccuracy(Metric):  # "sum"
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("correct", default=em.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", default=em.tensor(0), dist_reduce_fx="sum")

    def update(self, preds, target):
        self.correct += em.sum(preds == target)
        self.total += target.numel()

    def compute(self):
        return self.correct.float() / self.total


class RunningAverage(Metric):  # "mean": exact for the union when every rank sees as many values
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("avg", default=em.tensor(0.0), dist_reduce_fx="mean")
        self.add_state("count", default=em.tensor(0), dist_reduce_fx="sum")

    def update(self, x):
        n = self.count.item()
        self.avg = (self.avg * n + x.sum()) / (n + x.numel())
        self.count += x.numel()

    def compute(self):
        return self.avg


class Spread(Metric):  # callables: max - min over everything seen
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_state("lo", default=em.tensor(float("inf")), dist_reduce_fx=lambda t: em.amin(t, 0))
        self.add_state("hi", default=em.tensor(float("-inf")), dist_reduce_fx=lambda t: em.amax(t, 0))

    def update(self, x):
        self.lo = em.minimum(self.lo, x.min())
        self.hi = em.maximum(self.hi, x.max())

    def compute(self):
        return self.hi - self.lo


def _snapshot(metric):
    out = {}
    for name in metric._defaults:
        value = getattr(metric, name)
        out[name] = [v.numpy().copy() for v in value] if isinstance(value, list) else value.numpy().copy()
    return out


def _assert_same_states(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], list):
            assert len(a[k]) == len(b[k]) and all(np.array_equal(x, y) for x, y in zip(a[k], b[k]))
        else:
            np.testing.assert_array_equal(a[k], b[k])


def _check_sync(group, make, rank_batches, atol=1e-6):
    """Each rank updates on its batches; the synced compute must equal one metric over all batches."""
    reference = make()
    for batches in rank_batches:
        for batch in batches:
            reference.update(*batch)
    expected = reference.compute()
    metrics = [make(**group.sync_kwargs()) for _ in rank_batches]
    for metric, batches in zip(metrics, rank_batches):
        for batch in batches:
            metric.update(*batch)
    before = [_snapshot(m) for m in metrics]
    values = group.run(lambda rank: metrics[rank].compute())
    for value in values:
        np.testing.assert_allclose(value.numpy(), expected.numpy(), atol=atol, rtol=1e-5)
    for metric, snap in zip(metrics, before):  # local states restored: accumulation can continue
        _assert_same_states(_snapshot(metric), snap)
        assert not metric._is_synced
    return values


def test_sum_reduction_seed_metric(fake_group):
    _check_sync(fake_group, MyAccuracy,
                [[(em.tensor([1, 2, 3]), em.tensor([1, 2, 0]))],
                 [(em.tensor([4, 5]), em.tensor([4, 0])), (em.tensor([7]), em.tensor([7]))]])


def test_mean_reduction(fake_group):
    _check_sync(fake_group, RunningAverage,
                [[(em.tensor([1.0, 2.0, 3.0]),), (em.tensor([4.0]),)],
                 [(em.tensor([10.0, 20.0]),), (em.tensor([30.0, 40.0]),)]])


def test_cat_reduction_with_unequal_lengths(fake_group):
    values = _check_sync(fake_group, CatMetric,
                         [[(em.tensor([1.0, 2.0, 3.0]),), (em.tensor([4.0]),)], [(em.tensor([5.0, 6.0]),)]])
    np.testing.assert_array_equal(values[0].numpy(), [1, 2, 3, 4, 5, 6])  # rank order: rank 0's data first


def test_cat_reduction_when_one_rank_saw_nothing(fake_group):
    make = BinaryAUROC
    rank_batches = [[(em.tensor([[0.1, 0.9], [0.8, 0.3]]), em.tensor([[0, 1], [1, 0]]))], []]
    metrics = [make(**fake_group.sync_kwargs()) for _ in rank_batches]
    metrics[0].update(*rank_batches[0][0])
    metrics[1].__dict__["_update_count"] = 1  # a rank that ran no batch still takes part in the sync
    values = fake_group.run(lambda rank: metrics[rank].compute())
    assert values[0].item() == pytest.approx(1.0) and values[1].item() == pytest.approx(1.0)


def test_min_and_max_reductions(fake_group):
    data = [[(em.tensor([3.0, -1.0]),)], [(em.tensor([7.0]),), (em.tensor([2.0, 0.5]),)]]
    assert _check_sync(fake_group, MinMetric, data)[0].item() == -1.0
    assert _check_sync(fake_group, MaxMetric, data)[0].item() == 7.0


def test_callable_reduction(fake_group):
    values = _check_sync(fake_group, Spread, [[(em.tensor([3.0, -1.0]),)], [(em.tensor([7.0, 2.0]),)]])
    assert values[0].item() == 8.0


def test_none_reduction_pearson_merges_per_rank_moments(fake_group):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(30)
    y = 0.5 * x + rng.standard_normal(30)
    batches = [[(em.tensor(x[:7]), em.tensor(y[:7])), (em.tensor(x[7:12]), em.tensor(y[7:12]))],
               [(em.tensor(x[12:]), em.tensor(y[12:]))]]
    values = _check_sync(fake_group, PearsonCorrCoef, batches, atol=1e-5)
    assert values[0].item() == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-5)


def test_samplewise_list_states_and_regression_states(fake_group):
    _check_sync(fake_group, lambda **kw: MulticlassAccuracy(3, multidim_average="samplewise", **kw),
                [[(em.tensor([[0, 1], [2, 2]]), em.tensor([[0, 1], [1, 2]]))],
                 [(em.tensor([[1, 1]]), em.tensor([[0, 1]]))]])
    _check_sync(fake_group, MeanSquaredError,
                [[(em.tensor([1.0, 2.0]), em.tensor([0.0, 0.0]))], [(em.tensor([3.0]), em.tensor([1.0]))]])
    _check_sync(fake_group, SpearmanCorrCoef,
                [[(em.tensor([1.0, 2.0, 5.0]), em.tensor([1.0, 3.0, 2.0]))],
                 [(em.tensor([0.5]), em.tensor([4.0]))]])


def test_accumulation_continues_after_a_synced_compute(fake_group):
    metrics = [MyAccuracy(**fake_group.sync_kwargs()) for _ in range(2)]
    metrics[0].update(em.tensor([1, 1]), em.tensor([1, 0]))
    metrics[1].update(em.tensor([1]), em.tensor([1]))
    assert fake_group.run(lambda r: metrics[r].compute())[0].item() == pytest.approx(2 / 3)
    metrics[0].update(em.tensor([0]), em.tensor([0]))
    metrics[1].update(em.tensor([0]), em.tensor([0]))
    assert fake_group.run(lambda r: metrics[r].compute())[1].item() == pytest.approx(4 / 5)


def test_dist_sync_on_step_gives_the_global_batch_value(fake_group):
    metrics = [MyAccuracy(dist_sync_on_step=True, **fake_group.sync_kwargs()) for _ in range(2)]
    batches = [(em.tensor([1, 1]), em.tensor([1, 0])), (em.tensor([2, 2]), em.tensor([2, 2]))]
    values = fake_group.run(lambda r: metrics[r](*batches[r]))
    assert values[0].item() == pytest.approx(3 / 4) and values[1].item() == pytest.approx(3 / 4)
    assert metrics[0].correct.item() == 1 and metrics[0].total.item() == 2  # the global state stays local


def test_manual_sync_unsync_and_sync_context(fake_group):
    metrics = [MyAccuracy(**fake_group.sync_kwargs()) for _ in range(2)]
    metrics[0].update(em.tensor([1]), em.tensor([1]))
    metrics[1].update(em.tensor([1, 2]), em.tensor([0, 2]))

    def body(rank):
        m = metrics[rank]
        m.sync()
        synced = (m.correct.item(), m.total.item())
        with pytest.raises(MetricsUserError, match="already been synced"):
            m.sync()
        m.unsync()
        with pytest.raises(MetricsUserError, match="already been un-synced"):
            m.unsync()
        with m.sync_context():
            inside = m.total.item()
        return synced, inside, m.total.item()

    results = fake_group.run(body)
    assert results[0] == ((2, 3), 3, 1) and results[1] == ((2, 3), 3, 2)


def test_gather_all_tensors_pads_unequal_shapes_and_empty_ranks(fake_group):
    local = {0: em.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), 1: em.zeros(0)}
    out = fake_group.run(lambda r: gather_all_tensors(local[r], backend=fake_group))
    for gathered in out:
        np.testing.assert_array_equal(gathered[0].numpy(), local[0].numpy())
        assert gathered[1].numel() == 0
    scalars = fake_group.run(lambda r: gather_all_tensors(em.tensor(float(r)), backend=fake_group))
    assert [t.item() for t in scalars[1]] == [0.0, 1.0]


def test_no_sync_without_an_initialised_multi_process_group():
    assert distributed_available() is False  # ember.core.distributed is not initialised in the test process
    calls = []
    m = MyAccuracy(dist_sync_fn=lambda t, group=None: calls.append(t) or [t])
    m.update(em.tensor([1]), em.tensor([1]))
    assert m.compute().item() == 1.0 and calls == []


class _SingleProcess:
    def is_available(self):
        return True

    def is_initialized(self):
        return True

    def get_world_size(self, group=None):
        return 1


def test_seam_uses_the_process_group_api_by_default(monkeypatch, fake_group):
    monkeypatch.setattr(distributed, "get_dist_module", lambda: fake_group)
    assert distributed_available() is True
    metrics = [MyAccuracy() for _ in range(2)]  # no injection: the default seam finds the (fake) group
    metrics[0].update(em.tensor([1, 1]), em.tensor([1, 0]))
    metrics[1].update(em.tensor([3]), em.tensor([3]))
    values = fake_group.run(lambda r: metrics[r].compute())
    assert values[0].item() == pytest.approx(2 / 3) and fake_group.calls > 0
    monkeypatch.setattr(distributed, "get_dist_module", lambda: _SingleProcess())
    assert distributed_available() is False  # one process: nothing to sync
