"""Real training jobs: ember (hand-written loop and Trainer) against raw PyTorch CPU and hand-written NumPy.

Five jobs, each timed per training step after a warm-up:

========  =====================================================================================================
mlp       784-256-128-10 ReLU MLP, B=128, Adam, one epoch of 60k samples (469 steps)
cnn       LeNet-5 on 1x28x28, B=64, Adam, 300 steps (plus time per sample at B=16/64/256)
cnn-wide  VGG-ish on 3x32x32 with BatchNorm (32-32-pool-64-64-pool-128-pool-fc), B=64, SGD momentum, 100 steps
gpt       char transformer, 4 pre-LN blocks, d=128, 4 heads, seq 64, B=32, GELU MLP, AdamW, 200 steps
lstm      2-layer LSTM, hidden 128, embedding 64, seq 50, B=64, Adam, 200 steps
========  =====================================================================================================

Sides: ``ember`` (hand-written loop), ``trainer`` (the same LightningModule through ``em.Trainer``, logging and
checkpointing off), ``numpy`` (the floor of :mod:`jobs_numpy`, mlp and cnn only) and ``torch`` (the same model in
raw PyTorch). Each side trains in its own process, as it would alone, and the sides take turns of :data:`TURN`
steps, so a machine whose speed drifts over seconds or minutes (a shared virtual machine) slows every side alike;
alternating whole processes could not promise that. At ``--threads 1`` every side runs on the same core. The table
shows the median step time of each side (over ``--repeat`` runs of fresh processes), the ratios of medians, and
each side's peak RSS.

PyTorch is never a dependency of ember. To compare against it, make a separate venv outside the repository (on the
project's machine it is ``/work/torchvenv``)::

    python -m venv /work/torchvenv
    /work/torchvenv/bin/pip install --no-deps torch   # a CPU wheel, e.g. torch-2.13.0+cpu
    /work/torchvenv/bin/pip install numpy filelock typing-extensions sympy networkx jinja2 fsspec

(PyPI's default Linux wheel needs the CUDA libraries; a ``+cpu`` wheel does not.) Then pass its interpreter::

    TORCH=/work/torchvenv/bin/python
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/jobs.py --torch-python $TORCH
    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/jobs.py --threads 1 --torch-python $TORCH

Without ``--torch-python`` (or ``$EMBER_BENCH_TORCH_PYTHON``) the torch side runs if the current interpreter can
import torch, and is skipped otherwise. ``--threads N`` pins every side (``OMP_NUM_THREADS`` and friends plus
``set_num_threads``); the default leaves every library at its own default. ``--scale`` multiplies the step counts
(``--scale 0.3`` for a quick look), ``--jobs`` picks jobs, ``--repeat`` sets the repetitions.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

JOBS = {  # name: (batch, steps, optimizer)
    "mlp": (128, 469),
    "cnn": (64, 300),
    "cnn-wide": (64, 100),
    "gpt": (32, 200),
    "lstm": (64, 200),
}
WARMUP = 5
FLOORS = ("mlp", "cnn")
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


# ------------------------------------------------------------------------------------------------ models and data
def build_model(job, lib):
    """The job's model, built with ``lib`` (``ember`` or ``torch``: the same API)."""
    nn, F = lib.nn, lib.nn.functional
    if job == "mlp":
        return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    if job == "cnn":
        return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    if job == "cnn-wide":
        def block(c_in, c_out):
            return [nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU()]
        return nn.Sequential(*block(3, 32), *block(32, 32), nn.MaxPool2d(2), *block(32, 64), *block(64, 64),
                             nn.MaxPool2d(2), *block(64, 128), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(2048, 10))
    if job == "gpt":
        class Block(nn.Module):
            def __init__(self, d, heads):
                super().__init__()
                self.heads = heads
                self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
                self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
                self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

            def forward(self, x):
                b, t, d = x.shape
                q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
                q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
                return x + self.out(F.gelu(self.fc(self.ln2(x))))

        class Gpt(nn.Module):
            def __init__(self, vocab=128, d=128, heads=4, layers=4, seq=64):
                super().__init__()
                self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
                self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
                self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

            def forward(self, idx):
                pos = lib.arange(idx.shape[1])
                logits = self.head(self.ln(self.blocks(self.tok(idx) + self.pos(pos))))
                return logits.reshape(-1, logits.shape[-1])
        return Gpt()
    if job == "lstm":
        class CharLstm(nn.Module):
            def __init__(self, vocab=128, emb=64, hidden=128):
                super().__init__()
                self.emb = nn.Embedding(vocab, emb)
                self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True)
                self.head = nn.Linear(hidden, vocab)

            def forward(self, idx):
                out, _ = self.lstm(self.emb(idx))
                logits = self.head(out)
                return logits.reshape(-1, logits.shape[-1])
        return CharLstm()
    raise ValueError(f"unknown job {job!r}; choose from {sorted(JOBS)}")


