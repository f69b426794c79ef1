"""Knowledge distillation on the UCI digits: a teacher trained with cross-entropy, then two small students.

Phase 1 (the first ``teacher_epochs`` epochs) trains a wide teacher network with cross-entropy. Phase 2 freezes it and
trains two identical small students on the same batches: one with cross-entropy alone, one with cross-entropy plus
the temperature-scaled KL divergence to the teacher's softened predictions (Hinton et al., 2015):

    loss = alpha * CE(student, y) + (1 - alpha) * T^2 * KL(softmax(teacher / T) || softmax(student / T))

Testing prints the three accuracies side by side. Run it with ``trainer fit examples/distillation/config.yaml``.
"""
from __future__ import annotations

import os

import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F
from ember.metrics import Accuracy

DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "digits", "data", "digits.npz")


class Digits(em.LightningDataModule):
    """The UCI digits as 64 features in [0, 1] with labels, split 60/20/20 into train/val/test.

    Args:
        batch_size: images per batch.
        train_fraction: fraction of the images used for training (a small training set is where soft targets
            from a teacher help the most).
        split_seed: seed of the split.
    """

    def __init__(self, batch_size: int = 32, train_fraction: float = 0.6, split_seed: int = 0) -> None:
        super().__init__()
        self.batch_size = batch_size
        self.train_fraction = train_fraction
        self.split_seed = split_seed

    def setup(self, stage: str) -> None:
        with np.load(DIGITS) as f:
            x = f["images"].reshape(-1, 64).astype(np.float32) / 16.0
            y = f["labels"].astype(np.int64)
        order = np.random.default_rng(self.split_seed).permutation(len(x))
        n_test = len(x) // 5
        test, val, rest = order[:n_test], order[n_test:2 * n_test], order[2 * n_test:]
        train = rest[:int(len(x) * self.train_fraction)]
        self.train_set = TensorDataset(em.tensor(x[train]), em.tensor(y[train]))
        self.val_set = TensorDataset(em.tensor(x[val]), em.tensor(y[val]))
        self.test_set = TensorDataset(em.tensor(x[test]), em.tensor(y[test]))

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=256)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=256)


def mlp(hidden: int, depth: int) -> nn.Sequential:
    """64 inputs -> ``depth`` hidden ReLU layers of width ``hidden`` -> 10 logits."""
    layers, width = [], 64
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    return nn.Sequential(*layers, nn.Linear(width, 10))


def distillation_loss(student_logits, teacher_logits, target, temperature: float, alpha: float):
    """``alpha * CE + (1 - alpha) * T^2 * KL(teacher_T || student_T)``; the ``T^2`` keeps the soft term's
    gradients on the same scale as the hard term's when ``T`` changes."""
    hard = F.cross_entropy(student_logits, target)
    soft = F.kl_div(F.log_softmax(student_logits / temperature, dim=-1),
                    F.softmax(teacher_logits / temperature, dim=-1), reduction="batchmean")
    return alpha * hard + (1 - alpha) * temperature ** 2 * soft


class Distillation(em.LightningModule):
    """A teacher and two students (one distilled) trained in two phases with manual optimization.

    Args:
        teacher_hidden: width of the teacher's two hidden layers.
        student_hidden: width of each student's single hidden layer.
        teacher_epochs: epochs of phase 1 (teacher only); the remaining epochs train the students.
        temperature: softmax temperature ``T`` of the distillation term.
        alpha: weight of the cross-entropy term in the distilled student's loss.
        lr: Adam's learning rate for all three networks.
    """

    def __init__(self, teacher_hidden: int = 256, student_hidden: int = 8, teacher_epochs: int = 6,
                 temperature: float = 4.0, alpha: float = 0.5, lr: float = 1e-2) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.automatic_optimization = False
        self.teacher = mlp(teacher_hidden, 2)
        self.student = mlp(student_hidden, 1)     # cross-entropy only
        self.student_kd = mlp(student_hidden, 1)  # cross-entropy + distillation
        self.student_kd.load_state_dict(self.student.state_dict())  # same start, so only the loss differs
        self.metrics = nn.ModuleDict({f"{stage}_{net}": Accuracy(task="multiclass", num_classes=10)
                                      for stage in ("val", "test") for net in ("teacher", "student", "student_kd")})

    @property
    def teacher_phase(self) -> bool:
        return self.current_epoch < self.hparams.teacher_epochs

    def training_step(self, batch, batch_idx):
        x, y = batch
        opt_t, opt_s, opt_kd = self.optimizers()
        if self.teacher_phase:
            loss = F.cross_entropy(self.teacher(x), y)
            opt_t.zero_grad()
            self.manual_backward(loss)
            opt_t.step()
            self.log("teacher_loss", loss, prog_bar=True)
            return
        with em.no_grad():
            teacher_logits = self.teacher(x)
        loss_s = F.cross_entropy(self.student(x), y)
        loss_kd = distillation_loss(self.student_kd(x), teacher_logits, y, self.hparams.temperature,
                                    self.hparams.alpha)
        for opt, loss in ((opt_s, loss_s), (opt_kd, loss_kd)):
            opt.zero_grad()
            self.manual_backward(loss)
            opt.step()
        self.log_dict({"student_loss": loss_s, "student_kd_loss": loss_kd}, prog_bar=True)

    def _evaluate(self, batch, stage: str) -> None:
        x, y = batch
        for net in ("teacher", "student", "student_kd"):
            metric = self.metrics[f"{stage}_{net}"]
            metric(getattr(self, net)(x).argmax(dim=1), y)
            self.log(f"{stage}_acc_{net}", metric, prog_bar=stage == "val")

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")

    def on_test_epoch_end(self) -> None:
        if self.trainer.is_global_zero and not self.trainer.sanity_checking:
            acc = {net: float(self.metrics[f"test_{net}"].compute()) for net in ("teacher", "student", "student_kd")}
            print(f"test accuracy: teacher {acc['teacher']:.1%} | student alone {acc['student']:.1%} | "
                  f"student with distillation {acc['student_kd']:.1%}")

    def configure_optimizers(self):
        lr = self.hparams.lr
        return [optim.Adam(net.parameters(), lr=lr) for net in (self.teacher, self.student, self.student_kd)]
