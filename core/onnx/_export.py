"""``ember.onnx.export``: trace a model (twice with dynamic axes, see ``_probe.py``) and write an ONNX ModelProto."""
from __future__ import annotations

import os
import warnings

from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._registry import OnnxExporterError

__all__ = ["export", "MIN_OPSET", "default_opset"]

MIN_OPSET = 17
EXTRA_HINT = 'pip install "ember[export]"'


def _require_onnx():
    try:
        import onnx  # noqa: F401
    except ImportError as err:
        raise ModuleNotFoundError(f"ember.onnx.export needs the 'onnx' package, which is not installed: run "
                                  f"{EXTRA_HINT} (or pip install onnx)") from err
    return onnx


def default_opset() -> int:
    """The newest ONNX opset the installed ``onnx`` package knows (the default ``opset_version``)."""
    onnx = _require_onnx()
    return int(onnx.defs.onnx_opset_version())


def _check_opset(opset_version):
    newest = default_opset()
    if opset_version is None:
        return newest
    if isinstance(opset_version, bool) or not isinstance(opset_version, int) or \
            not MIN_OPSET <= opset_version <= newest:
        raise ValueError(f"opset_version={opset_version!r} is not supported: ember exports opsets {MIN_OPSET} to "
                         f"{newest} (the newest the installed onnx knows); pass one of those, or None for {newest}")
    return opset_version


def _as_inputs(args):
    if isinstance(args, Tensor):
        args = (args,)
    elif isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        raise TypeError(f"args must be a Tensor or a tuple of Tensors (the model's inputs), got "
                        f"{type(args).__name__}")
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"args[{i}] is a {type(a).__name__} ({a!r:.60}): ember.onnx.export traces tensor inputs "
                            "only; make it a tensor, or bind it in a wrapper module's forward")
    return args


def _axes_spec(dynamic_axes, known_names):
    """``{value name: {axis: dim name}}`` from torch-style ``dynamic_axes`` (lists or dicts of axes)."""
    spec = {}
    for name, axes in (dynamic_axes or {}).items():
        if name not in known_names:
            raise ValueError(f"dynamic_axes names {name!r}, which is neither an input nor an output name; the names "
                             f"are {sorted(known_names)} (set them with input_names and output_names)")
        if isinstance(axes, dict):
            spec[name] = {int(a): str(n) for a, n in axes.items()}
        elif isinstance(axes, (list, tuple)):
            spec[name] = {int(a): f"{name}_dynamic_axes_{i + 1}" for i, a in enumerate(axes)}
        else:
            raise TypeError(f"dynamic_axes[{name!r}] must be a list of axes or a dict axis -> name, got "
                            f"{type(axes).__name__}")
    return spec


