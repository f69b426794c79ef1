"""LightningCLI habits in ``trainer`` and ``EmberCLI``: ``-c``, list append with ``+=``, ``--GROUP.help CLASS``,
``--print_config`` flags, ``--version``, environment variables (``default_env`` and ``PL_TRAINER_*``), the subclass
hooks (``add_arguments_to_parser`` with ``link_arguments``, class sections, ``before_fit``/``after_fit``), and a saved
config that repeats the run from another directory."""
import os
import sys

import pytest
import yaml

import ember as em
from ember.trainer.cli import EmberCLI, SaveConfigCallback

from test_cli import BASE, MODEL_PY, printed_config, project, run  # noqa: F401 - the project fixture


def test_dash_c_is_config(project, capsys):
    assert printed_config(capsys, "fit", "-c", "config.yaml") == printed_config(capsys, "fit", "--config",
                                                                                 "config.yaml")
    code, _, err = run(capsys, "fit", "-c")
    assert code == 2 and err == "error: command line: option '-c' needs a config file (e.g. -c config.yaml)\n"


def test_version(project, capsys):
    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (0, f"trainer (ember) {em.__version__}\n", "")


def test_list_append_then_init_args_of_the_appended_class(project, capsys):
    cfg = printed_config(capsys, "fit", "config.yaml", "--trainer.callbacks+=EarlyStopping",
                         "--trainer.callbacks.monitor=val_loss", "--trainer.callbacks.patience", "7",
                         "--trainer.callbacks+=LearningRateMonitor", "--trainer.callbacks.logging_interval=epoch")
    callbacks = cfg["trainer"]["callbacks"]
    assert [c["class_path"] for c in callbacks] == ["ember.callbacks.EarlyStopping",
                                                   "ember.callbacks.LearningRateMonitor"]
    assert callbacks[0]["init_args"]["monitor"] == "val_loss" and callbacks[0]["init_args"]["patience"] == 7
    assert callbacks[1]["init_args"]["logging_interval"] == "epoch"
    # appending to the config's own list keeps its entries; a list value appends each item
    (project / "cb.yaml").write_text("trainer:\n  callbacks:\n    - class_path: Timer\n")
    cfg = printed_config(capsys, "fit", "config.yaml", "cb.yaml",
                         "--trainer.callbacks+=[{class_path: EarlyStopping, init_args: {monitor: a}}, "
                         "{class_path: EarlyStopping, init_args: {monitor: b}}]")
    assert [c["class_path"].split(".")[-1] for c in cfg["trainer"]["callbacks"]] == ["Timer", "EarlyStopping",
                                                                                     "EarlyStopping"]
    assert [c["init_args"].get("monitor") for c in cfg["trainer"]["callbacks"]] == [None, "a", "b"]
    # the appended callback really runs, and a mistake in its init_args names the class
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.callbacks+=EarlyStopping",
                       "--trainer.callbacks.monitor=val_loss", "--trainer.max_epochs", "2")
    assert code == 0, err
    code, _, err = run(capsys, "fit", "config.yaml", "--trainer.callbacks+=EarlyStopping",
                       "--trainer.callbacks.patiance=3")
    assert code == 2 and "unknown key 'trainer.callbacks[0].init_args.patiance'; did you mean " \
                         "'trainer.callbacks[0].init_args.patience'?" in err


def test_class_help(project, capsys):
    code, out, err = run(capsys, "fit", "--trainer.callbacks.help", "EarlyStopping")
    assert code == 0, err
    assert out.startswith("usage: trainer ... --trainer.callbacks+=EarlyStopping --trainer.callbacks.KEY VALUE")
    assert "  --trainer.callbacks.init_args.patience  (int; default: 3)" in out
    code, out, err = run(capsys, "fit", "--model.help", "model.Net")
    assert code == 0, err
    assert "  --model.init_args.hidden  (int; default: 4)\n      width of the hidden layer of the network.\n" in out
    code, out, err = run(capsys, "fit", "config.yaml", "--model.help", "NoOptim")  # a class of the config's module
    assert code == 0, err
    assert out.splitlines()[2:4] == ["  model.class_path: model.NoOptim",
                                     "      Net without configure_optimizers (the config's optimizer is used)."]
    code, out, _ = run(capsys, "--optimizer.help", "Adam")
    assert "--optimizer.init_args.lr" in out and "init_args.params" not in out
    code, out, err = run(capsys, "fit", "--trainer.callbacks.help", "EarlyStoping")
    assert code == 2 and "did you mean 'EarlyStopping'?" in err
    code, out, err = run(capsys, "fit", "--modle.help", "X")
    assert code == 2 and "did you mean '--model.help'?" in err