def build_optimizer(job, lib, params):
    """The job's optimizer."""
    if job == "cnn-wide":
        return lib.optim.SGD(params, lr=0.01, momentum=0.9)
    if job == "gpt":
        return lib.optim.AdamW(params, lr=3e-4)
    return lib.optim.Adam(params, lr=1e-3)


def make_data(job, batch, steps, seed=0):
    """``steps`` batches of synthetic inputs and integer targets, as NumPy arrays (the same for every side)."""
    rng = np.random.default_rng(seed)
    n = batch * min(steps, 64)  # cycle over at most 64 distinct batches: data is not what is measured
    if job == "mlp":
        x, y = rng.standard_normal((n, 784), dtype=np.float32), rng.integers(0, 10, n)
    elif job == "cnn":
        x, y = rng.standard_normal((n, 1, 28, 28), dtype=np.float32), rng.integers(0, 10, n)
    elif job == "cnn-wide":
        x, y = rng.standard_normal((n, 3, 32, 32), dtype=np.float32), rng.integers(0, 10, n)
    elif job == "gpt":
        seq = rng.integers(0, 128, (n, 65))
        x, y = seq[:, :-1], seq[:, 1:]
    else:
        seq = rng.integers(0, 128, (n, 51))
        x, y = seq[:, :-1], seq[:, 1:]
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def batches(x, y, batch, steps):
    """The ``(x, y)`` slices of every step, cycling over the data."""
    n = x.shape[0] // batch
    return [(x[(s % n) * batch:(s % n + 1) * batch], y[(s % n) * batch:(s % n + 1) * batch]) for s in range(steps)]


# ------------------------------------------------------------------------------------------------------- sides
# Every side trains in its own process, with its own allocator and caches as it would alone, in turns of TURN steps
# when the driver says so (one "go" line on its stdin per turn; it answers with one JSON line of that turn's step
# times). A machine whose speed drifts over seconds or minutes then slows all sides alike. The first step of a turn
# is not counted: it finds the caches the other side left.
TURN = 4
# Seconds between turns when sides use several threads: after a parallel call, OpenBLAS's workers spin for about
# 0.1 s (2^28 cycles) and OpenMP's for a few ms before they sleep, and a spinning worker of the side that just ran
# would take a core from the next one (torch's 2-thread mlp step measured 29 ms instead of 5 without the pause).
SETTLE = 0.15


class _Turns:
    """A worker's side of the turn protocol, on the stdout it was started with (other output goes to stderr)."""

    def __init__(self):
        self.out = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)  # prints of the training code (the Trainer's messages) must not reach the protocol stream

    def wait(self, times, done=False):
        """Report the last turn's step ``times`` and wait for the next turn; False once told to stop."""
        self.out.write(json.dumps({"times": times, "done": done}) + "\n")
        self.out.flush()
        return sys.stdin.readline().strip() == "go"

    def stop(self):
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        self.out.write(json.dumps({"rss_mb": rss}) + "\n")
        self.out.flush()


def serve_turns(step, batches):
    """Train ``step`` over ``batches`` in turns (see :data:`TURN`)."""
    turns = _Turns()
    if not turns.wait([]):
        return turns.stop()
    for start in range(0, len(batches), TURN):
        times = []
        for xb, yb in batches[start:start + TURN]:
            t0 = time.perf_counter()
            step(xb, yb)
            times.append(time.perf_counter() - t0)
        done = start + TURN >= len(batches)
        if not turns.wait(times, done) or done:
            break
    turns.stop()


def loop_step(job, lib, data):
    """``(step, batches)``: one step of the hand-written training loop in ``lib`` (ember or torch), and ``data``
    as that library's tensors."""
    lib.manual_seed(0)
    model = build_model(job, lib)
    opt = build_optimizer(job, lib, model.parameters())
    F = lib.nn.functional
    tensors = [(lib.from_numpy(x), lib.from_numpy(y).reshape(-1)) for x, y in data]

    def step(xb, yb):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    return step, tensors


class _Loader:
    """A ready-made list of batches, served like a DataLoader."""

    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


