"""Which ONNX mapping handles which op or module, and the errors an export raises.

A mapping is ``fn(g, call)``: it reads the call's arguments (``call.arg("input")``), adds nodes to the
:class:`~ember.core.onnx._graph.Graph` ``g`` and returns the ONNX name of the result (a list or tuple of names, in
the shape of the result, for several outputs). Each family file registers its mappings with :func:`op` and
:func:`module`.
"""
from __future__ import annotations

__all__ = ["OnnxExporterError", "UnsupportedOperatorError", "op", "module", "OPS", "MODULES", "CONSTANT_OPS",
           "SIZE_AWARE"]

OPS: dict = {}      # op name ("conv2d", "add") -> mapping
MODULES: list = []  # (module class, mapping): a whole module mapped at once (LSTM, Conv2d)
SIZE_AWARE: set = set()  # ops whose mapping computes sizes that follow dynamic axes at run time (see _probe.py)

# ops whose results are constants: they have no tensor inputs, or only read shapes and dtypes of theirs
CONSTANT_OPS = frozenset({
    "zeros", "ones", "full", "empty", "arange", "linspace", "logspace", "eye", "tensor", "as_tensor", "asarray",
    "from_numpy", "scalar_tensor", "tril_indices", "triu_indices",
})


class OnnxExporterError(RuntimeError):
    """An export failed: the model does something ONNX (or ember's exporter) cannot express."""


class UnsupportedOperatorError(OnnxExporterError):
    """The model called an op the exporter has no ONNX mapping for (at the requested opset)."""


def op(*names, sizes: bool = False):
    """Register the decorated function as the mapping of the ops ``names``.

    ``sizes=True`` declares that the mapping reads the probe trace and turns sizes that follow a dynamic axis into
    run-time values; other mappings are refused when such sizes reach them, rather than freezing the traced ones.
    """
    def register(fn):
        for name in names:
            OPS[name] = fn
            if sizes:
                SIZE_AWARE.add(name)
        return fn
    return register


def module(*classes):
    """Register the decorated function as the mapping of a whole call of modules of the ``classes``."""
    def register(fn):
        for cls in classes:
            MODULES.append((cls, fn))
        return fn
    return register


def module_mapping(mod):
    """The mapping registered for ``mod``'s class (the most derived registered class wins), or None."""
    for cls in type(mod).__mro__:
        for registered, fn in MODULES:
            if cls is registered:
                return fn
    return None


def unsupported(call, opset, detail: str = "") -> UnsupportedOperatorError:
    """The error for ``call``: names the op, the module path where it was called and the opset."""
    name = call.name[len("module:"):] if call.name.startswith("module:") else call.name
    what = f"module {name}" if call.module is not None else f"op '{name}'"
    msg = (f"ember's ONNX exporter cannot export {what}, called in {call.where()}, to ONNX opset {opset}"
           f"{': ' + detail if detail else ''}. Rewrite that part of forward with supported ops, or open an issue "
           "asking for a mapping.")
    return UnsupportedOperatorError(msg)
