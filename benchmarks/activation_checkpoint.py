"""Activation checkpointing (``ember.utils.checkpoint``) on a 20-layer MLP: same gradients, lower peak memory.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/activation_checkpoint.py

Peak memory is what ``tracemalloc`` sees (NumPy reports its array allocations to it) during one forward and
backward, above what is allocated before the step (model, input). Every figure is a ratio to the plain forward
measured in the same run; the gradient column is the largest absolute difference from the plain gradients.

``checkpoint_sequential(n)`` cuts the model into ``n`` segments and keeps only the segment boundaries (the last
segment runs plainly); backward recomputes one segment at a time. The gain grows with the activations a segment
would otherwise keep, and is largest near ``n = sqrt(layers)``; the parameters' gradients (allocated in both
variants) bound it from below.
"""
import argparse
import time
import tracemalloc

import numpy as np

import ember as em
from ember.utils.checkpoint import checkpoint_sequential


def make_model(depth: int, width: int) -> em.nn.Sequential:
    em.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [em.nn.Linear(width, width), em.nn.Tanh()]
    return em.nn.Sequential(*layers)


def plain(model, x):
    return model(x)


def make_segments(n):
    def run(model, x):
        return checkpoint_sequential(model, n, x, use_reentrant=False)
    run.__name__ = f"checkpoint_sequential({n})"
    return run


def step(model, x, forward):
    """Peak bytes above the baseline, seconds, and the gradients of one forward + backward."""
    model.zero_grad(set_to_none=True)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    forward(model, x).square().mean().backward()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return peak, seconds, [p.grad.numpy().copy() for p in model.parameters()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    model = make_model(args.depth, args.width)
    x = em.randn(args.batch, args.width)
    variants = [plain, make_segments(10), make_segments(5), make_segments(4), make_segments(2)]
    results = {}
    step(model, x, plain)  # warm-up: the first step pays for first-use allocations and imports
    for forward in variants:
        runs = [step(model, x, forward) for _ in range(args.repeats)]
        peak = min(r[0] for r in runs)
        seconds = float(np.median([r[1] for r in runs]))
        results[forward.__name__] = (peak, seconds, runs[-1][2])
    ref_peak, ref_time, ref_grads = results["plain"]
    print(f"{args.depth}-layer MLP, width {args.width}, batch {args.batch}, float32 "
          f"(one activation: {args.batch * args.width * 4 / 2**20:.1f} MiB)")
    print(f"{'variant':<26}{'peak MiB':>10}{'peak / plain':>14}{'time / plain':>14}{'max |grad diff|':>18}")
    for name, (peak, seconds, grads) in results.items():
        diff = max(float(np.max(np.abs(g - r))) for g, r in zip(grads, ref_grads))
        print(f"{name:<26}{peak / 2**20:>10.1f}{peak / ref_peak:>14.2f}{seconds / ref_time:>14.2f}{diff:>18.1e}")


if __name__ == "__main__":
    main()
