"""``ember.utils.benchmark``: time a snippet, as ``torch.utils.benchmark`` does.

    >>> t = em.utils.benchmark.Timer(stmt="x @ x", globals={"x": em.randn(64, 64)})
    >>> t.timeit(100)                   # one measurement of 100 runs
    >>> t.blocked_autorange()           # many measurements, each of a block sized to hide the timer's overhead

A :class:`Measurement` holds the raw times and prints its median and interquartile range like PyTorch's. The
statement runs with ``ember`` (and ``torch``, for code written against PyTorch) already in its globals.
"""
from __future__ import annotations

import textwrap
import timeit as _timeit
from typing import Callable, Dict, List, Optional

import numpy as np

__all__ = ["Timer", "Measurement", "select_unit"]

# An interquartile range above these fractions of the median earns the measurement a warning (as in PyTorch).
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


def select_unit(t: float):
    """The unit that shows ``t`` seconds as a number of order 1: ``("us", 1e-6)`` for 2.5e-6."""
    exponent = int(np.log10(t) // 3) if t > 0 else -3
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "ns" if exponent < -3 else "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def _tidy(code: str) -> str:
    """Dedent a snippet and drop the first newline of a triple-quoted block, so it runs and prints cleanly."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class Measurement:
    """The result of a :class:`Timer` run: ``raw_times`` (seconds per block of ``number_per_run`` runs).

    ``times``, ``median``, ``mean`` and ``iqr`` are per single run.
    """

    def __init__(self, number_per_run: int, raw_times: List[float], stmt: str = "pass", setup: str = "pass",
                 label: Optional[str] = None, sub_label: Optional[str] = None, description: Optional[str] = None,
                 env: Optional[str] = None, num_threads: int = 1, metadata: Optional[dict] = None) -> None:
        self.number_per_run = int(number_per_run)
        self.raw_times = [float(t) for t in raw_times]
        self.stmt, self.setup = stmt, setup
        self.label, self.sub_label, self.description, self.env = label, sub_label, description, env
        self.num_threads = num_threads
        self.metadata = metadata

    @property
    def times(self) -> List[float]:
        """Seconds per run, one entry per measurement."""
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q: float) -> float:
        return float(np.percentile(self.times, q))

    @property
    def median(self) -> float:
        """The median time of one run, in seconds."""
        return float(np.median(self.times))

    @property
    def mean(self) -> float:
        """The mean time of one run, in seconds."""
        return float(np.mean(self.times))

    @property
    def iqr(self) -> float:
        """The interquartile range of the per-run times, in seconds."""
        return self._quantile(75) - self._quantile(25)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """True when the interquartile range is below ``threshold`` times the median."""
        return self.iqr / self.median < threshold

    @property
    def has_warnings(self) -> bool:
        """True when the spread of the measurements is suspiciously large."""
        return bool(self._warnings())

    def _warnings(self) -> List[str]:
        if len(self.raw_times) < 2 or self.median <= 0:
            return []
        spread = self.iqr / self.median * 100
        if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
            advice = "This suggests significant environmental influence."
        elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
            advice = "This could indicate system fluctuation."
        else:
            return []
        return [f"  WARNING: Interquartile range is {spread:.1f}% of the median measurement.\n           {advice}"]

    @property
    def title(self) -> str:
        """The label (or the statement) that heads the printout."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        return f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n" + textwrap.indent(self.stmt, "  ")

    def _summary(self) -> str:
        setup = ("" if self.setup in ("pass", "") else
                 "setup:\n" + textwrap.indent(self.setup, "  ") if "\n" in self.setup else f"setup: {self.setup}")
        parts = [p for p in (self.title, self.description or "", setup) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)

    def __repr__(self) -> str:
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self._summary(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({self._quantile(25) / scale:.2f} to "
                         f"{self._quantile(75) / scale:.2f})")
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {self.num_threads} thread"
                     f"{'s' if self.num_threads > 1 else ''}")
        lines.extend(self._warnings())
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements) -> List["Measurement"]:
        """Merge replicates of the same statement into one measurement each (times per single run)."""
        groups: Dict[tuple, List[Measurement]] = {}
        for m in measurements:
            groups.setdefault((m.stmt, m.setup, m.label, m.sub_label, m.description, m.env, m.num_threads),
                              []).append(m)
        return [Measurement(1, [t for m in group for t in m.times], stmt=key[0], setup=key[1], label=key[2],
                            sub_label=key[3], description=key[4], env=key[5], num_threads=key[6])
                for key, group in groups.items()]


