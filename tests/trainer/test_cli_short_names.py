"""Short names in configs (issue 20, registries derived once): every public optimizer, lr scheduler, callback and
logger resolves by its class name, and the table of short names is what the packages' ``__all__`` lists, so a
class added to a package's ``__all__`` is a short name with no second list to edit."""
import importlib
import inspect

import pytest
import yaml

import ember.callbacks as callbacks
import ember.core.optim as optim
import ember.core.optim.lr_scheduler as lr_scheduler
import ember.trainer.loggers as loggers
from ember.callbacks import Callback
from ember.core.optim import Optimizer
from ember.core.optim.lr_scheduler import LRScheduler
from ember.trainer.cli import main
from ember.trainer.cli.resolve import SHORT_NAME_GROUPS, ClassResolver, canonical_path, group_names
from ember.trainer.cli.signature import class_params
from ember.trainer.loggers import Logger

PACKAGES = [("optimizers", optim, Optimizer), ("lr_schedulers", lr_scheduler, LRScheduler),
            ("callbacks", callbacks, Callback), ("loggers", loggers, Logger)]


def public_classes(module):
    # ember.nn has no __all__: its public names are the ones without a leading underscore
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return [n for n in names if inspect.isclass(getattr(module, n))]


@pytest.mark.parametrize("group", sorted(SHORT_NAME_GROUPS))
def test_the_table_is_what_the_packages_all_lists(group):
    module = importlib.import_module(SHORT_NAME_GROUPS[group])
    assert group_names(group) == public_classes(module)


def test_the_four_groups_are_nonempty_and_complete():
    assert {"SGD", "Adam", "AdamW", "LBFGS"} <= set(group_names("optimizers"))
    assert {"StepLR", "OneCycleLR", "ReduceLROnPlateau"} <= set(group_names("lr_schedulers"))
    assert {"EarlyStopping", "ModelCheckpoint", "TQDMProgressBar"} <= set(group_names("callbacks"))
    assert {"TensorBoardLogger", "CSVLogger", "DummyLogger"} <= set(group_names("loggers"))


@pytest.mark.parametrize("group,module,base", PACKAGES, ids=[p[0] for p in PACKAGES])
def test_every_public_class_resolves_by_its_short_name(group, module, base):
    resolver = ClassResolver()
    names = [n for n in public_classes(module) if issubclass(getattr(module, n), base)]
    assert names
    for name in names:
        assert resolver.resolve(name, base, group) is getattr(module, name), name
        assert resolver.resolve(name) is getattr(module, name), name  # with no group given, too


def test_a_class_added_to_a_packages_all_is_a_short_name(monkeypatch):
    class BrandNewCallback(Callback):
        """A callback the short-name table has never heard of."""

    monkeypatch.setattr(callbacks, "BrandNewCallback", BrandNewCallback, raising=False)
    monkeypatch.setattr(callbacks, "__all__", callbacks.__all__ + ["BrandNewCallback"])
    assert ClassResolver().resolve("BrandNewCallback", Callback, "callbacks") is BrandNewCallback


def _no_required_args(cls):
    return not inspect.isabstract(cls) and not any(p.required for p in class_params(cls)[0].values())


def test_short_names_in_a_config(tmp_path, monkeypatch, capsys):
    """Through the real command line: every constructible callback and logger as a short class_path in one config,
    and each optimizer and scheduler as the ``optimizer``/``lr_scheduler`` section, print as their public paths."""
    (tmp_path / "model.py").write_text(
        "import ember as em\n\n\nclass Net(em.LightningModule):\n    \"\"\"A model without layers.\"\"\"\n")
    cbs = [n for n in public_classes(callbacks) if _no_required_args(getattr(callbacks, n))]
    lgs = [n for n in public_classes(loggers) if _no_required_args(getattr(loggers, n))]
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(
        {"model": {"class_path": "model.Net"}, "trainer": {"callbacks": cbs, "logger": lgs}}))
    monkeypatch.chdir(tmp_path)
    assert main(["fit", "config.yaml", "--print_config"]) == 0, capsys.readouterr().err
    cfg = yaml.safe_load(capsys.readouterr().out)
    assert [c["class_path"] for c in cfg["trainer"]["callbacks"]] == [f"ember.callbacks.{n}" for n in cbs]
    assert [c["class_path"] for c in cfg["trainer"]["logger"]] == [f"ember.loggers.{n}" for n in lgs]
    for name in public_classes(optim):
        if name == "Optimizer":
            continue
        assert main(["fit", "config.yaml", "--optimizer", name, "--print_config"]) == 0, capsys.readouterr().err
        assert yaml.safe_load(capsys.readouterr().out)["optimizer"]["class_path"] == f"ember.optim.{name}"
    scheds = [n for n in public_classes(lr_scheduler) if _no_required_args(getattr(lr_scheduler, n))
              and issubclass(getattr(lr_scheduler, n), LRScheduler) and n != "LRScheduler"]
    assert scheds
    for name in scheds:
        code = main(["fit", "config.yaml", "--optimizer", "SGD", "--optimizer.lr", "0.1", "--lr_scheduler", name,
                     "--print_config"])
        assert code == 0, capsys.readouterr().err
        printed = yaml.safe_load(capsys.readouterr().out)["lr_scheduler"]["class_path"]
        assert printed == canonical_path(getattr(lr_scheduler, name)) == f"ember.optim.lr_scheduler.{name}"


def test_trainer_flags_are_documented_once_in_the_init_docstring(tmp_path, monkeypatch, capsys):
    """``Trainer.__init__``'s Args block documents every flag, and ``trainer --help`` prints that text."""
    from ember.trainer import Trainer
    from ember.trainer.cli.signature import param_docs

    flags = [n for n in inspect.signature(Trainer.__init__).parameters if n != "self"]
    docs = param_docs(Trainer)
    assert sorted(docs) == sorted(flags) and all(docs.values())
    assert docs["max_steps"] == "stop after this many optimizer steps (-1: no limit)"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["fit", "--help"]) == 0
    out = capsys.readouterr().out.splitlines()
    for name in flags:
        i = next(i for i, line in enumerate(out) if line.startswith(f"  --trainer.{name}  ("))
        assert " ".join(line.strip() for line in out[i + 1:i + 3] if line.startswith("      ")).startswith(
            docs[name][:60]), name
