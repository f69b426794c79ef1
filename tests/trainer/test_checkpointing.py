"""Checkpoint files: contents, the safe container (no pickle), atomic saves, refused and damaged files, bad paths,
a full disk, incompatible models, ``load_from_checkpoint`` and the module's own checkpoint keys."""
import errno
import os
import pickle
import zipfile

import numpy as np
import pytest

import ember as em
import ember.core.serialization as serialization
from ember.core.data import DataLoader
from ember.trainer.checkpoint_io import CheckpointError, load_checkpoint

from trainer_testing import Classifier, make_dataset, quiet_trainer


def trained(tmp_path, max_epochs=1, model=None, **kwargs):
    model = model or Classifier(lr=0.3)
    trainer = quiet_trainer(max_epochs=max_epochs, default_root_dir=str(tmp_path), **kwargs)
    trainer.fit(model, DataLoader(make_dataset(16), batch_size=4))
    return trainer, model


def weights(model):
    return {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}


def test_checkpoint_contents(tmp_path):
    trainer, model = trained(tmp_path, max_epochs=2)
    path = tmp_path / "a.ckpt"
    trainer.save_checkpoint(path)
    ckpt = em.load(path)
    assert {"epoch", "global_step", "ember_version", "state_dict", "optimizer_states", "lr_schedulers", "loops",
            "callbacks", "hyper_parameters"} <= set(ckpt)
    assert ckpt["epoch"] == 2 and ckpt["global_step"] == 8 and ckpt["ember_version"] == em.__version__
    assert ckpt["hyper_parameters"] == {"lr": 0.3, "features": 4}
    assert set(ckpt["loops"]) >= {"fit_loop", "validate_loop", "test_loop"}
    assert ckpt["loops"]["fit_loop"]["epoch_progress"]["total"]["completed"] == 2
    assert ckpt["optimizer_states"][0]["param_groups"][0]["lr"] == 0.3
    for key, value in weights(model).items():
        assert np.array_equal(ckpt["state_dict"][key].numpy(), value)
    weights_only = tmp_path / "w.ckpt"
    trainer.save_checkpoint(weights_only, weights_only=True)
    assert "optimizer_states" not in em.load(weights_only)


def test_the_file_is_a_zip_of_json_and_npy_without_pickle(tmp_path):
    trainer, _ = trained(tmp_path)
    path = tmp_path / "a.ckpt"
    trainer.save_checkpoint(path)
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        assert names[0] == "ember/manifest.json"
        assert all(n.startswith("ember/data/") and n.endswith(".npy") for n in names[1:])
        for name in names[1:]:
            with zf.open(name) as f:
                np.lib.format.read_array(f, allow_pickle=False)  # raises if an array needed pickle
    assert b"\x80\x04" not in path.read_bytes()[:2]


def test_module_and_callbacks_add_their_own_keys(tmp_path):
    seen = {}

    class WithExtra(Classifier):
        def on_save_checkpoint(self, checkpoint):
            checkpoint["extra"] = {"n": 3, "table": em.ones(2), "names": ("a", "b")}

        def on_load_checkpoint(self, checkpoint):
            seen.update(checkpoint["extra"])

    trainer, _ = trained(tmp_path, model=WithExtra())
    trainer.save_checkpoint(tmp_path / "a.ckpt")
    model = WithExtra.load_from_checkpoint(tmp_path / "a.ckpt")
    assert seen["n"] == 3 and seen["names"] == ("a", "b") and seen["table"].tolist() == [1.0, 1.0]
    assert isinstance(model, WithExtra)

    class Unsavable(Classifier):
        def on_save_checkpoint(self, checkpoint):
            checkpoint["extra"] = object()

    trainer, _ = trained(tmp_path, model=Unsavable())
    with pytest.raises(serialization.SerializationError, match=r"\['extra'\]"):
        trainer.save_checkpoint(tmp_path / "b.ckpt")
    assert not (tmp_path / "b.ckpt").exists()


# ---------------------------------------------------------------------------------------------------- atomic
def _leftovers(directory):
    return [f for f in os.listdir(directory) if f.endswith(".tmp")]