def test_print_config_flags(project, capsys):
    code, out, err = run(capsys, "fit", "config.yaml", "--model.lr", "0.5", "--print_config=skip_default")
    assert code == 0, err
    assert yaml.safe_load(out) == {"trainer": {"max_epochs": 1, "enable_progress_bar": False,
                                               "enable_model_summary": False},
                                   "model": {"class_path": "model.Net", "init_args": {"lr": 0.5}},
                                   "data": {"class_path": "model.Data"}}
    code, out, err = run(capsys, "fit", "config.yaml", "--print_config=skip_null")
    cfg = yaml.safe_load(out)
    assert "ckpt_path" not in cfg and "optimizer" not in cfg and "precision" not in cfg["trainer"]
    assert cfg["trainer"]["max_steps"] == -1
    code, out, err = run(capsys, "fit", "config.yaml", "--print_config=comments,skip_null")
    assert code == 0, err
    lines = out.splitlines()
    i = lines.index("    # width of the hidden layer of the network.")
    assert lines[i - 2:i + 2] == ["  class_path: model.Net", "  init_args:",
                                  "    # width of the hidden layer of the network.", "    hidden: 4"]
    assert "  # stop after this many optimizer steps (-1: no limit)" in lines
    # the commented config is a valid config that gives the same run
    (project / "commented.yaml").write_text(out)
    assert printed_config(capsys, "fit", "commented.yaml") == printed_config(capsys, "fit", "config.yaml")
    code, _, err = run(capsys, "fit", "config.yaml", "--print_config=skip_defaults")
    assert code == 2 and err == ("error: command line: unknown --print_config flag 'skip_defaults'; did you mean "
                                 "'skip_default'? the flags are comments, skip_default, skip_null (comma-separated, "
                                 "e.g. --print_config=skip_null,comments)\n")


def test_default_env_reads_subcommand_variables_under_the_command_line(project, capsys, monkeypatch):
    monkeypatch.setenv("PL_FIT__TRAINER__MAX_EPOCHS", "3")
    monkeypatch.setenv("PL_FIT__MODEL__INIT_ARGS__HIDDEN", "6")
    monkeypatch.setenv("PL_TEST__TRAINER__MAX_EPOCHS", "9")  # another subcommand's
    cli = EmberCLI(args=["fit", "-c", "config.yaml", "--model.lr", "0.2"], run=True,
                   parser_kwargs={"default_env": True}, save_config_callback=None)
    # the config file set max_epochs: 1, the environment 3; environment variables lie under config files, as in
    # jsonargparse, so the file wins; keys the files do not set come from the environment
    assert cli.trainer.max_epochs == 1 and cli.model.hparams.hidden == 6 and cli.model.hparams.lr == 0.2
    (project / "bare.yaml").write_text("model:\n  class_path: model.Net\ndata:\n  class_path: model.Data\n"
                                       "trainer:\n  enable_progress_bar: false\n  enable_model_summary: false\n")
    cli = EmberCLI(args=["fit", "bare.yaml"], parser_kwargs={"fit": {"default_env": True}}, save_config_callback=None)
    assert cli.trainer.max_epochs == 3 and cli.trainer.current_epoch == 3
    cli = EmberCLI(args=["fit", "bare.yaml", "--trainer.max_epochs", "2"], parser_kwargs={"default_env": True},
                   save_config_callback=None)
    assert cli.trainer.max_epochs == 2  # the command line wins
    monkeypatch.setenv("PL_TRAINER__MAX_EPOCHS", "4")
    # without default_env: ignored (max_epochs stays None until fit resolves it, as in Lightning)
    assert EmberCLI(args=["bare.yaml"], run=False).trainer.max_epochs is None
    # a whole config from PL_FIT__CONFIG, under the single keys (as in jsonargparse); with run=False the
    # variables have no subcommand part
    monkeypatch.setenv("PL_FIT__CONFIG", "config.yaml")
    cli = EmberCLI(args=["fit"], parser_kwargs={"default_env": True}, save_config_callback=None)
    assert type(cli.model).__name__ == "Net" and cli.trainer.max_epochs == 3
    cli = EmberCLI(args=["bare.yaml"], run=False, parser_kwargs={"default_env": True})
    assert cli.trainer.max_epochs == 4
    # a mistake in a variable names the variable
    monkeypatch.setenv("PL_FIT__TRAINER__MAX_EPOCH", "2")
    with pytest.raises(SystemExit):
        EmberCLI(args=["fit", "bare.yaml"], parser_kwargs={"default_env": True}, save_config_callback=None)
    err = capsys.readouterr().err
    assert err == ("error: environment variable PL_FIT__TRAINER__MAX_EPOCH: unknown key 'trainer.max_epoch'; did you "
                   "mean 'trainer.max_epochs'?\n")


