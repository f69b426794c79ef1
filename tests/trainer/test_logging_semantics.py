"""``self.log`` and the metric dictionaries behave as in Lightning 2.x (issue 14)."""
import pytest

import ember as em
from ember.core.data import DataLoader

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


def _loader(n=16):
    return DataLoader(make_dataset(n), batch_size=8)


# ------------------------------------------------------------------------- 2. self.log in every hook Lightning allows
def test_log_in_on_train_start_before_any_batch_or_validation():
    class Model(Classifier):
        def on_train_start(self):
            self.log("start_metric", 1.0)

    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=1, logger=logger, log_every_n_steps=1, num_sanity_val_steps=0)
    trainer.fit(Model(), _loader())
    assert trainer.callback_metrics["start_metric"].item() == 1.0
    assert [metrics for _, metrics in logger.calls if "start_metric" in metrics] == [{"start_metric": 1.0,
                                                                                     "epoch": 0}]


def test_log_from_a_callback_hook():
    class Logs(em.Callback):
        def on_train_epoch_end(self, trainer, pl_module):
            pl_module.log("from_callback", 2.0)

    trainer = quiet_trainer(max_epochs=1, callbacks=[Logs()], num_sanity_val_steps=0)
    trainer.fit(Classifier(), _loader())
    assert trainer.callback_metrics["from_callback"].item() == 2.0


@pytest.mark.parametrize("value, kind", [("text", "str"), (None, "NoneType"), (object(), "object")])
def test_logging_a_value_that_is_not_a_number_raises_lightnings_error(value, kind):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("bad", value)
            return super().training_step(batch, batch_idx)

    with pytest.raises(ValueError, match=rf"`self.log\(bad, .*\)` was called, but `{kind}` values cannot be logged"):
        quiet_trainer(max_epochs=1).fit(Model(), _loader())


# ---------------------------------------------------------------------------------------- 1. reduce_fx spellings
@pytest.mark.parametrize("reduce_fx, expected", [("SUM", 3.0), ("Mean", 1.5), ("AVG", 1.5), (max, 2.0), (sum, 3.0),
                                                 (em.max, 2.0), (em.sum, 3.0), (em.mean, 1.5)])
def test_reduce_fx_accepts_lightnings_spellings(reduce_fx, expected):
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("x", float(batch_idx + 1), reduce_fx=reduce_fx, on_step=False, on_epoch=True, batch_size=1)
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Model(), _loader())
    assert trainer.callback_metrics["x"].item() == expected


def test_unknown_reduce_fx_is_rejected_with_lightnings_error():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("x", 1.0, reduce_fx="median")
            return super().training_step(batch, batch_idx)

    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"Only `self.log\(..., reduce_fx=\{min,max,mean,sum\}\)` are supported. If you need a "
                             r"custom reduction, please log a `Metric` instead. Found: 'median'"):
        quiet_trainer(max_epochs=1).fit(Model(), _loader())


# ------------------------------------------------------------------------------------------- 1. metric dictionaries
class LogsEverywhere(Classifier):
    def __init__(self):
        super().__init__()
        self.seen = {}

    def training_step(self, batch, batch_idx):
        self.log("t", float(batch_idx), prog_bar=True, on_step=True, on_epoch=True, batch_size=1)
        return super().training_step(batch, batch_idx)

    def validation_step(self, batch, batch_idx):
        self.log("v", float(batch_idx + 1), prog_bar=True, on_step=True, on_epoch=True, batch_size=1)

    def on_train_batch_end(self, outputs, batch, batch_idx):
        self.seen.setdefault("batch_logged", []).append(self.trainer.logged_metrics["t_step"].item())

    def on_validation_epoch_end(self):
        self.seen.setdefault("val_epoch_end", []).append(
            (self.trainer.callback_metrics["v_epoch"].item(), self.trainer.logged_metrics["v_epoch"].item()))

    def on_train_epoch_end(self):
        self.seen.setdefault("train_epoch_end", []).append(
            (self.trainer.callback_metrics["t_epoch"].item(), self.trainer.logged_metrics["t_epoch"].item()))


