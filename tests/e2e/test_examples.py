"""Every example runs through the ``trainer`` command for 1-2 short epochs: exit code, metrics in the TensorBoard
event files, checkpoint files and the saved config.yaml. The full main job (>= 95% test accuracy) runs
in test_readme_commands.py, verbatim as the README gives it."""
import gzip
import importlib.util
import os

import numpy as np
import pytest
import yaml

import ember as em
from ember.trainer.cli import main

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(em.__file__)), "examples")
QUICK = ["--trainer.max_epochs", "1", "--trainer.limit_train_batches", "3", "--trainer.limit_val_batches", "2",
         "--trainer.limit_test_batches", "2", "--trainer.log_every_n_steps", "1",
         "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary", "false"]


def config_of(name):
    return os.path.join(EXAMPLES, name, "config.yaml")


def scalars(log_dir):
    """{tag: [(step, value), ...]} from every event file in ``log_dir``."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    out = {}
    for name in sorted(os.listdir(log_dir)):
        if name.startswith("events.out.tfevents"):
            acc = EventAccumulator(os.path.join(log_dir, name))
            acc.Reload()
            for tag in acc.Tags()["scalars"]:
                out.setdefault(tag, []).extend((e.step, e.value) for e in acc.Scalars(tag))
    return out


def run_example(name, tmp_path, monkeypatch, capsys, *extra):
    monkeypatch.chdir(tmp_path)
    code = main(["fit", config_of(name), *QUICK, *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    log_dir = tmp_path / "lightning_logs" / "version_0"
    saved = yaml.safe_load((log_dir / "config.yaml").read_text())
    assert saved["trainer"]["max_epochs"] == int(dict(zip(extra[::2], extra[1::2])).get("--trainer.max_epochs", 1))
    assert saved["trainer"]["limit_train_batches"] == 3
    with open(config_of(name)) as f:
        original = yaml.safe_load(f)
    assert saved["model"]["class_path"] == original["model"]["class_path"]
    assert saved["data"]["class_path"] == original["data"]["class_path"]
    checkpoints = sorted(os.listdir(log_dir / "checkpoints"))
    return out, scalars(str(log_dir)), checkpoints, saved


def run_test_subcommand(name, tmp_path, capsys, ckpt_path, *extra):
    """``trainer test`` on a checkpoint; returns (stdout, scalars of the new version directory)."""
    versions = sorted(os.listdir(tmp_path / "lightning_logs"))
    code = main(["test", config_of(name), "--ckpt_path", str(ckpt_path), "--trainer.limit_test_batches", "2",
                 "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary", "false", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    new = [v for v in sorted(os.listdir(tmp_path / "lightning_logs")) if v not in versions]
    return out, scalars(str(tmp_path / "lightning_logs" / new[0]))


def test_digits(tmp_path, monkeypatch, capsys):
    # test_after_fit is checked by the main job below; here `trainer test` runs on the best checkpoint instead
    out, tags, ckpts, saved = run_example("digits", tmp_path, monkeypatch, capsys, "--test_after_fit", "false")
    for tag in ("train_loss", "train_acc", "val_loss", "val_acc", "lr-Adam"):
        assert tag in tags, tag
    assert [s for s, _ in tags["train_loss"]] == [0, 1, 2]
    assert tags["lr-Adam"][0][1] == pytest.approx(0.002)
    assert 0.0 <= tags["val_acc"][0][1] <= 1.0
    assert "last.ckpt" in ckpts
    best = next(c for c in ckpts if c.startswith("best-"))
    assert best == f"best-epoch=0-val_acc={tags['val_acc'][0][1]:.3f}.ckpt"
    assert saved["optimizer"]["class_path"] == "ember.optim.Adam" and saved["seed_everything"] == 42
    out, test_tags = run_test_subcommand("digits", tmp_path, capsys,
                                         tmp_path / "lightning_logs" / "version_0" / "checkpoints" / best)
    assert {"test_acc", "test_loss"} <= set(test_tags) and "test_acc" in out


def test_autoencoder(tmp_path, monkeypatch, capsys):
    _, tags, ckpts, _ = run_example("autoencoder", tmp_path, monkeypatch, capsys, "--test_after_fit", "false")
    assert {"train_loss", "val_loss"} <= set(tags)
    val_loss = tags["val_loss"][0][1]
    assert ckpts == [f"ae-epoch=0-val_loss={val_loss:.4f}.ckpt"]
    _, test_tags = run_test_subcommand("autoencoder", tmp_path, capsys,
                                       tmp_path / "lightning_logs" / "version_0" / "checkpoints" / ckpts[0])
    assert "test_loss" in test_tags


def test_gan(tmp_path, monkeypatch, capsys):
    out, tags, ckpts, _ = run_example("gan", tmp_path, monkeypatch, capsys)
    assert {"d_loss", "g_loss", "digit_score", "real_digit_score", "d_real_prob"} <= set(tags)
    assert [s for s, _ in tags["d_loss"]] == [0, 1, 2]          # logged once per batch...
    assert ckpts == ["epoch=0-step=6.ckpt", "last.ckpt"]        # ...while two optimizer steps count per batch
    assert 1.0 <= tags["digit_score"][0][1] <= 10.0
    assert "generated digits:" in out


def test_char_transformer(tmp_path, monkeypatch, capsys):
    out, tags, ckpts, _ = run_example("char_transformer", tmp_path, monkeypatch, capsys, "--model.sample_length",
                                      "20", "--data.windows_per_epoch", "256")
    assert {"train_loss", "val_loss", "lr-AdamW"} <= set(tags)
    assert tags["train_loss"][0][1] == pytest.approx(np.log(128), abs=0.6)  # starts near uniform over 128 codes
    assert "last.ckpt" in ckpts
    sample = out.split("sample:\n", 1)[1]
    assert sample.startswith("def ") and len(sample.rstrip("\n")) >= 24


def test_distillation(tmp_path, monkeypatch, capsys):
    _, tags, ckpts, _ = run_example("distillation", tmp_path, monkeypatch, capsys, "--trainer.max_epochs", "2",
                                    "--model.teacher_epochs", "1", "--test_after_fit", "false")
    assert {"teacher_loss", "student_loss", "student_kd_loss", "val_acc_teacher", "val_acc_student",
            "val_acc_student_kd"} <= set(tags)
    assert [s for s, _ in tags["teacher_loss"]] == [0, 1, 2] and [s for s, _ in tags["student_loss"]] == [3, 4, 5]
    assert ckpts == ["epoch=1-step=9.ckpt"]  # 3 teacher steps, then 2 students x 3 batches
    out, test_tags = run_test_subcommand("distillation", tmp_path, capsys,
                                         tmp_path / "lightning_logs" / "version_0" / "checkpoints" / ckpts[0])
    assert {"test_acc_teacher", "test_acc_student", "test_acc_student_kd"} <= set(test_tags)
    line = next(line for line in out.splitlines() if line.startswith("test accuracy: teacher "))
    acc = {k: test_tags[f"test_acc_{k}"][0][1] for k in ("teacher", "student", "student_kd")}
    assert line == (f"test accuracy: teacher {acc['teacher']:.1%} | student alone {acc['student']:.1%} | "
                    f"student with distillation {acc['student_kd']:.1%}")


def test_distillation_loss_matches_its_formula():
    spec = importlib.util.spec_from_file_location("distillation_example", os.path.join(EXAMPLES, "distillation",
                                                                                      "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    s, t = rng.standard_normal((5, 10)), rng.standard_normal((5, 10))
    y = rng.integers(0, 10, 5)
    T, alpha = 3.0, 0.25

    def log_softmax(z):
        z = z - z.max(1, keepdims=True)
        return z - np.log(np.exp(z).sum(1, keepdims=True))

    ce = -log_softmax(s)[np.arange(5), y].mean()
    pt = np.exp(log_softmax(t / T))
    kl = (pt * (np.log(pt) - log_softmax(s / T))).sum() / 5
    expected = alpha * ce + (1 - alpha) * T * T * kl
    got = module.distillation_loss(em.tensor(s), em.tensor(t), em.tensor(y), T, alpha)
    assert float(got) == pytest.approx(expected, rel=1e-10)


# ------------------------------------------------------------------------------------------ MNIST IDX files
def digits_module():
    spec = importlib.util.spec_from_file_location("digits_example", os.path.join(EXAMPLES, "digits", "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_idx(path, array, type_code):
    header = bytes([0, 0, type_code, array.ndim]) + np.asarray(array.shape, dtype=">u4").tobytes()
    big_endian = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}[type_code]
    data = header + array.astype(big_endian).tobytes()
    if path.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def test_idx_reader_round_trips_every_type(tmp_path):
    read_idx = digits_module().read_idx
    rng = np.random.default_rng(0)
    cases = [(0x08, rng.integers(0, 256, (3, 4, 5)).astype(np.uint8)),
             (0x09, rng.integers(-128, 128, (7,)).astype(np.int8)),
             (0x0B, rng.integers(-3000, 3000, (2, 3)).astype(np.int16)),
             (0x0C, rng.integers(-10 ** 6, 10 ** 6, (4,)).astype(np.int32)),
             (0x0D, rng.standard_normal((2, 2)).astype(np.float32)),
             (0x0E, rng.standard_normal((3,)))]
    for code, array in cases:
        for suffix in ("", ".gz"):
            path = str(tmp_path / f"a{code}{suffix}")
            write_idx(path, array, code)
            got = read_idx(path)
            assert got.shape == array.shape and got.dtype == array.dtype.newbyteorder("=")
            np.testing.assert_array_equal(got, array)
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01\x00\x00\x00\x01\x05")
    with pytest.raises(ValueError, match="is not an IDX file"):
        read_idx(str(tmp_path / "bad"))
    (tmp_path / "short").write_bytes(bytes([0, 0, 8, 1, 0, 0, 0, 5, 1, 2]))
    with pytest.raises(ValueError, match=r"announces shape \(5,\) \(5 bytes of data\) but the file holds 2 bytes"):
        read_idx(str(tmp_path / "short"))


def write_mnist(directory, n_train=60, n_test=20, gz=True):
    rng = np.random.default_rng(1)
    suffix = ".gz" if gz else ""
    labels = {"train": rng.integers(0, 10, n_train), "t10k": rng.integers(0, 10, n_test)}
    for split, n in (("train", n_train), ("t10k", n_test)):
        images = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
        images[:, 0, 0] = 255  # the scaling to [0, 1] is by 255
        write_idx(os.path.join(directory, f"{split}-images-idx3-ubyte{suffix}"), images, 0x08)
        write_idx(os.path.join(directory, f"{split}-labels-idx1-ubyte{suffix}"), labels[split].astype(np.uint8), 0x08)
    return labels


def test_digits_datamodule_reads_mnist_idx_files(tmp_path):
    module = digits_module()
    labels = write_mnist(str(tmp_path))
    dm = module.DigitsDataModule(data_dir=str(tmp_path), val_fraction=0.25)
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set), len(dm.test_set)) == (45, 15, 20)
    x, y = dm.test_set[0]
    assert tuple(x.shape) == (1, 28, 28) and float(x.max()) == 1.0 and float(x.min()) >= 0.0
    np.testing.assert_array_equal(np.array([int(dm.test_set[i][1]) for i in range(20)]), labels["t10k"])
    with pytest.raises(FileNotFoundError, match="has no train-images-idx3-ubyte"):
        module.DigitsDataModule(data_dir=str(tmp_path / "missing")).setup("fit")
    # the shipped UCI digits: 1,797 images split 70/15/15
    dm = module.DigitsDataModule()
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set), len(dm.test_set)) == (1257, 270, 270)


def test_digits_example_trains_on_mnist_idx_files(tmp_path, monkeypatch, capsys):
    data = tmp_path / "mnist"
    data.mkdir()
    write_mnist(str(data), gz=False)
    monkeypatch.chdir(tmp_path)
    code = main(["fit", config_of("digits"), *QUICK, "--data.data_dir", str(data), "--data.batch_size", "8"])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert "test_acc" in scalars(str(tmp_path / "lightning_logs" / "version_0"))


# ------------------------------------------------------------------------------------- resume and main job
INTERRUPT_PY = '''
from ember.callbacks import Callback


class InterruptAt(Callback):
    """Raises KeyboardInterrupt (as Ctrl-C would) when the given global step is reached."""

    def __init__(self, step: int):
        self.step = step

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.step:
            raise KeyboardInterrupt
'''


def test_interrupted_run_resumes_with_ckpt_path_last(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "interrupt.py").write_text(INTERRUPT_PY)
    with open(config_of("digits")) as f:
        callbacks = yaml.safe_load(f)["trainer"]["callbacks"]
    (tmp_path / "interrupt.yaml").write_text(yaml.safe_dump(
        {"trainer": {"callbacks": callbacks + [{"class_path": "interrupt.InterruptAt", "init_args": {"step": 6}}]}}))
    common = ["--trainer.max_epochs", "3", "--trainer.limit_train_batches", "4", "--trainer.limit_val_batches", "1",
              "--trainer.log_every_n_steps", "1", "--trainer.enable_progress_bar", "false",
              "--trainer.enable_model_summary", "false", "--test_after_fit", "false"]
    code = main(["fit", config_of("digits"), "interrupt.yaml", *common])
    _, err = capsys.readouterr()
    assert code == 1
    assert err.rstrip().endswith("error: fit was interrupted; resume it with --ckpt_path last")
    first = scalars(str(tmp_path / "lightning_logs" / "version_0"))
    assert [s for s, _ in first["train_loss"]] == [0, 1, 2, 3, 4, 5]  # stopped inside the second epoch

    code = main(["fit", config_of("digits"), *common, "--ckpt_path", "last"])
    out, err = capsys.readouterr()
    assert code == 0, err
    run_dir = tmp_path / "lightning_logs" / "version_0"
    last = run_dir / "checkpoints" / "last.ckpt"
    # the run continues in its own directory, says where it restores from, and warns about nothing
    assert out.startswith(f"Restoring states from the checkpoint path at {last}\n")
    assert "warning" not in err and "dirpath has changed" not in err
    assert sorted(os.listdir(tmp_path / "lightning_logs")) == ["version_0"]
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    assert saved["ckpt_path"] is None  # the run's config still says how it started
    files = scalars(str(run_dir))  # the interrupted run's event file, then the resumed run's
    assert [s for s, _ in files["train_loss"]] == [0, 1, 2, 3, 4, 5] + list(range(4, 12))
    assert em.load(str(last))["global_step"] == 12
