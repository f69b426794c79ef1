"""CSVLogger and TensorBoardLogger file behaviour as in Lightning 2.6 (issue 14, point 4): when ``hparams.yaml`` and
``metrics.csv`` are written, overridable ``name``/``version``, how TensorBoard's HParams plugin shows values, and
dict-like configs (Namespace, nested dicts, OmegaConf) in loggers, checkpoints and datamodules."""
import csv
import os
from argparse import Namespace

import pytest
import yaml

import ember as em
from ember.core import nn
from ember.core.data import DataLoader
from ember.loggers import CSVLogger, TensorBoardLogger

from trainer_testing import Classifier, make_dataset, quiet_trainer


def _yaml(path):
    with open(path) as fh:
        return yaml.safe_load(fh)


def _csv_rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


def _hparams_plugin(log_dir):
    """{name: value} of the HParams plugin's session-start record in the event files of ``log_dir``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from tensorboard.plugins.hparams import plugin_data_pb2
    acc = EventAccumulator(log_dir)
    acc.Reload()
    content = acc.PluginTagToContent("hparams")["_hparams_/session_start_info"]
    info = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    return {name: getattr(value, value.WhichOneof("kind")) for name, value in info.hparams.items()}


# --------------------------------------------------------------------------------------------------- CSVLogger
def test_csv_logger_writes_hparams_yaml_on_every_log_hyperparams(tmp_path):
    logger = CSVLogger(tmp_path, name="exp", version=0)
    path = tmp_path / "exp" / "version_0" / "hparams.yaml"
    logger.log_hyperparams({"lr": 0.1, "optimizer": {"name": "sgd"}})
    assert _yaml(path) == {"lr": 0.1, "optimizer": {"name": "sgd"}}  # on disk before any save()
    logger.log_hyperparams(Namespace(batch_size=32, dropout=None))
    assert _yaml(path) == {"lr": 0.1, "optimizer": {"name": "sgd"}, "batch_size": 32, "dropout": None}
    assert not os.path.exists(tmp_path / "exp" / "version_0" / "metrics.csv")


def test_csv_logger_flushes_metrics_every_flush_logs_every_n_steps(tmp_path):
    logger = CSVLogger(tmp_path, name="", version=0, flush_logs_every_n_steps=3)
    path = tmp_path / "version_0" / "metrics.csv"
    for step in range(2):
        logger.log_metrics({"loss": float(step)}, step=step)
    assert not path.exists()
    logger.log_metrics({"loss": 2.0}, step=2)  # (2 + 1) % 3 == 0: the three rows reach the disk
    assert _csv_rows(path) == [{"loss": "0.0", "step": "0"}, {"loss": "1.0", "step": "1"},
                               {"loss": "2.0", "step": "2"}]
    logger.log_metrics({"loss": 3.0}, step=3)
    assert len(_csv_rows(path)) == 3
    logger.finalize("success")
    assert [row["step"] for row in _csv_rows(path)] == ["0", "1", "2", "3"]


def test_csv_logger_without_step_numbers_the_buffered_rows_as_lightning(tmp_path):
    logger = CSVLogger(tmp_path, name="", version=0, flush_logs_every_n_steps=2)
    for value in (1.0, 2.0, 3.0):
        logger.log_metrics({"x": value})
    logger.save()
    # step = rows still buffered: 0, 1 (flushed), then 0 again
    assert [(row["x"], row["step"]) for row in _csv_rows(tmp_path / "version_0" / "metrics.csv")] == [
        ("1.0", "0"), ("2.0", "1"), ("3.0", "0")]


class Bare(em.LightningModule):
    """No hyperparameters and nothing logged."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        return nn.functional.cross_entropy(self.layer(batch[0]), batch[1])

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