class Timer:
    """Time the Python statement ``stmt`` after running ``setup`` once, like ``torch.utils.benchmark.Timer``.

    Args:
        stmt (str): the code to time.
        setup (str): code run once before timing.
        timer (callable): the clock (default: ``timeit.default_timer``).
        globals (dict): names the code sees (copied); ``ember`` and ``torch`` (ember too) are added if missing.
        label, sub_label, description, env (str): shown when the measurement is printed.
        num_threads (int): shown in the printout (ember's kernels pick their own thread count).
    """

    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: Optional[str] = None,
                 timer: Callable[[], float] = _timeit.default_timer, globals: Optional[dict] = None,
                 label: Optional[str] = None, sub_label: Optional[str] = None, description: Optional[str] = None,
                 env: Optional[str] = None, num_threads: int = 1, language: str = "python") -> None:
        if not isinstance(stmt, str):
            raise ValueError(f"Timer(stmt={stmt!r}): only a str statement is supported")
        if str(language).lower() not in ("python", "py"):
            raise ValueError(f"Timer(language={language!r}): ember times Python code only; use language='python'")
        if global_setup is not None:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`")
        import ember
        self._globals = dict(globals or {})
        self._globals.setdefault("ember", ember)
        self._globals.setdefault("torch", ember)  # code written against PyTorch names its module "torch"
        self._stmt, self._setup = _tidy(stmt), _tidy(setup)
        self._timer = _timeit.Timer(stmt=self._stmt, setup=self._setup, timer=timer, globals=self._globals)
        self._spec = dict(stmt=self._stmt, setup=self._setup, label=label, sub_label=sub_label,
                          description=description, env=env, num_threads=num_threads)

    def _measurement(self, number: int, times: List[float]) -> Measurement:
        return Measurement(number, times, **self._spec)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run ``stmt`` ``number`` times (after a short warm-up) and return one measurement."""
        self._timer.timeit(number=max(number // 100, 1))  # warm-up
        return self._measurement(number, [self._timer.timeit(number=number)])

    def _block_size(self, min_run_time: float) -> int:
        """The smallest power-of-ten block whose run time dwarfs the timer's own overhead."""
        overhead = float(np.median([self._timer.timeit(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._timer.timeit(number)
            if taken > min_run_time or (taken > 0 and overhead / taken <= 1e-4 and taken >= min_run_time / 1000):
                return number
            number *= 10

    def blocked_autorange(self, callback: Optional[Callable[[int, float], None]] = None,
                          min_run_time: float = 0.2) -> Measurement:
        """Time blocks of runs until ``min_run_time`` seconds have been spent; ``callback(number, seconds)`` is
        called after each block."""
        number = self._block_size(min_run_time)
        times, total = [], 0.0
        while total < min_run_time:
            spent = self._timer.timeit(number)
            times.append(spent)
            total += spent
            if callback is not None:
                callback(number, spent)
        return self._measurement(number, times)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback: Optional[Callable[[int, float], None]] = None) -> Measurement:
        """Time blocks until the interquartile range is below ``threshold`` times the median (after at least 4
        blocks and ``min_run_time`` seconds) or ``max_run_time`` seconds have passed."""
        number = self._block_size(0.05)
        times, total = [], 0.0
        while True:
            spent = self._timer.timeit(number)
            times.append(spent)
            total += spent
            if callback is not None:
                callback(number, spent)
            settled = len(times) > 3 and self._measurement(number, times).meets_confidence(threshold)
            if (total >= min_run_time and settled) or total > max_run_time:
                return self._measurement(number, times)
