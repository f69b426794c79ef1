"""ModelCheckpoint's Lightning 2.6 rules for ``save_on_exception`` and ``save_last``: which files exist and at which
global step each save happened (4 training batches per epoch, so epoch ``e`` ends at step ``4 * (e + 1)``)."""
import os

import pytest

import ember as em
from ember.callbacks import Callback, LambdaCallback, ModelCheckpoint

from callback_testing import Scripted, loader, make_trainer


def ckpt_files(directory):
    return sorted(f for f in os.listdir(directory) if f.endswith(".ckpt")) if os.path.isdir(directory) else []


class SaveSteps(Callback):
    """The global step of every checkpoint written during the run, in order."""

    def __init__(self):
        self.steps = []

    def on_save_checkpoint(self, trainer, pl_module, checkpoint):
        self.steps.append(checkpoint["global_step"])


def crash_when(predicate, hook="on_train_batch_start"):
    def maybe_crash(trainer, *args):
        if predicate(trainer):
            raise RuntimeError("boom")
    return LambdaCallback(**{hook: maybe_crash})


def run(tmp_path, callbacks, max_epochs=3, val=False, **kwargs):
    trainer = make_trainer(tmp_path, max_epochs=max_epochs, callbacks=callbacks, **kwargs)
    trainer.fit(Scripted([]), loader(), loader(seed=1) if val else None)
    return trainer


# ------------------------------------------------------------------------------------------- save_on_exception
def test_save_on_exception_writes_the_normal_file_name_and_updates_last(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_on_exception=True, save_last=True)
    saves = SaveSteps()
    with pytest.raises(RuntimeError, match="boom"):  # two batches of epoch 1 done: global step 6
        run(tmp_path, [saves, crash_when(lambda t: t.global_step == 6), ckpt])
    # the end of epoch 0 (top-1 file + last), then the exception: <the normal name>.ckpt and last.ckpt again
    assert ckpt_files(tmp_path) == ["epoch=0-step=4.ckpt", "epoch=1-step=6.ckpt", "last.ckpt"]
    assert saves.steps == [4, 4, 6, 6]
    assert em.load(tmp_path / "last.ckpt")["global_step"] == 6
    assert em.load(tmp_path / "epoch=1-step=6.ckpt")["loops"]["fit_loop"]["epoch_loop"]["batch_progress"][
        "current"]["completed"] == 2
    assert ckpt.last_model_path == os.path.join(str(tmp_path), "last.ckpt")


def test_save_on_exception_never_saves_the_same_step_twice(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_on_exception=True, save_last=True)
    saves = SaveSteps()
    with pytest.raises(RuntimeError, match="boom"):  # epoch 1 starts at step 4, which epoch 0's end saved
        run(tmp_path, [saves, crash_when(lambda t: t.current_epoch == 1, "on_train_epoch_start"), ckpt])
    assert ckpt_files(tmp_path) == ["epoch=0-step=4.ckpt", "last.ckpt"]
    assert saves.steps == [4, 4]


def test_save_on_exception_is_off_under_fast_dev_run(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path / "ckpts", save_on_exception=True, save_last=True)
    with pytest.raises(RuntimeError, match="boom"):
        run(tmp_path, [crash_when(lambda t: t.global_step == 1), ckpt], fast_dev_run=3)
    assert ckpt_files(tmp_path / "ckpts") == []


def test_save_on_exception_without_save_last_writes_only_the_exception_file(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_on_exception=True, save_top_k=0)
    with pytest.raises(RuntimeError, match="boom"):
        run(tmp_path, [crash_when(lambda t: t.global_step == 5), ckpt])
    assert ckpt_files(tmp_path) == ["epoch=1-step=5.ckpt"]


