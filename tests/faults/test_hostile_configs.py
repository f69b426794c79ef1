"""Hostile configs for ``trainer fit``: alias bombs, huge and deep documents, binary and non-UTF-8 files, empty
files, wrong types and classes of the wrong kind. Each ends in one line ``error: file:line: ...`` and exit code 2,
without a traceback and without exhausting time or memory."""
import copy
import os
import subprocess
import sys
import tracemalloc

import pytest

from ember.trainer.cli import main
from ember.trainer.cli.config_files import load_file, merge_into
from ember.trainer.cli.errors import ConfigError

MODEL_PY = '''
import ember as em
from ember.core import nn, optim


class Net(em.LightningModule):
    def __init__(self, lr: float = 0.1, **kwargs):
        super().__init__()
        self.layer = nn.Linear(3, 1)

    def configure_optimizers(self):
        return optim.SGD(self.parameters(), lr=0.1)
'''

# 342 bytes: nine levels of nine aliases each expand to 9**9 (387 million) strings
ALIAS_BOMB = "".join(f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
ALIAS_BOMB = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + ALIAS_BOMB


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "model.py").write_text(MODEL_PY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _fit(capsys, project, name, content, *extra):
    path = project / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    code = main(["fit", name, "--trainer.max_epochs", "0", *extra])
    err = capsys.readouterr().err
    return code, err


@pytest.mark.parametrize("content, expected", [
    (b"trainer:\n  max_epochs: 1\n" + bytes(range(256)), "c.yaml:3: this is a binary file, not a YAML config"),
    ("trainer:\n  max_epochs: 1\n# caf\u00e9\n".encode("latin-1"),
     "c.yaml:3: the file is not UTF-8 text (byte 0xe9 cannot be decoded); save it as UTF-8"),
    ("model: model.Net\ntrainer:\n  max_epochs: " + "[" * 5000 + "]" * 5000 + "\n",
     "c.yaml:3: the YAML is nested more than 200 levels deep; a config never needs that many"),
    ("model:\n  class_path: model.Net\n  dict_kwargs: 5\n",
     "c.yaml:3: wrong type for 'model.dict_kwargs': expected a mapping of extra keyword arguments, got 5"),
    ("", "c.yaml:1: the config file is empty (or holds only comments)"),
    ("# only a comment\n\n   # another\n", "c.yaml:1: the config file is empty (or holds only comments)"),
    ("model: model.Net\noptimizer: SGD\nlr_scheduler:\n  class_path: ember.core.optim.Adam\n",
     "c.yaml:4: 'ember.core.optim.Adam' (lr_scheduler.class_path) is not a subclass of LRScheduler"),
    ("model: model.Net\noptimizer: SGD\nlr_scheduler: ember.core.nn.Linear\n",
     "c.yaml:3: 'ember.core.nn.Linear' (lr_scheduler.class_path) is not a subclass of LRScheduler"),
    ("model: model.Net\noptimizer:\n  class_path: ember.core.optim.lr_scheduler.StepLR\n",
     "c.yaml:3: 'ember.core.optim.lr_scheduler.StepLR' (optimizer.class_path) is not a subclass of Optimizer"),
    ("model: model.Net\noptimizer: os.system\n", "c.yaml:2: 'os.system' (optimizer.class_path) is a "
                                           "builtin_function_or_method, not a class"),
    ("model: model.Net\n---\nmodel: model.Net\n", "c.yaml:2: the file holds more than one YAML document"),
    ("model: &m [*m]\n", "c.yaml:1: invalid YAML: the alias '*m' refers to a node that contains it"),
])
def test_hostile_config_gives_one_line_with_file_and_line_and_exit_2(capsys, project, content, expected):
    code, err = _fit(capsys, project, "c.yaml", content)
    assert code == 2
    assert err.startswith("error: " + expected), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_alias_bomb_is_refused_in_bounded_memory(capsys, project):
    assert len(ALIAS_BOMB) < 463
    tracemalloc.start()
    try:
        code, err = _fit(capsys, project, "bomb.yaml", ALIAS_BOMB)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 2
    assert err.startswith("error: bomb.yaml:7: the YAML expands to more than 2,000,000 values (through its aliases")
    assert peak < 200_000_000


def test_aliases_within_the_limit_still_load(project):
    (project / "ok.yaml").write_text("base: &b {lr: 0.1, momentum: 0.9}\nmodel:\n  <<: *b\n  name: x\n")
    data, origins = load_file("ok.yaml")
    assert data == {"base": {"lr": 0.1, "momentum": 0.9}, "model": {"lr": 0.1, "momentum": 0.9, "name": "x"}}
    assert origins[("model", "name")] == "ok.yaml:4" and origins[("base",)] == "ok.yaml:1"


def test_duplicate_keys_are_still_refused_with_both_lines(project):
    (project / "d.yaml").write_text("trainer:\n  max_epochs: 1\n  max_epochs: 2\n")
    with pytest.raises(ConfigError, match=r"d\.yaml:3: duplicate key 'trainer\.max_epochs' \(first set at line 2\)"):
        load_file("d.yaml")


@pytest.mark.slow
def _lines_run(fn) -> int:
    """How many Python lines ``fn()`` executes: a deterministic measure of work (no clock), blind only to loops
    inside C functions."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def _load_and_merge_twice(project, n_keys: int, name: str):
    text = "model:\n  class_path: Net\n  init_args:\n" + "".join(f"    k{i}: [{i}]\n" for i in range(n_keys))
    (project / name).write_text(text)
    data, where = load_file(name)
    config, origins = copy.deepcopy(data), dict(where)
    merge_into(config, origins, data, where)  # a second file setting the same keys merges key by key
    return config, origins


def test_40000_key_config_loads_and_merges(project):
    config, origins = _load_and_merge_twice(project, 40_000, "big.yaml")
    assert len(config["model"]["init_args"]) == 40_000 and origins[("model", "init_args", "k39999")] == "big.yaml:40003"


def test_config_loading_and_merging_take_linear_work(project):
    # the merge was once quadratic in the number of keys (~100x slower than yaml.safe_load at 40,000 keys): four
    # times the keys must cost about four times the work (a quadratic step would make it ~16 times)
    small = _lines_run(lambda: _load_and_merge_twice(project, 1_000, "small.yaml"))
    large = _lines_run(lambda: _load_and_merge_twice(project, 4_000, "large.yaml"))
    assert large < 4.5 * small, (small, large)


def test_binary_config_through_the_real_command_exits_2_without_traceback(project):
    (project / "bin.yaml").write_bytes(os.urandom(64) + b"\0" * 16)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.run([sys.executable, "-m", "ember", "fit", "bin.yaml"], capture_output=True, text=True,
                          env=env, cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: bin.yaml:") and proc.stderr.count("\n") == 1
