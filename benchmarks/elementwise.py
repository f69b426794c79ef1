"""Elementwise math/compare overhead: ember op vs the same NumPy expression, same run (python benchmarks/elementwise.py)."""
import timeit

import numpy as np

import ember as em


def best(fn, n):
    return min(timeit.repeat(fn, number=n, repeat=5)) / n


def main():
    print(f"{'op':<22}{'size':>9}{'numpy us':>11}{'ember us':>11}{'ratio':>8}{'w/ grad':>9}")
    for size in (100, 1_000_000):
        a = np.random.default_rng(0).standard_normal(size).astype(np.float32)
        x, xg = em.tensor(a), em.tensor(a, requires_grad=True)
        c = a > 0
        ct = em.tensor(c)
        cases = [("exp", lambda: np.exp(a), lambda t: em.exp(t)),
                 ("log(|x|)", lambda: np.log(np.abs(a)), lambda t: em.log(t.abs())),
                 ("tanh", lambda: np.tanh(a), lambda t: em.tanh(t)),
                 ("sigmoid", lambda: 1 / (1 + np.exp(-a)), lambda t: em.sigmoid(t)),
                 ("relu", lambda: np.maximum(a, 0), lambda t: em.relu(t)),
                 ("clamp(-1, 1)", lambda: np.minimum(np.maximum(a, -1), 1), lambda t: em.clamp(t, -1, 1)),
                 ("where(c, x, 0)", lambda: np.where(c, a, 0), lambda t: em.where(ct, t, 0.0)),
                 ("where(c, x, -x)", lambda: np.where(c, a, -a), lambda t: em.where(ct, t, -t)),
                 ("logaddexp(x, -x)", lambda: np.logaddexp(a, -a), lambda t: em.logaddexp(t, -t)),
                 ("softplus", lambda: np.where(a > 20, a, np.logaddexp(0, a)), lambda t: em.nn.functional.softplus(t)),
                 ("maximum(x, x)", lambda: np.maximum(a, a), lambda t: em.maximum(t, t)),
                 ("x ** 3", lambda: a ** 3, lambda t: t ** 3),
                 ("x ** 4", lambda: a ** 4, lambda t: t ** 4),
                 ("x > 0.5", lambda: a > 0.5, lambda t: t > 0.5),
                 ("erf", None, lambda t: em.erf(t))]
        n = 20_000 if size == 100 else 10
        for name, ref, op in cases:
            t_np = best(ref, n) if ref else float("nan")
            t_em = best(lambda: op(x), n)
            t_gr = best(lambda: op(xg), n) if name != "x > 0.5" else float("nan")
            print(f"{name:<22}{size:>9}{t_np * 1e6:>11.1f}{t_em * 1e6:>11.1f}{t_em / t_np:>8.2f}"
                  f"{t_gr / t_np:>9.2f}")


if __name__ == "__main__":
    main()
