"""``self.log`` and the metric dictionaries behave as in Lightning 2.x (issue 14)."""
import pytest

import ember as em
from ember.core.data import DataLoader

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


def _loader(n=16):
    return DataLoader(make_dataset(n), batch_size=8)


# ------------------------------------------------------------------------- 2. self.log in every hook Lightning allows
def test_log_in_on_train_start_before_any_batch_or_validation():
    class Model(Classifier):
        def on_train_start(self):
            self.log("start_metric", 1.0)

    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=1, logger=logger, log_every_n_steps=1, num_sanity_val_steps=0)
    trainer.fit(Model(), _loader())
    assert trainer.callback_metrics["start_metric"].item() == 1.0
    assert [metrics for _, metrics in logger.calls if "start_metric" in metrics] == [{"start_metric": 1.0,
                                                                                     "epoch": 0}]


def test_log_from_a_callback_hook():
    class Logs(em.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            pl_module.log("from_callback", 2.0)

    trainer = quiet_trainer(max_epochs=1, callbacks=[Logs()], num_sanity_val_steps=0)
    trainer.fit(Classifier(), _loader())
    assert trainer.callback_metrics["from_callback"].item() == 2.0


@pytest.mark.parametrize("value, kind", [("text", "str"), (None, "NoneType"), (object(), "object")])
def test_logging_a_value_that_is_not_a_number_raises_lightnings_error(value, kind):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("bad", value)
            return super().training_step(batch, batch_idx)

    with pytest.raises(ValueError, match=rf"`self.log\(bad, .*\)` was called, but `{kind}` values cannot be logged"):
        quiet_trainer(max_epochs=1).fit(Model(), _loader())


# ---------------------------------------------------------------------------------------- 1. reduce_fx spellings
@pytest.mark.parametrize("reduce_fx, expected", [("SUM", 3.0), ("Mean", 1.5), ("AVG", 1.5), (max, 2.0), (sum, 3.0),
                                                 (em.max, 2.0), (em.sum, 3.0), (em.mean, 1.5)])
def test_reduce_fx_accepts_lightnings_spellings(reduce_fx, expected):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("x", float(batch_idx + 1), reduce_fx=reduce_fx, on_step=False, on_epoch=True, batch_size=1)
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Model(), _loader())
    assert trainer.callback_metrics["x"].item() == expected


def test_unknown_reduce_fx_is_rejected_with_lightnings_error():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("x", 1.0, reduce_fx="median")
            return super().training_step(batch, batch_idx)

    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"Only `self.log\(..., reduce_fx=\{min,max,mean,sum\}\)` are supported. If you need a "
                             r"custom reduction, please log a `Metric` instead. Found: 'median'"):
        quiet_trainer(max_epochs=1).fit(Model(), _loader())