# --------------------------------------------------------------------------------------------- TensorBoardLogger
def test_tensorboard_logger_honours_overridden_name_and_version(tmp_path):
    class Custom(TensorBoardLogger):
        @property
        def name(self):
            return "custom_name"

        @property
        def version(self):
            return "custom_version"

    logger = Custom(tmp_path)
    assert logger.root_dir == os.path.join(str(tmp_path), "custom_name")
    assert logger.log_dir == os.path.join(str(tmp_path), "custom_name", "custom_version")
    trainer = quiet_trainer(max_epochs=1, logger=logger, enable_checkpointing=True, log_every_n_steps=1)
    trainer.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8))
    run_dir = tmp_path / "custom_name" / "custom_version"
    assert sorted(os.listdir(run_dir / "checkpoints")) == ["epoch=0-step=2.ckpt"]
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(run_dir))
    assert sorted(os.listdir(tmp_path)) == ["custom_name"]


def test_tensorboard_logger_writes_hparams_yaml_without_hyperparameters(tmp_path):
    logger = TensorBoardLogger(tmp_path, name="tb", version=0)
    trainer = quiet_trainer(max_epochs=1, logger=logger, log_every_n_steps=1)
    class LogsLoss(Bare):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            self.log("loss", loss)
            return loss

    trainer.fit(LogsLoss(), DataLoader(make_dataset(16), batch_size=8))
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path / "tb" / "version_0"))
    assert _yaml(tmp_path / "tb" / "version_0" / "hparams.yaml") == {}


def test_tensorboard_logger_without_anything_logged_still_writes_hparams_yaml_beside_checkpoints(tmp_path):
    logger = TensorBoardLogger(tmp_path, name="tb", version=0)
    trainer = quiet_trainer(max_epochs=1, logger=logger, enable_checkpointing=True, log_every_n_steps=50)
    trainer.fit(Bare(), DataLoader(make_dataset(16), batch_size=8))
    assert sorted(os.listdir(tmp_path / "tb" / "version_0")) == ["checkpoints", "hparams.yaml"]
    assert _yaml(tmp_path / "tb" / "version_0" / "hparams.yaml") == {}


def test_none_and_other_values_in_tensorboard_hparams_are_shown_as_lightning_shows_them(tmp_path):
    logger = TensorBoardLogger(tmp_path, name="", version=0)
    logger.log_hyperparams({"dropout": None, "lr": 0.5, "use_bn": True, "act": "relu", "layers": [1, 2],
                            "optim": {"name": "sgd", "momentum": None}, "empty": {}})
    logger.finalize("success")
    # None (also nested) becomes the string "None", a list its text; nested dicts are flattened with "/" and an
    # empty one disappears, as Lightning's _flatten_dict and _sanitize_params do
    assert _hparams_plugin(str(tmp_path / "version_0")) == {
        "dropout": "None", "lr": 0.5, "use_bn": True, "act": "relu", "layers": "[1, 2]", "optim/name": "sgd",
        "optim/momentum": "None"}
    assert _yaml(tmp_path / "version_0" / "hparams.yaml") == {
        "dropout": None, "lr": 0.5, "use_bn": True, "act": "relu", "layers": [1, 2],
        "optim": {"name": "sgd", "momentum": None}, "empty": {}}


# ---------------------------------------------------------------------------------------- dict-like configs
def _config():
    omegaconf = pytest.importorskip("omegaconf")
    return omegaconf.OmegaConf.create({"model": {"lr": 0.1, "warmup_lr": "${model.lr}", "sizes": [4, 2]},
                                       "seed": 3})


PLAIN = {"model": {"lr": 0.1, "warmup_lr": 0.1, "sizes": [4, 2]}, "seed": 3}


def test_omegaconf_config_in_the_loggers(tmp_path):
    cfg = _config()
    csv_logger = CSVLogger(tmp_path, name="csv", version=0)
    csv_logger.log_hyperparams(cfg)
    assert _yaml(tmp_path / "csv" / "version_0" / "hparams.yaml") == PLAIN  # interpolations resolved
    tb = TensorBoardLogger(tmp_path, name="tb", version=0)
    tb.log_hyperparams(cfg)
    tb.finalize("success")
    assert _hparams_plugin(str(tmp_path / "tb" / "version_0")) == {
        "model/lr": 0.1, "model/warmup_lr": 0.1, "model/sizes": "[4, 2]", "seed": 3.0}
    assert _yaml(tmp_path / "tb" / "version_0" / "hparams.yaml") == PLAIN


