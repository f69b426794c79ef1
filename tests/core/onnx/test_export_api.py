"""The export entry point: files, names, options, and the errors a user can meet."""
import io
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from ember.core import nn

from onnx_testing import Fn, check_export, onnx, run_onnx


class Inner(nn.Module):
    def forward(self, x):
        return x.cumprod(dim=1)


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(3, 3), Inner())

    def forward(self, x):
        return self.encoder(x)


def test_unsupported_op_names_the_op_the_module_path_and_the_opset():
    with pytest.raises(em.onnx.UnsupportedOperatorError) as err:
        em.onnx.export(Outer().eval(), em.randn(2, 3), io.BytesIO(), opset_version=18)
    assert str(err.value).startswith("ember's ONNX exporter cannot export op 'cumprod', called in module 'encoder.1', "
                                     "to ONNX opset 18")


def test_random_ops_are_refused_not_frozen():
    class Noisy(nn.Module):
        def forward(self, x):
            return x + em.randn_like(x)
    with pytest.raises(em.onnx.UnsupportedOperatorError, match="'randn_like'.*random sampling"):
        em.onnx.export(Noisy().eval(), em.randn(2, 3), io.BytesIO())


def test_work_done_outside_the_ops_is_detected():
    class Sneaky(nn.Module):
        def forward(self, x):
            hidden = em.Tensor._make(x._data * 2)  # not an op: the exporter cannot see it
            return x + hidden

    class Hidden(nn.Module):
        def forward(self, x):
            return em.Tensor._make(x._data * 2) + 1

    with pytest.raises(em.onnx.OnnxExporterError, match="'add' in the model's own forward uses a tensor of shape "
                                                        r"\(2, 3\) that was computed outside the ops"):
        em.onnx.export(Sneaky().eval(), em.randn(2, 3), io.BytesIO())
    with pytest.raises(em.onnx.UnsupportedOperatorError, match="cannot export module Hidden, called in the model's "
                                                               "own forward, .*: part of its work runs outside"):
        em.onnx.export(Hidden().eval(), em.randn(2, 3), io.BytesIO())


def test_training_mode_warns_exports_eval_and_restores_the_mode():
    em.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.BatchNorm1d(8), nn.Linear(8, 2))
    model[2].running_mean.copy_(em.randn(8))
    x = em.randn(5, 4)
    with pytest.warns(UserWarning, match="training mode; it is exported in eval mode"):
        proto = em.onnx.export(model, x, io.BytesIO())
    assert model.training and all(m.training for m in model.modules())
    assert "Dropout" not in [n.op_type for n in proto.graph.node]
    model.eval()
    with em.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(run_onnx(proto, {"input_0": x.numpy()})[0], expected, atol=1e-5)


def test_functional_dropout_in_training_is_refused():
    class Drop(nn.Module):
        def forward(self, x):
            return em.nn.functional.dropout(x, 0.2, training=True)
    with pytest.raises(em.onnx.UnsupportedOperatorError, match="dropout with training=True is random"):
        em.onnx.export(Drop().eval(), em.randn(2, 3), io.BytesIO())


def test_non_tensor_inputs_are_refused():
    with pytest.raises(TypeError, match=r"args\[1\] is a int \(3\): ember.onnx.export traces tensor inputs only"):
        em.onnx.export(nn.Linear(2, 2).eval(), (em.randn(1, 2), 3), io.BytesIO())
    with pytest.raises(TypeError, match="args must be a Tensor or a tuple of Tensors"):
        em.onnx.export(nn.Linear(2, 2), np.zeros((1, 2)), io.BytesIO())


def test_bad_opset_and_dynamic_axes_are_named():
    lin = nn.Linear(2, 2).eval()
    with pytest.raises(ValueError, match="opset_version=11 is not supported: ember exports opsets 17 to"):
        em.onnx.export(lin, em.randn(1, 2), io.BytesIO(), opset_version=11)
    with pytest.raises(ValueError, match="dynamic_axes names 'x', which is neither an input nor an output name; "
                                         r"the names are \['input_0', 'output_0'\]"):
        em.onnx.export(lin, em.randn(1, 2), io.BytesIO(), dynamic_axes={"x": [0]})


def test_missing_onnx_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "ember\[export\]"'):
        em.onnx.export(nn.Linear(2, 2).eval(), em.randn(1, 2), io.BytesIO())


