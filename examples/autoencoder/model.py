"""``LitAutoEncoder``: Lightning's first example, on the UCI digits shipped in ``examples/digits/data``.

An encoder squeezes each 8x8 image (64 pixels) into a few numbers and a decoder rebuilds the image from them; the
loss is the mean squared error of the reconstruction. Run it with ``trainer fit examples/autoencoder/config.yaml``.
"""
from __future__ import annotations

import os

import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F

DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "digits", "data", "digits.npz")


class DigitImages(em.LightningDataModule):
    """The UCI digit images flattened to 64 values in [0, 1], split 80/10/10 into train/val/test (labels unused).

    Args:
        batch_size: images per batch.
        split_seed: seed of the split.
    """

    def __init__(self, batch_size: int = 64, split_seed: int = 0) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.split_seed = split_seed

    def setup(self, stage: str) -> None:
        with np.load(DIGITS) as f:
            images = f["images"].reshape(-1, 64).astype(np.float32) / 16.0
        order = np.random.default_rng(self.split_seed).permutation(len(images))
        n = len(images) // 10
        self.test_set = TensorDataset(em.tensor(images[order[:n]]))
        self.val_set = TensorDataset(em.tensor(images[order[n:2 * n]]))
        self.train_set = TensorDataset(em.tensor(images[order[2 * n:]]))

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=256)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=256)


class LitAutoEncoder(em.LightningModule):
    """A fully connected autoencoder: 64 pixels -> ``hidden`` -> ``code_size`` -> ``hidden`` -> 64 pixels.

    Args:
        code_size: size of the code (the bottleneck) each image is compressed to.
        hidden: width of the hidden layers.
        lr: Adam's learning rate.
    """

    def __init__(self, code_size: int = 8, hidden: int = 64, lr: float = 3e-3) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.encoder = nn.Sequential(nn.Linear(64, hidden), nn.ReLU(), nn.Linear(hidden, code_size))
        self.decoder = nn.Sequential(nn.Linear(code_size, hidden), nn.ReLU(), nn.Linear(hidden, 64), nn.Sigmoid())

    def forward(self, x):
        """The code of each image."""
        return self.encoder(x)

    def _loss(self, batch):
        (x,) = batch
        return F.mse_loss(self.decoder(self.encoder(x)), x)

    def training_step(self, batch, batch_idx):
        loss = self._loss(batch)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self._loss(batch), prog_bar=True)

    def test_step(self, batch, batch_idx):
        self.log("test_loss", self._loss(batch))

    def configure_optimizers(self):
        return optim.Adam(self.parameters(), lr=self.hparams.lr)