def test_a_save_that_fails_midway_leaves_the_previous_checkpoint(tmp_path, monkeypatch):
    trainer, model = trained(tmp_path)
    path = tmp_path / "model.ckpt"
    trainer.save_checkpoint(path)
    before = path.read_bytes()
    real_write = serialization._write_npy
    calls = []

    def half_then_crash(zf, name, array):
        calls.append(name)
        if len(calls) == 2:
            with zf.open(name, "w") as fp:
                fp.write(b"\x93NUMPY partial")
            raise OSError(errno.EIO, "Input/output error")
        real_write(zf, name, array)

    monkeypatch.setattr(serialization, "_write_npy", half_then_crash)
    with pytest.raises(CheckpointError, match="model.ckpt"):
        trainer.save_checkpoint(path)
    assert path.read_bytes() == before
    assert _leftovers(tmp_path) == []
    monkeypatch.setattr(serialization, "_write_npy", real_write)
    restored = Classifier.load_from_checkpoint(path)
    for key, value in weights(model).items():
        assert np.array_equal(restored.state_dict()[key].detach().numpy(), value)


def test_disk_full_gives_a_clear_error_and_keeps_the_previous_file(tmp_path, monkeypatch):
    trainer, model = trained(tmp_path)
    path = tmp_path / "model.ckpt"
    trainer.save_checkpoint(path)
    before = path.read_bytes()
    state_before = weights(model)

    def full(zf, name, array):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(serialization, "_write_npy", full)
    with pytest.raises(CheckpointError, match="no space left on the device.*previous checkpoint"):
        trainer.save_checkpoint(path)
    assert path.read_bytes() == before and _leftovers(tmp_path) == []
    assert all(np.array_equal(v, state_before[k]) for k, v in weights(model).items())
    monkeypatch.undo()
    trainer.save_checkpoint(path)  # the trainer is fine: the next save works
    assert load_checkpoint(path)["global_step"] == 4


def test_bad_paths(tmp_path):
    trainer, _ = trained(tmp_path)
    with pytest.raises(IsADirectoryError, match=str(tmp_path)):
        trainer.save_checkpoint(tmp_path)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(CheckpointError, match="Cannot create the checkpoint directory"):
        trainer.save_checkpoint(tmp_path / "afile" / "sub" / "m.ckpt")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        quiet_trainer(max_epochs=1).fit(Classifier(), DataLoader(make_dataset(8), batch_size=4), ckpt_path=tmp_path)
    with pytest.raises(FileNotFoundError, match="missing.ckpt"):
        quiet_trainer(max_epochs=1).fit(Classifier(), DataLoader(make_dataset(8), batch_size=4),
                                        ckpt_path=tmp_path / "missing.ckpt")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_directory(tmp_path):
    trainer, _ = trained(tmp_path)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(PermissionError, match="not writable"):
            trainer.save_checkpoint(locked / "m.ckpt")
    finally:
        locked.chmod(0o700)


# --------------------------------------------------------------------------------------------------- refused
def test_pickle_and_foreign_files_are_refused(tmp_path):
    pickled = tmp_path / "model.pt"
    pickled.write_bytes(pickle.dumps({"state_dict": {"w": [1.0]}}))
    with pytest.raises(serialization.SerializationError, match=r"model\.pt.*pickle"):
        load_checkpoint(pickled)
    with pytest.raises(serialization.SerializationError, match="pickle"):
        Classifier.load_from_checkpoint(pickled)
    text = tmp_path / "notes.ckpt"
    text.write_text("hello")
    with pytest.raises(serialization.SerializationError, match=r"notes\.ckpt.*not an ember file"):
        quiet_trainer(max_epochs=1).fit(Classifier(), DataLoader(make_dataset(8), batch_size=4), ckpt_path=text)
    npz = tmp_path / "arrays.ckpt"
    with open(npz, "wb") as f:
        np.savez(f, a=np.ones(2))
    with pytest.raises(serialization.SerializationError, match="NumPy .npz"):
        load_checkpoint(npz)
    plain = tmp_path / "plain.ckpt"
    em.save({"weights": em.ones(2)}, plain)  # an ember file, but not a checkpoint
    with pytest.raises(CheckpointError, match=r"plain\.ckpt.*not a checkpoint"):
        load_checkpoint(plain)


