"""A GAN on the UCI digits with manual optimization: two optimizers, ``manual_backward`` and ``toggle_optimizer``.

The generator turns random noise into 8x8 digit images; the discriminator learns to tell them from real ones.
Each training step updates the discriminator, then the generator, by hand. After training the example prints a few
generated digits as text. Run it with ``trainer fit examples/gan/config.yaml``.
"""
from __future__ import annotations

import os

import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F

DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "digits", "data", "digits.npz")
_SHADES = " .:-=+*#%@"


class RealDigits(em.LightningDataModule):
    """The UCI digit images, 64 values in [0, 1]; 90% for training, 10% to compare generated samples against.

    Args:
        batch_size: images per batch.
    """

    def __init__(self, batch_size: int = 64) -> None:
        super().__init__()
        self.batch_size = batch_size

    def setup(self, stage: str) -> None:
        with np.load(DIGITS) as f:
            images = f["images"].reshape(-1, 64).astype(np.float32) / 16.0
        order = np.random.default_rng(0).permutation(len(images))
        n_val = len(images) // 10
        self.val_set = TensorDataset(em.tensor(images[order[:n_val]]))
        self.train_set = TensorDataset(em.tensor(images[order[n_val:]]))

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=len(self.val_set))


def render(image) -> str:
    """An 8x8 image in [0, 1] as eight lines of text."""
    pixels = np.asarray(image).reshape(8, 8)
    return "\n".join("".join(_SHADES[min(9, int(v * 10))] * 2 for v in row) for row in pixels)


class DigitGAN(em.LightningModule):
    """Generator and discriminator MLPs trained against each other with the non-saturating GAN loss.

    Args:
        latent_dim: size of the noise vector the generator starts from.
        hidden: width of the hidden layers of both networks.
        lr: learning rate of both Adam optimizers.
        real_label: the discriminator's target for real images (below 1 is one-sided label smoothing, which keeps
            the discriminator from becoming overconfident).
        n_samples: generated digits printed after training.
    """

    def __init__(self, latent_dim: int = 16, hidden: int = 128, lr: float = 2e-3, real_label: float = 0.9,
                 n_samples: int = 4) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.automatic_optimization = False  # two optimizers, stepped by hand in training_step
        self.generator = nn.Sequential(nn.Linear(latent_dim, hidden), nn.LeakyReLU(0.2),
                                       nn.Linear(hidden, hidden), nn.LeakyReLU(0.2),
                                       nn.Linear(hidden, 64), nn.Sigmoid())
        self.discriminator = nn.Sequential(nn.Linear(64, hidden), nn.LeakyReLU(0.2),
                                           nn.Linear(hidden, 1))

    def forward(self, z):
        """Generated images (flattened) for the noise ``z``."""
        return self.generator(z)

    def training_step(self, batch, batch_idx):
        (real,) = batch
        opt_g, opt_d = self.optimizers()
        n = real.shape[0]
        ones, zeros = em.ones(n, 1), em.zeros(n, 1)
        z = em.randn(n, self.hparams.latent_dim)

        # discriminator: real images -> 1, generated images -> 0
        self.toggle_optimizer(opt_d)
        fake = self.generator(z).detach()
        d_loss = (F.binary_cross_entropy_with_logits(self.discriminator(real), ones * self.hparams.real_label) +
                  F.binary_cross_entropy_with_logits(self.discriminator(fake), zeros)) / 2
        opt_d.zero_grad()
        self.manual_backward(d_loss)
        opt_d.step()
        self.untoggle_optimizer(opt_d)

        # generator: make the discriminator answer 1 on generated images
        self.toggle_optimizer(opt_g)
        g_loss = F.binary_cross_entropy_with_logits(self.discriminator(self.generator(z)), ones)
        opt_g.zero_grad()
        self.manual_backward(g_loss)
        opt_g.step()
        self.untoggle_optimizer(opt_g)

        self.log_dict({"d_loss": d_loss, "g_loss": g_loss}, prog_bar=True)

    def validation_step(self, batch, batch_idx):
        """Nearest-neighbour distances between generated and held-out real images (mean squared pixel error):
        ``fake_to_real`` is low when samples look real, ``real_to_fake`` is low when they cover every kind of digit
        (a collapsed generator fails it), and ``nn_distance`` is their mean."""
        (real,) = batch
        fake = self.generator(em.randn(real.shape[0], self.hparams.latent_dim))
        d = ((fake * fake).sum(1, keepdim=True) + (real * real).sum(1) - 2 * fake @ real.T) / 64  # (fake, real)
        fake_to_real = d.min(1).values.mean()
        real_to_fake = d.min(0).values.mean()
        self.log("fake_to_real", fake_to_real)
        self.log("real_to_fake", real_to_fake)
        self.log("nn_distance", (fake_to_real + real_to_fake) / 2, prog_bar=True)

    def on_fit_end(self) -> None:
        if not self.trainer.is_global_zero or self.hparams.n_samples <= 0:
            return
        with em.no_grad():
            images = self.generator(em.randn(self.hparams.n_samples, self.hparams.latent_dim)).numpy()
        blocks = [render(img).splitlines() for img in images]
        print("generated digits:")
        print("\n".join("   ".join(rows) for rows in zip(*blocks)))

    def configure_optimizers(self):
        lr = self.hparams.lr
        opt_g = optim.Adam(self.generator.parameters(), lr=lr, betas=(0.5, 0.999))
        opt_d = optim.Adam(self.discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        return opt_g, opt_d
