"""Start-up time of the ``trainer`` command: ``trainer --help`` and ``trainer fit`` up to its first training batch.

Targets (issue #9): ``trainer --help`` <= 0.5 s and the first training batch of ``trainer fit
examples/digits/config.yaml`` <= 1.5 s after the process starts. Each command runs in a fresh subprocess, after one
warm-up run that writes the ``.pyc`` files (``PYTHONDONTWRITEBYTECODE`` is removed from the environment, otherwise
every import recompiles). Figures are the best (least disturbed) and the median of ``--repeat`` runs, shown beside
the cost of starting Python and of ``import numpy`` / ``import ember`` measured in the same run; the target is
checked on the best run.

    python benchmarks/cli.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIGITS_CONFIG = os.path.join(ROOT, "examples", "digits", "config.yaml")

PROBE = textwrap.dedent('''
    """Records when the CLI resolved this callback, when fit started and when the first training batch began,
    then ends the process (the benchmark only times the start-up)."""
    import os
    import time

    from ember.callbacks import Callback

    RESOLVED = time.time()


    class FirstBatchProbe(Callback):
        def on_fit_start(self, trainer, pl_module):
            self.fit_start = time.time()

        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            with open(os.environ["EMBER_BENCH_OUT"], "w") as f:
                f.write(f"{RESOLVED} {self.fit_start} {time.time()}")
            os._exit(0)
''')


def _env():
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(cmd, cwd, env) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _first_batch(cmd, cwd, env, out_file):
    """(seconds to the callback being resolved, to fit start, to the first batch) after the process started."""
    for name in ("lightning_logs",):
        shutil.rmtree(os.path.join(cwd, name), ignore_errors=True)
    start = time.time()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out_file) as f:
        resolved, fit_start, batch = (float(v) for v in f.read().split())
    return resolved - start, fit_start - start, batch - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    py = sys.executable
    script = os.path.join(os.path.dirname(py), "trainer")
    trainer_cmd = [script] if os.path.isfile(script) else [py, "-m", "ember"]
    env = _env()
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "probe.py"), "w") as f:
            f.write(PROBE)
        import yaml
        with open(DIGITS_CONFIG) as f:
            digits = yaml.safe_load(f)
        callbacks = digits["trainer"]["callbacks"] + [{"class_path": "probe.FirstBatchProbe"}]
        with open(os.path.join(tmp, "probe.yaml"), "w") as f:
            yaml.safe_dump({"trainer": {"callbacks": callbacks, "enable_progress_bar": False}}, f)
        out_file = os.path.join(tmp, "times.txt")
        env["EMBER_BENCH_OUT"] = out_file
        fit_cmd = trainer_cmd + ["fit", DIGITS_CONFIG, os.path.join(tmp, "probe.yaml")]

        simple = [
            ("python -c pass", [py, "-c", "pass"]),
            ("python -c 'import numpy'", [py, "-c", "import numpy"]),
            ("python -c 'import ember'", [py, "-c", "import ember"]),
            ("trainer --help", trainer_cmd + ["--help"]),
            ("trainer fit --help", trainer_cmd + ["fit", "--help"]),
            ("trainer fit config.yaml --help", trainer_cmd + ["fit", DIGITS_CONFIG, "--help"]),
        ]
        for _, cmd in simple:  # warm-up: writes the .pyc files
            _time(cmd, tmp, env)
        _first_batch(fit_cmd, tmp, env, out_file)
        results = {name: [_time(cmd, tmp, env) for _ in range(args.repeat)] for name, cmd in simple}
        fb = [_first_batch(fit_cmd, tmp, env, out_file) for _ in range(args.repeat)]
        for i, name in enumerate(("trainer fit digits: config resolved", "trainer fit digits: on_fit_start",
                                  "trainer fit digits: first training batch")):
            results[name] = [x[i] for x in fb]

    base = min(results["python -c 'import ember'"])
    print(f"trainer start-up ({' '.join(os.path.basename(c) for c in trainer_cmd)}), {args.repeat} runs each, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<46}{'best s':>8}{'median s':>10}{'best / import ember':>21}{'target':>10}")
    targets = {"trainer --help": 0.5, "trainer fit --help": 0.5, "trainer fit digits: first training batch": 1.5}
    for name, times in results.items():
        best = min(times)
        target = targets.get(name)
        mark = "" if target is None else (f"{target:.1f} ok" if best <= target else f"{target:.1f} SLOW")
        print(f"{name:<46}{best:>8.3f}{statistics.median(times):>10.3f}{best / base:>21.2f}{mark:>10}")


if __name__ == "__main__":
    main()