def test_truncated_file_names_the_file(tmp_path):
    trainer, _ = trained(tmp_path)
    path = tmp_path / "model.ckpt"
    trainer.save_checkpoint(path)
    data = path.read_bytes()
    cut = tmp_path / "cut.ckpt"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(serialization.SerializationError, match=r"cut\.ckpt.*truncated"):
        load_checkpoint(cut)
    with pytest.raises(serialization.SerializationError, match=r"cut\.ckpt"):
        Classifier.load_from_checkpoint(cut)
    empty = tmp_path / "empty.ckpt"
    empty.write_bytes(b"")
    with pytest.raises(serialization.SerializationError, match=r"empty\.ckpt.*empty"):
        load_checkpoint(empty)


# ------------------------------------------------------------------------------------------ rebuilding modules
def test_load_from_checkpoint_rebuilds_hparams_and_weights(tmp_path):
    trainer, model = trained(tmp_path)
    path = tmp_path / "m.ckpt"
    trainer.save_checkpoint(path)
    restored = Classifier.load_from_checkpoint(path)
    assert dict(restored.hparams) == {"lr": 0.3, "features": 4}
    for key, value in weights(model).items():
        assert np.array_equal(restored.state_dict()[key].detach().numpy(), value)
    overridden = Classifier.load_from_checkpoint(path, lr=0.01)
    assert overridden.hparams.lr == 0.01 and overridden.hparams.features == 4
    assert np.array_equal(overridden.layer.weight.detach().numpy(), model.layer.weight.detach().numpy())


def test_incompatible_checkpoint_lists_keys_and_shapes(tmp_path):
    trainer, _ = trained(tmp_path)
    path = tmp_path / "m.ckpt"
    trainer.save_checkpoint(path)
    with pytest.raises(RuntimeError, match=r"size mismatch for layer\.weight.*\[2, 4\].*\[2, 5\]"):
        Classifier.load_from_checkpoint(path, features=5)
    other = quiet_trainer(max_epochs=2)
    with pytest.raises(RuntimeError, match=r"layer\.weight.*\[2, 4\].*\[2, 6\]"):
        other.fit(Classifier(features=6), DataLoader(make_dataset(8, features=6), batch_size=4), ckpt_path=path)


def test_datamodule_load_from_checkpoint(tmp_path):
    class Data(em.LightningDataModule):
        def __init__(self, batch_size=4, n=16):
            super().__init__()
            self.save_hyperparameters()

        def train_dataloader(self):
            return DataLoader(make_dataset(self.hparams.n), batch_size=self.hparams.batch_size)

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Classifier(), datamodule=Data(batch_size=8, n=16))
    path = tmp_path / "m.ckpt"
    trainer.save_checkpoint(path)
    dm = Data.load_from_checkpoint(path)
    assert dm.hparams.batch_size == 8 and dm.hparams.n == 16
    assert Data.load_from_checkpoint(path, n=32).hparams.n == 32


def test_resume_from_last_without_any_checkpoint_warns_and_starts_fresh(tmp_path):
    from ember.callbacks import ModelCheckpoint
    trainer = quiet_trainer(max_epochs=1, enable_checkpointing=None, callbacks=[ModelCheckpoint(dirpath=tmp_path)])
    with pytest.warns(UserWarning, match="no last checkpoint"):
        trainer.fit(Classifier(), DataLoader(make_dataset(8), batch_size=4), ckpt_path="last")
    assert trainer.global_step == 2


def test_best_checkpoint_with_fast_dev_run_names_the_entry_point(tmp_path):
    trainer, model = trained(tmp_path, fast_dev_run=True)
    with pytest.raises(ValueError) as info:
        trainer.validate(model, DataLoader(make_dataset(8), batch_size=4), ckpt_path="best")
    assert str(info.value) == ('You cannot execute `.validate(ckpt_path="best")` with `fast_dev_run=True`. Please '
                               'pass an exact checkpoint path to `.validate(ckpt_path=...)`')
