"""The README's profiler tutorial (PyTorch's recipe with ``import ember as torch``) runs as written, and its table
adds up: the rows' self times sum to the footer's total, the total to the profiled wall time."""
import json
import os
import re

import pytest

import ember as em

ROOT = os.path.dirname(os.path.abspath(em.__file__))
_UNITS = {"s": 1e6, "ms": 1e3, "us": 1.0}


def _tutorial_source():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index("## Profiling\n")
    section = text[start:text.index("\n## ", start + 1)]
    (block,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return block


def _us(cell):
    number, unit = re.fullmatch(r"([\d.]+)(s|ms|us)", cell).groups()
    return float(number) * _UNITS[unit]


def _body(table):
    lines = table.rstrip("\n").splitlines()
    return lines[3:-2], lines[-1]


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tutorial")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        import contextlib
        import io
        out = io.StringIO()
        namespace = {"__name__": "tutorial"}
        with contextlib.redirect_stdout(out):
            exec(compile(_tutorial_source(), "README.md", "exec"), namespace)  # noqa: S102 - our own README
    finally:
        os.chdir(cwd)
    return out.getvalue(), namespace["prof"], folder


def test_tutorial_prints_pytorchs_table(tutorial):
    printed, prof, _ = tutorial
    rows, footer = _body(printed)
    assert printed.splitlines()[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU",
                                               "total", "CPU", "time", "avg", "#", "of", "Calls"]
    assert len(rows) == 10
    names = [row.split()[0] for row in rows]
    assert names[0] == "model_inference" and rows[0].split()[-1] == "1"
    assert names[1] == "nn.Module:" and rows[1].split()[1] == "CausalSelfAttention_0" and rows[1].split()[-1] == "25"
    totals = [_us(row.split()[-3]) for row in rows]  # CPU total, sorted largest first
    assert totals == sorted(totals, reverse=True)
    calls = {a.key: a.count for a in prof.key_averages()}
    assert calls["ember::linear"] == 50 and calls["ember::softmax"] == 25 and calls["ember::matmul"] == 50
    assert calls["nn.Module: Linear_0"] == 25 and calls["nn.Module: Linear_1"] == 25
    assert footer.startswith("Self CPU time total: ")


def test_tutorial_rows_add_up(tutorial):
    _, prof, _ = tutorial
    full = prof.key_averages().table(sort_by="cpu_time_total", row_limit=-1)
    rows, footer = _body(full)
    total = _us(footer.split(": ")[1])
    self_times = [_us(row.split()[-5]) for row in rows]
    assert sum(self_times) == pytest.approx(total, rel=0.01)
    shares = [float(row.split()[-6].rstrip("%")) for row in rows]
    assert sum(shares) == pytest.approx(100.0, abs=1.0)
    (inference,) = [e for e in prof.events() if e.name == "model_inference"]
    assert total == pytest.approx(inference.cpu_time_total, rel=0.01)  # everything ran inside the range


def test_tutorial_trace_loads_as_chrome_trace(tutorial):
    _, prof, folder = tutorial
    doc = json.loads((folder / "trace.json").read_text())
    spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(prof.events())
    (outer,) = [e for e in spans if e["name"] == "model_inference"]
    assert all(outer["ts"] - 1e-3 <= e["ts"] and e["ts"] + e["dur"] <= outer["ts"] + outer["dur"] + 1e-3
               for e in spans)
