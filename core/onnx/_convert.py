"""Walk the traced call tree and emit ONNX nodes: the mapped outermost call wins, else what it called inside."""
from __future__ import annotations

from ..tensor import Tensor
from ._common import flatten_result, numbers_in, tensors_in
from ._registry import CONSTANT_OPS, OPS, SIZE_AWARE, OnnxExporterError, module_mapping, unsupported

__all__ = ["emit", "emit_children"]

# random ops are never folded into one constant sample: without a mapping they are refused
_RANDOM = frozenset({"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "bernoulli",
                     "multinomial", "normal", "randperm", "poisson"})


def _bind(g, call, names, live):
    results = flatten_result(call.result)
    flat = flatten_result(names)
    if len(flat) != len(results):
        raise OnnxExporterError(f"internal: the mapping of '{call.name}' returned {len(flat)} values for "
                                f"{len(results)} results")
    probes = flatten_result(call.probe.result) if call.probe is not None else [None] * len(results)
    for tensor, name, probe in zip(results, flat, probes):
        if isinstance(tensor, Tensor) and name:
            g.bind(tensor, name, live=live, probe_shape=probe.shape if isinstance(probe, Tensor) else None)


def _numbers_changed(call) -> bool:
    """True when a number among the call's arguments changed in the probe trace (``x.view(x.size(0), -1)``)."""
    if call.probe is None:
        return False
    return list(numbers_in((call.args, call.kwargs))) != list(numbers_in((call.probe.args, call.probe.kwargs)))


def _follows_dynamic_axis(call) -> bool:
    """True when the call's sizes changed in the probe trace: its result's shape or its arguments' numbers."""
    if call.probe is None:
        return False
    return _numbers_changed(call) or any(
        isinstance(a, Tensor) and isinstance(b, Tensor) and a.shape != b.shape
        for a, b in zip(flatten_result(call.result), flatten_result(call.probe.result)))


def _refuse_frozen_sizes(call, changed):
    """The call used sizes that follow a dynamic axis, but ONNX would keep the traced ones."""
    if changed:
        raise OnnxExporterError(
            f"'{call.name}' in {call.where()} uses sizes that follow a dynamic axis (they changed when the axis "
            "did), which its export would freeze at the traced values: compute them with tensor ops (x.view(x.size(0), "
            "-1), x[:, :n] and em.arange(x.size(1)) are supported), or leave that axis out of dynamic_axes")


def emit(g, call):
    """Emit ONNX nodes for ``call`` (and, when it has no mapping, for what it called)."""
    inputs = list(tensors_in(call.args)) + list(tensors_in(call.kwargs))
    live = any(g.is_live(t) for t in inputs)
    if call.module is not None:
        fn = module_mapping(call.module)
        if fn is None or (not live and g.fold):
            _descend(g, call, live)
            return
    else:
        if call.name in _RANDOM:
            raise unsupported(call, g.opset, "random sampling would be frozen into one constant sample")
        if call.name in CONSTANT_OPS or (not live and g.fold):
            changed = _follows_dynamic_axis(call)
            if not (changed and call.name in SIZE_AWARE):
                _refuse_frozen_sizes(call, changed)
                return
            live = True  # sizes the model read from a dynamic axis: computed at run time
        elif call.name not in SIZE_AWARE and call.name in OPS:
            _refuse_frozen_sizes(call, _numbers_changed(call))
        fn = OPS.get(call.name)
        if fn is None:
            if call.children:
                _descend(g, call, live)
                return
            raise unsupported(call, g.opset)
    g.call = call
    try:
        names = fn(g, call)
    except OnnxExporterError:
        raise
    except Exception as exc:  # a mapping's own failure: say where, not just a bare internal traceback
        raise OnnxExporterError(f"exporting '{call.name}' (called in {call.where()}) to ONNX opset {g.opset} failed: "
                                f"{type(exc).__name__}: {exc}. This is an exporter bug; please report it with the "
                                "model") from exc
    if names is NotImplemented:  # the mapping declined these arguments: use what the op did inside, if anything
        if call.children:
            _descend(g, call, live)
            return
        raise unsupported(call, g.opset, "these arguments have no ONNX mapping")
    _bind(g, call, names, live)


def _descend(g, call, live):
    """Export what ``call`` did inside; its live results must all come out of those inner calls."""
    emit_children(g, call)
    if not live:
        return
    for tensor in flatten_result(call.result):
        if isinstance(tensor, Tensor) and not g.known(tensor):
            detail = ("part of its work runs outside the ops the exporter can see (a private kernel, direct array "
                      "code, or an ember function imported by name into another module: call ops through their "
                      "module, as in F.relu(x))")
            raise unsupported(call, g.opset, detail)


def emit_children(g, call):
    """Emit every call made directly inside ``call``."""
    for child in call.children:
        emit(g, child)
