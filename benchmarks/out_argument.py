"""The cost of ``out=``: the functional API (``em.add``, which accepts ``out=``) against the op without the
argument (``ember.core.ops.arithmetic.add``) and the operator, and writing into ``out=`` against allocating.

    python benchmarks/out_argument.py [--repeat 7]

Each row is the median-of-best time per call; ratios are against the op without ``out`` in the same run.
"""
from __future__ import annotations

import argparse
import timeit

import ember as em
from ember.core.ops import arithmetic


def _best(fn, number, repeat):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    print(f"{'size':>9} {'case':<28} {'us/call':>9} {'ratio':>7}")
    for size in (8, 100_000):
        x, y = em.randn(size), em.randn(size)
        out = em.empty(size)
        number = 20_000 if size < 1000 else 200
        base = _best(lambda: arithmetic.add(x, y), number, args.repeat)
        rows = [("ops.arithmetic.add(x, y)", base),
                ("em.add(x, y)", _best(lambda: em.add(x, y), number, args.repeat)),
                ("x + y", _best(lambda: x + y, number, args.repeat)),
                ("em.add(x, y, out=out)", _best(lambda: em.add(x, y, out=out), number, args.repeat))]
        for name, t in rows:
            print(f"{size:>9} {name:<28} {t * 1e6:>9.2f} {t / base:>7.2f}")


if __name__ == "__main__":
    main()
