"""``trainer export``: the digits example trained for two epochs, exported from its best checkpoint, runs in ONNX
Runtime with the checkpoint's outputs at two batch sizes."""
import importlib.util
import os

import numpy as np
import pytest

import ember as em
from ember.trainer.cli import main

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(em.__file__)), "examples")
CONFIG = os.path.join(EXAMPLES, "digits", "config.yaml")
QUICK = ["--trainer.max_epochs", "2", "--trainer.limit_train_batches", "3", "--trainer.limit_val_batches", "2",
         "--trainer.enable_progress_bar", "false", "--trainer.enable_model_summary", "false",
         "--test_after_fit", "false"]


def digits_model_class():
    spec = importlib.util.spec_from_file_location("digits_export_example", os.path.join(EXAMPLES, "digits",
                                                                                        "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DigitsClassifier


def test_trainer_export_writes_the_best_checkpoint_as_onnx(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["fit", CONFIG, *QUICK]) == 0
    capsys.readouterr()
    ckpt_dir = tmp_path / "lightning_logs" / "version_0" / "checkpoints"
    best = [f for f in os.listdir(ckpt_dir) if f.startswith("best-")]
    assert len(best) == 1
    assert main(["export", CONFIG, "--ckpt_path", "best", "--output", "model.onnx"]) == 0
    out = capsys.readouterr().out
    assert out.strip() == (f"exported DigitsClassifier (the weights of {ckpt_dir / best[0]}) to model.onnx "
                           f"(ONNX opset {onnx.defs.onnx_opset_version()})")
    proto = onnx.load("model.onnx")
    onnx.checker.check_model(proto, full_check=True)
    model = digits_model_class().load_from_checkpoint(str(ckpt_dir / best[0])).eval()
    session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    for batch in (1, 6):
        x = em.rand(batch, 1, 8, 8)
        with em.no_grad():
            expected = model(x).numpy()
        np.testing.assert_allclose(session.run(None, {"input_0": x.numpy()})[0], expected, atol=1e-5)


def test_trainer_export_without_checkpoints_says_what_to_do(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["export", CONFIG, "--ckpt_path", "last", "--output", "model.onnx"]) != 0
    err = capsys.readouterr().err
    assert "ckpt_path='last': no checkpoint found" in err and "run 'trainer fit' with this config first" in err
    assert not os.path.exists("model.onnx")
