"""Core engine benchmark: per-op overhead, tiny backward, an MLP training step and import time.

Every figure is a ratio to plain NumPy doing the same arithmetic, measured in the same run:

    python benchmarks/core_ops.py [--torch-python PYTHON]

With ``--torch-python`` (or ``$EMBER_BENCH_TORCH_PYTHON``; an interpreter of a venv with torch, see
``benchmarks/jobs.py``) the tiny backward is also timed in PyTorch, in a subprocess of the same run, and reported
as a ratio to it, and ``import lightning`` is timed in that interpreter as ``import ember`` is timed here.
"""
from __future__ import annotations

import os
import subprocess
import sys
import timeit

import numpy as np

import ember as em


def bests(fns, number, repeat=7):
    """Best time per call in seconds of each of ``fns``, timed in turns (one repeat of each per round), so that a
    drift of the machine's speed during the run slows them alike and their ratios stay comparable."""
    times = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            times[i] = min(times[i], timeit.timeit(fn, number=number) / number)
    return times


TINY_BACKWARD = """
import timeit, {lib} as t
a, b = t.ones(1, requires_grad=True), t.ones(1, requires_grad=True)
def tiny():
    (a * b + a).sum().backward()
print(min(timeit.repeat(tiny, number=10_000, repeat=7)) / 10_000)
"""


def torch_tiny_backward(python):
    """Seconds per ``(a*b + a).sum().backward()`` in PyTorch, run by ``python`` (a venv with torch)."""
    out = subprocess.run([python, "-c", TINY_BACKWARD.format(lib="torch")], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def per_op_overhead():
    a_np, b_np = np.ones(1, np.float32), np.ones(1, np.float32)
    a, b = em.ones(1), em.ones(1)
    ga, gb = em.ones(1, requires_grad=True), em.ones(1, requires_grad=True)
    n = 100_000
    t_np, t_plain, t_graph = bests([lambda: np.add(a_np, b_np), lambda: a + b, lambda: ga + gb], n)

    def tiny():
        (ga * gb + ga).sum().backward()
    t_bw, = bests([tiny], 10_000)
    return [
        ("numpy add, 1 element", t_np * 1e6, "us", 1.0, "-"),
        ("a + b, no grad", t_plain * 1e6, "us", t_plain / t_np, "<= 2.5x"),
        ("a + b, graph recorded", t_graph * 1e6, "us", t_graph / t_np, "<= 4x"),
        ("(a*b + a).sum().backward()", t_bw * 1e6, "us", t_bw / t_np, "<= 40 us"),
    ]


def mlp_step(batch=128, sizes=(784, 256, 128, 10), lr=0.01):
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((i, o)).astype(np.float32) * np.float32(np.sqrt(2.0 / i))
          for i, o in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(o, np.float32) for o in sizes[1:]]
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]

    # --- the same arithmetic written directly in numpy
    W = [w.copy() for w in ws]
    B = [b.copy() for b in bs]

    def numpy_step():
        acts = [x]
        pre = []
        h = x
        for i in range(len(W)):
            z = h @ W[i] + B[i]
            pre.append(z)
            h = np.maximum(z, 0) if i < len(W) - 1 else z
            acts.append(h)
        diff = h - y
        _loss = (diff * diff).mean()
        g = diff * (2.0 / diff.size)
        for i in reversed(range(len(W))):
            if i < len(W) - 1:
                g = g * (pre[i] > 0)
            gw = acts[i].T @ g
            gb = g.sum(0)
            if i > 0:
                g = g @ W[i].T
            W[i] -= lr * gw
            B[i] -= lr * gb

    # --- ember: forward, backward, hand-written SGD update
    EW = [em.tensor(w, requires_grad=True) for w in ws]
    EB = [em.tensor(b, requires_grad=True) for b in bs]
    ex, ey = em.tensor(x), em.tensor(y)
    params = EW + EB

    def ember_step():
        h = ex
        for i in range(len(EW)):
            h = h @ EW[i] + EB[i]
            if i < len(EW) - 1:
                h = em.relu(h)
        loss = ((h - ey) ** 2).mean()
        loss.backward()
        with em.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=lr)
                p.grad = None

    t_np, t_em = bests([numpy_step, ember_step], 20, repeat=25)
    return [("MLP 784-256-128-10 step, numpy", t_np * 1e3, "ms", 1.0, "-"),
            ("MLP 784-256-128-10 step, ember", t_em * 1e3, "ms", t_em / t_np, "<= 1.3x")]


def _no_bytecode_env():
    # Measure as an installed package behaves: bytecode caching on (some sandboxes set PYTHONDONTWRITEBYTECODE,
    # which recompiles every module on every import).
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def in_process_import(python, module, env, repeat=5):
    """Best in-process time of ``import module`` in fresh ``python`` processes, after one warm-up import that
    writes the .pyc files."""
    subprocess.run([python, "-c", f"import {module}"], env=env, check=True, capture_output=True)
    times = []
    for _ in range(repeat):
        out = subprocess.run([python, "-c",
                              f"import time; t=time.perf_counter(); import {module}; print(time.perf_counter()-t)"],
                             capture_output=True, text=True, check=True, env=env)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return min(times)


def import_time(torch_python=None):
    env = _no_bytecode_env()
    subprocess.run([sys.executable, "-c", "import ember, ember.nn, ember.trainer"], env=env, check=True)

    def wall(code):
        times = []
        for _ in range(5):
            t = timeit.default_timer()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            times.append(timeit.default_timer() - t)
        return min(times)

    t_np = in_process_import(sys.executable, "numpy", env)
    t_em = in_process_import(sys.executable, "ember", env)
    t_wall = wall("import ember")
    t_py = wall("pass")
    rows = [("import numpy (in-process)", t_np * 1e3, "ms", 1.0, "-"),
            ("import ember (in-process)", t_em * 1e3, "ms", t_em / t_np, "-"),
            ("python -c 'import ember' (wall)", t_wall * 1e3, "ms", t_wall / (t_py or 1), "<= 300 ms")]
    if torch_python:
        t_pl = in_process_import(torch_python, "lightning", env)
        rows.append(("import lightning (in-process)", t_pl * 1e3, "ms", t_em / t_pl, "ember/lightning <= 0.06x"))
    return rows


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--torch-python", default=os.environ.get("EMBER_BENCH_TORCH_PYTHON"),
                        help="interpreter of a venv with torch and lightning: also time the tiny backward in PyTorch "
                             "and `import lightning`")
    args = parser.parse_args(argv)
    rows = per_op_overhead()
    if args.torch_python:
        t_em = rows[-1][1] * 1e-6
        t_pt = torch_tiny_backward(args.torch_python)
        rows.append(("(a*b + a).sum().backward(), torch", t_pt * 1e6, "us", t_em / t_pt, "ember/torch <= 0.55x"))
    rows += mlp_step() + import_time(args.torch_python)
    print(f"{'benchmark':40s} {'time':>10s} {'unit':4s} {'ratio':>8s}  target")
    print("-" * 78)
    for name, value, unit, ratio, target in rows:
        print(f"{name:40s} {value:10.2f} {unit:4s} {ratio:8.2f}x  {target}")
    print("\nratios: to the first row of each group (numpy add / numpy MLP / numpy import; wall time to bare python);"
          "\n        rows naming torch or lightning: ember's time over theirs")


if __name__ == "__main__":
    main()
