"""The ``trainer`` command line: config format, merging, overrides, errors (exact message and exit code), saving.

Each test writes a tiny project (``model.py`` + ``config.yaml``) into a temporary directory and runs
``ember.trainer.cli.main(argv)`` in-process, which returns the exit code the ``trainer`` command would.
"""
import os
import textwrap

import numpy as np
import pytest
import yaml

import ember as em
from ember.trainer.cli import EmberCLI, main

MODEL_PY = '''
import numpy as np

import ember as em
from ember.core import nn, optim
from ember.core.data import DataLoader, TensorDataset
from ember.core.nn import functional as F


class Net(em.LightningModule):
    """A two-layer linear regression.

    Args:
        hidden: width of the hidden layer of the network.
        lr: learning rate of SGD.
        name: a label.
    """

    def __init__(self, hidden: int = 4, lr: float = 0.1, name: str = "net"):
        super().__init__()
        self.save_hyperparameters()
        self.layer = nn.Sequential(nn.Linear(3, hidden), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.layer(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.mse_loss(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", F.mse_loss(self(x), y))

    def test_step(self, batch, batch_idx):
        x, y = batch
        self.log("test_loss", F.mse_loss(self(x), y))

    def configure_optimizers(self):
        return optim.SGD(self.parameters(), lr=self.hparams.lr)


class NoOptim(Net):
    """Net without configure_optimizers (the config's optimizer is used)."""

    configure_optimizers = em.LightningModule.configure_optimizers


class Needs(Net):
    def __init__(self, width: int, lr: float = 0.1):
        super().__init__(hidden=width, lr=lr)


class Broken(Net):
    def training_step(self, batch, batch_idx):
        raise ZeroDivisionError("boom")


class Data(em.LightningDataModule):
    """Random regression data.

    Args:
        n: number of samples.
        batch_size: samples per batch.
    """

    def __init__(self, n: int = 32, batch_size: int = 8):
        super().__init__()
        self.n = n
        self.batch_size = batch_size

    def setup(self, stage):
        rng = np.random.default_rng(0)
        x = rng.standard_normal((self.n, 3)).astype(np.float32)
        y = x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32)
        self.ds = TensorDataset(em.tensor(x), em.tensor(y))

    def train_dataloader(self):
        return DataLoader(self.ds, batch_size=self.batch_size, shuffle=True)

    def val_dataloader(self):
        return DataLoader(self.ds, batch_size=self.batch_size)

    def test_dataloader(self):
        return DataLoader(self.ds, batch_size=self.batch_size)

    def predict_dataloader(self):
        return DataLoader(self.ds.tensors[0], batch_size=self.batch_size)  # batches of inputs only
'''

