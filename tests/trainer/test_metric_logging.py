"""Logging em.metrics objects through self.log / self.log_dict, and metrics as module attributes."""
import numpy as np
import pytest

import ember as em
from ember.core.data import DataLoader
from ember.metrics import Metric, MetricCollection
from ember.metrics.classification import MulticlassAccuracy, MulticlassPrecision

from trainer_testing import Classifier, make_dataset, quiet_trainer


class MyAccuracy(Metric):
    """The seed document's metric, with only its imports changed."""

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


class AccModel(Classifier):
    def __init__(self):
        super().__init__(lr=0.0)  # frozen weights: the epoch value can be recomputed on all data afterwards
        self.val_acc = MyAccuracy()
        self.train_acc = MulticlassAccuracy(num_classes=2, average="micro")

    def training_step(self, batch, batch_idx):
        x, y = batch
        self.train_acc(self(x).argmax(1), y)
        self.log("train_acc", self.train_acc, on_step=True, on_epoch=True)
        return super().training_step(batch, batch_idx)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.val_acc(self(x).argmax(1), y)
        self.log("val_acc", self.val_acc)


def _accuracy_on_all(model, ds):
    with em.no_grad():
        pred = model(ds.tensors[0]).argmax(1)
    return (pred == ds.tensors[1]).float().mean().item()


def test_seed_metric_logged_in_fit_equals_the_metric_on_all_data():
    em.manual_seed(3)
    ds = make_dataset(30, separable=False)
    model = AccModel()
    trainer = quiet_trainer(max_epochs=2, num_sanity_val_steps=0)
    trainer.fit(model, DataLoader(ds, batch_size=8), DataLoader(ds, batch_size=7))  # uneven batches
    expected = _accuracy_on_all(model, ds)
    assert trainer.callback_metrics["val_acc"].item() == pytest.approx(expected, abs=1e-7)
    assert trainer.callback_metrics["train_acc_epoch"].item() == pytest.approx(expected, abs=1e-7)
    assert model.val_acc.update_count == 0  # computed and reset at epoch end


def test_metric_collection_through_log_dict_with_prefix():
    class Model(Classifier):
        def __init__(self):
            super().__init__(lr=0.0)
            self.metrics = MetricCollection([MulticlassAccuracy(num_classes=2, average="micro"),
                                             MulticlassPrecision(num_classes=2)], prefix="val_")

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.metrics.update(self(x).argmax(1), y)
            self.log_dict(self.metrics)

    ds = make_dataset(20, separable=False)
    model = Model()
    trainer = quiet_trainer()
    results = trainer.validate(model, DataLoader(ds, batch_size=6), verbose=False)
    assert set(results[0]) == {"val_MulticlassAccuracy", "val_MulticlassPrecision"}
    assert results[0]["val_MulticlassAccuracy"] == pytest.approx(_accuracy_on_all(model, ds), abs=1e-7)


def test_metrics_are_not_in_the_module_state_dict_and_follow_dtype():
    model = AccModel()
    keys = set(model.state_dict())
    assert keys == {"layer.weight", "layer.bias"}
    model.double()
    assert model.layer.weight.dtype == em.float64
    model.train_acc.persistent(True)
    assert any(k.startswith("train_acc.") for k in model.state_dict())


def test_logging_a_metric_found_as_attribute_on_step_gives_the_batch_value():
    values = []

    class Model(AccModel):
        def on_train_batch_end(self, outputs, batch, batch_idx):
            values.append(self.trainer.callback_metrics["train_acc_step"].item())

    em.manual_seed(0)
    ds = make_dataset(16, separable=False)
    model = Model()
    quiet_trainer(max_epochs=1).fit(model, DataLoader(ds, batch_size=8))
    with em.no_grad():
        pred = model(ds.tensors[0]).argmax(1).numpy()
    y = ds.tensors[1].numpy()
    np.testing.assert_allclose(values, [(pred[:8] == y[:8]).mean(), (pred[8:] == y[8:]).mean()], atol=1e-7)
