"""``ember.utils.benchmark``: ``Timer`` runs the statement as ``timeit`` does, and a ``Measurement`` computes and
prints PyTorch's statistics. A fake clock makes every time exact."""
import re

import pytest

import ember as em
from ember.utils.benchmark import Measurement, Timer


class FakeClock:
    """Advances by ``step`` seconds each time the statement runs (the statement calls ``tick``)."""

    def __init__(self, step):
        self.now = 0.0
        self.step = step

    def __call__(self):
        return self.now

    def tick(self):
        self.now += self.step


def test_timeit_from_the_tutorial_returns_one_measurement_of_n_runs():
    x = em.randn(8, 8)
    m = em.utils.benchmark.Timer(stmt="torch.add(x, x)", globals={"x": x}).timeit(10)
    assert isinstance(m, Measurement)
    assert (m.number_per_run, len(m.raw_times), m.stmt) == (10, 1, "torch.add(x, x)")
    assert m.median == m.times[0] == m.raw_times[0] / 10 > 0


def test_timeit_counts_runs_exactly_with_a_fake_clock():
    clock = FakeClock(2e-6)
    calls = []
    t = Timer(stmt="tick(); calls.append(1)", setup="calls.clear()", timer=clock,
              globals={"tick": clock.tick, "calls": calls})
    m = t.timeit(100)
    assert len(calls) == 100  # the warm-up ran max(100 // 100, 1) = 1 time before setup cleared the list again
    assert m.raw_times == [pytest.approx(100 * 2e-6)]
    assert m.median == pytest.approx(2e-6)


def test_blocked_autorange_grows_the_block_and_stops_after_min_run_time():
    clock = FakeClock(1e-3)
    blocks = []
    t = Timer(stmt="tick()", timer=clock, globals={"tick": clock.tick})
    m = t.blocked_autorange(callback=lambda n, s: blocks.append((n, s)), min_run_time=0.05)
    # timeit(0) costs nothing, so the first block (1 run = 1 ms) already dwarfs the overhead and is >= 0.05 ms
    assert m.number_per_run == 1
    assert len(m.raw_times) == 50 and len(blocks) == 50
    assert m.median == pytest.approx(1e-3) and m.iqr == pytest.approx(0.0, abs=1e-12)


def test_measurement_prints_like_pytorch():
    many = Measurement(100, [4.0e-4, 5.0e-4, 6.0e-4, 7.0e-4], stmt="x + y", label="Broadcasting add",
                       sub_label="4x8")
    text = repr(many)
    lines = text.splitlines()
    assert re.fullmatch(r"<ember\.utils\.benchmark\.Measurement object at 0x[0-9a-f]+>", lines[0])
    assert lines[1:] == ["Broadcasting add: 4x8",
                         "  Median: 5.50 us",
                         "  IQR:    1.50 us (4.75 to 6.25)",
                         "  4 measurements, 100 runs per measurement, 1 thread",
                         "  WARNING: Interquartile range is 27.3% of the median measurement.",
                         "           This suggests significant environmental influence."]
    one = Measurement(10, [2.5e-2], stmt="torch.add(x, x)", setup="x = torch.ones(3)", num_threads=4)
    assert repr(one).splitlines()[1:] == ["torch.add(x, x)", "setup: x = torch.ones(3)", "  2.50 ms",
                                          "  1 measurement, 10 runs , 4 threads"]


def test_merge_pools_replicates_per_run():
    a = Measurement(10, [1e-3], stmt="s")
    b = Measurement(20, [4e-3], stmt="s")
    merged, = Measurement.merge([a, b])
    assert merged.number_per_run == 1 and merged.times == [pytest.approx(1e-4), pytest.approx(2e-4)]


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="only a str statement"):
        Timer(stmt=lambda: None)
    with pytest.raises(ValueError, match="language='cpp'"):
        Timer(language="cpp")
