"""EarlyStopping on scripted metric sequences: the stopping epoch, min_epochs, min_delta, thresholds, non-finite
values, strictness, where the check runs, the stopping reason, and its state in checkpoints."""
import math

import pytest

import ember as em
from ember.callbacks import EarlyStopping, ModelCheckpoint
from ember.callbacks.early_stopping import EarlyStoppingReason
from ember.trainer import MisconfigurationException

from callback_testing import Scripted, loader, make_trainer


def fit(tmp_path, script, es, max_epochs=10, monitor="val_loss", **kwargs):
    trainer = make_trainer(tmp_path, max_epochs=max_epochs, callbacks=[es], enable_checkpointing=False, **kwargs)
    trainer.fit(Scripted(script, monitor=monitor), loader(), loader(seed=1))
    return trainer


def test_stops_when_patience_runs_out(tmp_path, callback_log):
    es = EarlyStopping(monitor="val_loss", patience=2)
    trainer = fit(tmp_path, [1.0, 0.8, 0.9, 0.85, 0.95, 0.7, 0.6], es)
    # e0 best 1.0; e1 best 0.8; e2 0.9 -> wait 1; e3 0.85 -> wait 2 = patience: stop after epoch 3
    assert es.stopped_epoch == 3 and trainer.current_epoch == 4
    assert trainer.global_step == 16
    assert es.wait_count == 2 and es.best_score == pytest.approx(0.8)
    assert es.stopping_reason == EarlyStoppingReason.PATIENCE_EXHAUSTED
    expected = "Monitored metric val_loss did not improve in the last 2 records. Best score: 0.800. Signaling " \
               "Trainer to stop."
    assert es.stopping_reason_message == expected
    assert callback_log == [expected]  # the reason is logged even without verbose


def test_respects_min_epochs(tmp_path):
    es = EarlyStopping(monitor="val_loss", patience=2)
    trainer = fit(tmp_path, [1.0, 0.8, 0.9, 0.85, 0.95, 0.7, 0.6, 0.5], es, min_epochs=6)
    # asked to stop after epochs 3 and 4, but min_epochs=6 keeps it going through epoch 5
    assert trainer.current_epoch == 6
    assert es.stopped_epoch == 4  # the last check that asked to stop (epoch 5 improved to 0.7)
    assert es.best_score == pytest.approx(0.7) and es.wait_count == 0


def test_min_delta(tmp_path):
    es = EarlyStopping(monitor="val_loss", patience=1, min_delta=0.1)
    trainer = fit(tmp_path, [1.0, 0.95, 0.85, 0.8], es)
    assert trainer.current_epoch == 2 and es.stopped_epoch == 1  # 0.95 is not 0.1 better than 1.0
    es = EarlyStopping(monitor="val_loss", patience=1, min_delta=0.01)
    trainer = fit(tmp_path, [1.0, 0.95, 0.85, 0.8], es, max_epochs=4)
    assert trainer.current_epoch == 4 and es.stopping_reason == EarlyStoppingReason.NOT_STOPPED


def test_mode_max_and_stopping_threshold(tmp_path):
    es = EarlyStopping(monitor="val_acc", mode="max", stopping_threshold=0.9)
    trainer = fit(tmp_path, [0.5, 0.7, 0.95, 0.99], es, monitor="val_acc")
    assert trainer.current_epoch == 3 and es.stopped_epoch == 2
    assert es.stopping_reason == EarlyStoppingReason.STOPPING_THRESHOLD
    assert es.stopping_reason_message.startswith("Stopping threshold reached: val_acc = 0.949999")
    assert es.stopping_reason_message.endswith(" > 0.9. Signaling Trainer to stop.")