def test_metric_dictionaries_types_timing_and_steps():
    model = LogsEverywhere()
    logger = RecordingLogger()
    trainer = quiet_trainer(max_epochs=2, logger=logger, log_every_n_steps=50, num_sanity_val_steps=0)
    trainer.fit(model, _loader(16), _loader(16))
    # the progress bar gets Python floats; callbacks and loggers get tensors
    pbar = trainer.progress_bar_metrics
    assert {k: pbar[k] for k in ("t_step", "t_epoch", "v_epoch")} == {"t_step": 1.0, "t_epoch": 0.5, "v_epoch": 1.5}
    assert all(type(v) is float for v in pbar.values())
    assert all(isinstance(v, em.Tensor) for v in trainer.callback_metrics.values())
    assert all(isinstance(v, em.Tensor) for v in trainer.logged_metrics.values())
    # read inside a batch, logged_metrics has that batch's step values; epoch values are there in the epoch-end hooks
    assert model.seen["batch_logged"] == [0.0, 1.0, 0.0, 1.0]
    assert model.seen["val_epoch_end"] == [(1.5, 1.5), (1.5, 1.5)]
    assert model.seen["train_epoch_end"] == [(0.5, 0.5), (0.5, 0.5)]
    # validation step values are not monitored: they do not linger in callback_metrics
    assert "v_step" not in trainer.callback_metrics and "v" in trainer.callback_metrics
    # each validation run logs its step values from step 0 (Lightning counts the batches of the run)
    assert [step for step, metrics in logger.calls if "v_step" in metrics] == [0, 1, 0, 1]


def test_several_eval_loaders_get_their_own_keys():
    class Model(Classifier):
        def validation_step(self, batch, batch_idx, dataloader_idx=0):
            self.log("suffixed", float(dataloader_idx))
            self.log(f"own_{dataloader_idx}", 1.0, add_dataloader_idx=False)

        def on_validation_epoch_end(self):
            self.log("shared", 5.0)

    results = quiet_trainer().validate(Model(), [_loader(8), _loader(8)], verbose=False)
    assert results == [{"suffixed/dataloader_idx_0": 0.0, "own_0": 1.0, "shared": 5.0},
                       {"suffixed/dataloader_idx_1": 1.0, "own_1": 1.0, "shared": 5.0}]


def test_a_key_naming_a_dataloader_idx_is_rejected():
    class Model(Classifier):
        def validation_step(self, batch, batch_idx):
            self.log("loss/dataloader_idx_0", 1.0)

    with pytest.raises(em.trainer.exceptions.MisconfigurationException,
                       match=r"You called `self.log` with the key `loss/dataloader_idx_0` but it should not contain "
                             r"information about `dataloader_idx`"):
        quiet_trainer().validate(Model(), _loader(8), verbose=False)


# ------------------------------------------------------------------------- 3. ModelCheckpoint deletes only its files
class ScoredModel(Classifier):
    def validation_step(self, batch, batch_idx):
        self.log("score", float(self.current_epoch))  # rises every epoch: each new checkpoint is the best


def test_a_crafted_checkpoint_state_cannot_make_top_k_delete_an_unrelated_file(tmp_path):
    from ember.callbacks import ModelCheckpoint
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="score", mode="max", save_top_k=1)
    quiet_trainer(max_epochs=1, callbacks=[ckpt], enable_checkpointing=True,
                  num_sanity_val_steps=0).fit(ScoredModel(), _loader(), _loader(8))
    first = ckpt.best_model_path
    crafted = em.load(first)
    state = crafted["callbacks"][ckpt.state_key]
    state["best_k_models"] = {str(notes): -1.0}  # the worst "model", first in line for deletion
    state["kth_best_model_path"] = str(notes)
    state["kth_value"] = -1.0
    em.save(crafted, tmp_path / "crafted.ckpt")
    resumed = ModelCheckpoint(dirpath=tmp_path, monitor="score", mode="max", save_top_k=1)
    quiet_trainer(max_epochs=2, callbacks=[resumed], enable_checkpointing=True, num_sanity_val_steps=0).fit(
        ScoredModel(), _loader(), _loader(8), ckpt_path=tmp_path / "crafted.ckpt")
    assert notes.read_text() == "keep me"
    assert resumed.best_model_path.endswith("epoch=1-step=4.ckpt")


def test_repeated_crashes_and_resumes_leave_one_top_k_file(tmp_path):
    from ember.callbacks import ModelCheckpoint

    class Crash(em.Callback):
        def __init__(self, epoch):
            self.epoch = epoch

        def on_train_epoch_start(self, trainer, pl_module):
            if trainer.current_epoch == self.epoch:
                raise RuntimeError("simulated crash")

    ckpt_path = None
    for crash_epoch in (1, 2, 3):
        ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="score", mode="max", save_top_k=1, save_last=True)
        with pytest.raises(RuntimeError, match="simulated crash"):
            quiet_trainer(max_epochs=5, callbacks=[ckpt, Crash(crash_epoch)], enable_checkpointing=True,
                          num_sanity_val_steps=0).fit(ScoredModel(), _loader(), _loader(8), ckpt_path=ckpt_path)
        ckpt_path = tmp_path / "last.ckpt"
    top_k = sorted(p.name for p in tmp_path.iterdir() if p.name != "last.ckpt")
    assert top_k == ["epoch=2-step=6.ckpt"]


