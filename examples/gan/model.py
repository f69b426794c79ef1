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
            labels = f["labels"].astype(np.int64)
        order = np.random.default_rng(0).permutation(len(images))
        n_val = len(images) // 10
        self.train_images, self.train_labels = images[order[n_val:]], labels[order[n_val:]]
        self.val_set = TensorDataset(em.tensor(images[order[:n_val]]))
        self.train_set = TensorDataset(em.tensor(self.train_images))

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, drop_last=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=len(self.val_set))


class DigitScorer:
    """A softmax-regression digit classifier fitted on the real training images, used to score generated ones.

    :meth:`score` is the Inception Score computed with this classifier: ``exp(E_x KL(p(y|x) || p(y)))``. It is 1
    when every sample looks like the same thing (or like nothing) and grows when the samples are confidently
    recognisable digits of many different classes; held-out real digits score about 6.0.
    """

    def __init__(self, images: np.ndarray, labels: np.ndarray, steps: int = 60, lr: float = 3.0) -> None:
        x = images.astype(np.float64)
        onehot = np.eye(10)[labels]
        self.w = np.zeros((x.shape[1], 10))
        self.b = np.zeros(10)
        for _ in range(steps):  # full-batch gradient descent on the cross-entropy (a convex problem)
            g = (self.probs(x) - onehot) / len(x)
            self.w -= lr * (x.T @ g + 1e-3 * self.w)
            self.b -= lr * g.sum(0)

    def probs(self, x: np.ndarray) -> np.ndarray:
        z = x @ self.w + self.b
        z = np.exp(z - z.max(1, keepdims=True))
        return z / z.sum(1, keepdims=True)

    def score(self, images: np.ndarray) -> float:
        p = self.probs(images.astype(np.float64))
        marginal = p.mean(0)
        kl = (p * (np.log(p + 1e-12) - np.log(marginal + 1e-12))).sum(1).mean()
        return float(np.exp(kl))


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

    def setup(self, stage: str) -> None:
        dm = self.trainer.datamodule
        self.scorer = DigitScorer(dm.train_images, dm.train_labels) if dm is not None else None

    def validation_step(self, batch, batch_idx):
        """``digit_score``: the Inception Score of generated digits under a classifier of real ones (see
        :class:`DigitScorer`); ``real_digit_score`` is the same score for held-out real digits, the target."""
        (real,) = batch
        fake = self.generator(em.randn(real.shape[0], self.hparams.latent_dim))
        if self.scorer is not None:
            self.log("digit_score", self.scorer.score(fake.numpy()), prog_bar=True)
            self.log("real_digit_score", self.scorer.score(real.numpy()))
        self.log("d_real_prob", em.sigmoid(self.discriminator(real)).mean())
        self.log("d_fake_prob", em.sigmoid(self.discriminator(fake)).mean())

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
