"""Lightning's own overhead on the workload of ``trainer_overhead.py``, measured the same way, for comparison.

Run by ``trainer_overhead.py --lightning-python PYTHON`` in an interpreter with torch and lightning (a separate venv,
never a dependency of ember; see ``benchmarks/jobs.py`` for how to make one, then ``pip install lightning``):
the same MLP, data, batch size, ``self.log`` every step and progress bar to a file; a hand-written PyTorch step after
each Lightning batch, timed alone. Batches are read as ember's DataLoader reads a TensorDataset (one index list per
batch), not 128 samples collated one by one. Prints one JSON line: the overhead of each epoch, in percent.

    python benchmarks/trainer_overhead_lightning.py [--threads N]
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time

import numpy as np
import torch
import lightning as L
from torch import nn
from torch.nn import functional as F
from torch.utils.data import BatchSampler, DataLoader, RandomSampler, TensorDataset

REPEATS = 5


def make_mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def loader(ds):
    """Whole batches by one index list each, shuffled."""
    return DataLoader(ds, batch_size=None, sampler=BatchSampler(RandomSampler(ds), 128, drop_last=False))


class LitMLP(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = make_mlp()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


class HandSteps(L.Callback):
    """After every Lightning batch, one step of the hand-written PyTorch loop, timed alone."""

    def __init__(self, ds):
        torch.manual_seed(0)
        self.model = make_mlp()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)
        self.batches = iter(loader(ds))
        self.seconds = 0.0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        start = time.perf_counter()
        x, y = next(self.batches)
        loss = F.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.seconds += time.perf_counter() - start


def interleaved_epoch(ds):
    """``(hand seconds, Lightning seconds)`` of one epoch each, run batch by batch in turns."""
    torch.manual_seed(0)
    hand = HandSteps(ds)
    old, sys.stdout = sys.stdout, io.StringIO()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            trainer = L.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_model_summary=False,
                                enable_progress_bar=True, default_root_dir=tmp, log_every_n_steps=1,
                                callbacks=[hand], accelerator="cpu", devices=1)
            start = time.perf_counter()
            trainer.fit(LitMLP(), loader(ds))
            total = time.perf_counter() - start
    finally:
        sys.stdout = old
    return hand.seconds, total - hand.seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="torch.set_num_threads(N) (default: torch's)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    ds = TensorDataset(torch.tensor(rng.standard_normal((60_000, 784)).astype(np.float32)),
                       torch.tensor(rng.integers(0, 10, 60_000)))
    interleaved_epoch(ds)  # warm-up
    runs = [interleaved_epoch(ds) for _ in range(REPEATS)]
    print(json.dumps({"overheads": [(fit - hand) / hand * 100 for hand, fit in runs],
                      "hand_seconds": [hand for hand, _ in runs]}))


if __name__ == "__main__":
    main()
