"""The Metric base: states, update/compute/reset wrappers, forward in both modes, persistence, composition."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.metrics import (CompositionalMetric, MeanMetric, MeanSquaredError, Metric, MulticlassAccuracy,
                           SumMetric)
from ember.metrics.utilities import MetricsUserError


class MyAccuracy(Metric):
    """The seed document's metric, verbatim except for the imports."""

    def __init__(self, dist_sync_on_step=False):
        super().__init__(dist_sync_on_step=dist_sync_on_step)
        self.add_state("correct", default=em.tensor(0), dist_reduce_fx="sum")
        self.add_state("total", default=em.tensor(0), dist_reduce_fx="sum")

    def update(self, preds, target):
        assert preds.shape == target.shape
        self.correct += em.sum(preds == target)
        self.total += target.numel()

    def compute(self):
        return self.correct.float() / self.total


class FastAccuracy(MyAccuracy):
    full_state_update = False


class SafeAccuracy(MyAccuracy):
    full_state_update = True


BATCHES = [(em.tensor([1, 2, 3, 4]), em.tensor([1, 2, 0, 0])),   # 2 of 4 right
           (em.tensor([0, 0]), em.tensor([0, 0])),               # 2 of 2
           (em.tensor([5, 6, 7]), em.tensor([5, 0, 0]))]         # 1 of 3


def test_seed_metric_accumulates_and_matches_hand_count():
    m = MyAccuracy()
    for p, t in BATCHES:
        m.update(p, t)
    assert m.correct.item() == 5 and m.total.item() == 9
    assert m.compute().item() == pytest.approx(5 / 9)
    assert m.update_count == 3 and m.update_called


@pytest.mark.parametrize("cls", [MyAccuracy, FastAccuracy, SafeAccuracy])
def test_forward_returns_batch_value_and_accumulates(cls):
    m = cls()
    batch_values = [m(p, t).item() for p, t in BATCHES]
    assert batch_values == pytest.approx([0.5, 1.0, 1 / 3])
    assert m._forward_cache.item() == pytest.approx(1 / 3)
    assert m.compute().item() == pytest.approx(5 / 9)
    assert m.update_count == 3


def test_reset_restores_fresh_copies_never_the_default_itself():
    m = MyAccuracy()
    m.update(*BATCHES[0])
    m.reset()
    assert m.correct.item() == 0 and m.update_count == 0 and not m.update_called
    m.update(*BATCHES[0])  # the in-place += must not have reached the stored default
    assert m._defaults["correct"].item() == 0
    assert m.correct is not m._defaults["correct"]
    m.reset()
    m.reset()
    assert m.compute_with_cache and m._computed is None


def test_shared_default_tensor_is_not_aliased_between_metrics():
    zero = em.tensor(0)

    class Counter(Metric):
        def __init__(self):
            super().__init__()
            self.add_state("n", default=zero, dist_reduce_fx="sum")

        def update(self, x):
            self.n += x.numel()

        def compute(self):
            return self.n

    a, b = Counter(), Counter()
    a.update(em.zeros(3))
    assert a.compute().item() == 3 and b.n.item() == 0 and zero.item() == 0


@pytest.mark.filterwarnings("ignore:invalid value encountered")
def test_compute_warns_before_update_with_torchmetrics_text():
    m = MyAccuracy()
    with pytest.warns(UserWarning, match=r"The ``compute`` method of metric MyAccuracy was called before the "
                                         r"``update`` method"):
        value = m.compute()
    assert np.isnan(value.item())


def test_compute_is_cached_until_next_update():
    calls = []

    class Counting(MyAccuracy):
        def compute(self):
            calls.append(1)
            return super().compute()

    m = Counting()
    m.update(*BATCHES[0])
    first = m.compute()
    assert m.compute() is first and len(calls) == 1
    m.update(*BATCHES[1])
    assert m.compute().item() == pytest.approx(4 / 6) and len(calls) == 2
    no_cache = Counting()
    no_cache.__dict__["compute_with_cache"] = False
    no_cache.update(*BATCHES[0])
    no_cache.compute()
    no_cache.compute()
    assert len(calls) == 4