def export(model, args, f, input_names=None, output_names=None, dynamic_axes=None, opset_version=None,
           do_constant_folding=True, export_params=True, verbose=False):
    r"""Export ``model`` to ONNX, as ``torch.onnx.export`` does: run it once on ``args`` and record the ops it runs.

    The graph holds what this run executed (Python control flow is fixed as traced); the weights become
    initializers named as in ``state_dict()``. The model runs in eval mode during the export (a model in training
    mode is switched, with a warning, and switched back).

    Args:
        model (Module): the model to export.
        args (Tensor or tuple of Tensors): the inputs of ``model(*args)``.
        f (str, os.PathLike or binary file object): where to write the ``.onnx`` file (a path is written
            atomically).
        input_names (list of str, optional): names of the graph inputs (default ``input_0``, ``input_1``...).
        output_names (list of str, optional): names of the graph outputs (default ``output_0``...).
        dynamic_axes (dict, optional): ``{name: [axes]}`` or ``{name: {axis: "dim_name"}}`` marking input and
            output axes whose size may change (e.g. ``{"input_0": {0: "batch"}}``). The exporter traces the model a
            second time with those axes resized, so sizes the model computed from them (``x.view(x.size(0), -1)``,
            ``mask[:t]``, ``em.arange(x.size(1))``) are computed at run time; where an op's export cannot do that,
            the export stops with an error naming the op rather than freezing the traced size.
        opset_version (int, optional): the ONNX opset (17 or newer); default: the newest the installed ``onnx``
            supports.
        do_constant_folding (bool): fold ops whose inputs are all constants (weights included) into constants.
        export_params (bool): store the weights as initializers; if False they become extra graph inputs.
        verbose (bool): print the exported graph.

    Returns:
        onnx.ModelProto: the exported model (also written to ``f``).

    Raises:
        ModuleNotFoundError: when ``onnx`` is not installed (install ``ember[export]``).
        UnsupportedOperatorError: when the model calls an op with no ONNX mapping (names the op, the module path
            where it was called and the opset).

    Example::

        >>> em.onnx.export(model, em.randn(1, 1, 8, 8), "model.onnx", input_names=["image"],
        ...                output_names=["logits"], dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    """
    _require_onnx()
    opset = _check_opset(opset_version)
    args = _as_inputs(args)
    from . import _families  # noqa: F401  (registers every mapping)
    from ._common import flatten_result
    from ._convert import emit_children
    from ._graph import Graph, onnx_dtype
    from ._probe import probe as run_probe
    from ._trace import trace
    from onnx import helper

    was_training = model.training
    if was_training:
        warnings.warn("ember.onnx.export: the model is in training mode; it is exported in eval mode (dropout is the "
                      "identity, batch norm uses its running statistics) and put back in training mode afterwards",
                      UserWarning, stacklevel=2)
        model.eval()
    try:
        with no_grad():
            root, outputs = trace(model, args)
            input_names = list(input_names or []) + [f"input_{i}" for i in range(len(input_names or []), len(args))]
            flat_out = [t for t in flatten_result(outputs) if t is not None]  # None outputs are dropped, as torch does
            if not flat_out or any(not isinstance(t, Tensor) for t in flat_out) or \
                    (not isinstance(outputs, (Tensor, tuple, list))):
                raise OnnxExporterError("the model must return a tensor or a (nested) tuple/list of tensors (None "
                                        f"entries are left out), got {type(outputs).__name__}")
            output_names = list(output_names or []) + [f"output_{i}" for i in
                                                       range(len(output_names or []), len(flat_out))]
            spec = _axes_spec(dynamic_axes, set(input_names) | set(output_names))
            probe_args = probe_root = None
            if any(name in spec for name in input_names):
                probe_args, probe_root = run_probe(model, args, input_names, spec, root)
    finally:
        if was_training:
            model.train()

    g = Graph(opset, fold=do_constant_folding)
    for i, (t, name) in enumerate(zip(args, input_names)):
        dims = [spec.get(name, {}).get(d, int(s)) for d, s in enumerate(t.shape)]
        g.add_input(t, name, dims)
        if probe_args is not None:
            g.bind(t, name, live=True, probe_shape=probe_args[i].shape)
    _bind_params(g, model, export_params)
    g.known_constants = set(root.existing) | {id(t) for r in root.keep for t in flatten_result(r)
                                              if isinstance(t, Tensor)}
    emit_children(g, root)

    probe_out = [t for t in flatten_result(probe_root.result) if t is not None] if probe_args is not None \
        else [None] * len(flat_out)
    outputs_info = []
    for t, name, probe in zip(flat_out, output_names, probe_out):
        g.nodes.append(helper.make_node("Identity", [g.value(t)], [name], name=g.unique("n_output")))
        axes = dict(spec.get(name, {}))
        if probe is not None:
            for d, (a, b) in enumerate(zip(t.shape, probe.shape)):
                if a != b and d not in axes:
                    axes[d] = f"{name}_dynamic_axes_{d + 1}"
        dims = [axes.get(d, int(s)) for d, s in enumerate(t.shape)]
        outputs_info.append(helper.make_tensor_value_info(name, onnx_dtype(t._data.dtype), dims))
    model_proto = g.model(outputs_info, name=type(model).__name__)
    if verbose:
        from onnx import printer
        print(printer.to_text(model_proto.graph))
    _write(model_proto, f)
    return model_proto


def _bind_params(g, model, export_params):
    """Weights and buffers become initializers named as in ``state_dict()`` (or graph inputs), on first use."""
    named = {}
    for name, p in list(model.named_parameters()) + list(model.named_buffers()):
        named.setdefault(id(p), (name, p))
    g.params = named
    g.export_params = export_params


def _write(model_proto, f):
    data = model_proto.SerializeToString()
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise FileNotFoundError(f"ember.onnx.export: the directory {directory!r} of {path!r} does not exist")
        from ..serialization import atomic_write
        atomic_write(path, lambda fh: fh.write(data))
    elif hasattr(f, "write"):
        f.write(data)
    else:
        raise TypeError(f"f must be a path or a writable binary file object, got {type(f).__name__}")


