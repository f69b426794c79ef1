"""ModelCheckpoint: top-k bookkeeping on scripted metrics, file-name templates, triggers, last.ckpt, directories,
state and errors. Every expected file name is worked out by hand from the script (4 training batches per epoch, so
the global step at the end of epoch ``e`` is ``4 * (e + 1)``)."""
import os
from datetime import timedelta

import pytest

import ember as em
from ember.callbacks import ModelCheckpoint
from ember.loggers import TensorBoardLogger
from ember.trainer import MisconfigurationException

from callback_testing import Scripted, float32, loader, make_trainer


def ckpt_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".ckpt"))


def fit(tmp_path, script, callbacks, max_epochs=None, val=True, **kwargs):
    model = Scripted(script)
    trainer = make_trainer(tmp_path, max_epochs=max_epochs or max(len(script), 1), callbacks=callbacks, **kwargs)
    trainer.fit(model, loader(), loader(seed=1) if val else None)
    return trainer, model


# ----------------------------------------------------------------------------------------------------- top k
def test_save_top_k_min_keeps_exactly_the_two_best(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path / "ckpts", monitor="val_loss", mode="min", save_top_k=2)
    fit(tmp_path, [0.5, 0.3, 0.4, 0.2, 0.6], [ckpt])
    # e0 0.5 kept; e1 0.3 kept; e2 0.4 displaces e0; e3 0.2 displaces e2; e4 0.6 is not in the top 2
    assert ckpt_files(tmp_path / "ckpts") == ["epoch=1-step=8.ckpt", "epoch=3-step=16.ckpt"]
    d = str(tmp_path / "ckpts")
    assert ckpt.best_model_path == os.path.join(d, "epoch=3-step=16.ckpt")
    assert ckpt.best_model_score.item() == float32(0.2)
    assert ckpt.kth_best_model_path == os.path.join(d, "epoch=1-step=8.ckpt")
    assert ckpt.kth_value.item() == float32(0.3)
    assert {os.path.basename(k): v.item() for k, v in ckpt.best_k_models.items()} == {
        "epoch=1-step=8.ckpt": float32(0.3), "epoch=3-step=16.ckpt": float32(0.2)}
    # the best file holds the state of the end of epoch 3
    saved = em.load(ckpt.best_model_path)
    assert saved["epoch"] == 3 and saved["global_step"] == 16


