"""Shared pieces for callback tests (importable as `callback_testing`): a module whose validation logs a scripted
value per epoch, data, and Trainers that write only under ``tmp_path``."""
import logging

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset


def dataset(n=16, features=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, features)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    return TensorDataset(em.tensor(x), em.tensor(y))


def loader(n=16, batch_size=4, seed=0, shuffle=False):
    """``n // batch_size`` batches (4 by default)."""
    return DataLoader(dataset(n, seed=seed), batch_size=batch_size, shuffle=shuffle)


class Scripted(em.LightningModule):
    """A linear classifier whose ``validation_step`` logs ``script[current_epoch]`` under ``monitor``.

    Every validation batch logs the same value, so the epoch mean is exactly the scripted number (as float32).
    """

    def __init__(self, script=(), monitor="val_loss", lr=0.1):
        super().__init__()
        self.script = list(script)
        self.monitor = monitor
        self.lr = lr
        self.layer = nn.Linear(4, 2)

    def forward(self, x):
        return self.layer(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        if self.script:
            self.log(self.monitor, float(self.script[min(self.current_epoch, len(self.script) - 1)]))

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=self.lr)


def make_trainer(tmp_path, **kwargs):
    """A quiet Trainer rooted at ``tmp_path`` (no logger, no sanity check unless asked)."""
    defaults = dict(default_root_dir=str(tmp_path), logger=False, enable_progress_bar=False,
                    enable_model_summary=False, num_sanity_val_steps=0)
    defaults.update(kwargs)
    return em.Trainer(**defaults)


class ListHandler(logging.Handler):
    """Collects the messages of a logger (the trainer's loggers do not propagate to pytest's caplog)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def float32(x):
    """``x`` as the float32 value a logged Python float becomes."""
    return float(np.float32(x))
