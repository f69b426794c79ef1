"""The lazy package namespaces (issue 20, registries derived once): every ``__getattr__`` loader in ember is the one
helper in ``core/_lazy.py``; a lazy name loads on first access, is then a plain global, and unknown names raise."""
import ast
import pathlib
import subprocess
import sys

import pytest

from ember.core._lazy import LazyTable, lazy_attributes

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_helper_loads_on_first_access_and_caches():
    namespace = {"__name__": "ember.core"}
    getattr_, dir_ = lazy_attributes(namespace, {"fft": ".fft", "inv": ("ember.core.linalg", "inv"),
                                                 "fft_mod": ("ember.core.fft", None)}, public_name="em.core")
    import ember.core.fft as fft
    import ember.core.linalg as linalg
    assert getattr_("fft") is fft and namespace["fft"] is fft
    assert getattr_("inv") is linalg.inv and getattr_("fft_mod") is fft
    assert dir_() == sorted({"__name__", "fft", "inv", "fft_mod"})
    with pytest.raises(AttributeError, match=r"^module 'em.core' has no attribute 'nope'$"):
        getattr_("nope")


def _module_level_getattrs():
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT).parts
        if "tests" in parts or parts[0].startswith("."):  # .ci-venv/, .git/: not ember's source
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
                yield path.relative_to(ROOT)


def test_no_package_writes_its_own_lazy_loader():
    assert list(_module_level_getattrs()) == []  # the helper defines its __getattr__ inside lazy_attributes


@pytest.mark.parametrize("package,names", [
    ("ember", ["nn", "Trainer", "save", "callbacks", "loggers"]),
    ("ember", ["amp", "autocast", "accelerator"]),
    ("ember.core", ["nn", "linalg", "fft"]),
    ("ember.utils", ["data", "checkpoint"]),
    ("ember.callbacks", ["EarlyStopping", "ModelCheckpoint", "TQDMProgressBar"]),
    ("ember.trainer.loggers", ["TensorBoardLogger", "CSVLogger"]),
    ("ember.core.distributed", ["get_rank", "ReduceOp"]),
])
def test_lazy_names_load_only_when_used(package, names):
    code = (f"import sys, importlib; m = importlib.import_module({package!r}); before = set(sys.modules); "
            f"values = [getattr(m, n) for n in {names!r}]; "
            "assert all(v is not None for v in values); assert all(n in dir(m) for n in " + repr(names) + "); "
            "print(len(set(sys.modules) - before) > 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_lazy_table_imports_its_provider_on_the_first_lookup_before_registration(tmp_path, monkeypatch):
    # a provider module that registers one function into the table when it is imported
    (tmp_path / "seam_provider.py").write_text(
        "from seam_table import TABLE\n\ndef double(x):\n    return 2 * x\n\nTABLE.register(globals(), ['double'])\n")
    (tmp_path / "seam_table.py").write_text(
        "from ember.core._lazy import LazyTable\nTABLE = LazyTable('seam_provider')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import seam_table
    assert "seam_provider" not in sys.modules
    assert seam_table.TABLE.double(21) == 42  # the lookup imported the provider, which registered
    assert "seam_provider" in sys.modules
    assert seam_table.TABLE.double is sys.modules["seam_provider"].double
    with pytest.raises(AttributeError, match="seam_provider registered no function 'triple'"):
        seam_table.TABLE.triple
    provider = sys.modules["seam_provider"]
    monkeypatch.setattr(provider, "double", lambda x: -x)  # a rebinding (an observer's wrapper) is what gets called
    assert seam_table.TABLE.double(21) == -21
    table = LazyTable(".never_imported", "ember.core")
    table.register({"inv": abs}, ["inv"])
    assert table.inv is abs  # registered entries need no import
    with pytest.raises(KeyError, match="cannot register"):
        table.register({"__name__": "m"}, ["det"])
    for name in ("seam_provider", "seam_table"):
        monkeypatch.delitem(sys.modules, name)


def test_the_torch_forms_of_linalg_load_linalg_on_first_use():
    # em.det, Tensor.inverse and em.norm(p='nuc') call linalg's own functions, which linalg registered itself
    code = ("import sys; import ember as em; loaded = 'ember.core.linalg' in sys.modules; "
            "a = em.tensor([[2.0, 1.0], [1.0, 3.0]]); d = em.det(a).item(); i = a.inverse(); "
            "from ember.core.ops._linalg_table import LINALG; from ember.core import linalg; "
            "print(loaded, round(d, 6), LINALG.det is linalg.det, LINALG.inv is linalg.inv, "
            "em.allclose(i, linalg.inv(a)), em.allclose(em.norm(a, 'nuc'), linalg.matrix_norm(a, 'nuc')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "5.0", "True", "True", "True", "True"]