def serve_trainer(job, data):
    """The same job as a LightningModule through ``em.Trainer`` (no logger, checkpoint, progress bar), in turns: a
    batch's time runs from its ``on_train_batch_start`` to the next one's, so it includes all of the Trainer's
    per-batch work (the last batch, which has no next one, is not counted)."""
    import ember as em
    F = em.nn.functional

    class Job(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = build_model(job, em)

        def training_step(self, batch, batch_idx):
            xb, yb = batch
            return F.cross_entropy(self.model(xb), yb.reshape(-1))

        def configure_optimizers(self):
            return build_optimizer(job, em, self.parameters())

    turns = _Turns()

    class Clock(em.Callback):
        def __init__(self):
            self.times, self.last = [], None

        def on_train_batch_start(self, trainer, module, batch, batch_idx):
            now = time.perf_counter()
            if self.last is not None:
                self.times.append(now - self.last)
            if batch_idx % TURN == 0:  # the first one says "ready"
                turns.wait(self.times)
                self.times = []
                now = time.perf_counter()
            self.last = now

    em.manual_seed(0)
    tensors = [(em.from_numpy(x), em.from_numpy(y)) for x, y in data]
    clock = Clock()
    trainer = em.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False, callbacks=[clock], num_sanity_val_steps=0)
    trainer.fit(Job(), train_dataloaders=_Loader(tensors))
    turns.wait(clock.times, done=True)
    turns.stop()


def floor_step(job, data):
    """``(step, batches)``: one step of the hand-written NumPy floor (mlp and cnn)."""
    sys.path.insert(0, HERE)
    from jobs_numpy import Adam, LeNetFloor, MlpFloor
    import ember as em
    em.manual_seed(0)
    params = [p.detach().numpy() for p in build_model(job, em).parameters()]
    floor = (MlpFloor if job == "mlp" else LeNetFloor)(params)
    opt = Adam(floor.params)

    def step(xb, yb):
        _, grads = floor.grads(xb, yb)
        opt.step(grads)
    return step, data


def worker(args):
    """One side of one job, trained in turns (see :data:`TURN`)."""
    if args.threads == 1 and hasattr(os, "sched_setaffinity"):
        # every side on the same core: the cores of a virtual machine need not run at the same speed
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    batch = args.batch or JOBS[args.job][0]
    steps = max(WARMUP + 2 * TURN, int(round(JOBS[args.job][1] * args.scale)))
    x, y = make_data(args.job, batch, steps)
    data = batches(x, y, batch, steps)
    if args.side == "torch":
        import torch
        if args.threads:
            torch.set_num_threads(args.threads)
        return serve_turns(*loop_step(args.job, torch, data))
    import ember as em
    if args.threads:
        em.set_num_threads(args.threads)
    if args.side == "trainer":
        return serve_trainer(args.job, data)
    return serve_turns(*(loop_step(args.job, em, data) if args.side == "ember" else floor_step(args.job, data)))


# ------------------------------------------------------------------------------------------------------- driver
def _torch_python(option):
    if option:
        return option
    if os.environ.get("EMBER_BENCH_TORCH_PYTHON"):
        return os.environ["EMBER_BENCH_TORCH_PYTHON"]
    try:
        import importlib.util
        return sys.executable if importlib.util.find_spec("torch") is not None else None
    except (ImportError, ValueError):
        return None


def _start(job, side, threads, batch, scale, torch_python, log):
    env = dict(os.environ)
    if side == "numpy":  # the floor is NumPy as its users run it: no ember allocator or BLAS policy
        env.update(EMBER_MALLOC_TUNE="0", EMBER_BLAS_THREADS="keep")
    if threads:
        env.update({name: str(threads) for name in THREAD_VARIABLES})
    python = torch_python if side == "torch" else sys.executable
    cmd = [python, os.path.abspath(__file__), "--worker", job, side, "--scale", str(scale)]
    if threads:
        cmd += ["--threads", str(threads)]
    if batch:
        cmd += ["--batch", str(batch)]
    return subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)


def _tell(proc, word):
    proc.stdin.write(word + "\n")
    proc.stdin.flush()


def _reply(proc, log):
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        log.seek(0)
        raise RuntimeError(f"{' '.join(proc.args)} failed:\n{log.read()[-3000:]}")
    return json.loads(line)


