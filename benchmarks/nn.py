"""``ember.nn`` kernels benchmark: convolution throughput, a LeNet training step, max-pooling, attention and
cross-entropy, as one table of figures measured in the same run:

    python benchmarks/nn.py

Rows and their references:

- ``conv2d`` forward + backward on x (32, 64, 32, 32) with 64 filters 3x3 (padding 1): achieved GFLOP/s as a
  percentage of NumPy's own float32 matmul throughput (the best of 1024^3 and 2048^3 products). Target >= 35 %.
- LeNet-style CNN training step (28x28 inputs, batch 64: conv 5x5 -> pool -> conv 5x5 -> pool -> 3 linear layers,
  cross-entropy, SGD): time and GFLOP/s.
- ``max_pool2d`` 2x2 forward against the hand-written four strided slices combined with ``np.maximum``. Target <= 2x.
- ``scaled_dot_product_attention``: a trace shows whether the number of executed Python lines grows with
  batch x heads (it must not: no Python loop over them); then its forward + backward time against hand-written NumPy.
- ``cross_entropy`` forward + backward against hand-written NumPy (log-softmax, pick, softmax - onehot). Target
  <= 1.5x.

Times are the best of several repeats (other processes on the machine only ever make a run slower).
"""
from __future__ import annotations

import sys
import time

import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.nn import functional as F


def best(fn, repeat=7, number=1, warmup=True):
    """Best wall time of ``fn`` in seconds (minimum over ``repeat`` runs of ``number`` calls)."""
    if warmup:
        fn()  # allocations, caches, lazy imports
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


# ------------------------------------------------------------------------------------------------ reference
def matmul_gflops():
    """NumPy float32 matmul throughput: the better of a 1024^3 and a 2048^3 product."""
    rates = []
    for n in (1024, 2048):
        a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
        b = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
        t = best(lambda: a @ b, repeat=7 if n == 1024 else 4)
        rates.append(2 * n ** 3 / t / 1e9)
    return max(rates)


# ------------------------------------------------------------------------------------------------------ conv
def conv_rows(peak):
    n, c, h, w, f, k = 32, 64, 32, 32, 64, 3
    flops_fwd = 2 * n * f * c * k * k * h * w
    x = em.randn(n, c, h, w, requires_grad=True)
    weight = em.randn(f, c, k, k, requires_grad=True)
    bias = em.randn(f, requires_grad=True)
    gy = em.randn(n, f, h, w)
    a = np.random.default_rng(0).standard_normal((1024, 1024)).astype(np.float32)

    def forward():
        with em.no_grad():
            F.conv2d(x, weight, bias, padding=1)

    def forward_backward():
        out = F.conv2d(x, weight, bias, padding=1)
        out.backward(gy)
        x.grad = weight.grad = bias.grad = None

    # interleave with a matmul so that both see the same machine load; the ratio uses the better matmul figure
    t_fwd = t_fb = t_mm = float("inf")
    forward_backward()
    forward()
    for _ in range(12):
        t_mm = min(t_mm, best(lambda: a @ a, repeat=1, warmup=False))
        t_fwd = min(t_fwd, best(forward, repeat=1, warmup=False))
        t_fb = min(t_fb, best(forward_backward, repeat=1, warmup=False))
    peak = max(peak, 2 * 1024 ** 3 / t_mm / 1e9)
    rate_fwd = flops_fwd / t_fwd / 1e9
    rate_fb = 3 * flops_fwd / t_fb / 1e9
    single = _single_thread_ratio(a, forward_backward, 3 * flops_fwd)
    return peak, [
        ("conv2d 3x3 64->64 (32,64,32,32) forward", t_fwd * 1e3, f"{rate_fwd:6.1f} GFLOP/s",
         f"{100 * rate_fwd / peak:5.1f} % of matmul", "-", None),
        ("conv2d 3x3 64->64 (32,64,32,32) fwd+bwd", t_fb * 1e3, f"{rate_fb:6.1f} GFLOP/s",
         f"{100 * rate_fb / peak:5.1f} % of matmul", ">= 35 %", rate_fb / peak >= 0.35),
    ] + single


