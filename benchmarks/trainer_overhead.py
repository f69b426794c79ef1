"""Trainer overhead: ``Trainer.fit`` vs a hand-written ember loop doing the same work, in the same run.

One epoch of a 784-256-128-10 MLP on 60k synthetic samples at batch 128, ``self.log`` every step, progress bar on
with output to a file. Also the time from process start to the first training batch.

The two loops take turns batch by batch: after each Trainer batch, a callback runs one step of the hand-written loop
(its own model, optimizer and loader) and times it alone. The Trainer's time is the whole ``fit`` call minus those
hand steps, so setup, teardown and every hook count against the Trainer. Running the loops one after the other
instead compares them at different machine speeds: on a shared virtual machine the same epoch can take 1.5 s or
3 s minutes apart, far more than the few percent measured here. Turns of a few ms see the same speed. The figure
is the median over ``REPEATS`` epochs.

    python benchmarks/trainer_overhead.py [--threads N] [--lightning-python PYTHON]

With ``--lightning-python`` (an interpreter of a venv with torch and lightning) it also prints Lightning's own
overhead on the same workload, measured the same way (``trainer_overhead_lightning.py``).
"""
from __future__ import annotations

import argparse
import io
import json
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


class HandSteps(em.Callback):
    """After every Trainer batch, one step of the hand-written loop, timed alone (:attr:`seconds`, :attr:`steps`)."""

    def __init__(self, ds):
        em.manual_seed(0)
        self.model = make_mlp()
        self.opt = em.optim.SGD(self.model.parameters(), lr=0.01)
        self.batches = iter(DataLoader(ds, batch_size=128, shuffle=True))
        self.seconds = 0.0
        self.steps = 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        start = time.perf_counter()
        x, y = next(self.batches)
        loss = F.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.seconds += time.perf_counter() - start
        self.steps += 1


def interleaved_epoch(ds):
    """``(hand seconds, Trainer seconds)`` of one epoch each, run batch by batch in turns."""
    em.manual_seed(0)
    model = LitMLP()
    hand = HandSteps(ds)
    out = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, _redirect(out):
        trainer = em.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_model_summary=False,
                             enable_progress_bar=True, default_root_dir=tmp, log_every_n_steps=1, callbacks=[hand])
        start = time.perf_counter()
        trainer.fit(model, DataLoader(ds, batch_size=128, shuffle=True))
        total = time.perf_counter() - start
    assert hand.steps == trainer.global_step == len(ds) // 128 + 1, "both loops must run the whole epoch"
    return hand.seconds, total - hand.seconds


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


REPEATS = 5  # interleaved epochs; the figure is their median


def lightning_overheads(python: str, threads: int) -> list:
    """Lightning's overhead of each epoch, in percent, measured the same way by ``trainer_overhead_lightning.py``
    in ``python`` (an interpreter with torch and lightning)."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "trainer_overhead_lightning.py")
    cmd = [python, script] + (["--threads", str(threads)] if threads else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return sorted(json.loads(out.stdout.strip().splitlines()[-1])["overheads"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="em.set_num_threads(N) (default: ember's)")
    parser.add_argument("--lightning-python", default=os.environ.get("EMBER_BENCH_TORCH_PYTHON"),
                        help="interpreter of a venv with torch and lightning: also measure Lightning's overhead")
    args = parser.parse_args()
    if args.threads:
        em.set_num_threads(args.threads)
    ds = data()
    interleaved_epoch(ds)  # warm-up (page in the data, compile code paths)
    runs = sorted((interleaved_epoch(ds) for _ in range(REPEATS)), key=lambda run: run[1] / run[0])
    hand, fit = runs[len(runs) // 2]
    overhead = (fit - hand) / hand * 100
    spread = ", ".join(f"{(f - h) / h * 100:.1f}" for h, f in runs)
    first = time_to_first_batch()
    print(f"{'benchmark':52s} {'value':>10s}  target")
    print("-" * 76)
    print(f"{'hand-written ember loop, 1 epoch':52s} {hand:9.3f}s  -")
    print(f"{'Trainer.fit, 1 epoch (log every step, bar to file)':52s} {fit:9.3f}s  -")
    print(f"{'Trainer overhead (median of %d epochs)' % REPEATS:52s} {overhead:9.2f}%  <= 3%")
    if args.lightning_python:
        theirs = lightning_overheads(args.lightning_python, args.threads)
        print(f"{'Lightning overhead, same measurement (median)':52s} {theirs[len(theirs) // 2]:9.2f}%  -")
    print(f"{'process start -> first training batch':52s} {first:9.3f}s  <= 0.6 s")
    print(f"\nember overhead of each epoch, %: {spread}")
    if args.lightning_python:
        print(f"Lightning overhead of each epoch, %: {', '.join(f'{v:.1f}' for v in theirs)}")


if __name__ == "__main__":
    main()