def test_save_top_k_max(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_acc", mode="max", save_top_k=2)
    model = Scripted([0.5, 0.3, 0.4, 0.2, 0.6], monitor="val_acc")
    make_trainer(tmp_path, max_epochs=5, callbacks=[ckpt]).fit(model, loader(), loader(seed=1))
    # e0 0.5, e1 0.3 kept; e2 0.4 displaces e1; e3 0.2 rejected; e4 0.6 displaces e2
    assert ckpt_files(tmp_path) == ["epoch=0-step=4.ckpt", "epoch=4-step=20.ckpt"]
    assert os.path.basename(ckpt.best_model_path) == "epoch=4-step=20.ckpt"


def test_save_top_k_all_and_none(tmp_path):
    keep_all = ModelCheckpoint(dirpath=tmp_path / "all", monitor="val_loss", save_top_k=-1)
    keep_none = ModelCheckpoint(dirpath=tmp_path / "none", monitor="val_loss", save_top_k=0)
    fit(tmp_path, [0.5, 0.3, 0.4], [keep_all, keep_none])
    assert ckpt_files(tmp_path / "all") == ["epoch=0-step=4.ckpt", "epoch=1-step=8.ckpt", "epoch=2-step=12.ckpt"]
    assert not os.path.exists(tmp_path / "none")
    assert keep_none.best_model_path == ""


def test_nan_is_never_best(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=1)
    fit(tmp_path, [0.5, float("nan")], [ckpt])
    assert ckpt_files(tmp_path) == ["epoch=0-step=4.ckpt"]


def test_no_monitor_keeps_only_the_latest(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path)
    fit(tmp_path, [], [ckpt], max_epochs=3, val=False)
    assert ckpt_files(tmp_path) == ["epoch=2-step=12.ckpt"]
    assert ckpt.best_model_path == os.path.join(str(tmp_path), "epoch=2-step=12.ckpt")


# --------------------------------------------------------------------------------------------------- names
def test_filename_template_from_the_issue(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, filename="{epoch}-{val_loss:.2f}", monitor="val_loss")
    fit(tmp_path, [0.9, 0.5, 0.1234], [ckpt])
    assert ckpt_files(tmp_path) == ["epoch=2-val_loss=0.12.ckpt"]


def test_format_checkpoint_name(tmp_path):
    d = str(tmp_path)
    cb = ModelCheckpoint(dirpath=d, filename="{epoch}-{val.loss:.1f}")
    assert cb.format_checkpoint_name({"epoch": 1, "val.loss": 0.54}) == os.path.join(d, "epoch=1-val.loss=0.5.ckpt")
    # a key missing from the metrics formats as 0
    assert cb.format_checkpoint_name({"epoch": 1}) == os.path.join(d, "epoch=1-val.loss=0.0.ckpt")
    cb = ModelCheckpoint(dirpath=d, filename="{epoch:02d}-{val/acc:.3f}", auto_insert_metric_name=False)
    assert cb.format_checkpoint_name({"epoch": 3, "val/acc": em.tensor(0.91234)}) == os.path.join(d, "03-0.912.ckpt")
    # longer keys first: "epoch" must not clobber "epoch_test"
    cb = ModelCheckpoint(dirpath=d, filename="{epoch}-{epoch_test}")
    assert cb.format_checkpoint_name({"epoch": 1, "epoch_test": 7}) == os.path.join(d, "epoch=1-epoch_test=7.ckpt")
    cb = ModelCheckpoint(dirpath=d)
    assert cb.format_checkpoint_name({"epoch": 1, "step": 5}) == os.path.join(d, "epoch=1-step=5.ckpt")
    assert cb.format_checkpoint_name({"epoch": 1, "step": 5}, ver=2) == os.path.join(d, "epoch=1-step=5-v2.ckpt")
    assert cb.format_checkpoint_name({}, filename="last") == os.path.join(d, "last.ckpt")
    assert ModelCheckpoint(filename="x").format_checkpoint_name({}) == "x.ckpt"


def test_version_counter_on_name_clash(tmp_path):
    (tmp_path / "epoch=0-step=4.ckpt").write_bytes(b"an older file")
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_top_k=-1)
    with pytest.warns(UserWarning, match="exists and is not empty"):
        fit(tmp_path, [], [ckpt], max_epochs=1, val=False)
    assert ckpt_files(tmp_path) == ["epoch=0-step=4-v1.ckpt", "epoch=0-step=4.ckpt"]
    assert (tmp_path / "epoch=0-step=4.ckpt").read_bytes() == b"an older file"

    ckpt = ModelCheckpoint(dirpath=tmp_path / "b", save_top_k=-1, enable_version_counter=False)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "epoch=0-step=4.ckpt").write_bytes(b"old")
    with pytest.warns(UserWarning, match="exists and is not empty"):
        fit(tmp_path, [], [ckpt], max_epochs=1, val=False)
    assert ckpt_files(tmp_path / "b") == ["epoch=0-step=4.ckpt"]
    assert em.load(tmp_path / "b" / "epoch=0-step=4.ckpt")["global_step"] == 4


# ------------------------------------------------------------------------------------------------- triggers
def test_every_n_train_steps(tmp_path):
    keep_all = ModelCheckpoint(dirpath=tmp_path / "all", every_n_train_steps=3, save_top_k=-1)
    latest = ModelCheckpoint(dirpath=tmp_path / "latest", every_n_train_steps=3)
    fit(tmp_path, [], [keep_all, latest], max_epochs=2, val=False)  # 8 steps: saves after steps 3 and 6 only
    assert ckpt_files(tmp_path / "all") == ["epoch=0-step=3.ckpt", "epoch=1-step=6.ckpt"]
    assert ckpt_files(tmp_path / "latest") == ["epoch=1-step=6.ckpt"]
    saved = em.load(tmp_path / "all" / "epoch=0-step=3.ckpt")
    assert saved["global_step"] == 3


def test_every_n_epochs(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, every_n_epochs=2, save_top_k=-1)
    fit(tmp_path, [], [ckpt], max_epochs=5, val=False)
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "epoch=3-step=16.ckpt"]


def test_train_time_interval(tmp_path, monkeypatch):
    import ember.callbacks.model_checkpoint as mc

    class Clock:  # one second per call: on_train_start reads 0, the end of batch n reads n
        now = -1.0

        @classmethod
        def monotonic(cls):
            cls.now += 1.0
            return cls.now

    monkeypatch.setattr(mc, "time", Clock)
    ckpt = ModelCheckpoint(dirpath=tmp_path, train_time_interval=timedelta(seconds=2.5), save_top_k=-1)
    fit(tmp_path, [], [ckpt], max_epochs=2, val=False)
    # 3 - 0 >= 2.5 saves at step 3; 6 - 3 >= 2.5 saves at step 6; 8 - 6 < 2.5
    assert ckpt_files(tmp_path) == ["epoch=0-step=3.ckpt", "epoch=1-step=6.ckpt"]