def _single_thread_ratio(a, forward_backward, flops):
    """The same conv fwd+bwd against a 1024^3 matmul with BLAS limited to one thread: the kernel's efficiency
    without the thread-scaling of small GEMMs (which suffers most when other processes share the cores)."""
    from ember.core.distributed.threads import get_blas_threads, set_blas_threads
    before = get_blas_threads()
    if before is None or not set_blas_threads(1):
        return []
    try:
        t_mm = t_fb = float("inf")
        for _ in range(6):
            t_mm = min(t_mm, best(lambda: a @ a, repeat=1, warmup=False))
            t_fb = min(t_fb, best(forward_backward, repeat=1, warmup=False))
    finally:
        set_blas_threads(before)
    rate, mm = flops / t_fb / 1e9, 2 * 1024 ** 3 / t_mm / 1e9
    return [("  1 BLAS thread: numpy matmul 1024^3", float("nan"), f"{mm:6.1f} GFLOP/s", "100 %", "-", None),
            ("  1 BLAS thread: conv2d fwd+bwd", t_fb * 1e3, f"{rate:6.1f} GFLOP/s", f"{100 * rate / mm:5.1f} % of matmul",
             "-", None)]


# ------------------------------------------------------------------------------------------------------ LeNet
class LeNet(nn.Module):
    """LeNet-5 for 28x28 inputs (the first convolution pads by 2, as in the classic MNIST variant)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def lenet_rows(peak):
    batch = 64
    em.manual_seed(0)
    model = LeNet()
    opt = optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = em.randn(batch, 1, 28, 28)
    y = em.randint(0, 10, (batch,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    conv1 = 2 * batch * 6 * 1 * 25 * 28 * 28
    conv2 = 2 * batch * 16 * 6 * 25 * 10 * 10
    dense = 2 * batch * (400 * 120 + 120 * 84 + 84 * 10)
    # backward: two products per layer (input and weight gradients), except conv1 which needs no input gradient
    flops = conv1 * 2 + (conv2 + dense) * 3
    t = best(step, repeat=15)
    rate = flops / t / 1e9
    return [("LeNet step, 28x28, batch 64", t * 1e3, f"{rate:6.1f} GFLOP/s", f"{100 * rate / peak:5.1f} % of matmul",
             "-", None)]


# ------------------------------------------------------------------------------------------------- max-pool
def maxpool_rows():
    rows = []
    for shape in ((32, 64, 32, 32), (64, 32, 28, 28)):
        a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        t_np = best(lambda: np.maximum(np.maximum(a[..., ::2, ::2], a[..., 1::2, ::2]),
                                       np.maximum(a[..., ::2, 1::2], a[..., 1::2, 1::2])), repeat=15)
        plain = em.tensor(a)
        tracked = em.tensor(a, requires_grad=True)
        t_em = best(lambda: F.max_pool2d(plain, 2), repeat=15)
        t_graph = best(lambda: F.max_pool2d(tracked, 2), repeat=15)
        label = "x".join(map(str, shape))
        rows.append((f"max_pool2d 2x2 fwd {label}, numpy", t_np * 1e3, "", "1.00x", "-", None))
        rows.append((f"max_pool2d 2x2 fwd {label}, ember", t_em * 1e3, "", f"{t_em / t_np:5.2f}x", "<= 2x",
                     t_em / t_np <= 2))
        rows.append((f"  same, recording the graph", t_graph * 1e3, "", f"{t_graph / t_np:5.2f}x", "<= 2x",
                     t_graph / t_np <= 2))
    return rows


# ------------------------------------------------------------------------------------------------------ SDPA
def _lines_executed(fn):
    """Number of Python lines executed by ``fn()`` (all frames)."""
    count = [0]

    def tracer(frame, event, arg):
        if event == "line":
            count[0] += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count[0]


def sdpa_rows():
    sdpa = getattr(F, "scaled_dot_product_attention", None)
    if sdpa is None:
        return [("scaled_dot_product_attention", float("nan"), "n/a", "n/a", "-", None)]
    rng = np.random.default_rng(0)

    def make(b, h, length=16, d=8):
        return [em.tensor(rng.standard_normal((b, h, length, d)).astype(np.float32), requires_grad=True)
                for _ in range(3)]

    def run(qkv):
        out = sdpa(*qkv, is_causal=True)
        out.sum().backward()

    small, large = make(1, 1), make(4, 8)
    run(small)
    run(large)
    lines_small = _lines_executed(lambda: run(small))
    lines_large = _lines_executed(lambda: run(large))
    no_loop = lines_small == lines_large
    rows = [("SDPA Python lines, (B,H)=(1,1) vs (4,8)", float("nan"), f"{lines_small} vs {lines_large} lines",
             "no loop" if no_loop else "LOOP", "no loop", no_loop)]

    b, h, length, d = 8, 8, 256, 64
    q, k, v = (rng.standard_normal((b, h, length, d)).astype(np.float32) for _ in range(3))
    go = rng.standard_normal((b, h, length, d)).astype(np.float32)
    scale = np.float32(1 / np.sqrt(d))

    def numpy_attention():
        s = (q @ k.swapaxes(-1, -2)) * scale
        s -= s.max(-1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(-1, keepdims=True)
        out = p @ v
        # backward
        gv = p.swapaxes(-1, -2) @ go
        gp = go @ v.swapaxes(-1, -2)
        gs = p * (gp - (gp * p).sum(-1, keepdims=True))
        gq = (gs @ k) * scale
        gk = (gs.swapaxes(-1, -2) @ q) * scale
        return out, gq, gk, gv

    eq, ek, ev = (em.tensor(a, requires_grad=True) for a in (q, k, v))
    ego = em.tensor(go)

    def ember_attention():
        out = sdpa(eq, ek, ev)
        out.backward(ego)
        eq.grad = ek.grad = ev.grad = None

    t_np = best(numpy_attention, repeat=7)
    t_em = best(ember_attention, repeat=7)
    rows.append(("SDPA fwd+bwd (8,8,256,64), numpy", t_np * 1e3, "", "1.00x", "-", None))
    rows.append(("SDPA fwd+bwd (8,8,256,64), ember", t_em * 1e3, "", f"{t_em / t_np:5.2f}x", "-", None))
    return rows


# ---------------------------------------------------------------------------------------------- cross-entropy
def cross_entropy_rows():
    if not hasattr(F, "cross_entropy"):
        return [("cross_entropy", float("nan"), "n/a", "n/a", "-", None)]
    rows = []
    for n, c in ((256, 1000), (4096, 10)):
        rng = np.random.default_rng(0)
        logits = rng.standard_normal((n, c)).astype(np.float32)
        target = rng.integers(0, c, n)
        idx = np.arange(n)

        def numpy_ce():
            m = logits.max(1, keepdims=True)
            shifted = logits - m
            e = np.exp(shifted)
            s = e.sum(1, keepdims=True)
            logp = shifted - np.log(s)
            loss = -logp[idx, target].mean()
            grad = e / s
            grad[idx, target] -= 1
            grad *= np.float32(1 / n)
            return loss, grad

        x = em.tensor(logits, requires_grad=True)
        y = em.tensor(target)

        def ember_ce():
            F.cross_entropy(x, y).backward()
            x.grad = None

        t_np = best(numpy_ce, repeat=15)
        t_em = best(ember_ce, repeat=15)
        rows.append((f"cross_entropy fwd+bwd ({n},{c}), numpy", t_np * 1e3, "", "1.00x", "-", None))
        rows.append((f"cross_entropy fwd+bwd ({n},{c}), ember", t_em * 1e3, "", f"{t_em / t_np:5.2f}x", "<= 1.5x",
                     t_em / t_np <= 1.5))
    return rows


def main():
    peak, conv = conv_rows(matmul_gflops())
    rows = [("numpy float32 matmul (best of 1024^3, 2048^3)", float("nan"), f"{peak:6.1f} GFLOP/s", "100 %", "-",
             None)]
    rows += conv + lenet_rows(peak) + maxpool_rows() + sdpa_rows() + cross_entropy_rows()
    print(f"{'benchmark':48s} {'time ms':>9s}  {'rate':>22s} {'ratio':>20s}  {'target':8s} met")
    print("-" * 118)
    for name, ms, rate, ratio, target, ok in rows:
        t = f"{ms:9.2f}" if ms == ms else f"{'':9s}"
        met = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:48s} {t}  {rate:>22s} {ratio:>20s}  {target:8s} {met}")
    print(f"\nnumpy {np.__version__}; ratios are against the numpy rows measured in this run")


if __name__ == "__main__":
    main()
