"""Shared pieces for trainer tests (importable as `trainer_testing`): a small classifier, its data, a recording
logger and a quiet Trainer."""
import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.loggers import Logger


def make_dataset(n=32, features=4, seed=0, separable=True):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, features)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.int64) if separable else rng.integers(0, 2, n)
    return TensorDataset(em.tensor(x), em.tensor(y))


class Classifier(em.LightningModule):
    """A linear classifier that logs its losses."""

    def __init__(self, lr=0.5, features=4):
        super().__init__()
        self.save_hyperparameters()
        self.layer = nn.Linear(features, 2)

    def forward(self, x):
        return self.layer(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", nn.functional.cross_entropy(self(x), y))

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=self.hparams.lr)


class RecordingLogger(Logger):
    """Keeps every ``log_metrics`` call as ``(step, metrics)``."""

    def __init__(self):
        self.calls = []
        self.hparams = []

    @property
    def name(self):
        return "recording"

    @property
    def version(self):
        return 0

    def log_metrics(self, metrics, step=None):
        self.calls.append((step, dict(metrics)))

    def log_hyperparams(self, params, *args, **kwargs):
        self.hparams.append(dict(params))


def quiet_trainer(**kwargs):
    """A Trainer without files or console output unless asked for."""
    defaults = dict(logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    defaults.update(kwargs)
    return em.Trainer(**defaults)
