"""Walk the traced call tree and emit ONNX nodes: the mapped outermost call wins, else what it called inside."""
from __future__ import annotations

from ..tensor import Tensor
from ._registry import CONSTANT_OPS, OPS, OnnxExporterError, module_mapping, unsupported

__all__ = ["emit_children", "tensors_in", "flatten_result"]

# random ops are never folded into one constant sample: without a mapping they are refused
_RANDOM = frozenset({"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "bernoulli",
                     "multinomial", "normal", "randperm", "poisson", "dropout_train"})


def tensors_in(value):
    """Every tensor inside ``value`` (nested tuples, lists and dicts)."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from tensors_in(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from tensors_in(v)


def flatten_result(value):
    """The tensors of a result (tensor, tuple/list of results, or None) in order; None entries kept.

    Also flattens a mapping's returned names the same way (a ``str`` is one leaf).
    """
    if isinstance(value, (Tensor, str)) or value is None:
        return [value]
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            out.extend(flatten_result(v))
        return out
    return [None]


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


def _follows_dynamic_axis(call) -> bool:
    if call.probe is None:
        return False
    return any(isinstance(a, Tensor) and isinstance(b, Tensor) and a.shape != b.shape
               for a, b in zip(flatten_result(call.result), flatten_result(call.probe.result)))


def _check_constant(g, call):
    """A folded result must not depend on a dynamic axis: ONNX would keep the traced size forever."""
    if call.probe is None:
        return
    for a, b in zip(flatten_result(call.result), flatten_result(call.probe.result)):
        if isinstance(a, Tensor) and isinstance(b, Tensor) and a.shape != b.shape:
            raise OnnxExporterError(
                f"'{call.name}' in {call.where()} makes a constant of shape {tuple(a.shape)} whose size follows a "
                f"dynamic axis (it was {tuple(b.shape)} at another size): compute it from the inputs with tensor "
                "ops, or leave that axis out of dynamic_axes")


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
            if not (_follows_dynamic_axis(call) and call.name in OPS):
                _check_constant(g, call)
                return
            live = True  # a size the model read from a dynamic axis: computed at run time
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
