"""The main job: a small CNN that classifies handwritten digits.

Run it from the repository root with ``trainer fit examples/digits/config.yaml``. The data is the UCI handwritten
digits dataset (1,797 images of 8x8 pixels), shipped compressed in ``data/digits.npz`` (see ``data/README.md`` for
its source and licence). Point ``data.init_args.data_dir`` at a directory holding MNIST's IDX files to train on
MNIST instead.
"""
from __future__ import annotations

import gzip
import os
from typing import Optional, Tuple

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F
from ember.metrics import Accuracy

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")

# IDX type codes (http://yann.lecun.com/exdb/mnist/): the element type of the array that follows the header
_IDX_DTYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}

MNIST_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}


def read_idx(path: str) -> np.ndarray:
    """Read an IDX file (MNIST's format), gzip-compressed or not, as a NumPy array.

    The header is two zero bytes, a type code, the number of dimensions, then each dimension as a big-endian
    uint32; the data follows in big-endian order.
    """
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(f"{path} is not an IDX file: it must start with two zero bytes and a type code in "
                         f"{sorted(hex(c) for c in _IDX_DTYPES)}, got {raw[:4].hex()}")
    dtype = np.dtype(_IDX_DTYPES[raw[2]])
    ndim = raw[3]
    header = 4 + 4 * ndim
    shape = tuple(int(d) for d in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(raw) - header != expected:
        raise ValueError(f"{path}: the header announces shape {shape} ({expected} bytes of data) but the file holds "
                         f"{len(raw) - header} bytes after the header")
    return np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def _find(data_dir: str, name: str) -> str:
    for candidate in (name, name + ".gz", name.replace("-idx", ".idx"), name.replace("-idx", ".idx") + ".gz"):
        path = os.path.join(data_dir, candidate)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{data_dir} has no {name} (nor {name}.gz): download MNIST's four IDX files into it, "
                            "or leave data_dir unset to use the digits shipped with ember")


def load_mnist(data_dir: str) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """MNIST's ``(train_images, train_labels, test_images, test_labels)`` from the IDX files in ``data_dir``."""
    arrays = [read_idx(_find(data_dir, MNIST_FILES[key]))
              for key in ("train_images", "train_labels", "test_images", "test_labels")]
    return arrays[0], arrays[1], arrays[2], arrays[3]


def load_digits() -> Tuple[np.ndarray, np.ndarray]:
    """The 1,797 UCI digits shipped with ember: ``(images uint8 (N, 8, 8) in 0..16, labels uint8 (N,))``."""
    with np.load(DATA_FILE) as f:
        return f["images"], f["labels"]


class DigitsDataModule(em.LightningDataModule):
    """Handwritten digits, split into train, validation and test sets.

    Args:
        data_dir: a directory with MNIST's IDX files (``train-images-idx3-ubyte[.gz]`` and the three others);
            None uses the UCI digits shipped in ``examples/digits/data``.
        batch_size: images per batch.
        val_fraction: fraction of the training images held out for validation.
        test_fraction: fraction of the UCI digits held out for testing (MNIST has its own test files).
        split_seed: seed of the random split, so every run sees the same split.
    """

    def __init__(self, data_dir: Optional[str] = None, batch_size: int = 32, val_fraction: float = 0.15,
                 test_fraction: float = 0.15, split_seed: int = 0) -> None:
        super().__init__()
        if not 0 < val_fraction < 1 or not 0 < test_fraction < 1 or val_fraction + test_fraction >= 1:
            raise ValueError(f"val_fraction={val_fraction} and test_fraction={test_fraction} must be in (0, 1) and "
                             "sum to less than 1")
        self.save_hyperparameters()
        self.data_dir = data_dir
        self.batch_size = batch_size
        self.val_fraction = val_fraction
        self.test_fraction = test_fraction
        self.split_seed = split_seed
        self.train_set = self.val_set = self.test_set = None

    @staticmethod
    def _tensors(images: np.ndarray, labels: np.ndarray, scale: float) -> TensorDataset:
        x = em.tensor((images.astype(np.float32) / scale)[:, None, :, :])  # (N, 1, H, W) in [0, 1]
        y = em.tensor(labels.astype(np.int64))
        return TensorDataset(x, y)

    def setup(self, stage: str) -> None:
        """Load the images and split them (the same split for every stage)."""
        if self.train_set is not None:
            return
        rng = np.random.default_rng(self.split_seed)
        if self.data_dir is None:
            images, labels = load_digits()
            order = rng.permutation(len(images))
            n_test = int(round(len(images) * self.test_fraction))
            n_val = int(round(len(images) * self.val_fraction))
            test, val, train = order[:n_test], order[n_test:n_test + n_val], order[n_test + n_val:]
            scale = 16.0
            self.test_set = self._tensors(images[test], labels[test], scale)
        else:
            images, labels, test_images, test_labels = load_mnist(self.data_dir)
            order = rng.permutation(len(images))
            n_val = int(round(len(images) * self.val_fraction))
            val, train = order[:n_val], order[n_val:]
            scale = 255.0
            self.test_set = self._tensors(test_images, test_labels, scale)
        self.train_set = self._tensors(images[train], labels[train], scale)
        self.val_set = self._tensors(images[val], labels[val], scale)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=256)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=256)

    def predict_dataloader(self):
        """The test images (``trainer predict`` classifies them; the labels are ignored)."""
        return DataLoader(self.test_set, batch_size=256)


class DigitsClassifier(em.LightningModule):
    """A small convolutional network for digit images (8x8 UCI digits or 28x28 MNIST).

    Two 3x3 convolutions, a 2x2 max-pool and an adaptive average pool to 4x4 feed a two-layer classifier head.
    The optimizer and the learning-rate schedule come from the config's ``optimizer`` and ``lr_scheduler``.

    Args:
        channels: channels of the first convolution (the second has twice as many).
        hidden: width of the hidden layer of the classifier head.
        dropout: dropout probability before the last layer.
        num_classes: number of classes.
    """

    def __init__(self, channels: int = 16, hidden: int = 64, dropout: float = 0.1, num_classes: int = 10) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.features = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(4),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(2 * channels * 16, hidden), nn.ReLU(),
                                  nn.Dropout(dropout), nn.Linear(hidden, num_classes))
        self.train_acc = Accuracy(task="multiclass", num_classes=num_classes)
        self.val_acc = Accuracy(task="multiclass", num_classes=num_classes)
        self.test_acc = Accuracy(task="multiclass", num_classes=num_classes)
        self.example_input_array = em.zeros(1, 1, 8, 8)

    def forward(self, x):
        return self.head(self.features(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.train_acc(logits.argmax(dim=1), y)
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", self.train_acc, on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y), prog_bar=True)
        self.val_acc(logits.argmax(dim=1), y)
        self.log("val_acc", self.val_acc, prog_bar=True)

    def test_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("test_loss", F.cross_entropy(logits, y))
        self.test_acc(logits.argmax(dim=1), y)
        self.log("test_acc", self.test_acc)

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        x = batch[0] if isinstance(batch, (list, tuple)) else batch
        return self(x).argmax(dim=1)
