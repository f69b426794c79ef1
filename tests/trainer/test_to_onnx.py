"""``LightningModule.to_onnx``: Lightning's signature and defaults, on top of ``ember.onnx.export``."""
import io

import numpy as np
import pytest

import ember as em
from ember.core import nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


class Classifier(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 3))
        self.example_input_array = em.randn(2, 6)
        self.seen = []

    def forward(self, x):
        self.seen.append((self.training, x.detach().numpy().copy()))
        return self.net(x)

    def on_before_batch_transfer(self, batch, dataloader_idx):
        return batch * 2  # the sample goes through the batch-transfer hooks, as in Lightning


def test_to_onnx_uses_example_input_array_runs_in_eval_and_restores_the_mode(tmp_path):
    em.manual_seed(0)
    model = Classifier()
    assert model.training
    path = tmp_path / "model.onnx"
    model.to_onnx(path, input_names=["x"], dynamic_axes={"x": [0]})
    assert model.training and model.net[2].training
    assert model.seen and not any(training for training, _ in model.seen)  # every traced forward ran in eval mode
    np.testing.assert_array_equal(model.seen[0][1], model.example_input_array.numpy() * 2)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    x = em.randn(5, 6)
    model.eval()
    with em.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(session.run(None, {"x": x.numpy()})[0], expected, atol=1e-5)
    onnx.checker.check_model(onnx.load(str(path)), full_check=True)


def test_to_onnx_with_an_input_sample_keeps_eval_mode():
    model = Classifier().eval()
    proto = model.to_onnx(io.BytesIO(), em.randn(1, 6), export_params=False)
    assert not model.training
    assert [i.name for i in proto.graph.input][:1] == ["input_0"] and len(proto.graph.initializer) == 0


def test_to_onnx_without_any_sample_raises_lightnings_error():
    model = Classifier()
    model.example_input_array = None
    with pytest.raises(ValueError, match="Could not export to ONNX since neither `input_sample` nor "
                                         "`model.example_input_array` attribute is set."):
        model.to_onnx("unused.onnx")