def test_super_update_from_a_subclass_counts_once():
    class Wrapped(MyAccuracy):
        def update(self, preds, target):
            super().update(preds, target)

    m = Wrapped()
    m.update(*BATCHES[0])
    assert m.update_count == 1


def test_compute_returns_a_copy_of_state_tensors():
    m = SumMetric()
    m.update(em.tensor([1.0, 2.0]))
    value = m.compute()
    m.update(em.tensor([3.0]))
    assert value.item() == 3.0 and m.compute().item() == 6.0


def test_add_state_rejects_bad_defaults_and_reductions():
    m = Metric()
    with pytest.raises(ValueError, match="state variable must be a tensor or any empty list"):
        m.add_state("x", default=3)
    with pytest.raises(ValueError, match="state variable must be a tensor or any empty list"):
        m.add_state("x", default=[em.tensor(1)])
    with pytest.raises(ValueError, match=r"`dist_reduce_fx` must be callable or one of \['mean', 'sum', 'cat', "
                                         r"'min', 'max', None\]"):
        m.add_state("x", default=em.tensor(0), dist_reduce_fx="median")
    with pytest.raises(ValueError, match="valid attribute name"):
        m.add_state("not a name", default=em.tensor(0))


def test_unknown_and_badly_typed_constructor_options_raise():
    with pytest.raises(ValueError, match=r"Unexpected keyword arguments: `foo`"):
        MeanMetric(foo=1)
    with pytest.raises(ValueError, match="`compute_on_cpu` to be a `bool`"):
        MeanMetric(compute_on_cpu="yes")
    with pytest.raises(ValueError, match="`dist_sync_fn` to be a callable"):
        MeanMetric(dist_sync_fn=3)


def test_class_constants_are_read_only():
    m = MyAccuracy()
    with pytest.raises(RuntimeError, match="Can't change const `full_state_update`"):
        m.full_state_update = True
    assert MulticlassAccuracy.higher_is_better is True and MulticlassAccuracy.is_differentiable is False
    assert MulticlassAccuracy.full_state_update is False and MeanSquaredError.is_differentiable is True


def test_forward_while_synced_raises():
    m = MyAccuracy()
    m.update(*BATCHES[0])
    m.__dict__["_is_synced"] = True
    with pytest.raises(MetricsUserError, match="shouldn't be synced when performing ``forward``"):
        m(*BATCHES[0])


def test_failed_update_in_fast_forward_keeps_the_global_state():
    m = FastAccuracy()
    m(*BATCHES[0])
    with pytest.raises(AssertionError):
        m(em.tensor([1, 2]), em.tensor([1]))
    assert m.correct.item() == 2 and m.total.item() == 4 and m.update_count == 1


def test_merge_state_combines_accumulations():
    a, b = FastAccuracy(), FastAccuracy()
    a.update(*BATCHES[0])
    b.update(*BATCHES[1])
    b.update(*BATCHES[2])
    a.merge_state(b)
    assert a.compute().item() == pytest.approx(5 / 9)
    c = FastAccuracy()
    c.merge_state({"correct": em.tensor(3), "total": em.tensor(4)})
    assert c.compute().item() == pytest.approx(0.75)
    with pytest.raises(RuntimeError, match="not supported for metrics with ``full_state_update=True``"):
        SafeAccuracy().merge_state(SafeAccuracy())
    with pytest.raises(ValueError, match="Expected incoming state to be a dict or an instance of Metric"):
        a.merge_state(3)


def test_state_dict_holds_only_persistent_states():
    m = MyAccuracy()
    m.update(*BATCHES[0])
    assert dict(m.state_dict()) == {}
    m.persistent(True)
    sd = m.state_dict()
    assert sorted(sd) == ["correct", "total"] and sd["correct"].item() == 2
    m.update(*BATCHES[1])
    assert sd["correct"].item() == 2  # a snapshot, not an alias of the live state
    fresh = MyAccuracy()
    fresh.persistent(True)
    fresh.load_state_dict(sd)
    assert fresh.correct.item() == 2 and fresh.total.item() == 4


