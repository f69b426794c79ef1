"""A ``self.log`` call repeated every step is validated once, at its first call: these tests pin that every later
call still publishes its own value everywhere, and that what must be checked at every call still is."""
import pytest

import ember as em
from ember.core.data import DataLoader
from ember.trainer import MisconfigurationException

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


class EveryStep(Classifier):
    """Logs, at each step i, values that change with i: a float tensor, an int tensor (forked, summed), a number
    with an explicit batch size of i + 1, and a rank-zero-only number."""

    def training_step(self, batch, batch_idx):
        loss = super().training_step(batch, batch_idx)
        i = batch_idx
        self.log("t", em.tensor(float(i)), prog_bar=True)
        self.log("n", em.tensor(i + 1), on_step=True, on_epoch=True, prog_bar=True, reduce_fx="sum")
        self.log("w", float(i + 1), on_step=False, on_epoch=True, batch_size=i + 1)
        self.log("r", float(10 * i), prog_bar=True, rank_zero_only=True)
        return loss


class Published(em.Callback):
    """What the trainer has published when each batch starts (the previous batch's step values)."""

    def __init__(self):
        self.rows = []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.rows.append((dict(trainer.progress_bar_metrics),
                          {k: v.item() for k, v in trainer.callback_metrics.items() if k != "train_loss"}))


def test_a_repeated_call_publishes_each_steps_value_to_every_dict():
    logger, published = RecordingLogger(), Published()
    trainer = quiet_trainer(max_epochs=2, logger=logger, log_every_n_steps=1, callbacks=[published])
    trainer.fit(EveryStep(), DataLoader(make_dataset(16), batch_size=4))  # 4 steps per epoch
    step_calls = [(step, {k: v for k, v in m.items() if k != "train_loss"}) for step, m in logger.calls
                  if "t" in m]
    assert step_calls == [(s, {"t": float(s % 4), "n_step": float(s % 4 + 1), "r": float(10 * (s % 4)),
                               "epoch": s // 4}) for s in range(8)]
    assert all("train_loss" in m for step, m in logger.calls if "t" in m)
    # the bar gets Python floats of each step; rank-zero-only values are not monitored
    for i, (pbar, callback) in enumerate(published.rows[1:4]):
        assert pbar == {"t": float(i), "n_step": float(i + 1), "r": float(10 * i)}
        assert all(type(v) is float for v in pbar.values())
        assert callback == {"t": float(i), "n": float(i + 1), "n_step": float(i + 1)}
    # epoch values, in both epochs: the sum of 1..4, and the mean of i + 1 weighted by batch size i + 1
    epoch_calls = [m for step, m in logger.calls if "n_epoch" in m]
    assert [(m["n_epoch"], m["w"]) for m in epoch_calls] == [(10.0, 3.0), (10.0, 3.0)]
    assert trainer.callback_metrics["n"].item() == 10.0 and trainer.progress_bar_metrics["n_epoch"] == 10.0


def _bad_second_call(first, second):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            (first if batch_idx == 0 else second)(self)
            return super().training_step(batch, batch_idx)
    quiet_trainer(max_epochs=1, limit_train_batches=2).fit(Model(), DataLoader(make_dataset(8), batch_size=4))


@pytest.mark.parametrize("second, error, match", [
    (lambda self: self.log("x", em.ones(3)), ValueError, "must have a single element"),
    (lambda self: self.log("x", {"a": 1.0}), ValueError, "nested dicts"),
    (lambda self: self.log("x", "text"), ValueError, "cannot be logged"),
    (lambda self: self.log("x", em.ones(1), batch_size=0), MisconfigurationException, "positive int"),
    (lambda self: self.log("x", em.ones(1), batch_size=2.5), MisconfigurationException, "positive int"),
    # the same key with other options, at a later step: still "twice" (the key's options are fixed by its first)
    (lambda self: self.log("x", em.ones(1), prog_bar=True), MisconfigurationException, "twice"),
])
def test_a_repeated_call_still_checks_its_value_and_batch_size(second, error, match):
    with pytest.raises(error, match=match):  # after a valid first call
        _bad_second_call(lambda self: self.log("x", em.ones(1), batch_size=4), second)


def test_a_repeated_call_in_several_eval_loaders_logs_to_each_loaders_key():
    class Model(Classifier):
        def validation_step(self, batch, batch_idx, dataloader_idx=0):
            self.log("v", float(10 * dataloader_idx + batch_idx), prog_bar=True)

    loaders = [DataLoader(make_dataset(8), batch_size=4), DataLoader(make_dataset(8), batch_size=4)]
    trainer = quiet_trainer()
    results = trainer.validate(Model(), loaders, verbose=False)
    # each loader's mean of its own two batches (0, 1 and 10, 11), under its own suffixed key
    assert results == [{"v/dataloader_idx_0": 0.5}, {"v/dataloader_idx_1": 10.5}]
    assert trainer.progress_bar_metrics == {"v/dataloader_idx_0": 0.5, "v/dataloader_idx_1": 10.5}