def test_save_last(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last=True)
    fit(tmp_path, [], [ckpt], max_epochs=2, val=False)
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "last.ckpt"]
    assert ckpt.last_model_path == os.path.join(str(tmp_path), "last.ckpt")
    last = em.load(ckpt.last_model_path)
    assert last["global_step"] == 8 and last["epoch"] == 1

    only_last = ModelCheckpoint(dirpath=tmp_path / "only", save_last=True, save_top_k=0, every_n_train_steps=3)
    fit(tmp_path, [], [only_last], max_epochs=2, val=False)
    assert ckpt_files(tmp_path / "only") == ["last.ckpt"]
    # Lightning 2.6: last.ckpt follows the save triggers (steps 3 and 6), never an epoch end of its own
    assert em.load(only_last.last_model_path)["global_step"] == 6


def test_save_last_link(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last="link")
    fit(tmp_path, [], [ckpt], max_epochs=2, val=False)
    assert os.path.islink(tmp_path / "last.ckpt")
    assert os.readlink(tmp_path / "last.ckpt") == "epoch=1-step=8.ckpt"


def test_save_weights_only(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_weights_only=True)
    fit(tmp_path, [], [ckpt], max_epochs=1, val=False)
    saved = em.load(ckpt.best_model_path)
    assert "optimizer_states" not in saved and "callbacks" not in saved
    assert sorted(saved["state_dict"]) == ["layer.bias", "layer.weight"]
    trainer = make_trainer(tmp_path, max_epochs=2, enable_checkpointing=False)
    with pytest.raises(KeyError, match="contains only the model"):
        trainer.fit(Scripted(), loader(), ckpt_path=ckpt.best_model_path)


def test_validation_inside_the_epoch_saves_after_validation(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=-1)
    fit(tmp_path, [0.5, 0.4], [ckpt], val_check_interval=0.5)
    # two validations per epoch (after batches 2 and 4): saved after each one
    assert ckpt_files(tmp_path) == ["epoch=0-step=2.ckpt", "epoch=0-step=4.ckpt", "epoch=1-step=6.ckpt",
                                    "epoch=1-step=8.ckpt"]


def test_skipped_in_sanity_check(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path / "a", monitor="val_loss", save_top_k=-1)
    fit(tmp_path, [0.5], [ckpt], num_sanity_val_steps=2)
    assert ckpt_files(tmp_path / "a") == ["epoch=0-step=4.ckpt"]


def test_skipped_under_fast_dev_run(tmp_path):
    # Lightning keeps a user's ModelCheckpoint under fast_dev_run and the callback simply does not save
    # (FAILS until trainer.py stops forcing enable_checkpointing=False for fast_dev_run: see the helper's report)
    ckpt = ModelCheckpoint(dirpath=tmp_path / "b")
    trainer = em.Trainer(fast_dev_run=True, callbacks=[ckpt], enable_progress_bar=False,
                         enable_model_summary=False, default_root_dir=str(tmp_path))
    trainer.fit(Scripted(), loader())
    assert not os.path.exists(tmp_path / "b")


# ------------------------------------------------------------------------------------------------ directories
def test_default_directory_follows_the_logger(tmp_path):
    trainer = em.Trainer(default_root_dir=str(tmp_path), max_epochs=2, enable_progress_bar=False,
                         enable_model_summary=False)  # default logger and default ModelCheckpoint
    trainer.fit(Scripted(), loader())
    directory = tmp_path / "lightning_logs" / "version_0" / "checkpoints"
    assert ckpt_files(directory) == ["epoch=1-step=8.ckpt"]
    assert trainer.checkpoint_callback.dirpath == str(directory)
    assert isinstance(trainer.logger, TensorBoardLogger)

    logger = TensorBoardLogger(tmp_path / "tb", name="exp", version="run-a")
    ckpt = ModelCheckpoint()
    fit(tmp_path, [], [ckpt], max_epochs=1, val=False, logger=logger)
    assert ckpt_files(tmp_path / "tb" / "exp" / "run-a" / "checkpoints") == ["epoch=0-step=4.ckpt"]


