"""One atomic write (issue 20, point 5): every file ember writes for the user goes through
``core/serialization.py``'s ``atomic_write``; no other module opens files for writing or renames them."""
import ast
import pathlib

import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
# Files that write something other than user files: the atomic write itself, and the spawn launcher's per-process
# error reports in a private temporary directory.
ALLOWED = {"core/serialization.py", "core/multiprocessing/spawn.py"}
RENAMES = {("os", "replace"), ("os", "rename"), ("tempfile", "mkstemp"), ("tempfile", "NamedTemporaryFile"),
           ("shutil", "move")}


def _writes(tree):
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and (f.value.id, f.attr) in RENAMES:
            yield f"{f.value.id}.{f.attr}", node.lineno
        if isinstance(f, ast.Attribute) and f.attr in ("write_text", "write_bytes"):
            yield f.attr, node.lineno
        if isinstance(f, ast.Name) and f.id == "open":
            mode = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "mode"),
                                                                  None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and set(mode.value) & set("wax+"):
                yield f"open(mode={mode.value!r})", node.lineno


def test_no_module_writes_user_files_by_hand():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.split("/")[0] in ("tests", "benchmarks", "examples") or rel in ALLOWED or rel.startswith("."):
            # .ci-venv/, .git/: not ember's source
            continue
        found += [f"{rel}:{line}: {what}" for what, line in _writes(ast.parse(path.read_text()))]
    assert found == []


def test_model_checkpoint_to_yaml_is_atomic(tmp_path, monkeypatch):
    from ember.callbacks import ModelCheckpoint

    ckpt = ModelCheckpoint(dirpath=str(tmp_path), monitor="val_loss")
    ckpt.best_k_models = {"a.ckpt": 0.5, "b.ckpt": 0.25}
    ckpt.to_yaml()
    target = tmp_path / "best_k_models.yaml"
    assert yaml.safe_load(target.read_text()) == {"a.ckpt": 0.5, "b.ckpt": 0.25}

    def broken_dump(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(yaml, "dump", broken_dump)
    monkeypatch.setattr(yaml, "safe_dump", broken_dump)
    ckpt.best_k_models = {"c.ckpt": 0.125}
    with pytest.raises(OSError, match="disk full"):
        ckpt.to_yaml()
    assert yaml.safe_load(target.read_text()) == {"a.ckpt": 0.5, "b.ckpt": 0.25}  # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best_k_models.yaml"]  # no temporary file left