# ------------------------------------------------------------------------------------------- 7. the results table
def test_results_table_is_lightnings_plain_layout():
    from ember.trainer.results_table import format_results
    bar = "─" * 80
    table = format_results([{"val_loss/dataloader_idx_0": 0.12345678912345, "acc/dataloader_idx_0": 0.5},
                            {"val_loss/dataloader_idx_1": 1.5}], "validate", 80)
    assert table.splitlines() == [
        bar,
        f"{'Validate metric':^25}{'DataLoader 0':^25}{'DataLoader 1':^25}".rstrip(),
        bar,
        f"{'acc':^25}{'0.5':^25}{' ':^25}".rstrip(),
        f"{'val_loss':^25}{'0.12345678912345':^25}{'1.5':^25}".rstrip(),
        bar]


def test_results_table_splits_loaders_over_tables_on_a_narrow_terminal_and_keeps_values_whole():
    from ember.trainer.results_table import format_results
    table = format_results([{"loss/dataloader_idx_0": 0.1234567891234567}, {"loss/dataloader_idx_1": 2.0}], "test",
                           60)
    bar = "─" * 60
    assert table.splitlines() == [bar, f"{'Test metric':^25}{'DataLoader 0':^25}".rstrip(), bar,
                                  f"{'loss':^25}{'0.1234567891234567':^25}".rstrip(), bar,
                                  bar, f"{'Test metric':^25}{'DataLoader 1':^25}".rstrip(), bar,
                                  f"{'loss':^25}{'2.0':^25}".rstrip(), bar]


def test_test_prints_the_table(capsys):
    class Model(Classifier):
        def test_step(self, batch, batch_idx):
            self.log("test_loss", 0.25)

    quiet_trainer().test(Model(), _loader(8))
    out = capsys.readouterr().out
    assert "Test metric" in out and "0.25" in out and "─" * 10 in out


# ------------------------------------------------------------------------- 4. hparams YAML helpers and key constants
def test_hparams_yaml_helpers_and_checkpoint_key_constants(tmp_path):
    from argparse import Namespace

    from ember.trainer.saving import (CHECKPOINT_HYPER_PARAMS_KEY, load_hparams_from_yaml, save_hparams_to_yaml)
    path = tmp_path / "hparams.yaml"
    save_hparams_to_yaml(path, Namespace(lr=0.1, layers=[2, 3], name=None))
    assert load_hparams_from_yaml(path, use_omegaconf=False) == {"lr": 0.1, "layers": [2, 3], "name": None}
    with pytest.warns(UserWarning, match="Missing Tags"):
        assert load_hparams_from_yaml(tmp_path / "none.yaml") == {}
    assert em.LightningModule.CHECKPOINT_HYPER_PARAMS_KEY == CHECKPOINT_HYPER_PARAMS_KEY == "hyper_parameters"
    assert em.LightningDataModule.CHECKPOINT_HYPER_PARAMS_NAME == "hparams_name"
    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Classifier(lr=0.25), _loader(8))
    trainer.save_checkpoint(tmp_path / "m.ckpt")
    assert em.load(tmp_path / "m.ckpt")[CHECKPOINT_HYPER_PARAMS_KEY]["lr"] == 0.25


def test_a_config_object_of_hyperparameters_round_trips_through_a_checkpoint(tmp_path):
    from argparse import Namespace

    from ember.core import nn

    class Configured(em.LightningModule):
        def __init__(self, cfg):
            super().__init__()
            self.save_hyperparameters(cfg)
            self.layer = nn.Linear(4, 2)

        def training_step(self, batch, batch_idx):
            return nn.functional.cross_entropy(self.layer(batch[0]), batch[1])

        def configure_optimizers(self):
            return em.optim.SGD(self.parameters(), lr=self.hparams.lr)

    class ConfiguredData(em.LightningDataModule):
        def __init__(self, config):
            super().__init__()
            self.save_hyperparameters(config)

        def train_dataloader(self):
            return _loader(8)

    cfg = {"lr": 0.1, "optimizer": {"name": "sgd", "betas": [0.9, 0.99]}}
    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Configured(Namespace(**cfg)), datamodule=ConfiguredData({"batch": 8, "nested": {"a": 1}}))
    trainer.save_checkpoint(tmp_path / "c.ckpt")
    checkpoint = em.load(tmp_path / "c.ckpt")
    assert checkpoint["hparams_name"] == "cfg" and checkpoint["datamodule_hparams_name"] == "config"
    model = Configured.load_from_checkpoint(tmp_path / "c.ckpt")
    assert dict(model.hparams) == cfg
    data = ConfiguredData.load_from_checkpoint(tmp_path / "c.ckpt")
    assert dict(data.hparams) == {"batch": 8, "nested": {"a": 1}}
