"""Config loading time for large configs (issue 18): ``trainer`` reads a YAML config in time linear in its size.

For N keys under ``model.init_args`` (each a one-item list), the table shows, measured in the same run:
PyYAML's ``yaml.safe_load`` of the text (the reference), ember's ``load_file`` (bounded composer, origins of every
key), and ``load_file`` plus merging a second file that sets the same N keys (the case that was quadratic: 40,000
keys took 116 s). The ratio columns divide by the reference; linear scaling keeps them flat as N grows.

    python benchmarks/config_loading.py [--keys 10000 20000 40000]
"""
from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from ember.trainer.cli.config_files import load_file, merge_into  # noqa: E402


def _best(fn, repeat=3):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Print the table."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, nargs="+", default=[10_000, 20_000, 40_000])
    args = parser.parse_args()
    print(f"{'keys':>7} {'safe_load s':>12} {'load_file s':>12} {'ratio':>6} {'load+merge s':>13} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.keys:
            text = "model:\n  class_path: Net\n  init_args:\n" + "".join(f"    k{i}: [{i}]\n" for i in range(n))
            path = os.path.join(tmp, f"c{n}.yaml")
            with open(path, "w") as f:
                f.write(text)

            def load_and_merge():
                data, where = load_file(path)
                merge_into(copy.deepcopy(data), dict(where), data, where)
            ref = _best(lambda: yaml.safe_load(text))
            ours = _best(lambda: load_file(path))
            both = _best(load_and_merge)
            print(f"{n:>7} {ref:>12.3f} {ours:>12.3f} {ours / ref:>6.2f} {both:>13.3f} {both / ref:>6.2f}")


if __name__ == "__main__":
    main()
