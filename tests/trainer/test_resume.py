"""Exact resume: a seeded run stopped by an exception and resumed from a checkpoint ends bit for bit where an
uninterrupted run ends: weights, optimizer state, scheduler, logged metrics. The runs use a shuffled DataLoader
(its position and order are in the checkpoint), dropout (the random states are in the checkpoint), Adam, a
per-step scheduler, epoch-mean logging and validation. 4 batches per epoch, 3 epochs."""
import os

import numpy as np
import pytest

import ember as em
from ember.callbacks import Callback, ModelCheckpoint
from ember.core import nn
from ember.core.data import DataLoader

from trainer_testing import make_dataset


class Net(em.LightningModule):
    def __init__(self, p=0.3):
        super().__init__()
        self.save_hyperparameters()
        self.layer = nn.Linear(4, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        return self.out(nn.functional.dropout(self.layer(x).relu(), self.hparams.p, self.training))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("loss", loss, on_step=True, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self(x), y))

    def configure_optimizers(self):
        opt = em.optim.Adam(self.parameters(), lr=0.05)
        sched = em.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


class Crash(Callback):
    """Raises once ``trainer.global_step`` reaches ``step`` (before the next batch), or at an epoch start."""

    def __init__(self, step=None, epoch=None):
        self.step, self.epoch = step, epoch

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if self.step is not None and trainer.global_step == self.step:
            raise RuntimeError("simulated crash")

    def on_train_epoch_start(self, trainer, pl_module):
        if self.epoch is not None and trainer.current_epoch == self.epoch:
            raise RuntimeError("simulated crash")


class EpochStarts(Callback):
    def __init__(self):
        self.epochs = []

    def on_train_epoch_start(self, trainer, pl_module):
        self.epochs.append(trainer.current_epoch)


def loaders():
    # the shuffle draws from the global generator, which seed_everything (and the checkpoint) sets
    train = DataLoader(make_dataset(16, seed=3), batch_size=4, shuffle=True)
    val = DataLoader(make_dataset(8, seed=4), batch_size=4)
    return train, val


def run(tmp_path, ckpt_callback, extra=(), ckpt_path=None, seed=0, max_epochs=3):
    em.seed_everything(seed)
    model = Net()
    trainer = em.Trainer(max_epochs=max_epochs, callbacks=[ckpt_callback, *extra], logger=False,
                         log_every_n_steps=1, num_sanity_val_steps=0, enable_progress_bar=False,
                         enable_model_summary=False, default_root_dir=str(tmp_path))
    trainer.fit(model, *loaders(), ckpt_path=ckpt_path)
    return trainer, model


def snapshot(trainer, model):
    """Everything that must match, as NumPy arrays and Python numbers."""
    opt = trainer.optimizers[0].state_dict()
    state = {f"opt.{i}.{k}": (np.asarray(v.detach().numpy()) if hasattr(v, "numpy") else v)
             for i, s in opt["state"].items() for k, v in s.items()}
    return {
        "weights": {k: v.detach().numpy().copy() for k, v in model.state_dict().items()},
        "optimizer": state,
        "lr": [g["lr"] for g in opt["param_groups"]],
        "scheduler": trainer.lr_scheduler_configs[0].scheduler.state_dict()["last_epoch"],
        "logged": {k: v.item() for k, v in trainer.logged_metrics.items()},
        "global_step": trainer.global_step,
        "epoch": trainer.current_epoch,
    }


def assert_identical(a, b):
    assert a["global_step"] == b["global_step"] and a["epoch"] == b["epoch"]
    assert a["weights"].keys() == b["weights"].keys()
    for key in a["weights"]:
        assert np.array_equal(a["weights"][key], b["weights"][key]), key  # bit for bit
    assert a["optimizer"].keys() == b["optimizer"].keys()
    for key in a["optimizer"]:
        assert np.array_equal(np.asarray(a["optimizer"][key]), np.asarray(b["optimizer"][key])), key
    assert a["lr"] == b["lr"] and a["scheduler"] == b["scheduler"]
    assert a["logged"] == b["logged"]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run."""
    tmp = tmp_path_factory.mktemp("reference")
    trainer, model = run(tmp, ModelCheckpoint(dirpath=tmp, save_top_k=1, save_last=True))
    assert trainer.global_step == 12
    return snapshot(trainer, model)


def test_mid_epoch_resume_from_last(tmp_path, reference):
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=1, save_top_k=0, save_last=True)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(tmp_path, ckpt, extra=[Crash(step=5)])  # dies before the 2nd batch of epoch 1
    assert em.load(tmp_path / "last.ckpt")["global_step"] == 5
    starts = EpochStarts()
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=1, save_top_k=0, save_last=True)
    # a different seed: everything that matters must come from the checkpoint
    trainer, model = run(tmp_path, ckpt, extra=[starts], ckpt_path="last", seed=123)
    assert starts.epochs == [2]  # epoch 1 continued mid-way: no second on_train_epoch_start for it
    assert_identical(snapshot(trainer, model), reference)


def test_mid_epoch_resume_from_a_step_checkpoint(tmp_path, reference):
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=3, save_top_k=-1)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(tmp_path, ckpt, extra=[Crash(step=7)])
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".ckpt")) == ["epoch=0-step=3.ckpt",
                                                                            "epoch=1-step=6.ckpt"]
    ckpt = ModelCheckpoint(dirpath=tmp_path / "again", every_n_train_steps=3, save_top_k=-1)
    with pytest.warns(UserWarning, match="dirpath has changed"):
        trainer, model = run(tmp_path, ckpt, ckpt_path=tmp_path / "epoch=1-step=6.ckpt", seed=99)
    assert_identical(snapshot(trainer, model), reference)


def test_resume_at_an_epoch_boundary(tmp_path, reference):
    # FAILS until checkpoint_connector.restore_training_state stops restoring the epoch accumulators of a checkpoint
    # taken at the end of an epoch (see the helper's report): loss_epoch of the next epoch then mixes in the old one
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_top_k=1, save_last=True)  # saves at each epoch end
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(tmp_path, ckpt, extra=[Crash(epoch=2)])
    saved = em.load(tmp_path / "last.ckpt")
    assert saved["global_step"] == 8 and saved["epoch"] == 1
    starts = EpochStarts()
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_top_k=1, save_last=True)
    trainer, model = run(tmp_path, ckpt, extra=[starts], ckpt_path="last", seed=5)
    assert starts.epochs == [2]
    assert_identical(snapshot(trainer, model), reference)


def test_resume_after_the_last_batch_of_an_epoch(tmp_path, reference):
    # saved in on_train_batch_end of the epoch's last batch: validation and the epoch end are still to come
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_train_steps=4, save_top_k=0, save_last=True)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run(tmp_path, ckpt, extra=[Crash(step=9)])
    ckpt = ModelCheckpoint(dirpath=tmp_path / "b", every_n_train_steps=4, save_top_k=-1)
    with pytest.warns(UserWarning, match="dirpath has changed"):
        trainer, model = run(tmp_path, ckpt, ckpt_path=tmp_path / "last.ckpt", seed=11)
    assert em.load(tmp_path / "last.ckpt")["global_step"] == 8
    assert_identical(snapshot(trainer, model), reference)


def test_a_different_run_is_detected(tmp_path, reference):
    """The comparison can fail: a run with another seed does not match the reference."""
    trainer, model = run(tmp_path, ModelCheckpoint(dirpath=tmp_path, save_top_k=0), seed=1)
    with pytest.raises(AssertionError):
        assert_identical(snapshot(trainer, model), reference)
