"""Trainer overhead: ``Trainer.fit`` vs a hand-written ember loop doing the same work, in the same run.

One epoch of a 784-256-128-10 MLP on 60k synthetic samples at batch 128, ``self.log`` every step, progress bar on
with output to a file. Also the time from process start to the first training batch.

Both loops run ``REPEATS`` times, interleaved, and each keeps its fastest run: on a shared machine the other
runs mostly measure the neighbours.

    python benchmarks/trainer_overhead.py
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F


def make_mlp():
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


class LitMLP(em.LightningModule):
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
        return em.optim.SGD(self.parameters(), lr=0.01)


def data(n=60_000):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 784)).astype(np.float32)
    y = rng.integers(0, 10, n)
    return TensorDataset(em.tensor(x), em.tensor(y))


def hand_loop(ds) -> float:
    em.manual_seed(0)
    model = make_mlp()
    opt = em.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(ds, batch_size=128, shuffle=True)
    start = time.perf_counter()
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - start


def trainer_loop(ds) -> float:
    em.manual_seed(0)
    model = LitMLP()
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, _redirect(out):
        trainer = em.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_model_summary=False,
                             enable_progress_bar=True, default_root_dir=tmp, log_every_n_steps=1)
        start = time.perf_counter()
        trainer.fit(model, DataLoader(ds, batch_size=128, shuffle=True))
        return time.perf_counter() - start


class _redirect:
    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        self.old = sys.stdout
        sys.stdout = self.stream

    def __exit__(self, *exc):
        sys.stdout = self.old


FIRST_BATCH_SCRIPT = textwrap.dedent("""
    import os, sys, time
    import ember as em
    from ember.core import nn
    from ember.core.data import DataLoader, TensorDataset

    class M(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.l = nn.Linear(784, 10)
        def training_step(self, batch, batch_idx):
            print(time.time(), flush=True)
            os._exit(0)
        def configure_optimizers(self):
            return em.optim.SGD(self.parameters(), lr=0.1)

    ds = TensorDataset(em.randn(256, 784), em.randint(0, 10, (256,)))
    em.Trainer(max_epochs=1, default_root_dir=sys.argv[1]).fit(M(), DataLoader(ds, batch_size=128))
""")


def time_to_first_batch() -> float:
    # as an installed package runs: bytecode caching on (some sandboxes set PYTHONDONTWRITEBYTECODE), after a
    # warm-up run that writes the .pyc files
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "first_batch.py")
        with open(script, "w") as f:
            f.write(FIRST_BATCH_SCRIPT)
        best = float("inf")
        for _ in range(4):
            start = time.time()
            out = subprocess.run([sys.executable, script, tmp], capture_output=True, text=True, check=True, env=env)
            best = min(best, float(out.stdout.strip().splitlines()[-1]) - start)
        return best


REPEATS = 7  # runs of each loop; the minimum is the cost without interference from the rest of the machine


def main():
    ds = data()
    hand_loop(ds)  # warm-up (page in the data, compile code paths)
    trainer_loop(ds)
    hands, fits = [], []
    for _ in range(REPEATS):  # interleaved, so both loops see the same machine load over time
        hands.append(hand_loop(ds))
        fits.append(trainer_loop(ds))
    hand, fit = min(hands), min(fits)
    overhead = (fit - hand) / hand * 100
    first = time_to_first_batch()
    print(f"{'benchmark':48s} {'value':>10s}  target")
    print("-" * 72)
    print(f"{'hand-written ember loop, 1 epoch':48s} {hand:9.3f}s  -")
    print(f"{'Trainer.fit, 1 epoch (log every step, bar to file)':48s} {fit:9.3f}s  -")
    print(f"{'Trainer overhead':48s} {overhead:9.2f}%  <= 3%")
    print(f"{'process start -> first training batch':48s} {first:9.3f}s  <= 0.6 s")


if __name__ == "__main__":
    main()