def test_pl_trainer_variables_are_trainer_defaults(monkeypatch):
    monkeypatch.setenv("PL_TRAINER_MAX_EPOCHS", "3")
    monkeypatch.setenv("PL_TRAINER_ACCELERATOR", "cpu")  # not a Python literal: kept as the string
    monkeypatch.setenv("PL_TRAINER_LIMIT_TRAIN_BATCHES", "0.5")
    monkeypatch.setenv("PL_TRAINER_LOGGER", "False")
    monkeypatch.setenv("PL_TRAINER_MIN_EPOCHS", "")  # empty: ignored
    trainer = em.Trainer(enable_progress_bar=False)
    assert trainer.max_epochs == 3 and trainer.limit_train_batches == 0.5 and trainer.logger is None
    assert trainer.min_epochs is None
    assert em.Trainer(max_epochs=5, enable_progress_bar=False).max_epochs == 5  # an explicit argument wins

    class MyTrainer(em.Trainer):
        pass

    assert MyTrainer(enable_progress_bar=False).max_epochs is None  # a subclass reads PL_MYTRAINER_* instead
    monkeypatch.setenv("PL_MYTRAINER_MAX_EPOCHS", "7")
    assert MyTrainer(enable_progress_bar=False).max_epochs == 7


# ------------------------------------------------------------------------------------------ subclass hooks
def _import_model(project):
    import importlib
    sys.path.insert(0, str(project))
    module = importlib.import_module("model")
    return importlib.reload(module)


def test_add_arguments_to_parser_links_class_sections_and_hooks(project, capsys):
    model = _import_model(project)
    from ember.callbacks import EarlyStopping
    calls = []

    class MyCLI(EmberCLI):
        def add_arguments_to_parser(self, parser):
            parser.add_argument("--notes", type=str, default="none", help="free text")
            parser.add_lightning_class_args(EarlyStopping, "early_stopping")
            parser.set_defaults({"early_stopping.monitor": "val_loss", "early_stopping.patience": 5})
            parser.link_arguments("data.batch_size", "model.hidden")  # parse: from the config
            parser.link_arguments("data.n", "model.name", compute_fn=lambda n: f"n{n}", apply_on="instantiate")

        def before_fit(self):
            calls.append(("before_fit", self.trainer.current_epoch))

        def after_fit(self):
            calls.append(("after_fit", self.trainer.current_epoch))

    try:
        cli = MyCLI(model.Net, model.Data, args=["fit", "--data.batch_size", "16", "--notes", "hello",
                                                 "--early_stopping.patience", "2", "--trainer.max_epochs", "2"],
                    trainer_defaults={"enable_progress_bar": False, "enable_model_summary": False})
        assert cli.model.hparams.hidden == 16 and cli.model.hparams.name == "n32"
        assert cli.config["notes"] == "hello" and cli.config["model"]["hidden"] == 16
        stopper = cli.config_init["early_stopping"]
        assert isinstance(stopper, EarlyStopping) and stopper in cli.trainer.callbacks
        assert (stopper.monitor, stopper.patience) == ("val_loss", 2)
        assert calls == [("before_fit", 0), ("after_fit", 2)]
        saved = yaml.safe_load((project / "lightning_logs" / "version_0" / "config.yaml").read_text())
        assert saved["notes"] == "hello" and saved["early_stopping"]["patience"] == 2
        # a linked target is computed: giving it is an error that names the source
        with pytest.raises(SystemExit):
            MyCLI(model.Net, model.Data, args=["fit", "--model.hidden", "3"])
        assert "error: command line: 'model.hidden' is linked from 'data.batch_size'" in capsys.readouterr().err
        with pytest.raises(SystemExit):
            MyCLI(model.Net, model.Data, args=["fit", "--notes", "[1, 2]"], run=True)
        assert "wrong type for 'notes'" in capsys.readouterr().err
    finally:
        sys.path.remove(str(project))


