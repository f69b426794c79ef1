"""Shared by the ONNX export tests: export, check the model, run it in ONNX Runtime and compare with ember."""
import numpy as np
import pytest

import ember as em
from ember.core import nn

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


class Fn(nn.Module):
    """A module whose forward is ``fn`` (so a test can export any expression)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def run_onnx(model_proto, feeds):
    """Outputs of ``model_proto`` in ONNX Runtime for ``feeds`` ({name: array})."""
    session = ort.InferenceSession(model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def ember_outputs(model, inputs):
    with em.no_grad():
        out = model(*inputs)
    flat = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            for x in v:
                walk(x)
        elif v is not None:  # the exporter leaves None outputs out
            flat.append(v.numpy())
    walk(out)
    return flat


def check_export(model, inputs, others=(), dynamic=None, atol=1e-5, rtol=1e-5, **kwargs):
    """Export ``model`` on ``inputs``; check_model(full_check); ORT equals ember on ``inputs`` and on each input
    tuple in ``others`` (other sizes of the ``dynamic`` axes: {input index: [axes]}). Returns the ModelProto."""
    if isinstance(inputs, em.Tensor):
        inputs = (inputs,)
    model.eval()
    names = [f"x{i}" for i in range(len(inputs))]
    dynamic_axes = {names[i]: axes for i, axes in (dynamic or {}).items()}
    proto = em.onnx.export(model, inputs, _Sink(), input_names=names, dynamic_axes=dynamic_axes or None, **kwargs)
    onnx.checker.check_model(proto, full_check=True)
    for case in (tuple(inputs),) + tuple(tuple(o) if isinstance(o, (tuple, list)) else (o,) for o in others):
        expected = ember_outputs(model, case)
        got = run_onnx(proto, {n: t.numpy() for n, t in zip(names, case)})
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_allclose(g, e, atol=atol, rtol=rtol)
    return proto


class _Sink:
    """A binary file object that keeps what is written (the export's own bytes are checked separately)."""

    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += data