def test_default_directory_without_logger(tmp_path):
    trainer = make_trainer(tmp_path, max_epochs=1)
    trainer.fit(Scripted(), loader())
    assert ckpt_files(tmp_path / "checkpoints") == ["epoch=0-step=4.ckpt"]


def test_dirpath_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError, match="is an existing file"):
        fit(tmp_path, [], [ModelCheckpoint(dirpath=tmp_path / "f")], max_epochs=1, val=False)


# ---------------------------------------------------------------------------------------------------- errors
def test_monitor_never_logged_lists_the_logged_keys(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_acc")
    with pytest.raises(MisconfigurationException, match=r"monitor='val_acc'.*'train_loss'.*'val_loss'"):
        fit(tmp_path, [0.5], [ckpt])


@pytest.mark.parametrize("kwargs, match", [
    (dict(save_top_k=-2), "save_top_k=-2"),
    (dict(save_top_k=2), "No quantity for top_k to track"),
    (dict(mode="avg"), "`mode` can be min, max but got avg"),
    (dict(every_n_epochs=2, every_n_train_steps=3), "mutually exclusive"),
    (dict(every_n_train_steps=-1), "every_n_train_steps=-1"),
])
def test_invalid_arguments(kwargs, match):
    with pytest.raises(MisconfigurationException, match=match):
        ModelCheckpoint(**kwargs)


def test_failed_save_keeps_state_and_files(tmp_path, monkeypatch):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=1)
    model = Scripted([0.5, 0.3, 0.2])
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[ckpt])
    real = trainer.save_checkpoint
    calls = []

    def flaky(path, weights_only=False):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(path, weights_only)

    monkeypatch.setattr(trainer, "save_checkpoint", flaky)
    with pytest.raises(OSError):
        trainer.fit(model, loader(), loader(seed=1))
    assert ckpt_files(tmp_path) == ["epoch=0-step=4.ckpt"]
    assert list(ckpt.best_k_models) == [os.path.join(str(tmp_path), "epoch=0-step=4.ckpt")]
    assert ckpt.best_model_score.item() == float32(0.5)


# ----------------------------------------------------------------------------------------------------- state
def test_state_key_and_state_in_the_checkpoint(tmp_path):
    a = ModelCheckpoint(dirpath=tmp_path / "a", monitor="val_loss", save_top_k=2)
    b = ModelCheckpoint(dirpath=tmp_path / "b", every_n_train_steps=2)
    assert a.state_key == ("ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min', 'every_n_train_steps': 0, "
                           "'every_n_epochs': 1, 'train_time_interval': None}")
    fit(tmp_path, [0.5, 0.3], [a, b])
    saved = em.load(a.best_model_path)
    assert set(saved["callbacks"]) >= {a.state_key, b.state_key}
    state = saved["callbacks"][a.state_key]
    # saved at the end of epoch 1: the new best is already part of the state being saved
    assert state["best_model_path"] == a.best_model_path
    assert state["dirpath"] == str(tmp_path / "a")


def test_resume_continues_the_top_k(tmp_path):
    script = [0.5, 0.3, 0.4, 0.2, 0.6]
    first = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2, save_last=True)
    make_trainer(tmp_path, max_epochs=3, callbacks=[first]).fit(Scripted(script), loader(), loader(seed=1))
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "epoch=2-step=12.ckpt", "last.ckpt"]
    second = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2, save_last=True)
    trainer = make_trainer(tmp_path, max_epochs=5, callbacks=[second])
    with pytest.warns(UserWarning, match="exists and is not empty"):
        trainer.fit(Scripted(script), loader(), loader(seed=1), ckpt_path="last")
    # exactly the files of an uninterrupted run
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "epoch=3-step=16.ckpt", "last.ckpt"]
    assert os.path.basename(second.best_model_path) == "epoch=3-step=16.ckpt"
    # Lightning 2.6: last.ckpt follows the latest top-k save (epoch 4 did not enter the top 2)
    assert em.load(second.last_model_path)["global_step"] == 16


def test_best_checkpoint_is_used_by_validate(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=1)
    model = Scripted([0.5, 0.3, 0.4])
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[ckpt])
    trainer.fit(model, loader(), loader(seed=1))
    best = em.load(ckpt.best_model_path)["state_dict"]
    trainer.validate(model, loader(seed=1), ckpt_path="best", verbose=False)
    assert (model.layer.weight.detach().numpy() == best["layer.weight"].detach().numpy()).all()
