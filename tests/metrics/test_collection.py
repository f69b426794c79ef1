"""MetricCollection: naming (prefix/postfix), clone, forward/compute/reset, compute groups, errors."""
import pytest

import ember as em
from ember.metrics import (BinaryAccuracy, MeanMetric, MeanSquaredError, MetricCollection, MulticlassAccuracy,
                           MulticlassPrecision, MulticlassRecall, SumMetric)

# 3 classes; per class (tp, fp, fn): c0 (1, 0, 1), c1 (1, 1, 0), c2 (1, 0, 0)
PREDS = em.tensor([0, 1, 1, 2])
TARGET = em.tensor([0, 1, 0, 2])
MACRO_PRECISION = (1 + 0.5 + 1) / 3
MACRO_RECALL = (0.5 + 1 + 1) / 3


def _collection(**kwargs):
    return MetricCollection([MulticlassAccuracy(3), MulticlassPrecision(3), MulticlassRecall(3)], **kwargs)


def test_list_collection_names_by_class_and_applies_prefix_postfix():
    mc = _collection(prefix="train_", postfix="_epoch")
    assert list(mc.keys()) == ["train_MulticlassAccuracy_epoch", "train_MulticlassPrecision_epoch",
                               "train_MulticlassRecall_epoch"]
    assert list(mc.keys(keep_base=True)) == ["MulticlassAccuracy", "MulticlassPrecision", "MulticlassRecall"]
    out = mc(PREDS, TARGET)
    assert out["train_MulticlassPrecision_epoch"].item() == pytest.approx(MACRO_PRECISION)
    assert out["train_MulticlassRecall_epoch"].item() == pytest.approx(MACRO_RECALL)
    assert mc["train_MulticlassRecall_epoch"] is mc["MulticlassRecall"]


def test_items_yield_prefixed_names_and_metrics_for_log_dict():
    mc = _collection(prefix="val_")
    mc.update(PREDS, TARGET)
    logged = {name: metric.compute().item() for name, metric in mc.items()}
    assert logged == pytest.approx({"val_MulticlassAccuracy": MACRO_RECALL, "val_MulticlassPrecision": MACRO_PRECISION,
                                    "val_MulticlassRecall": MACRO_RECALL})
    for _, metric in mc.items():
        metric.reset()
    mc.update(em.tensor([2]), em.tensor([2]))
    assert mc.compute()["val_MulticlassAccuracy"].item() == pytest.approx(1.0)


def test_dict_collection_sorted_keys_and_clone_with_new_prefix():
    mc = MetricCollection({"mse": MeanSquaredError(), "avg": MeanMetric()})
    assert list(mc.keys()) == ["avg", "mse"]
    train = mc.clone(prefix="train_")
    val = mc.clone(prefix="val_")
    train["mse"].update(em.tensor([1.0, 3.0]), em.tensor([0.0, 0.0]))
    val["mse"].update(em.tensor([1.0]), em.tensor([1.0]))
    assert train["train_mse"].compute().item() == pytest.approx(5.0)
    assert val["mse"].compute().item() == pytest.approx(0.0)
    assert mc["mse"].update_count == 0  # clones are independent
    assert list(val.keys()) == ["val_avg", "val_mse"]


def test_forward_accumulates_and_reset_clears():
    mc = MetricCollection([SumMetric(), MeanMetric()], prefix="m_")
    first = mc(em.tensor([1.0, 3.0]))
    assert (first["m_SumMetric"].item(), first["m_MeanMetric"].item()) == (4.0, 2.0)
    mc(em.tensor([5.0]))
    total = mc.compute()
    assert total["m_SumMetric"].item() == 9.0 and total["m_MeanMetric"].item() == 3.0
    mc.reset()
    assert all(m.update_count == 0 for m in mc.values())


def test_compute_groups_share_one_state_and_give_the_same_values():
    grouped = _collection()
    separate = _collection(compute_groups=False)
    batches = [(PREDS, TARGET), (em.tensor([2, 2, 0]), em.tensor([2, 1, 0]))]
    for p, t in batches:
        grouped.update(p, t)
        separate.update(p, t)
    assert grouped.compute_groups == {0: ["MulticlassAccuracy", "MulticlassPrecision", "MulticlassRecall"]}
    assert separate.compute_groups == {}
    a, b = grouped.compute(), separate.compute()
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].item() == pytest.approx(b[k].item())
    # after the first update only the group's first metric is updated; the others share its state
    acc = grouped["MulticlassAccuracy"]
    rec = grouped.__getitem__("MulticlassRecall", copy_state=False)
    assert acc.tp is rec.tp


def test_compute_groups_do_not_merge_metrics_with_different_states():
    mc = MetricCollection([MulticlassAccuracy(3, average="micro"), MulticlassPrecision(3), BinaryAccuracy()])
    mc.update(em.tensor([0, 1, 1]), em.tensor([0, 1, 0]))
    assert len(mc.compute_groups) == 3


def test_forward_after_groups_formed_does_not_double_count():
    mc = _collection()
    mc.update(PREDS, TARGET)  # forms the group
    mc(PREDS, TARGET)
    mc.update(PREDS, TARGET)
    sep = _collection(compute_groups=False)
    for _ in range(3):
        sep.update(PREDS, TARGET)
    got, want = mc.compute(), sep.compute()
    for k in want:
        assert got[k].item() == pytest.approx(want[k].item())


def test_explicit_compute_groups():
    mc = MetricCollection([MulticlassPrecision(3), MulticlassRecall(3), SumMetric()],
                          compute_groups=[["MulticlassPrecision", "MulticlassRecall"]])
    assert mc.compute_groups == {0: ["MulticlassPrecision", "MulticlassRecall"], 1: ["SumMetric"]}
    with pytest.raises(ValueError, match="does not match a metric in the collection"):
        MetricCollection([SumMetric()], compute_groups=[["Nope"]])


def test_nested_collections_and_errors():
    inner = MetricCollection([SumMetric()], prefix="in_")
    outer = MetricCollection([inner, MeanMetric()])
    assert sorted(outer.keys()) == ["MeanMetric", "in_SumMetric"]  # the inner collection's names, prefixed
    with pytest.raises(ValueError, match="Encountered two metrics both named SumMetric"):
        MetricCollection([SumMetric(), SumMetric()])
    with pytest.raises(ValueError, match="is not an instance of `ember.metrics.Metric`"):
        MetricCollection([SumMetric(), 3])
    with pytest.raises(ValueError, match="Expected input `prefix` to be a string"):
        MetricCollection([SumMetric()], prefix=3)
    with pytest.raises(ValueError, match="Unknown input to MetricCollection"):
        MetricCollection(5)


def test_kwargs_are_filtered_per_metric():
    mc = MetricCollection([MeanMetric(), SumMetric()])
    mc.update(em.tensor([1.0, 3.0]), weight=em.tensor([3.0, 1.0]))  # SumMetric.update takes no weight
    out = mc.compute()
    assert out["MeanMetric"].item() == pytest.approx(1.5) and out["SumMetric"].item() == 4.0


def test_collection_is_persistent_and_in_state_dict():
    mc = MetricCollection([SumMetric()])
    mc.update(em.tensor([2.0]))
    assert dict(mc.state_dict()) == {}
    mc.persistent(True)
    assert list(mc.state_dict()) == ["SumMetric.sum_value"]
