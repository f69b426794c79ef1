"""self.log semantics: per-hook defaults, forked names, batch-size-weighted epoch means, what reaches the loggers."""
import numpy as np
import pytest

import ember as em
from ember.core.data import DataLoader
from ember.trainer import MisconfigurationException

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


class Scripted(Classifier):
    """Logs the batch index (+1) so every expected number can be computed by hand."""

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        self.log("v", float(batch_idx + 1), on_step=True, on_epoch=True, prog_bar=True)
        self.log("s", float(batch_idx + 1), on_step=False, on_epoch=True, reduce_fx="sum")
        self.log("m", em.tensor(float(batch_idx + 1)), on_step=False, on_epoch=True, reduce_fx="max")
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val_v", float(batch_idx + 1))


def test_step_and_epoch_values_with_uneven_last_batch():
    trainer = quiet_trainer(max_epochs=1, num_sanity_val_steps=0)
    data = DataLoader(make_dataset(10), batch_size=4)  # batches of 4, 4, 2
    trainer.fit(Scripted(), data, data)
    logged = {k: v.item() for k, v in trainer.logged_metrics.items()}
    # weighted mean over batch sizes: (1*4 + 2*4 + 3*2) / 10
    assert logged["v_epoch"] == pytest.approx(1.8)
    assert logged["s"] == 6.0 and logged["m"] == 3.0
    assert logged["val_v"] == pytest.approx(1.8)
    cb = {k: v.item() for k, v in trainer.callback_metrics.items()}
    assert cb["v"] == pytest.approx(1.8) and cb["v_step"] == 3.0 and cb["v_epoch"] == pytest.approx(1.8)
    assert trainer.progress_bar_metrics["v_epoch"] == pytest.approx(1.8)  # a float, as in Lightning (issue 14)
    assert "train_loss" in cb


def test_logger_receives_steps_every_n_and_epoch_values():
    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=2, logger=logger, log_every_n_steps=2, num_sanity_val_steps=0)
    data = DataLoader(make_dataset(12), batch_size=4)  # 3 batches per epoch
    trainer.fit(Scripted(), data, data)
    steps = [(step, sorted(m)) for step, m in logger.calls]
    train_step_keys = ["epoch", "train_loss", "v_step"]
    # step logs at _batches_that_stepped (0-based) when (n + 1) % 2 == 0: batches 1, 3, 5 -> steps 1, 3, 5
    assert [s for s, keys in steps if "v_step" in keys] == [1, 3, 5]
    assert all(keys == train_step_keys for s, keys in steps if "v_step" in keys)
    # validation epoch values at the last training step of each epoch, then the training epoch values
    assert [(s, keys) for s, keys in steps if "val_v" in keys] == [(2, ["epoch", "val_v"]), (5, ["epoch", "val_v"])]
    assert [(s, keys) for s, keys in steps if "v_epoch" in keys] == [(2, ["epoch", "m", "s", "v_epoch"]),
                                                                     (5, ["epoch", "m", "s", "v_epoch"])]
    epoch_calls = [m for s, m in logger.calls if "v_epoch" in m]
    assert [m["epoch"] for m in epoch_calls] == [0.0, 1.0]
    assert epoch_calls[0]["v_epoch"] == pytest.approx(2.0) and epoch_calls[0]["s"] == 6.0


def test_sanity_check_values_are_discarded():
    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=1, limit_val_batches=1, logger=logger)
    data = DataLoader(make_dataset(8), batch_size=4)
    trainer.fit(Scripted(), data, data)
    val_logs = [m for _, m in logger.calls if "val_v" in m]
    assert len(val_logs) == 1  # only the real validation, not the sanity check