def test_metric_inside_a_module_is_excluded_from_its_state_dict_and_follows_to_dtype():
    class Model(em.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = em.nn.Linear(2, 1)
            self.mean = MeanMetric()
            self.acc = MyAccuracy()

    model = Model()
    assert sorted(model.state_dict()) == ["layer.bias", "layer.weight"]
    model.acc.persistent(True)
    assert sorted(model.state_dict()) == ["acc.correct", "acc.total", "layer.bias", "layer.weight"]
    model.mean.update(em.tensor([1.0, 2.0]))
    model.to(em.float64)
    assert model.mean.mean_value.dtype == em.float64 and model.mean._defaults["weight"].dtype == em.float64
    assert model.mean.dtype == em.float64
    assert model.acc.correct.dtype == em.int64  # integer states keep their dtype
    model.load_state_dict(model.state_dict())
    assert model.mean.compute().item() == pytest.approx(1.5)


def test_set_dtype_and_clone():
    m = MeanMetric()
    m.update(em.tensor([1.0, 3.0]))
    m.set_dtype(em.float64)
    assert m.mean_value.dtype == em.float64
    c = m.clone()
    c.update(em.tensor([5.0]))
    assert m.compute().item() == pytest.approx(2.0) and c.compute().item() == pytest.approx(3.0)


def test_arithmetic_builds_compositional_metrics():
    a, b = SumMetric(), SumMetric()
    total = a + b
    scaled = 2 * a
    diff = a - b
    neg = -a
    assert isinstance(total, CompositionalMetric)
    total.update(em.tensor([1.0, 2.0]))  # updates a and b
    b.update(em.tensor([10.0]))
    assert total.compute().item() == pytest.approx(16.0)
    assert scaled.compute().item() == pytest.approx(6.0)
    assert diff.compute().item() == pytest.approx(-10.0)
    assert neg.compute().item() == pytest.approx(-3.0)
    assert (a > b).compute().item() is False
    ratio = a / em.tensor(3.0)
    assert ratio.compute().item() == pytest.approx(1.0)
    a.update(em.tensor([1.0]))  # operands updated directly: the composition sees it (no stale cache)
    assert scaled.compute().item() == pytest.approx(8.0)
    total.reset()
    assert a.update_count == 0 and b.update_count == 0


def test_compositional_forward_returns_batch_values():
    acc = MyAccuracy()
    doubled = acc * 2
    assert doubled(*BATCHES[0]).item() == pytest.approx(1.0)
    assert doubled(*BATCHES[1]).item() == pytest.approx(2.0)
    assert doubled.compute().item() == pytest.approx(2 * 4 / 6)
    idx = MulticlassAccuracy(num_classes=3, average=None)[1]
    idx.update(em.tensor([1, 1, 0]), em.tensor([1, 2, 0]))
    assert idx.compute().item() == pytest.approx(1.0)


def test_metrics_are_not_iterable():
    with pytest.raises(TypeError, match="not iterable"):
        list(MyAccuracy())


def test_forward_batch_value_is_differentiable_for_differentiable_metrics():
    m = MeanSquaredError()
    preds = em.tensor([1.0, 2.0], requires_grad=True)
    value = m(preds, em.tensor([0.0, 0.0]))
    value.backward()
    np.testing.assert_allclose(preds.grad.numpy(), [1.0, 2.0])  # d/dp mean(p^2) = 2p/2
    assert not m.sum_squared_error.requires_grad  # the accumulated state carries no graph
    assert m.compute().item() == pytest.approx(2.5)


def test_update_runs_without_grad_recording():
    m = MeanSquaredError()
    preds = em.tensor([1.0, 2.0], requires_grad=True)
    m.update(preds, em.tensor([0.0, 0.0]))
    assert not m.sum_squared_error.requires_grad


def test_warning_free_normal_use():
    m = MulticlassAccuracy(num_classes=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m(em.tensor([0, 1, 2]), em.tensor([0, 1, 1]))
        m.compute()


def test_add_state_before_super_init_says_what_to_do():
    class Broken(Metric):
        def __init__(self):
            self.add_state("x", default=em.tensor(0))

    with pytest.raises(RuntimeError, match=r"call super\(\).__init__\(\) first"):
        Broken()