def test_omegaconf_config_round_trips_through_the_checkpoint_for_module_and_datamodule(tmp_path):
    cfg = _config()

    class Configured(em.LightningModule):
        def __init__(self, cfg):
            super().__init__()
            self.save_hyperparameters(cfg)
            self.layer = nn.Linear(4, 2)

        def training_step(self, batch, batch_idx):
            return nn.functional.cross_entropy(self.layer(batch[0]), batch[1])

        def configure_optimizers(self):
            return em.optim.SGD(self.parameters(), lr=self.hparams.model["lr"])

    class ConfiguredData(em.LightningDataModule):
        def __init__(self, data_cfg, batch_size=8):
            super().__init__()
            self.save_hyperparameters()

        def train_dataloader(self):
            return DataLoader(make_dataset(16), batch_size=self.hparams.batch_size)

    model, data = Configured(cfg), ConfiguredData(cfg.model)
    assert dict(model.hparams) == PLAIN
    assert dict(data.hparams) == {"data_cfg": PLAIN["model"], "batch_size": 8}
    logger = CSVLogger(tmp_path, name="", version=0)
    trainer = quiet_trainer(max_epochs=1, logger=logger)
    trainer.fit(model, datamodule=data)
    trainer.save_checkpoint(tmp_path / "c.ckpt")
    checkpoint = em.load(tmp_path / "c.ckpt")
    assert checkpoint["hyper_parameters"] == PLAIN and checkpoint["hparams_name"] == "cfg"
    assert dict(Configured.load_from_checkpoint(tmp_path / "c.ckpt").hparams) == PLAIN
    assert dict(ConfiguredData.load_from_checkpoint(tmp_path / "c.ckpt").hparams) == {
        "data_cfg": PLAIN["model"], "batch_size": 8}
    # the trainer logged module and datamodule hyperparameters together
    assert _yaml(tmp_path / "version_0" / "hparams.yaml") == {**PLAIN, "data_cfg": PLAIN["model"], "batch_size": 8}


# ------------------------------------------------------------------------------------------------- fsspec URLs
def test_csv_logger_and_model_checkpoint_write_to_an_fsspec_memory_url(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    from ember.callbacks import ModelCheckpoint
    memory = fsspec.filesystem("memory")
    memory.rm("/run14", recursive=True) if memory.exists("/run14") else None
    logger = CSVLogger("memory://run14/logs", name="exp", version=0)
    logger.log_hyperparams({"lr": 0.1})
    ckpt = ModelCheckpoint(dirpath="memory://run14/ckpts", save_last=True)
    assert ckpt.dirpath == "memory://run14/ckpts"
    trainer = quiet_trainer(max_epochs=2, logger=logger, callbacks=[ckpt], log_every_n_steps=1,
                            enable_checkpointing=True)
    trainer.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8))
    assert sorted(memory.ls("/run14/ckpts", detail=False)) == ["/run14/ckpts/epoch=1-step=4.ckpt",
                                                              "/run14/ckpts/last.ckpt"]  # epoch 0's file removed
    # the module's hyperparameters were merged in by the trainer (its lr replaces ours)
    assert yaml.safe_load(memory.cat_file("/run14/logs/exp/version_0/hparams.yaml")) == {"lr": 0.5, "features": 4}
    rows = list(csv.DictReader(memory.cat_file("/run14/logs/exp/version_0/metrics.csv").decode().splitlines()))
    assert [row["step"] for row in rows if row.get("train_loss")] == ["0", "1", "2", "3"]
    assert em.load(__import__("io").BytesIO(memory.cat_file("/run14/ckpts/last.ckpt")))["global_step"] == 4
    # resume from the URL
    again = quiet_trainer(max_epochs=3, logger=False)
    again.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8), ckpt_path="memory://run14/ckpts/last.ckpt")
    assert again.global_step == 6
    # ckpt_path="last" finds last.ckpt in a URL dirpath too
    third = quiet_trainer(max_epochs=3, logger=False, enable_checkpointing=True,
                          callbacks=[ModelCheckpoint(dirpath="memory://run14/ckpts", save_last=True)])
    third.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8), ckpt_path="last")
    assert third.global_step == 6 and third.ckpt_path == "memory://run14/ckpts/last.ckpt"
    memory.rm("/run14", recursive=True)