def run_sides(job, sides, threads, batch, scale, torch_python):
    """Train every side in its own process, in turns; ``(median seconds per step, peak RSS in MB)`` per side."""
    import tempfile
    logs = {side: tempfile.TemporaryFile("w+") for side in sides}  # stderr, read only if the side fails
    procs = {side: _start(job, side, threads, batch, scale, torch_python, logs[side]) for side in sides}
    times = {side: [] for side in sides}
    try:
        for side in sides:
            _reply(procs[side], logs[side])  # ready: set up and waiting for its first turn
        done, counted = set(), dict.fromkeys(sides, 0)
        while len(done) < len(sides):
            for side in sides:
                if side in done:
                    continue
                _tell(procs[side], "go")
                reply = _reply(procs[side], logs[side])
                if threads != 1:  # let the side's idle BLAS/OpenMP workers stop spinning before the next side runs
                    time.sleep(SETTLE)
                for i, t in enumerate(reply["times"]):
                    if i > 0 and counted[side] + i >= WARMUP:  # a turn's first step finds the other side's caches
                        times[side].append(t)
                counted[side] += len(reply["times"])
                if reply["done"]:
                    done.add(side)
        rss = {}
        for side in sides:
            _tell(procs[side], "stop")
            rss[side] = _reply(procs[side], logs[side])["rss_mb"]
            procs[side].wait()
    finally:
        for side in sides:
            if procs[side].poll() is None:  # a side failed: the others wait for a turn that will not come
                procs[side].kill()
            logs[side].close()
    return {s: statistics.median(t) for s, t in times.items()}, rss


def compare(job, sides, threads, batch, scale, repeat, torch_python):
    """``repeat`` runs of :func:`run_sides`; the median per side of time per step and of peak RSS."""
    runs = [run_sides(job, sides, threads, batch, scale, torch_python) for _ in range(repeat)]
    return ({s: statistics.median(r[0][s] for r in runs) for s in sides},
            {s: statistics.median(r[1][s] for r in runs) for s in sides})


def _load():
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=0, help="pin every side to N threads (default: defaults)")
    parser.add_argument("--jobs", default=",".join(JOBS), help="comma-separated jobs")
    parser.add_argument("--repeat", type=int, default=3, help="runs per job, each in fresh processes (median)")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every job's step count")
    parser.add_argument("--batch", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--torch-python", default=None, help="interpreter of a venv with torch")
    parser.add_argument("--no-per-sample", action="store_true", help="skip cnn time per sample at B=16/64/256")
    parser.add_argument("--worker", nargs=2, metavar=("JOB", "SIDE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        args.job, args.side = args.worker
        return worker(args)
    torch_python = _torch_python(args.torch_python)
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()]
    unknown = [j for j in jobs if j not in JOBS]
    if unknown:
        parser.error(f"--jobs: unknown job(s) {unknown}; choose from {sorted(JOBS)}")
    print(f"threads: {args.threads or 'default'}   torch: {torch_python or 'not available'}   "
          f"repeat: {args.repeat}   scale: {args.scale}")
    print(f"{'job':9s} {'load':>5s} {'ember ms':>9s} {'trainer':>8s} {'numpy':>8s} {'torch':>8s} "
          f"{'em/np':>6s} {'em/pt':>6s} {'tr/pt':>6s} {'RSS em/pt MB':>14s}")
    for job in jobs:
        sides = ["ember", "trainer"] + (["numpy"] if job in FLOORS else []) + (["torch"] if torch_python else [])
        load = _load()
        t, r = compare(job, sides, args.threads, 0, args.scale, args.repeat, torch_python)
        ms = {s: t[s] * 1e3 for s in sides}

        def cell(s, width=8):
            return f"{ms[s]:{width}.2f}" if s in ms else " " * (width - 1) + "-"

        def ratio(a, b):
            return f"{ms[a] / ms[b]:6.2f}" if a in ms and b in ms else "     -"
        mem = f"{r['ember']:.0f}/{r['torch']:.0f}" if "torch" in r else f"{r['ember']:.0f}"
        print(f"{job:9s} {load:5.2f} {cell('ember', 9)} {cell('trainer')} {cell('numpy')} {cell('torch')} "
              f"{ratio('ember', 'numpy')} {ratio('ember', 'torch')} {ratio('trainer', 'torch')} {mem:>14s}",
              flush=True)
    if "cnn" in jobs and not args.no_per_sample:
        print("\ncnn time per sample (us) by batch size")
        print(f"{'B':>5s} {'load':>5s} {'ember':>8s} {'numpy':>8s} {'torch':>8s}")
        for b in (16, 64, 256):
            sides = ["ember", "numpy"] + (["torch"] if torch_python else [])
            load = _load()
            t, _ = compare("cnn", sides, args.threads, b, args.scale * (64 / b), args.repeat, torch_python)
            cells = " ".join(f"{t[s] / b * 1e6:8.1f}" for s in sides)
            print(f"{b:5d} {load:5.2f} {cells}", flush=True)


if __name__ == "__main__":
    main()