def test_import_ember_does_not_import_onnx():
    code = ("import sys, ember as em; a = 'onnx' in sys.modules; em.onnx; b = 'onnx' in sys.modules; "
            "print(a, b, em.onnx.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "ember.core.onnx"]


def test_writes_a_path_atomically_and_a_file_object(tmp_path):
    em.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh()).eval()
    path = tmp_path / "model.onnx"
    proto = em.onnx.export(model, em.randn(2, 3), str(path), input_names=["features"], output_names=["scores"],
                           dynamic_axes={"features": {0: "batch"}, "scores": {0: "batch"}})
    assert [p.name for p in tmp_path.iterdir()] == ["model.onnx"]
    loaded = onnx.load(str(path))
    assert loaded.SerializeToString() == proto.SerializeToString()
    assert [i.name for i in loaded.graph.input] == ["features"] and [o.name for o in loaded.graph.output] == ["scores"]
    dims = [d.dim_param or d.dim_value for d in loaded.graph.output[0].type.tensor_type.shape.dim]
    assert dims == ["batch", 4]
    assert loaded.opset_import[0].version == onnx.defs.onnx_opset_version()
    buffer = io.BytesIO()
    em.onnx.export(model, em.randn(2, 3), buffer)
    assert onnx.load_from_string(buffer.getvalue()).graph.node
    with pytest.raises(FileNotFoundError, match="does not exist"):
        em.onnx.export(model, em.randn(2, 3), str(tmp_path / "missing" / "m.onnx"))


def test_export_params_false_makes_weights_inputs():
    model = nn.Linear(3, 2).eval()
    x = em.randn(4, 3)
    proto = em.onnx.export(model, x, io.BytesIO(), export_params=False)
    assert [i.name for i in proto.graph.input] == ["input_0", "weight", "bias"]
    assert len(proto.graph.initializer) == 0
    out = run_onnx(proto, {"input_0": x.numpy(), "weight": model.weight.detach().numpy(),
                                 "bias": model.bias.detach().numpy()})[0]
    np.testing.assert_allclose(out, model(x).detach().numpy(), atol=1e-6)


def test_constant_folding():
    class Tied(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(em.randn(3, 4))

        def forward(self, x):
            return x @ self.w.t() * 2

    folded = check_export(Tied(), em.randn(2, 4))
    assert [n.op_type for n in folded.graph.node] == ["MatMul", "Mul", "Identity"]
    kept = check_export(Tied(), em.randn(2, 4), do_constant_folding=False)
    assert [n.op_type for n in kept.graph.node] == ["Transpose", "MatMul", "Mul", "Identity"]


def test_none_outputs_are_dropped_and_other_outputs_refused():
    mha = nn.MultiheadAttention(4, 2).eval()
    proto = check_export(Fn(lambda x: mha(x, x, x, need_weights=False)), em.randn(3, 2, 4))
    assert [o.name for o in proto.graph.output] == ["output_0"]
    with pytest.raises(em.onnx.OnnxExporterError, match="the model must return a tensor or a .nested. tuple/list of "
                                                        r"tensors \(None entries are left out\), got dict"):
        em.onnx.export(Fn(lambda x: {"y": x}).eval(), em.randn(2), io.BytesIO())


def test_several_outputs_and_verbose(capsys):
    class Two(nn.Module):
        def forward(self, x):
            return x.relu(), (x * 2, x.sum(1))
    proto = check_export(Two(), em.randn(3, 2), verbose=True)
    assert [o.name for o in proto.graph.output] == ["output_0", "output_1", "output_2"]
    assert capsys.readouterr().out.startswith("Two (float[3,2] x0) => (float[3,2] output_0, float[3,2] output_1, "
                                              "float[3] output_2)")


def test_a_failing_mapping_is_reported_with_the_op_and_the_module(monkeypatch):
    from ember.core.onnx import _families, _registry  # noqa: F401  (registers the mappings)

    def broken(g, call):
        raise KeyError("oops")
    monkeypatch.setitem(_registry.OPS, "relu", broken)
    with pytest.raises(em.onnx.OnnxExporterError, match=r"exporting 'relu' \(called in module '1'\) to ONNX opset 18 "
                                                        r"failed: KeyError: 'oops'\. This is an exporter bug"):
        em.onnx.export(nn.Sequential(nn.Linear(2, 2), nn.ReLU()).eval(), em.randn(1, 2), io.BytesIO(),
                       opset_version=18)