def test_file_urls_are_local_paths_written_atomically(tmp_path):
    from ember.callbacks import ModelCheckpoint
    logger = CSVLogger("file://" + str(tmp_path / "logs"), name="", version=0)
    ckpt = ModelCheckpoint(dirpath="file://" + str(tmp_path / "ckpts"))
    assert ckpt.dirpath == str(tmp_path / "ckpts")
    trainer = quiet_trainer(max_epochs=1, logger=logger, callbacks=[ckpt], log_every_n_steps=1,
                            enable_checkpointing=True)
    trainer.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8))
    assert sorted(os.listdir(tmp_path / "ckpts")) == ["epoch=0-step=2.ckpt"]
    assert sorted(os.listdir(tmp_path / "logs" / "version_0")) == ["hparams.yaml", "metrics.csv"]


def test_local_paths_never_import_fsspec(tmp_path):
    import subprocess
    import sys
    code = ("import sys, ember as em\n"
            "from ember.loggers import CSVLogger\n"
            "from ember.callbacks import ModelCheckpoint\n"
            "from ember.core import nn\n"
            "from ember.core.data import DataLoader, TensorDataset\n"
            "class M(em.LightningModule):\n"
            "    def __init__(self):\n"
            "        super().__init__(); self.save_hyperparameters(); self.l = nn.Linear(2, 1)\n"
            "    def training_step(self, b, i):\n"
            "        loss = self.l(b[0]).pow(2).mean(); self.log('loss', loss); return loss\n"
            "    def configure_optimizers(self):\n"
            "        return em.optim.SGD(self.parameters(), lr=0.1)\n"
            "data = DataLoader(TensorDataset(em.randn(4, 2)), batch_size=2)\n"
            f"t = em.Trainer(max_epochs=1, logger=CSVLogger({str(tmp_path)!r}), enable_progress_bar=False,\n"
            f"               callbacks=[ModelCheckpoint(dirpath={str(tmp_path / 'c')!r}, save_last=True)])\n"
            "t.fit(M(), data)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fsspec', 'omegaconf')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert sorted(os.listdir(tmp_path / "c")) == ["epoch=0-step=2.ckpt", "last.ckpt"]


def test_tensorboard_logger_writes_to_an_fsspec_memory_url(tmp_path):
    fsspec = pytest.importorskip("fsspec")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    memory = fsspec.filesystem("memory")
    logger = TensorBoardLogger("memory://tb14", name="exp", version=0)
    trainer = quiet_trainer(max_epochs=1, logger=logger, log_every_n_steps=1)
    trainer.fit(Classifier(), DataLoader(make_dataset(16), batch_size=8))
    names = sorted(p.rsplit("/", 1)[-1] for p in memory.ls("/tb14/exp/version_0", detail=False))
    assert names[-1] == "hparams.yaml" and len(names) == 2 and names[0].startswith("events.out.tfevents")
    assert yaml.safe_load(memory.cat_file("/tb14/exp/version_0/hparams.yaml")) == {"features": 4, "lr": 0.5}
    (tmp_path / names[0]).write_bytes(memory.cat_file("/tb14/exp/version_0/" + names[0]))
    events = EventAccumulator(str(tmp_path))
    events.Reload()
    assert [e.step for e in events.Scalars("train_loss")] == [0, 1]
    memory.rm("/tb14", recursive=True)
    assert not os.path.exists("memory:")  # nothing was written to a local folder named after the URL