def test_divergence_threshold(tmp_path):
    es = EarlyStopping(monitor="val_loss", divergence_threshold=10.0)
    trainer = fit(tmp_path, [1.0, 5.0, 20.0, 0.5], es)
    assert trainer.current_epoch == 3 and es.wait_count == 1
    assert es.stopping_reason == EarlyStoppingReason.DIVERGENCE_THRESHOLD
    assert es.stopping_reason_message == "Divergence threshold reached: val_loss = 20.0 < 10.0. Signaling Trainer " \
                                         "to stop."


def test_non_finite(tmp_path):
    es = EarlyStopping(monitor="val_loss")
    trainer = fit(tmp_path, [1.0, math.nan, 0.5], es)
    assert trainer.current_epoch == 2
    assert es.stopping_reason == EarlyStoppingReason.NON_FINITE_METRIC
    assert es.stopping_reason_message == "Monitored metric val_loss = nan is not finite. Previous best value was " \
                                         "1.000. Signaling Trainer to stop."
    es = EarlyStopping(monitor="val_loss", check_finite=False, patience=5)
    assert fit(tmp_path, [1.0, math.nan, 0.5], es, max_epochs=3).current_epoch == 3


def test_strict_missing_monitor(tmp_path):
    with pytest.raises(RuntimeError, match=r"conditioned on metric `val_acc` which is not available.*`val_loss`"):
        fit(tmp_path, [1.0], EarlyStopping(monitor="val_acc"))
    trainer = fit(tmp_path, [1.0, 1.0], EarlyStopping(monitor="val_acc", strict=False), max_epochs=2)
    assert trainer.current_epoch == 2


def test_verbose_logs_improvements(tmp_path, callback_log):
    fit(tmp_path, [1.0, 0.75, 0.9], EarlyStopping(monitor="val_loss", patience=5, verbose=True), max_epochs=3)
    assert callback_log == ["Metric val_loss improved. New best score: 1.000",
                            "Metric val_loss improved by 0.250 >= min_delta = 0.0. New best score: 0.750"]


def test_check_runs_after_each_validation_when_validating_twice_per_epoch(tmp_path):
    es = EarlyStopping(monitor="val_loss", patience=2)
    trainer = fit(tmp_path, [1.0, 1.0, 1.0], es, val_check_interval=0.5)
    assert es._check_on_train_epoch_end is False
    # checks after batches 2 and 4 of each epoch: best, wait 1, wait 2 -> stops at the first check of epoch 1
    assert es.stopped_epoch == 1 and trainer.global_step == 6 and trainer.current_epoch == 2


def test_invalid_arguments():
    with pytest.raises(MisconfigurationException, match="`mode` can be min, max, got avg"):
        EarlyStopping(monitor="x", mode="avg")
    with pytest.raises(ValueError, match="patience=-1"):
        EarlyStopping(monitor="x", patience=-1)


def test_state_goes_into_checkpoints_and_back(tmp_path):
    es = EarlyStopping(monitor="val_loss", patience=3)
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last=True)
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[es, ckpt])
    script = [1.0, 0.8, 0.9, 0.95, 0.99, 0.5]
    trainer.fit(Scripted(script), loader(), loader(seed=1))
    saved = em.load(ckpt.last_model_path)["callbacks"][es.state_key]
    assert es.state_key == "EarlyStopping{'monitor': 'val_loss', 'mode': 'min'}"
    assert saved["wait_count"] == 1 and saved["best_score"] == pytest.approx(0.8)
    assert saved["stopping_reason"] == "not_stopped"
    # resumed: e3 0.95 -> wait 2, e4 0.99 -> wait 3 = patience, so it stops after epoch 4 as an uninterrupted run would
    resumed = EarlyStopping(monitor="val_loss", patience=3)
    trainer = make_trainer(tmp_path, max_epochs=10, callbacks=[resumed], enable_checkpointing=False)
    trainer.fit(Scripted(script), loader(), loader(seed=1), ckpt_path=ckpt.last_model_path)
    assert resumed.stopped_epoch == 4 and trainer.current_epoch == 5
    assert resumed.state_dict()["stopping_reason"] == "patience_exhausted"