BASE = """\
trainer:
  max_epochs: 1
  enable_progress_bar: false
  enable_model_summary: false
model:
  class_path: model.Net
data:
  class_path: model.Data
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A directory with model.py and config.yaml (BASE), as the working directory."""
    (tmp_path / "model.py").write_text(MODEL_PY)
    (tmp_path / "config.yaml").write_text(BASE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(path, text):
    path.write_text(textwrap.dedent(text))
    return path.name


def printed_config(capsys, *argv):
    code, out, err = run(capsys, *argv, "--print_config")
    assert code == 0, err
    return yaml.safe_load(out)


# --------------------------------------------------------------------------------------------------- errors
def test_unknown_key_names_file_line_and_nearest_key(project, capsys):
    write(project / "config.yaml", """\
        trainer:
          enable_progress_bar: false
          enable_model_summary: false
          max_epoch: 3
        model:
          class_path: model.Net
        """)
    code, out, err = run(capsys, "fit", "config.yaml")
    assert code == 2
    assert err == "error: config.yaml:4: unknown key 'trainer.max_epoch'; did you mean 'trainer.max_epochs'?\n"


def test_unknown_key_on_the_command_line_and_in_init_args(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.max_epoch=3")
    assert code == 2
    assert err == "error: command line: unknown key 'trainer.max_epoch'; did you mean 'trainer.max_epochs'?\n"
    code, _, err = run(capsys, "fit", "config.yaml", "--model.init_args.hiden", "3")
    assert code == 2
    assert err == ("error: command line: unknown key 'model.init_args.hiden'; did you mean "
                   "'model.init_args.hidden'?\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--model.zzz", "3")
    assert err == "error: command line: unknown key 'model.init_args.zzz'; Net takes hidden, lr, name\n"
    code, _, err = run(capsys, "fit", "config.yaml", "--trainr.max_epochs", "3")
    assert err == "error: command line: unknown key 'trainr'; did you mean 'trainer'?\n"


def test_wrong_type_names_key_expected_type_and_value(project, capsys):
    write(project / "bad.yaml", """\
        trainer:
          max_epochs: ten
        """)
    code, _, err = run(capsys, "fit", "config.yaml", "bad.yaml")
    assert code == 2
    assert err == "error: bad.yaml:2: wrong type for 'trainer.max_epochs': expected int or null, got 'ten'\n"
    code, _, err = run(capsys, "fit", "config.yaml", "--model.hidden=2.5")
    assert err == "error: command line: wrong type for 'model.init_args.hidden': expected int, got 2.5\n"
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.limit_train_batches", "lots")
    assert err == ("error: command line: wrong type for 'trainer.limit_train_batches': expected int, float or "
                   "null, got 'lots'\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.callbacks",
                       "[{class_path: EarlyStopping, init_args: {monitor: val_loss, patience: [1]}}]")
    assert err == ("error: command line: wrong type for 'trainer.callbacks[0].init_args.patience': expected int, "
                   "got a list [1]\n")


def test_missing_required_init_arg_names_class_and_parameter(project, capsys):
    write(project / "needs.yaml", """\
        model:
          class_path: model.Needs
          init_args:
            lr: 0.5
        """)
    code, _, err = run(capsys, "fit", "config.yaml", "needs.yaml")
    assert code == 2
    assert err == "error: needs.yaml:2: missing required init_arg 'width' of model.Needs (set model.init_args.width)\n"


def test_class_path_that_cannot_be_imported(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--model.class_path", "model.Nett")
    assert code == 2
    assert err == ("error: command line: cannot import 'model.Nett' (model.class_path): module 'model' has no "
                   "attribute 'Nett'; did you mean 'Net'?\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--model.class_path", "modle.Net")
    assert err == "error: command line: cannot import 'modle.Net' (model.class_path): no module named 'modle'\n"
    (project / "broken_import.py").write_text("import not_a_real_package\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--model.class_path", "broken_import.Net")
    assert err == ("error: command line: cannot import 'broken_import.Net' (model.class_path): importing module "
                   "'broken_import' failed: ModuleNotFoundError: No module named 'not_a_real_package' "
                   "(broken_import.py:1)\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.callbacks", "[EarlyStoping]")
    assert err == ("error: command line: cannot resolve 'EarlyStoping' (trainer.callbacks[0].class_path): it is not "
                   "a dotted import path (module.Class) and not one of ember's callbacks; did you mean "
                   "'EarlyStopping'?\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--model.class_path", "model.Data")
    assert err == "error: command line: 'model.Data' (model.class_path) is not a subclass of LightningModule\n"


def test_invalid_yaml_gives_file_line_column(project, capsys):
    (project / "broken.yaml").write_text("trainer:\n  max_epochs: 1\n  callbacks: [a, b\n")
    code, _, err = run(capsys, "fit", "broken.yaml")
    assert code == 2
    assert err == "error: broken.yaml:4:1: invalid YAML: expected ',' or ']', but got '<stream end>'\n"
    (project / "tabs.yaml").write_text("trainer:\n  max_epochs: 1\n   bad: [\n")
    code, _, err = run(capsys, "fit", "tabs.yaml")
    assert err == "error: tabs.yaml:3:7: invalid YAML: mapping values are not allowed here\n"


def test_duplicate_key_and_non_mapping_config(project, capsys):
    (project / "dup.yaml").write_text("trainer:\n  max_epochs: 1\n  max_epochs: 2\n")
    code, _, err = run(capsys, "fit", "dup.yaml")
    assert (code, err) == (2, "error: dup.yaml:3: duplicate key 'trainer.max_epochs' (first set at line 2)\n")
    (project / "list.yaml").write_text("- 1\n- 2\n")
    code, _, err = run(capsys, "fit", "list.yaml")
    assert err == ("error: list.yaml:1: a config must be a mapping of keys to values (such as 'trainer:' and "
                   "'model:'), got a list\n")


def test_usage_errors(project, capsys):
    code, _, err = run(capsys, "config.yaml")
    assert (code, err) == (2, "error: choose a subcommand: fit, validate, test, predict, export (e.g. 'trainer fit "
                              "config.yaml'; 'trainer --help' lists the options)\n")
    code, _, err = run(capsys, "fitt", "config.yaml")
    assert (code, err) == (2, "error: command line: unknown subcommand 'fitt'; did you mean 'fit'?\n")
    code, _, err = run(capsys, "fit", "missing.yaml")
    assert (code, err) == (2, "error: config file 'missing.yaml' does not exist\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs")
    assert (code, err) == (2, "error: command line: option '--trainer.max_epochs' needs a value (e.g. "
                              "--trainer.max_epochs=VALUE)\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--overwrit")
    assert (code, err) == (2, "error: command line: unknown option '--overwrit'; did you mean '--overwrite'?\n")
    assert main([]) == 2


def test_no_traceback_unless_debug(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs", "x")
    assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs", "x", "--debug")
    assert code == 2 and "Traceback (most recent call last)" in err
    assert err.splitlines()[-1] == ("error: command line: wrong type for 'trainer.max_epochs': expected int or null, "
                                    "got 'x'")


def test_failed_run_exits_1_with_two_lines(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--model.class_path", "model.Broken")
    assert code == 1
    lines = err.splitlines()
    assert lines[-2] == "error: fit failed: ZeroDivisionError: boom"
    assert lines[-1].startswith("  at model.py:") and lines[-1].endswith(
        " in training_step (run with --debug for the full traceback)")


def test_trainer_rejecting_a_flag_is_a_config_error(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.accelerator", "gpu")
    assert code == 2
    assert err.startswith("error: command line: invalid trainer flags: `Trainer(accelerator='gpu')` is not available")


# ------------------------------------------------------------------------------------------ config handling
def test_subcommand_after_config_works(project, capsys):
    code, out, err = run(capsys, "--config", "config.yaml", "fit", "--trainer.max_epochs", "1")
    assert code == 0, err
    assert os.path.isfile(project / "lightning_logs" / "version_0" / "config.yaml")


def test_configs_merge_in_order_and_overrides_apply_left_to_right(project, capsys):
    write(project / "a.yaml", """\
        trainer:
          max_epochs: 5
          limit_train_batches: 2
        model:
          init_args:
            hidden: 7
        """)
    write(project / "b.yaml", """\
        trainer:
          max_epochs: 9
        model:
          init_args:
            lr: 0.5
        """)
    cfg = printed_config(capsys, "fit", "--config", "config.yaml", "--config", "a.yaml", "--config", "b.yaml")
    assert cfg["trainer"]["max_epochs"] == 9            # b wins
    assert cfg["trainer"]["limit_train_batches"] == 2   # kept from a
    assert cfg["model"]["init_args"] == {"hidden": 7, "lr": 0.5, "name": "net"}
    cfg = printed_config(capsys, "fit", "config.yaml", "--trainer.max_epochs", "3", "b.yaml")
    assert cfg["trainer"]["max_epochs"] == 9            # the config after the override wins
    cfg = printed_config(capsys, "fit", "config.yaml", "b.yaml", "--trainer.max_epochs", "3")
    assert cfg["trainer"]["max_epochs"] == 3


def test_a_new_class_path_replaces_the_section(project, capsys):
    write(project / "other.yaml", """\
        model:
          class_path: model.Needs
          init_args:
            width: 3
        """)
    cfg = printed_config(capsys, "fit", "config.yaml", "--model.hidden", "5", "other.yaml")
    assert cfg["model"] == {"class_path": "model.Needs", "init_args": {"width": 3, "lr": 0.1}}


def test_dotted_override_spellings(project, capsys):
    for argv in (["--trainer.max_epochs", "3"], ["--trainer.max_epochs=3"]):
        assert printed_config(capsys, "fit", "config.yaml", *argv)["trainer"]["max_epochs"] == 3
    for argv in (["--model.init_args.lr=0.01"], ["--model.lr=0.01"], ["--model.lr", "1e-2"]):
        lr = printed_config(capsys, "fit", "config.yaml", *argv)["model"]["init_args"]["lr"]
        assert lr == 0.01 and isinstance(lr, float)
    cfg = printed_config(capsys, "fit", "config.yaml", "--model.lr", "1", "--model.name", "'7'",
                         "--trainer.limit_val_batches", "1", "--trainer.limit_train_batches", "0.5")
    assert cfg["model"]["init_args"]["lr"] == 1.0 and isinstance(cfg["model"]["init_args"]["lr"], float)
    assert cfg["model"]["init_args"]["name"] == "7"
    assert cfg["trainer"]["limit_val_batches"] == 1 and isinstance(cfg["trainer"]["limit_val_batches"], int)
    assert cfg["trainer"]["limit_train_batches"] == 0.5


def test_callbacks_overrides_into_a_list_entry(project, capsys):
    write(project / "cb.yaml", """\
        trainer:
          callbacks:
            - class_path: EarlyStopping
              init_args: {monitor: val_loss}
        """)
    cfg = printed_config(capsys, "fit", "config.yaml", "cb.yaml", "--trainer.callbacks.0.init_args.patience", "7")
    assert cfg["trainer"]["callbacks"][0]["class_path"] == "ember.callbacks.EarlyStopping"
    assert cfg["trainer"]["callbacks"][0]["init_args"]["patience"] == 7
    code, _, err = run(capsys, "fit", "config.yaml", "cb.yaml", "--trainer.callbacks.2.init_args.patience", "7")
    assert (code, err) == (2, "error: command line: no entry 2 in 'trainer.callbacks' (for "
                              "--trainer.callbacks.2.init_args.patience): it is a list of 1 entry, indexed from 0\n")


def test_print_config_fills_every_default_and_runs_nothing(project, capsys):
    cfg = printed_config(capsys, "fit", "config.yaml")
    assert list(cfg) == ["seed_everything", "trainer", "model", "data", "optimizer", "lr_scheduler", "ckpt_path",
                         "weights_only", "test_after_fit"]
    import inspect
    trainer_params = [p for p in inspect.signature(em.Trainer.__init__).parameters if p != "self"]
    assert list(cfg["trainer"]) == trainer_params
    assert cfg["trainer"]["max_epochs"] == 1 and cfg["trainer"]["num_sanity_val_steps"] is None
    assert cfg["seed_everything"] is True
    assert cfg["model"] == {"class_path": "model.Net", "init_args": {"hidden": 4, "lr": 0.1, "name": "net"}}
    assert cfg["data"] == {"class_path": "model.Data", "init_args": {"n": 32, "batch_size": 8}}
    assert cfg["optimizer"] is None and cfg["ckpt_path"] is None
    assert not os.path.exists(project / "lightning_logs")
    # the printed config is itself a valid config
    (project / "printed.yaml").write_text(yaml.safe_dump(cfg))
    assert printed_config(capsys, "fit", "printed.yaml") == cfg


def test_validate_and_test_subcommands_have_their_own_keys(project, capsys):
    cfg = printed_config(capsys, "test", "config.yaml")
    assert cfg["verbose"] is True and "test_after_fit" not in cfg
    code, out, err = run(capsys, "test", "config.yaml")
    assert code == 0, err
    assert "test_loss" in out
    code, out, err = run(capsys, "validate", "config.yaml", "--verbose", "false")
    assert code == 0 and "val_loss" not in out
    code, _, err = run(capsys, "fit", "config.yaml", "--verbose", "true")
    assert (code, err) == (2, "error: command line: unknown key 'verbose'; the top-level keys are seed_everything, "
                              "trainer, model, data, optimizer, lr_scheduler, ckpt_path, weights_only, "
                              "test_after_fit\n")


def test_predict_subcommand(project, capsys):
    code, _, err = run(capsys, "predict", "config.yaml", "--trainer.limit_predict_batches", "2")
    assert code == 0, err
    cfg = yaml.safe_load((project / "lightning_logs" / "version_0" / "config.yaml").read_text())
    assert cfg["return_predictions"] is None and cfg["trainer"]["limit_predict_batches"] == 2


def test_config_with_subcommand_section(project, capsys):
    write(project / "nested.yaml", """\
        fit:
          trainer:
            max_epochs: 4
        test:
          trainer:
            max_epochs: 8
        """)
    assert printed_config(capsys, "fit", "config.yaml", "nested.yaml")["trainer"]["max_epochs"] == 4


# ------------------------------------------------------------------------------------------ runs and saving
def test_saved_config_and_overwrite(project, capsys):
    logger = "--trainer.logger={class_path: CSVLogger, init_args: {save_dir: logs, version: fixed}}"
    code, _, err = run(capsys, "fit", "config.yaml", logger)
    assert code == 0, err
    saved = project / "logs" / "lightning_logs" / "fixed" / "config.yaml"
    text = saved.read_text()
    assert text.startswith(f"# ember=={em.__version__}\n")
    cfg = yaml.safe_load(text)
    assert cfg["trainer"]["logger"]["class_path"] == "ember.loggers.CSVLogger"
    assert cfg["model"]["class_path"] == "model.Net"
    code, _, err = run(capsys, "fit", "config.yaml", logger)
    assert code == 2
    assert err == ("error: logs/lightning_logs/fixed/config.yaml already exists (the config of an earlier run in the "
                   "same log directory); pass --overwrite to replace it, or give the run another log directory "
                   "(trainer.default_root_dir or the logger's version)\n")
    code, _, err = run(capsys, "fit", "config.yaml", logger, "--overwrite", "--model.hidden", "6")
    assert code == 0, err
    assert yaml.safe_load(saved.read_text())["model"]["init_args"]["hidden"] == 6


def test_never_overwrites_the_input_config(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.logger", "false", "--overwrite")
    assert code == 2
    assert err.startswith("error: the resolved config would be saved to config.yaml, which is the config this run "
                          "was started from")
    assert (project / "config.yaml").read_text() == BASE


def test_seed_everything_true_is_written_back_and_reproduces_the_run(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--seed_everything", "true")
    assert code == 0, err
    saved = yaml.safe_load((project / "lightning_logs" / "version_0" / "config.yaml").read_text())
    seed = saved["seed_everything"]
    assert isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < 2 ** 32
    # rerunning the saved config gives the same weights
    code, _, err = run(capsys, "fit", "lightning_logs/version_0/config.yaml")
    assert code == 0, err
    assert yaml.safe_load((project / "lightning_logs" / "version_1" / "config.yaml").read_text())[
        "seed_everything"] == seed
    ckpts = [next((project / "lightning_logs" / v / "checkpoints").glob("*.ckpt")) for v in ("version_0", "version_1")]
    a, b = (em.load(str(p))["state_dict"] for p in ckpts)
    for key in a:
        np.testing.assert_array_equal(a[key].numpy(), b[key].numpy())
    # a fixed seed stays as given; null means no seeding
    assert printed_config(capsys, "fit", "config.yaml", "--seed_everything", "7")["seed_everything"] == 7
    assert printed_config(capsys, "fit", "config.yaml", "--seed_everything", "null")["seed_everything"] is None
    code, _, err = run(capsys, "fit", "config.yaml", "--seed_everything", "-3")
    assert err == ("error: command line: wrong type for 'seed_everything': expected an int in [0, 4294967295], true "
                   "(a random seed) or null, got -3\n")


def test_optimizer_and_scheduler_from_the_config(project, capsys):
    args = ["fit", "config.yaml", "--model.class_path", "model.NoOptim", "--optimizer", "Adam",
            "--optimizer.lr", "0.05", "--lr_scheduler", "StepLR", "--lr_scheduler.step_size", "1",
            "--lr_scheduler.gamma", "0.5", "--trainer.max_epochs", "2",
            "--trainer.callbacks", "[{class_path: LearningRateMonitor, init_args: {logging_interval: epoch}}]",
            "--trainer.logger", "{class_path: CSVLogger, init_args: {save_dir: logs}}"]
    code, _, err = run(capsys, *args)
    assert code == 0, err
    import csv
    with open(project / "logs" / "lightning_logs" / "version_0" / "metrics.csv") as f:
        lrs = [float(r["lr-Adam"]) for r in csv.DictReader(f) if r.get("lr-Adam")]
    assert lrs == [0.05, 0.025]
    cfg = yaml.safe_load((project / "logs" / "lightning_logs" / "version_0" / "config.yaml").read_text())
    assert cfg["optimizer"]["class_path"] == "ember.optim.Adam" and cfg["optimizer"]["init_args"]["lr"] == 0.05
    assert cfg["lr_scheduler"]["class_path"] == "ember.optim.lr_scheduler.StepLR"
    # a model with its own configure_optimizers and an optimizer in the config: one of them must go
    code, _, err = run(capsys, "fit", "config.yaml", "--optimizer", "Adam")
    assert (code, err) == (2, "error: command line: the config sets 'optimizer' but Net defines "
                              "configure_optimizers(); remove one of them\n")
    code, _, err = run(capsys, "fit", "config.yaml", "--lr_scheduler", "StepLR")
    assert (code, err) == (2, "error: command line: 'lr_scheduler' needs an 'optimizer' section too (the scheduler "
                              "wraps the optimizer that the config creates)\n")


def test_reduce_lr_on_plateau_takes_a_monitor(project, capsys):
    base = ["fit", "config.yaml", "--model.class_path", "model.NoOptim", "--optimizer", "SGD", "--optimizer.lr", "0.1"]
    code, _, err = run(capsys, *base, "--lr_scheduler", "ReduceLROnPlateau")
    assert (code, err) == (2, "error: command line: lr_scheduler ReduceLROnPlateau needs init_args.monitor: the "
                              "logged metric it watches (e.g. monitor: val_loss)\n")
    code, _, err = run(capsys, *base, "--lr_scheduler", "ReduceLROnPlateau", "--lr_scheduler.monitor", "val_loss",
                       "--lr_scheduler.patience", "0")
    assert code == 0, err


def test_short_names_and_lightning_paths_resolve_to_ember_classes(project, capsys):
    write(project / "lightning.yaml", """\
        trainer:
          callbacks:
            - class_path: lightning.pytorch.callbacks.EarlyStopping
              init_args: {monitor: val_loss}
            - class_path: ModelCheckpoint
            - Timer
        optimizer:
          class_path: torch.optim.AdamW
        lr_scheduler:
          class_path: torch.optim.lr_scheduler.CosineAnnealingLR
          init_args: {T_max: 10}
        """)
    cfg = printed_config(capsys, "fit", "config.yaml", "lightning.yaml", "--model.class_path", "model.NoOptim")
    assert [c["class_path"] for c in cfg["trainer"]["callbacks"]] == [
        "ember.callbacks.EarlyStopping", "ember.callbacks.ModelCheckpoint", "ember.callbacks.Timer"]
    assert cfg["optimizer"]["class_path"] == "ember.optim.AdamW"
    assert cfg["lr_scheduler"]["class_path"] == "ember.optim.lr_scheduler.CosineAnnealingLR"


def test_help_lists_groups_defaults_and_the_model_docstrings(project, capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for text in ("subcommands:", "  fit       train the model (Trainer.fit)", "trainer: the Trainer's flags",
                 "  --trainer.max_epochs  (int or null; default: null)", "model: the LightningModule",
                 "optimizer:", "lr_scheduler:", "  --seed_everything  (bool, int or null; default: true)"):
        assert text in out, text
    code, out, _ = run(capsys, "fit", "config.yaml", "--help")
    assert code == 0
    assert "  model.class_path: model.Net" in out
    assert "  --model.init_args.hidden  (int; default: 4)\n      width of the hidden layer of the network.\n" in out
    assert "  --data.init_args.batch_size  (int; default: 8)\n      samples per batch.\n" in out
    assert "  --test_after_fit  (bool; default: false)" in out
    assert not os.path.exists(project / "lightning_logs")


def test_resume_with_ckpt_path_last_continues_the_run_in_its_own_directory(project, capsys):
    last = "--trainer.callbacks=[{class_path: ModelCheckpoint, init_args: {save_last: true}}]"
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs", "1", last)
    assert code == 0, err
    code, out, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs", "2", "--ckpt_path", "last", last)
    assert code == 0, err
    run_dir = project / "lightning_logs" / "version_0"
    assert out == f"Restoring states from the checkpoint path at {run_dir / 'checkpoints' / 'last.ckpt'}\n"
    # no "dirpath has changed" or "directory not empty" warning (the logging handler writes to the real stderr)
    assert "dirpath has changed" not in err and "Checkpoint directory" not in err
    assert sorted(os.listdir(project / "lightning_logs")) == ["version_0"]
    assert yaml.safe_load((run_dir / "config.yaml").read_text())["trainer"]["max_epochs"] == 1  # kept
    ckpt = em.load(str(run_dir / "checkpoints" / "last.ckpt"))
    assert ckpt["global_step"] == 8 and ckpt["epoch"] == 1  # 4 batches per epoch; the second epoch (index 1)
    # a fixed logger version is left alone: the resumed run writes where the config says
    code, out, err = run(capsys, "fit", "config.yaml", "--trainer.max_epochs", "3", "--ckpt_path", "last", last,
                         "--trainer.logger={class_path: TensorBoardLogger, init_args: {save_dir: ., version: 7}}")
    assert code == 0, err
    assert sorted(os.listdir(project / "lightning_logs")) == ["version_0", "version_7"]


def test_ckpt_path_last_without_a_checkpoint_starts_fresh_with_a_warning(project, capsys):
    code, _, err = run(capsys, "fit", "config.yaml", "--ckpt_path", "last")
    assert code == 0, err
    assert 'warning: .fit(ckpt_path="last") is set, but there is no last checkpoint available.' in err


# --------------------------------------------------------------------------------------------- Python API
def test_ember_cli_python_api_without_running(project):
    cli = EmberCLI(args=["--config", "config.yaml", "--model.hidden", "6"], run=False)
    assert type(cli.model).__name__ == "Net" and cli.model.hparams.hidden == 6
    assert type(cli.datamodule).__name__ == "Data"
    assert isinstance(cli.trainer, em.Trainer) and cli.trainer.max_epochs == 1
    assert cli.subcommand is None and cli.config["model"]["init_args"]["hidden"] == 6
    cli.trainer.fit(cli.model, datamodule=cli.datamodule)
    assert cli.trainer.global_step == 4


def test_ember_cli_with_a_model_class_takes_flat_init_args(project):
    import sys
    sys.path.insert(0, str(project))
    try:
        import importlib
        model = importlib.import_module("model")
        importlib.reload(model)
        cli = EmberCLI(model.Net, model.Data, args=["--model.lr", "0.3", "--trainer.max_epochs", "1"], run=False,
                       trainer_defaults={"enable_progress_bar": False, "enable_model_summary": False})
        assert cli.model.hparams.lr == 0.3 and cli.trainer.max_epochs == 1
        assert cli.config["model"] == {"hidden": 4, "lr": 0.3, "name": "net"}
        assert cli.config["trainer"]["enable_progress_bar"] is False
        with pytest.raises(SystemExit) as exc:
            EmberCLI(model.Net, args=["fit", "--model.hiden", "3"])
        assert exc.value.code == 2
        cli = EmberCLI(model.Net, model.Data, args={"trainer": {"max_epochs": 1}, "model": {"hidden": 2}}, run=False)
        assert cli.model.hparams.hidden == 2
    finally:
        sys.path.remove(str(project))


def test_cli_run_failure_raises_the_original_exception_from_python(project):
    with pytest.raises(ZeroDivisionError, match="boom"):
        EmberCLI(args=["fit", "config.yaml", "--model.class_path", "model.Broken"])


def test_python_dash_m_ember_is_the_trainer_command(project):
    import subprocess
    import sys
    result = subprocess.run([sys.executable, "-m", "ember", "fit", "config.yaml", "--trainer.max_epoch", "2"],
                            capture_output=True, text=True, cwd=project)
    assert result.returncode == 2
    assert result.stderr == ("error: command line: unknown key 'trainer.max_epoch'; did you mean "
                             "'trainer.max_epochs'?\n")
    result = subprocess.run([sys.executable, "-m", "ember", "--help"], capture_output=True, text=True, cwd=project)
    assert result.returncode == 0 and result.stdout.startswith("usage: trainer {fit,validate,test,predict,export}")