def test_explicit_batch_size_and_ambiguous_batch_warns_once():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            self.log("w", float(batch_idx), batch_size=batch_idx + 1, on_epoch=True, on_step=False)
            self.log("amb", 1.0, on_epoch=True)
            return loss

    class Ambiguous(em.core.data.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            return em.randn(4), em.tensor(i % 2), em.zeros(3, 2)

    def collate(items):
        xs, ys, zs = zip(*items)
        return em.stack(xs), em.stack(ys), em.stack(zs)[:1]

    class Model2(Model):
        def training_step(self, batch, batch_idx):
            return super().training_step(batch[:2], batch_idx)

    trainer = quiet_trainer(max_epochs=1)
    with pytest.warns(UserWarning, match="ambiguous collection") as record:
        trainer.fit(Model2(), DataLoader(Ambiguous(), batch_size=2, collate_fn=collate))
    assert sum("ambiguous" in str(w.message) for w in record) == 1
    # explicit batch sizes 1..4 weight values 0..3: (0*1 + 1*2 + 2*3 + 3*4) / 10 = 2.0
    assert trainer.callback_metrics["w"].item() == pytest.approx(2.0)


class _MeanMetric:
    """A duck-typed metric: update/compute/reset and a forward cache."""

    def __init__(self):
        self.reset()
        self.resets = 0

    def reset(self):
        self.total, self.count = 0.0, 0
        self.resets = getattr(self, "resets", -1) + 1

    def update(self, value):
        self.total += value
        self.count += 1

    def compute(self):
        return em.tensor(self.total / self.count)

    def __call__(self, value):
        self.update(value)
        self._forward_cache = em.tensor(value)
        return self._forward_cache


def test_logged_metric_object_is_computed_and_reset_at_epoch_end():
    metric = _MeanMetric()

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            metric(float(batch_idx) * 2)
            self.log("metric", metric, on_step=True, on_epoch=True)
            return loss

    trainer = quiet_trainer(max_epochs=2)
    trainer.fit(Model(), DataLoader(make_dataset(12), batch_size=4))
    assert trainer.logged_metrics["metric_epoch"].item() == pytest.approx(2.0)  # mean of 0, 2, 4
    assert trainer.callback_metrics["metric_step"].item() == 4.0
    assert "metric_step" not in trainer.logged_metrics  # log_every_n_steps=50 never reached
    assert metric.resets == 2


@pytest.mark.parametrize("hook", ["on_fit_start", "on_train_end", "setup", "on_validation_end"])
def test_logging_in_a_forbidden_hook_names_the_hook(hook):
    class Model(Classifier):
        pass

    def bad(self, *args):
        self.log("x", 1.0)

    setattr(Model, hook, bad)
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=1)
    with pytest.raises(MisconfigurationException, match=f"inside `{hook}`"):
        trainer.fit(Model(), DataLoader(make_dataset(8), batch_size=4), DataLoader(make_dataset(8), batch_size=4))


def test_log_value_and_option_errors():
    def run(step):
        class Model(Classifier):
            def training_step(self, batch, batch_idx):
                step(self)
                return super().training_step(batch, batch_idx)
        quiet_trainer(max_epochs=1, limit_train_batches=1).fit(Model(), DataLoader(make_dataset(8), batch_size=4))

    with pytest.raises(ValueError, match="must have a single element"):
        run(lambda self: self.log("x", em.ones(3)))
    with pytest.raises(ValueError, match="nested dicts"):
        run(lambda self: self.log("x", {"a": 1}))
    with pytest.raises(MisconfigurationException, match="is not useful"):
        run(lambda self: self.log("x", 1.0, on_step=False, on_epoch=False))
    with pytest.raises(MisconfigurationException, match="reduce_fx"):
        run(lambda self: self.log("x", 1.0, reduce_fx="median"))

    def twice(self):
        self.log("x", 1.0)
        self.log("x", 1.0, prog_bar=True)
    with pytest.raises(MisconfigurationException, match="twice"):
        run(twice)
    with pytest.raises(MisconfigurationException, match="on_step=True"):
        class M(Classifier):
            def on_train_epoch_end(self):
                self.log("x", 1.0, on_step=True)
        quiet_trainer(max_epochs=1, limit_train_batches=1).fit(M(), DataLoader(make_dataset(8), batch_size=4))


def test_several_eval_dataloaders_get_suffixes_and_one_result_dict_each():
    class Model(Classifier):
        def validation_step(self, batch, batch_idx, dataloader_idx=0):
            self.log("val_x", float(dataloader_idx + 1))

    trainer = quiet_trainer()
    data = [DataLoader(make_dataset(8), batch_size=4), DataLoader(make_dataset(4), batch_size=4)]
    results = trainer.validate(Model(), data, verbose=False)
    assert results == [{"val_x/dataloader_idx_0": 1.0}, {"val_x/dataloader_idx_1": 2.0}]


def test_hyperparameters_reach_the_logger():
    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=1, limit_train_batches=1, logger=logger)
    trainer.fit(Classifier(lr=0.25), DataLoader(make_dataset(8), batch_size=4))
    assert logger.hparams == [{"lr": 0.25, "features": 4}]
    np.testing.assert_equal(Classifier(lr=0.1).hparams, {"lr": 0.1, "features": 4})