# ----------------------------------------------------------------------------------------------------- save_last
def test_save_last_without_validation_and_save_on_train_epoch_end_false_writes_last_at_train_end(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last=True, save_on_train_epoch_end=False)
    saves = SaveSteps()
    run(tmp_path, [saves, ckpt], max_epochs=2)
    # no validation end ever comes, so nothing is saved during the run: last.ckpt once, when training ends
    assert ckpt_files(tmp_path) == ["last.ckpt"]
    assert saves.steps == [8]


def test_save_last_with_every_n_epochs_follows_the_top_k_saves_only(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last=True, every_n_epochs=2)
    saves = SaveSteps()
    run(tmp_path, [saves, ckpt], max_epochs=3)
    # epoch 1 saves (top-1 + last); epochs 0 and 2 save nothing, and the end of training adds no extra last.ckpt
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "last.ckpt"]
    assert saves.steps == [8, 8]


def test_save_last_with_save_top_k_0_writes_last_once_at_train_end(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last=True, save_top_k=0)
    saves = SaveSteps()
    run(tmp_path, [saves, ckpt], max_epochs=3, val=True)
    assert ckpt_files(tmp_path) == ["last.ckpt"]
    assert saves.steps == [12]


def test_save_last_with_a_monitor_only_follows_improvements(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_last=True)
    saves = SaveSteps()
    trainer = make_trainer(tmp_path, max_epochs=3, callbacks=[saves, ckpt])
    trainer.fit(Scripted([0.5, 0.7, 0.4]), loader(), loader(seed=1))
    # epoch 1 (0.7) is not an improvement: neither a top-k file nor last.ckpt is written then
    assert ckpt_files(tmp_path) == ["epoch=2-step=12.ckpt", "last.ckpt"]
    assert saves.steps == [4, 4, 12, 12]


def test_save_last_link_is_refreshed_and_points_to_the_latest_checkpoint(tmp_path):
    ckpt = ModelCheckpoint(dirpath=tmp_path, save_last="link", every_n_epochs=2)
    saves = SaveSteps()
    run(tmp_path, [saves, ckpt], max_epochs=3)
    assert ckpt_files(tmp_path) == ["epoch=1-step=8.ckpt", "last.ckpt"]
    assert os.path.islink(tmp_path / "last.ckpt") and os.readlink(tmp_path / "last.ckpt") == "epoch=1-step=8.ckpt"
    assert saves.steps == [8]  # a link is not a save


def test_save_last_link_needs_a_local_directory(tmp_path):
    ckpt = ModelCheckpoint(dirpath="memory://ckpts", save_last="link")
    assert ckpt.dirpath == "memory://ckpts"  # a URL is kept as given, not turned into a local path
    with pytest.raises(ValueError, match=r"`ModelCheckpoint\(save_last='link'\)` is only supported for local file "
                                         r"paths, got `dirpath=memory://ckpts`"):
        run(tmp_path, [ckpt])
    for local in (tmp_path / "a", "file://" + str(tmp_path / "b")):
        run(tmp_path, [ModelCheckpoint(dirpath=local, save_last="link")], max_epochs=1)  # accepted
    assert ckpt_files(tmp_path / "a") == ckpt_files(tmp_path / "b") == ["epoch=0-step=4.ckpt", "last.ckpt"]
    assert os.path.islink(tmp_path / "b" / "last.ckpt")
    with pytest.raises(ValueError, match="save_last='copy'"):
        ModelCheckpoint(save_last="copy")


def test_to_yaml_writes_the_best_k_scores(tmp_path):
    import yaml
    ckpt = ModelCheckpoint(dirpath=tmp_path, monitor="val_loss", save_top_k=2)
    trainer = make_trainer(tmp_path, max_epochs=2, callbacks=[ckpt])
    trainer.fit(Scripted([0.5, 0.25]), loader(), loader(seed=1))
    ckpt.to_yaml()
    with open(tmp_path / "best_k_models.yaml") as fh:
        assert yaml.safe_load(fh) == {str(tmp_path / "epoch=0-step=4.ckpt"): 0.5,
                                      str(tmp_path / "epoch=1-step=8.ckpt"): 0.25}
