"""The probe trace: the model run again with every dynamic axis resized, to learn which sizes follow those axes.

Sizes a model reads from a dynamic axis (``x.view(x.size(0), -1)``, ``em.arange(x.size(1))``) reach the ops as plain
ints. Comparing each call with the same call in the probe trace tells the exporter which of them change with the
axes, so it can compute them at run time in ONNX instead of freezing the traced values.
"""
from __future__ import annotations

from ..tensor import Tensor
from ._registry import OnnxExporterError
from ._trace import trace, walk

__all__ = ["probe"]


def _probe_inputs(args, names, spec, steps):
    """The inputs with each dynamic axis resized by its step (rows repeated cyclically, so values stay valid)."""
    out = []
    for t, name in zip(args, names):
        data, xp = t._data, t._xp
        for ax, dim_name in spec.get(name, {}).items():
            n = data.shape[ax]
            if n + steps[dim_name] < 1:
                return None
            data = xp.take(data, xp.arange(n + steps[dim_name]) % n, axis=ax)
        out.append(Tensor._make(xp.ascontiguousarray(data)))
    return tuple(out)


def _step_plans(names, spec):
    """Probe step per dynamic dim name: distinct steps first (so two axes of equal size stay told apart), then
    all +1, then all -1 (for models that need related axes to keep equal sizes)."""
    dims = []
    for name in names:
        for dim_name in spec.get(name, {}).values():
            if dim_name not in dims:
                dims.append(dim_name)
    plans = [{d: i + 1 for i, d in enumerate(dims)}] if len(dims) > 1 else []
    return plans + [{d: 1 for d in dims}, {d: -1 for d in dims}]


def _align(root, probe_root):
    calls, probes = list(walk(root)), list(walk(probe_root))
    if len(calls) != len(probes) or any(a.name != b.name for a, b in zip(calls, probes)):
        for a, b in zip(calls, probes):
            if a.name != b.name:
                raise OnnxExporterError(
                    f"the model runs different ops when a dynamic axis changes size ('{a.name}' in {a.where()} "
                    f"became '{b.name}'): a traced graph cannot capture size-dependent control flow")
        raise OnnxExporterError("the model runs a different number of ops when a dynamic axis changes size: a "
                                "traced graph cannot capture size-dependent control flow")
    for a, b in zip(calls, probes):
        a.probe = b


def probe(model, args, names, spec, root):
    """Trace ``model`` again with the dynamic axes of ``spec`` resized and attach each call of ``root`` to its
    counterpart (``call.probe``); returns the probe's inputs and root call."""
    error = None
    for steps in _step_plans(names, spec):
        probe_args = _probe_inputs(args, names, spec, steps)
        if probe_args is None:
            continue
        try:
            probe_root, _ = trace(model, probe_args)
        except Exception as exc:  # noqa: BLE001  (that size may be invalid for this model: try the next plan)
            error = exc
            continue
        _align(root, probe_root)
        return probe_args, probe_root
    raise OnnxExporterError("the model fails when its dynamic axes change size by one or two, so the exporter cannot "
                            f"find which sizes follow those axes ({type(error).__name__}: {error}); check "
                            "dynamic_axes")
