"""Checkpoint save/load speed: a 10M-parameter model with Adam state, against ``np.savez``/``np.load`` of the same
arrays (the same bytes on disk, no safety, no atomicity). Target: each ratio <= 1.5.

    python benchmarks/checkpoint.py [--params 10_000_000] [--repeat 9]

Both sides write to the same directory and read back every array into memory; the median of ``--repeat`` runs
(alternating the two sides) is reported. The ember side is the real path: ``Trainer.save_checkpoint``'s writer
(temporary file, fsync, rename) and ``load_checkpoint`` (manifest check, CRC check of every array). For fairness the
NumPy side also fsyncs (``np.load`` of an ``.npz`` checks the CRCs too).
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np

import ember as em
from ember.core import nn
from ember.trainer.checkpoint_io import load_checkpoint, save_checkpoint


def build_checkpoint(n_params: int):
    """A module of ~n_params parameters, one Adam step taken (so exp_avg/exp_avg_sq exist), as a checkpoint dict."""
    width = 1024
    layers = max(1, round(n_params / (width * width + width)))
    model = nn.Sequential(*[nn.Linear(width, width) for _ in range(layers)])
    opt = em.optim.Adam(model.parameters(), lr=1e-3)
    for p in model.parameters():
        p.grad = em.ones_like(p) * 1e-3
    opt.step()
    checkpoint = {"epoch": 3, "global_step": 1000, "ember_version": em.__version__, "state_dict": model.state_dict(),
                  "optimizer_states": [opt.state_dict()], "lr_schedulers": [], "loops": {"fit_loop": {"step": 1000}},
                  "callbacks": {}}
    total = sum(p.numel() for p in model.parameters())
    return checkpoint, total


def flat_arrays(obj, prefix="", out=None):
    """Every array in the checkpoint, by path, for the NumPy baseline."""
    out = {} if out is None else out
    if isinstance(obj, dict):
        for k, v in obj.items():
            flat_arrays(v, f"{prefix}{k}.", out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flat_arrays(v, f"{prefix}{i}.", out)
    elif hasattr(obj, "_data"):
        out[prefix.rstrip(".") or "x"] = np.asarray(obj._data)
    elif isinstance(obj, np.ndarray):
        out[prefix.rstrip(".")] = obj
    return out


def _fsync(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def timed_pair(ours, base, repeat):
    """Median times of ``ours`` and ``base``, run alternately so that drift in the machine hits both alike."""
    t_ours, t_base = [], []
    for _ in range(repeat):
        for fn, out in ((base, t_base), (ours, t_ours)):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
    return float(np.median(t_ours)), float(np.median(t_base))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--params", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--dir", default=None, help="where to write (default: a temporary directory)")
    args = parser.parse_args()

    checkpoint, total = build_checkpoint(args.params)
    arrays = flat_arrays(checkpoint)
    nbytes = sum(a.nbytes for a in arrays.values())
    directory = args.dir or tempfile.mkdtemp(prefix="ember-ckpt-bench-")
    ckpt_path = os.path.join(directory, "model.ckpt")
    npz_path = os.path.join(directory, "model.npz")
    try:
        def np_save():
            np.savez(npz_path, **arrays)
            _fsync(npz_path)

        def np_load():
            with np.load(npz_path) as f:
                for k in f.files:
                    f[k]

        def em_save():
            save_checkpoint(checkpoint, ckpt_path)

        def em_load():
            load_checkpoint(ckpt_path)

        rows = []
        for name, ours, base in (("save", em_save, np_save), ("load", em_load, np_load)):
            base()  # warm the page cache and the file system on both sides
            ours()
            t_ours, t_base = timed_pair(ours, base, args.repeat)
            rows.append((name, t_ours, t_base, t_ours / t_base))
        print(f"checkpoint of {total / 1e6:.1f}M parameters + Adam state: {len(arrays)} arrays, "
              f"{nbytes / 2**20:.0f} MiB (median of {args.repeat}, alternating runs)")
        print(f"{'op':<6}{'ember (s)':>12}{'numpy (s)':>12}{'ratio':>8}  target")
        for name, ours, base, ratio in rows:
            flag = "ok" if ratio <= 1.5 else "SLOW"
            print(f"{name:<6}{ours:>12.4f}{base:>12.4f}{ratio:>8.2f}  <= 1.5 {flag}")
    finally:
        if args.dir is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
