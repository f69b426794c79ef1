"""Profiler overhead: what ``ember.profiler`` costs when idle (target: nothing measurable) and when recording.

Idle: the micro ops of ``benchmarks/core_ops.py`` are timed in fresh processes, alternately one where no profiler
ever ran and one where a profiler started and stopped first (its wrappers and module hooks removed); the median
ratio idle/never should be 1.00 within the pairs' range. ``record_function`` outside a profile is compared with an empty
``with`` block. Active: the same ops inside ``profile()``, reported as the extra microseconds per op.

    python benchmarks/profiler.py
"""
from __future__ import annotations

import contextlib
import json
import statistics
import subprocess
import sys
import timeit

import numpy as np

import ember as em
from ember.profiler import profile, record_function


def best(fn, number, repeat=5):
    """Best time per call in seconds."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def micro_ops():
    """name -> (function, calls per timing): core_ops.py's per-op rows plus a module call."""
    a, b = em.ones(1), em.ones(1)
    ga, gb = em.ones(1, requires_grad=True), em.ones(1, requires_grad=True)
    lin = em.nn.Linear(8, 8)
    x = em.ones(4, 8)

    def tiny():
        (ga * gb + ga).sum().backward()

    return {
        "a + b, no grad": (lambda: a + b, 20_000),
        "a + b, graph recorded": (lambda: ga + gb, 20_000),
        "(a*b + a).sum().backward()": (tiny, 3_000),
        "Linear(8, 8) module call": (lambda: lin(x), 10_000),
    }


def _child(state):
    """In a fresh process: time the micro ops, after running one profiler first when ``state == "idle"``."""
    ops = micro_ops()
    if state == "idle":
        with profile():
            em.ones(2) + 1
    for fn, n in ops.values():
        best(fn, n, repeat=2)  # warm-up
    print(json.dumps({name: best(fn, n) for name, (fn, n) in ops.items()}))


def idle_rows(ops, pairs=6):
    """Fresh processes in turn, never-profiled then idle (A B A B ...), so machine drift hits both sides alike;
    per op the median of the pairwise ratios idle/never, with their range."""
    def run(state):
        out = subprocess.run([sys.executable, __file__, "--child", state], capture_output=True, text=True, check=True)
        return json.loads(out.stdout)
    ratios = {name: [] for name in ops}
    idle_times = {name: [] for name in ops}
    for _ in range(pairs):
        never, idle = run("never"), run("idle")
        for name in ops:
            ratios[name].append(idle[name] / never[name])
            idle_times[name].append(idle[name])
    rows = [(f"{name}: idle / never profiled", statistics.median(idle_times[name]) * 1e6, "us",
             statistics.median(ratios[name]), f"pairs range {min(ratios[name]):.2f}-{max(ratios[name]):.2f}")
            for name in ops]
    rows.append(("left installed after stop (wrappers, hooks)", _left_installed(), "obj", 1.0,
                 "0: the idle path is the never-profiled code"))
    t_empty = best(lambda: _empty_with(), 50_000, repeat=9)
    t_rf = best(lambda: _record_function_block(), 50_000, repeat=9)
    rows.append(("record_function block, no profiler", t_rf * 1e6, "us", t_rf / t_empty, "vs an empty `with` block"))
    return rows


def _left_installed():
    """Op wrappers, node observers and global module hooks still present after a profiler stopped."""
    from ember.core import observe
    from ember.core.autograd import engine
    from ember.core.nn.modules import module
    with profile():
        em.ones(2) + 1
    wrapper_code = observe._wrap(len, "len").__code__  # every op wrapper runs this code
    wrapped = sum(1 for value in vars(em.Tensor).values() if getattr(value, "__code__", None) is wrapper_code)
    return float(wrapped + len(observe._PATCHES) + len(engine.NODE_OBSERVERS) + len(module._global_forward_hooks)
                 + len(module._global_forward_pre_hooks))


def _empty_with():
    with contextlib.nullcontext():
        pass


def _record_function_block():
    with record_function("x"):
        pass


def active_rows(ops):
    """Each op inside ``profile()`` against the same op unprofiled, alternating the two (best of each side)."""
    rows = []
    for label, kwargs in (("", {}), (", shapes+memory", {"record_shapes": True, "profile_memory": True})):
        for name, (fn, n) in ops.items():
            plain, active = float("inf"), float("inf")
            for _ in range(5):
                plain = min(plain, timeit.timeit(fn, number=n) / n)
                with profile(**kwargs):
                    active = min(active, timeit.timeit(fn, number=n) / n)
            events_per_call = _events_per_call(fn, kwargs)
            extra = (active - plain) / events_per_call * 1e6
            rows.append((f"{name}: profiled{label}", active * 1e6, "us", active / plain,
                         f"+{extra:.2f} us per event ({events_per_call:g} events per call)"))
    return rows


def _events_per_call(fn, kwargs):
    with profile(**kwargs) as prof:
        fn()
    return len(prof.events())


def numpy_reference():
    a = np.ones(1, np.float32)
    t = best(lambda: np.add(a, a), 50_000)
    return [("numpy add, 1 element (reference)", t * 1e6, "us", 1.0, "-")]


def main():
    if sys.argv[1:2] == ["--child"]:
        return _child(sys.argv[2])
    ops = micro_ops()
    rows = numpy_reference() + idle_rows(ops) + active_rows(ops)
    print(f"{'benchmark':52s} {'time':>9s} {'unit':4s} {'ratio':>7s}  note")
    print("-" * 110)
    for name, value, unit, ratio, note in rows:
        print(f"{name:52s} {value:9.2f} {unit:4s} {ratio:7.2f}x  {note}")
    print("\nratios: idle rows = median over process pairs of idle/never-profiled (best of 5 each); profiled rows to the "
          "same op unprofiled, alternating (best of 5 each); us per event = extra time per recorded event")


if __name__ == "__main__":
    main()
