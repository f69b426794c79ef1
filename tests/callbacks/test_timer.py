"""Timer: duration formats, stopping after the duration (step or epoch interval), stage times, state and resume.
The clock is a fake one that a helper callback advances by one second before every training batch."""
from datetime import timedelta

import pytest

import ember as em
from ember.callbacks import Callback, ModelCheckpoint, Timer
from ember.trainer import MisconfigurationException

from callback_testing import Scripted, loader, make_trainer


class Clock:
    def __init__(self):
        self.now = 100.0

    def monotonic(self):
        return self.now


class Tick(Callback):
    """One second per training batch, five per validation."""

    def __init__(self, clock):
        self.clock = clock

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.clock.now += 1.0

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        self.clock.now += 2.5


@pytest.fixture
def clock(monkeypatch):
    import ember.callbacks.timer as timer_module
    c = Clock()
    monkeypatch.setattr(timer_module, "time", c)
    return c


@pytest.mark.parametrize("duration, seconds", [
    ("00:00:00:05", 5), ("01:02:03:04", 93784), (timedelta(minutes=2), 120), ({"hours": 1, "seconds": 2}, 3602),
    (None, None),
])
def test_duration_formats(duration, seconds):
    assert Timer(duration=duration).time_remaining() == seconds


def test_invalid_arguments():
    with pytest.raises(MisconfigurationException, match="not a valid duration. Expected a string in the format "
                                                         "DD:HH:MM:SS"):
        Timer(duration="5 minutes")
    with pytest.raises(MisconfigurationException, match=r"Unsupported parameter value `Timer\(interval=batch\)`"):
        Timer(duration="00:00:00:01", interval="batch")
    with pytest.raises(MisconfigurationException, match="timedelta arguments"):
        Timer(duration={"fortnights": 1})


def test_stops_after_the_duration_at_a_step(tmp_path, clock, callback_log):
    timer = Timer(duration="00:00:00:03", interval="step")
    trainer = make_trainer(tmp_path, max_epochs=5, callbacks=[Tick(clock), timer], enable_checkpointing=False)
    trainer.fit(Scripted(), loader())
    assert trainer.global_step == 3  # 3 seconds have passed at the end of the 3rd batch
    assert timer.time_elapsed("train") == 3.0 and timer.time_remaining() == 0.0
    assert timer.start_time("train") == 100.0 and timer.end_time("train") == 103.0
    assert callback_log == ["Time limit reached. Elapsed time is 0:00:03. Signaling Trainer to stop."]


def test_epoch_interval_checks_at_epoch_end(tmp_path, clock):
    timer = Timer(duration={"seconds": 5}, interval="epoch", verbose=False)
    trainer = make_trainer(tmp_path, max_epochs=5, callbacks=[Tick(clock), timer], enable_checkpointing=False)
    trainer.fit(Scripted(), loader())
    assert trainer.global_step == 8  # 4 s after epoch 0 (go on), 8 s after epoch 1 (stop)


def test_max_time_adds_a_timer(tmp_path, clock):
    trainer = make_trainer(tmp_path, max_epochs=5, max_time={"seconds": 2}, callbacks=[Tick(clock)],
                           enable_checkpointing=False)
    timers = [c for c in trainer.callbacks if isinstance(c, Timer)]
    assert len(timers) == 1 and timers[0].time_remaining() == 2
    trainer.fit(Scripted(), loader())
    assert trainer.global_step == 2


def test_validation_and_test_times(tmp_path, clock):
    timer = Timer()
    trainer = make_trainer(tmp_path, max_epochs=1, callbacks=[Tick(clock), timer], enable_checkpointing=False,
                           num_sanity_val_steps=1)
    model = Scripted([0.5])
    trainer.fit(model, loader(), loader(seed=1))
    assert timer.time_elapsed("sanity_check") == 2.5
    assert timer.time_elapsed("validate") == 4 * 2.5
    assert timer.time_elapsed("train") == 4 + 4 * 2.5  # validation runs inside the training epoch
    assert timer.time_elapsed("test") == 0 and timer.time_remaining() is None
    assert timer.state_dict()["time_elapsed"] == {"train": 14.0, "sanity_check": 2.5, "validate": 10.0, "test": 0.0,
                                                  "predict": 0.0}


def test_elapsed_time_survives_a_resume(tmp_path, clock):
    timer = Timer(duration="00:00:00:06")
    trainer = make_trainer(tmp_path, max_epochs=1, callbacks=[Tick(clock), timer,
                                                              ModelCheckpoint(dirpath=tmp_path, save_last=True)])
    trainer.fit(Scripted(), loader())
    assert em.load(tmp_path / "last.ckpt")["callbacks"]["Timer"]["time_elapsed"]["train"] == 4.0
    resumed = Timer(duration="00:00:00:06")
    trainer = make_trainer(tmp_path, max_epochs=5, callbacks=[Tick(clock), resumed], enable_checkpointing=False)
    trainer.fit(Scripted(), loader(), ckpt_path=tmp_path / "last.ckpt")
    # 4 s before the checkpoint + 2 s more: stops after step 6
    assert trainer.global_step == 6 and resumed.time_elapsed() == 6.0
