"""Indexing, shape and reduction ops: ember against plain NumPy doing the same arithmetic (same run, min of repeats).

Run: python benchmarks/bench_index.py
"""
import timeit

import numpy as np

import ember as em


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def row(name, ember_fn, numpy_fn, number=2000):
    te, tn = best(ember_fn, number), best(numpy_fn, number)
    print(f"{name:<44s} {te * 1e6:10.1f} {tn * 1e6:10.1f} {te / tn:8.2f}")


def main():
    rng = np.random.default_rng(0)
    print(f"{'op':<44s} {'ember us':>10s} {'numpy us':>10s} {'ratio':>8s}")
    small = em.randn(64, 10)
    a_small = small.numpy()
    row("x[i] (64x10)", lambda: small[3], lambda: a_small[3], 50000)
    row("x[:, 0] (64x10)", lambda: small[:, 0], lambda: a_small[:, 0], 50000)
    idx = em.tensor(rng.integers(0, 64, 32))
    row("x[idx] (64x10, 32 rows)", lambda: small[idx], lambda: a_small[idx.numpy()], 20000)

    # embedding-style backward: rows gathered with many repeats, gradient scattered back
    vocab, dim, n = 5000, 128, 4096
    table = np.zeros((vocab, dim), np.float32)
    rows = rng.integers(0, vocab, n)
    grad = rng.standard_normal((n, dim)).astype(np.float32)
    w = em.zeros(vocab, dim, requires_grad=True)
    out = w[em.tensor(rows)]
    g_t = em.tensor(grad)

    def ember_backward():
        return em.autograd.grad(out, w, g_t, retain_graph=True)

    def numpy_add_at():
        res = np.zeros_like(table)
        np.add.at(res, rows, grad)
        return res
    row(f"x[idx] backward ({vocab}x{dim}, {n} idx) vs np.add.at", ember_backward, numpy_add_at, 20)

    src = em.tensor(rng.standard_normal((256, 64)).astype(np.float32))
    index = em.tensor(rng.integers(0, 64, (256, 64)))
    target = em.zeros(256, 64)
    row("gather dim 1 (256x64)", lambda: src.gather(1, index),
        lambda: np.take_along_axis(src.numpy(), index.numpy(), 1), 2000)

    def np_scatter_add():
        out = np.zeros((256, 64), np.float32)
        np.add.at(out, (np.arange(256)[:, None], index.numpy()), src.numpy())
        return out
    row("scatter_add dim 1 (256x64) vs N-D np.add.at", lambda: target.scatter_add(1, index, src), np_scatter_add,
        500)

    parts = [em.randn(32, 64) for _ in range(8)]
    arrays = [p.numpy() for p in parts]
    row("cat 8 x (32x64)", lambda: em.cat(parts), lambda: np.concatenate(arrays), 5000)
    row("stack 8 x (32x64)", lambda: em.stack(parts), lambda: np.stack(arrays), 5000)
    row("split (256x64) into 8 + cat", lambda: em.cat(em.randn(256, 64).split(32)), lambda: np.concatenate(
        np.split(np.random.standard_normal((256, 64)).astype(np.float32), 8)), 2000)

    x = em.randn(256, 512)
    a = x.numpy()
    row("amax dim 1 (256x512)", lambda: x.amax(1), lambda: a.max(1), 500)
    row("max dim 1 values+indices (256x512)", lambda: x.max(1),
        lambda: np.take_along_axis(a, a.argmax(1)[:, None], 1), 500)
    row("var dim 1 (256x512)", lambda: x.var(1), lambda: a.var(1, ddof=1), 500)
    row("logsumexp dim 1 (256x512)", lambda: x.logsumexp(1),
        lambda: np.log(np.exp(a - a.max(1, keepdims=True)).sum(1)) + a.max(1), 200)
    row("cumsum dim 1 (256x512)", lambda: x.cumsum(1), lambda: a.cumsum(1), 500)
    row("norm (256x512)", lambda: x.norm(), lambda: np.sqrt((a * a).sum()), 500)


if __name__ == "__main__":
    main()
