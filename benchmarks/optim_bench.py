"""Optimizer step cost: ember's Adam and SGD-momentum against the same update written by hand in NumPy.

Every ratio is measured in the same run, against two hand-written NumPy versions of the identical arithmetic:
"in place" (``np.multiply(m, b1, out=m)`` style with one reused buffer, the fastest plain NumPy) and "naive"
(ordinary expressions that allocate temporaries). ember runs element-wise updates on 256 KiB blocks per array, so
on one large tensor its passes stay in the L2 cache and it beats even the in-place NumPy; the 20-tensor row shows the
per-tensor Python overhead instead. Run:

    python benchmarks/optim_bench.py

``rows()`` returns the table rows ``(name, value, unit, ratio, target)`` so ``benchmarks/data_optim.py`` can print
them in its own table.
"""
from __future__ import annotations

import math
import timeit

import numpy as np

import ember as em

N_PARAMS = 1_000_000
LR, BETA1, BETA2, EPS, MOMENTUM = 1e-3, 0.9, 0.999, 1e-8, 0.9


def _best(fn, number=10, repeat=7):
    """Best time per call in seconds."""
    fn()  # warm-up: lazy state and scratch buffers are allocated on the first step
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def _arrays(sizes, seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(n).astype(np.float32) for n in sizes]
    grads = [rng.standard_normal(n).astype(np.float32) for n in sizes]
    return params, grads


def _numpy_adam_inplace(sizes):
    params, grads = _arrays(sizes)
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    tmp = np.empty(max(sizes), np.float32)
    step = [0]

    def run():
        step[0] += 1
        t = step[0]
        bc1, bc2_sqrt = 1 - BETA1 ** t, math.sqrt(1 - BETA2 ** t)
        for p, g, m, v in zip(params, grads, ms, vs):
            buf = tmp[:p.size]
            m *= BETA1
            np.multiply(g, 1 - BETA1, out=buf)
            m += buf
            v *= BETA2
            np.multiply(g, g, out=buf)
            buf *= 1 - BETA2
            v += buf
            np.sqrt(v, out=buf)
            buf /= bc2_sqrt
            buf += EPS
            np.divide(m, buf, out=buf)
            buf *= -LR / bc1
            p += buf
    return run


def _numpy_adam_naive(sizes):
    params, grads = _arrays(sizes)
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    step = [0]

    def run():
        step[0] += 1
        t = step[0]
        for i, g in enumerate(grads):
            ms[i] = BETA1 * ms[i] + (1 - BETA1) * g
            vs[i] = BETA2 * vs[i] + (1 - BETA2) * g * g
            m_hat = ms[i] / (1 - BETA1 ** t)
            v_hat = vs[i] / (1 - BETA2 ** t)
            params[i] -= LR * m_hat / (np.sqrt(v_hat) + EPS)
    return run


def _numpy_sgd_inplace(sizes):
    params, grads = _arrays(sizes)
    bufs = [g.copy() for g in grads]
    tmp = np.empty(max(sizes), np.float32)

    def run():
        for p, g, b in zip(params, grads, bufs):
            out = tmp[:p.size]
            b *= MOMENTUM
            b += g
            np.multiply(b, -LR, out=out)
            p += out
    return run


def _ember_step(sizes, make_optimizer):
    params, grads = _arrays(sizes)
    tensors = []
    for p, g in zip(params, grads):
        t = em.tensor(p, requires_grad=True)
        t.grad = em.tensor(g)
        tensors.append(t)
    opt = make_optimizer(tensors)
    return opt.step


def _compare(label, sizes, ember_fn, numpy_fns):
    t_em = _best(ember_fn)
    rows = []
    for kind, fn, target in numpy_fns:
        t_np = _best(fn)
        rows.append((f"{label}: numpy {kind}", t_np * 1e3, "ms", 1.0, "-"))
        rows.append((f"{label}: ember / numpy {kind}", t_em * 1e3, "ms", t_em / t_np, target))
    return rows


def rows():
    """The benchmark table rows ``(name, value, unit, ratio, target)``; ratios are ember over NumPy."""
    one = [N_PARAMS]
    split = [N_PARAMS // 20] * 20  # the same million parameters as 20 tensors: per-tensor overhead shows here
    out = []
    out += _compare("Adam, 1 x 1M", one, _ember_step(one, lambda ps: em.optim.Adam(ps, lr=LR)),
                    [("in place", _numpy_adam_inplace(one), "<= 1.5x"),
                     ("naive", _numpy_adam_naive(one), "<= 1.5x")])
    out += _compare("Adam, 20 x 50k", split, _ember_step(split, lambda ps: em.optim.Adam(ps, lr=LR)),
                    [("in place", _numpy_adam_inplace(split), "<= 1.5x")])
    out += _compare("SGD momentum, 1 x 1M", one,
                    _ember_step(one, lambda ps: em.optim.SGD(ps, lr=LR, momentum=MOMENTUM)),
                    [("in place", _numpy_sgd_inplace(one), "<= 1.5x")])
    return out


def main():
    table = rows()
    print(f"{'benchmark':44s} {'time':>10s} {'unit':4s} {'ratio':>8s}  target")
    print("-" * 82)
    for name, value, unit, ratio, target in table:
        print(f"{name:44s} {value:10.3f} {unit:4s} {ratio:8.2f}x  {target}")
    print("\nfloat32, one optimizer step; ratio = ember time / the NumPy row above it (same run)")


if __name__ == "__main__":
    main()
