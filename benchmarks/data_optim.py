"""DataLoader fast path and optimizer step cost, as one table of ratios measured in the same run.

Data rows: a shuffled epoch over ``TensorDataset(60000x784 float32, int64 labels)`` at batch size 128

- through the fast path (``TensorDataset.__getitems__``: one fancy-index per tensor per batch, no re-stacking),
- through the per-sample path PyTorch takes (``__getitem__`` per sample, then ``default_collate`` stacks),
- and the fast path's share of a whole MLP epoch (784-256-128-10, ReLU, cross-entropy, SGD), where the MLP is
  written with plain ember ops so that this benchmark does not depend on ``em.nn``.

Optimizer rows come from ``benchmarks/optim_bench.py`` (``rows()``) when it is present. Run:

    python benchmarks/data_optim.py
"""
from __future__ import annotations

import os
import sys
import time

import ember as em
from ember.core.data import DataLoader, TensorDataset

N, D, BATCH = 60_000, 784, 128


class PerSampleTensorDataset(TensorDataset):
    """The same data without the batch fetch: the loader falls back to ``__getitem__`` + ``default_collate``."""

    __getitems__ = None


def _epoch_time(loader, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _batch in loader:
            pass
        best = min(best, time.perf_counter() - start)
    return best


def _mlp_epoch_time(loader, repeat):
    g = em.Generator().manual_seed(0)
    sizes = [(D, 256), (256, 128), (128, 10)]
    params = []
    for fan_in, fan_out in sizes:
        w = em.randn(fan_in, fan_out, generator=g) * (2.0 / fan_in) ** 0.5
        params += [w.requires_grad_(), em.zeros(fan_out, requires_grad=True)]
    lr = 0.05

    def step(x, y):
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = h.clamp(min=0)
        log_probs = h - em.logsumexp(h, dim=1, keepdim=True)
        loss = -log_probs.gather(1, y.unsqueeze(1)).mean()
        loss.backward()
        with em.no_grad():
            for p in params:
                p.sub_(p.grad * lr)
                p.grad = None
        return loss

    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for x, y in loader:
            step(x, y)
        best = min(best, time.perf_counter() - start)
    return best


def data_rows(repeat=3):
    g = em.Generator().manual_seed(0)
    x = em.randn(N, D, generator=g)
    y = em.randint(0, 10, (N,), generator=g)
    fast = DataLoader(TensorDataset(x, y), batch_size=BATCH, shuffle=True)
    slow = DataLoader(PerSampleTensorDataset(x, y), batch_size=BATCH, shuffle=True)
    t_fast = _epoch_time(fast, repeat)
    t_slow = _epoch_time(slow, 1)
    t_mlp = _mlp_epoch_time(fast, 1)
    rows = [
        ("data: per-sample __getitem__ + collate epoch", t_slow * 1e3, "ms", 1.0, "-"),
        ("data: fast path (__getitems__) epoch", t_fast * 1e3, "ms", t_slow / t_fast, ">= 10x faster"),
        ("data: MLP epoch (784-256-128-10, SGD)", t_mlp * 1e3, "ms", 1.0, "-"),
        ("data: fast path share of the MLP epoch", 100 * t_fast / t_mlp, "%", t_fast / t_mlp, "<= 5%"),
    ]
    if sys.platform != "win32":
        workers = DataLoader(TensorDataset(x, y), batch_size=BATCH, shuffle=True, num_workers=2,
                             multiprocessing_context="fork", persistent_workers=True)
        t_workers = _epoch_time(workers, repeat)
        rows.append(("data: fast path, 2 fork workers (info)", t_workers * 1e3, "ms", t_workers / t_fast,
                     "-  (ratio to in-process)"))
        del workers
    return rows


def optim_rows():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        from optim_bench import rows
    except ImportError:
        return []
    return list(rows())


def main():
    rows = data_rows() + optim_rows()
    width = max(len(r[0]) for r in rows)
    print(f"{'benchmark':<{width}}  {'value':>10}  {'unit':<4}  {'ratio':>8}  target")
    print("-" * (width + 44))
    for name, value, unit, ratio, target in rows:
        print(f"{name:<{width}}  {value:>10.3f}  {unit:<4}  {ratio:>8.3f}  {target}")


if __name__ == "__main__":
    main()