def test_subclass_mode_save_config_callback_run_false_and_dict_args(project, capsys):
    model = _import_model(project)
    saved = []

    class RecordingSave(SaveConfigCallback):
        def save_config(self, path):
            saved.append(path)
            super().save_config(path)

    try:
        cli = EmberCLI(model.Net, model.Data, subclass_mode_model=True, save_config_callback=RecordingSave,
                       args=["fit", "--model", "model.NoOptim", "--optimizer", "Adam", "--trainer.max_epochs", "1"],
                       trainer_defaults={"enable_progress_bar": False, "enable_model_summary": False})
        assert type(cli.model).__name__ == "NoOptim"
        assert cli.config["model"]["class_path"] == "model.NoOptim"  # subclass mode prints class_path/init_args
        assert saved == [str(project / "lightning_logs" / "version_0" / "config.yaml")]
        with pytest.raises(SystemExit):  # a class that is not a subclass of the model class
            EmberCLI(model.Net, subclass_mode_model=True, args=["fit", "--model", "model.Data"])
        assert "is not a subclass of Net" in capsys.readouterr().err
        cli = EmberCLI(model.Net, model.Data, save_config_callback=None, args=["fit", "--trainer.max_epochs", "1"],
                       trainer_defaults={"enable_progress_bar": False, "enable_model_summary": False,
                                         "default_root_dir": str(project / "nosave")})
        assert not os.path.exists(project / "nosave" / "lightning_logs" / "version_0" / "config.yaml")
        cli = EmberCLI(model.Net, model.Data, run=False, args={"model": {"hidden": 5}, "trainer": {"max_epochs": 2}})
        assert cli.trainer.state.status == "initializing" or cli.trainer.global_step == 0
        assert cli.model.hparams.hidden == 5 and cli.trainer.max_epochs == 2
    finally:
        sys.path.remove(str(project))


# ------------------------------------------------------------------------------------- repeat a saved run
def test_saved_config_repeats_the_run_from_any_directory(tmp_path, monkeypatch, capsys):
    from ember.trainer.cli import main
    repo = tmp_path / "repo"
    (repo / "examples" / "toy").mkdir(parents=True)
    (repo / "examples" / "toy" / "model.py").write_text(MODEL_PY)
    (repo / "examples" / "toy" / "config.yaml").write_text(BASE.replace("max_epochs: 1", "max_epochs: 2") +
                                                           "seed_everything: 7\n")
    monkeypatch.chdir(repo)
    assert main(["fit", "examples/toy/config.yaml"]) == 0
    saved = repo / "lightning_logs" / "version_0" / "config.yaml"
    assert yaml.safe_load(saved.read_text())["import_paths"] == ["../../examples/toy"]
    first = em.load(str(repo / "lightning_logs" / "version_0" / "checkpoints" / "epoch=1-step=8.ckpt"))
    sys.modules.pop("model", None)  # a fresh process would not have it either
    assert main(["fit", "lightning_logs/version_0/config.yaml"]) == 0  # from the repository root
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    sys.modules.pop("model", None)
    assert main(["fit", str(saved)]) == 0  # from another directory
    capsys.readouterr()
    again = em.load(str(repo / "lightning_logs" / "version_1" / "checkpoints" / "epoch=1-step=8.ckpt"))
    third = em.load(str(elsewhere / "lightning_logs" / "version_0" / "checkpoints" / "epoch=1-step=8.ckpt"))
    for key, value in first["state_dict"].items():  # the same run, bit for bit
        assert (again["state_dict"][key].numpy() == value.numpy()).all()
        assert (third["state_dict"][key].numpy() == value.numpy()).all()
