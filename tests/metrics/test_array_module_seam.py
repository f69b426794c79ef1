"""The device seam: metric code computes with the array module of its inputs (``xp``), never with ``numpy`` directly.

The fake GPU of ``tests/core/fake_device.py`` stands in for CuPy. A NumPy function called straight on device data
from ``ember/metrics`` code is caught by ``__array_function__``; a state or result that fell back to a plain
``ndarray`` left the device.
"""
import ast
import os
from pathlib import Path

import numpy as np
import pytest

import ember.metrics as M
from ember.core.tensor import Tensor
from fake_device import FakeDeviceArray, fake_device as _fake_device

METRICS_DIR = os.path.dirname(M.__file__) + os.sep


@pytest.fixture
def fake_device():
    """The shared fake device (tests/core/fake_device.py), recording direct NumPy calls from metric code."""
    with _fake_device(watched=METRICS_DIR) as xp:
        yield xp


def _to_fake_device(metric):
    """What ``metric.to("cuda")`` will do: move every state (and default) to the device."""
    metric = metric._apply(lambda t: Tensor._make(t._data.view(FakeDeviceArray)))
    assert metric.device == "cuda:0"
    return metric


def _state_arrays(metric):
    for value in metric.metric_state.values():
        yield from (value if isinstance(value, list) else [value])


_rng = np.random.default_rng(7)
_LOGITS = _rng.standard_normal((3, 16, 4)).astype(np.float32)
_LABELS = _rng.integers(0, 4, (3, 16))
_SCORES = _rng.random((3, 16)).astype(np.float32)
_BINARY = _rng.integers(0, 2, (3, 16))
_VALUES = _rng.standard_normal((3, 16)).astype(np.float32)

# (metric factory, the batches of update arguments, xp functions the metric's own kernels must go through)
CASES = {
    "MulticlassAccuracy": (lambda: M.MulticlassAccuracy(num_classes=4), (_LOGITS, _LABELS), {"bincount", "where"}),
    "MeanSquaredError": (M.MeanSquaredError, (_VALUES, _VALUES[::-1]), set()),  # ember ops only: no xp of its own
    "BinaryAUROC": (M.BinaryAUROC, (_SCORES, _BINARY), {"argsort", "diff", "nonzero", "cumsum", "concatenate"}),
    "BinaryAUROC-binned": (lambda: M.BinaryAUROC(thresholds=5), (_SCORES, _BINARY), {"bincount", "arange"}),
    "MeanMetric": (M.MeanMetric, (_VALUES, _SCORES), {"isnan", "asarray"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_metric_kernels_use_the_array_module_of_their_inputs(fake_device, name):
    make, (first, second), kernels = CASES[name]
    reference = make()
    metric = _to_fake_device(make())
    for i in range(first.shape[0]):
        reference.update(Tensor._make(first[i]), Tensor._make(second[i]))
        fake_args = [Tensor._make(a[i].copy().view(FakeDeviceArray)) for a in (first, second)]
        if i == 0:
            metric(*fake_args)  # forward: batch value plus the merge of states
        else:
            metric.update(*fake_args)
    value = metric.compute()

    assert FakeDeviceArray.direct_calls == []
    assert kernels <= fake_device.calls, f"not called through xp: {sorted(kernels - fake_device.calls)}"
    assert all(type(s._data) is FakeDeviceArray for s in _state_arrays(metric)), "a state left the device"
    assert type(value._data) is FakeDeviceArray, "the result left the device"
    np.testing.assert_array_equal(np.asarray(value._data), reference.compute()._data)


# Names NumPy may still be called for in metric code: dtype and shape metadata, never data. ``errstate`` only
# silences NumPy's floating-point warnings (CuPy never warns), so it is harmless around CuPy arithmetic.
_METADATA_CALLS = {"dtype", "finfo", "iinfo", "result_type", "broadcast_shapes", "errstate"}


def test_metric_code_calls_numpy_only_for_metadata():
    offenders = []
    for path in sorted(Path(METRICS_DIR).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            func = node.func if isinstance(node, ast.Call) else None
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"
                    and func.attr not in _METADATA_CALLS):
                offenders.append(f"{path.relative_to(METRICS_DIR)}:{node.lineno} np.{func.attr}")
    assert offenders == [], "use the inputs' array module (xp) instead: " + ", ".join(offenders)
