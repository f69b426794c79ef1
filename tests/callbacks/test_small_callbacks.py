"""LambdaCallback, GradientAccumulationScheduler, OnExceptionCheckpoint and HistogramLogger."""
import os

import numpy as np
import pytest

import ember as em
from ember.callbacks import (Callback, GradientAccumulationScheduler, HistogramLogger, LambdaCallback,
                             OnExceptionCheckpoint)
from ember.loggers import TensorBoardLogger
from ember.trainer import MisconfigurationException

from callback_testing import Scripted, loader, make_trainer


# --------------------------------------------------------------------------------------------------- lambda
def test_lambda_callback_calls_only_the_given_hooks(tmp_path):
    calls = []
    cb = LambdaCallback(on_train_epoch_start=lambda trainer, module: calls.append(("epoch", trainer.current_epoch)),
                        on_train_batch_end=lambda trainer, module, out, batch, idx: calls.append(("batch", idx)))
    assert isinstance(cb, LambdaCallback) and isinstance(cb, Callback) and cb.state_key == "LambdaCallback"
    make_trainer(tmp_path, max_epochs=2, callbacks=[cb], enable_checkpointing=False).fit(Scripted(), loader(8))
    assert calls == [("epoch", 0), ("batch", 0), ("batch", 1), ("epoch", 1), ("batch", 0), ("batch", 1)]
    other = LambdaCallback(setup=lambda *a: None)
    assert type(other) is not type(cb)  # each instance has its own hooks
    with pytest.raises(TypeError, match=r"unknown hook names \['on_epoch_start'\]"):
        LambdaCallback(on_epoch_start=lambda *a: None)
    with pytest.raises(TypeError, match="must be callable"):
        LambdaCallback(on_fit_start=1)


# --------------------------------------------------------------------------------------- gradient accumulation
def test_gradient_accumulation_schedule(tmp_path):
    seen = []
    record = LambdaCallback(on_train_epoch_start=lambda t, m: seen.append(t.accumulate_grad_batches))
    scheduler = GradientAccumulationScheduler(scheduling={1: 2, 2: 4})
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[scheduler, record], enable_checkpointing=False)
    trainer.fit(Scripted(), loader())
    assert seen == [1, 2, 4]
    assert trainer.global_step == 4 + 2 + 1  # 4 batches per epoch: 4, then 2, then 1 optimizer steps
    assert scheduler.scheduling == {0: 1, 1: 2, 2: 4} and scheduler.get_accumulate_grad_batches(10) == 4


def test_gradient_accumulation_scheduler_errors(tmp_path):
    with pytest.raises(TypeError, match="Empty dict"):
        GradientAccumulationScheduler({})
    with pytest.raises(MisconfigurationException, match="Epoch should be an int greater than or equal to 0"):
        GradientAccumulationScheduler({-1: 2})
    with pytest.raises(MisconfigurationException, match="Accumulation factor should be an int greater than 0"):
        GradientAccumulationScheduler({1: 0})
    trainer = make_trainer(tmp_path, max_epochs=1, accumulate_grad_batches=2, enable_checkpointing=False,
                           callbacks=[GradientAccumulationScheduler({1: 2})])
    with pytest.raises(ValueError, match="You have set `accumulate_grad_batches` and are using the"):
        trainer.fit(Scripted(), loader())

    class Manual(Scripted):
        def __init__(self):
            super().__init__()
            self.automatic_optimization = False

        def training_step(self, batch, batch_idx):
            pass

    trainer = make_trainer(tmp_path, max_epochs=1, enable_checkpointing=False,
                           callbacks=[GradientAccumulationScheduler({1: 2})])
    with pytest.raises(RuntimeError, match="not supported for manual optimization"):
        trainer.fit(Manual(), loader())


# --------------------------------------------------------------------------------------------- on exception
class Boom(Callback):
    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == 6:
            raise ValueError("boom")


def test_on_exception_checkpoint_saves_and_resumes(tmp_path):
    cb = OnExceptionCheckpoint(dirpath=tmp_path)
    assert cb.ckpt_path == os.path.join(str(tmp_path), "on_exception.ckpt")
    # a Checkpoint callback: the Trainer adds no default ModelCheckpoint beside it
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[cb, Boom()])
    assert trainer.checkpoint_callbacks == [cb]
    with pytest.raises(ValueError, match="boom"):
        trainer.fit(Scripted(), loader())
    saved = em.load(cb.ckpt_path)
    assert saved["global_step"] == 6
    # ckpt_path="last" finds the exception checkpoint; the batch that was fetched but never run runs again (FAILS
    # until TrainingEpochLoop.state_dict rewinds the dataloader position by that batch: see the helper's report).
    # After a good run the file is removed (it would be stale).
    again = OnExceptionCheckpoint(dirpath=tmp_path)
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[again])
    trainer.fit(Scripted(), loader(), ckpt_path="last")
    assert trainer.ckpt_path == again.ckpt_path and trainer.global_step == 12
    assert not os.path.exists(again.ckpt_path)
    with pytest.raises(ValueError, match="The filename cannot be empty"):
        OnExceptionCheckpoint(dirpath=tmp_path, filename="")


def test_on_exception_checkpoint_custom_name(tmp_path):
    cb = OnExceptionCheckpoint(dirpath=tmp_path / "crash", filename="oops")
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[cb, Boom()])
    with pytest.raises(ValueError):
        trainer.fit(Scripted(), loader())
    assert os.listdir(tmp_path / "crash") == ["oops.ckpt"]


# ------------------------------------------------------------------------------------------------ histograms
def test_histograms_every_n_epochs(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    snapshots = {}

    def remember(trainer, module):
        snapshots[trainer.global_step] = {
            "weights/layer.weight": module.layer.weight.detach().numpy().copy(),
            "gradients/layer.weight": module.layer.weight.grad.detach().numpy().copy(),
            "gradients/layer.bias": module.layer.bias.grad.detach().numpy().copy()}

    logger = TensorBoardLogger(tmp_path)
    callbacks = [HistogramLogger(every_n_epochs=2), LambdaCallback(on_train_epoch_end=remember)]
    make_trainer(tmp_path, max_epochs=3, logger=logger, callbacks=callbacks, enable_checkpointing=False).fit(
        Scripted(), loader())
    ea = EventAccumulator(logger.log_dir, size_guidance={"histograms": 0}).Reload()
    assert sorted(ea.Tags()["histograms"]) == ["gradients/layer.bias", "gradients/layer.weight",
                                               "weights/layer.bias", "weights/layer.weight"]
    for tag, expected in snapshots[8].items():
        events = ea.Histograms(tag)
        assert [e.step for e in events] == [8]  # only after epoch 1 (every 2nd epoch)
        h = events[0].histogram_value
        assert h.num == expected.size
        assert h.min == pytest.approx(expected.min()) and h.max == pytest.approx(expected.max())
        assert h.sum == pytest.approx(float(np.sum(expected.astype(np.float64))), abs=1e-6)


def test_histograms_need_a_tensorboard_logger(tmp_path):
    trainer = make_trainer(tmp_path, max_epochs=2, callbacks=[HistogramLogger()], enable_checkpointing=False)
    with pytest.warns(UserWarning, match="add_histogram"):
        trainer.fit(Scripted(), loader(8))
    with pytest.raises(ValueError, match="every_n_epochs=0"):
        HistogramLogger(every_n_epochs=0)
