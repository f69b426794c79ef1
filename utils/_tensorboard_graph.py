"""A TensorBoard ``GraphDef`` of an ember module, laid out as PyTorch's ``add_graph`` lays out a traced module.

The model runs once under the ONNX exporter's tracer (:mod:`ember.core.onnx._trace`, built on
:mod:`ember.core.observe`), which records every op call and module call as a tree. Each outermost op call becomes a
node named after the op (``conv2d``, ``linear``, ``relu``, ``dropout``; op type ``ember::conv2d``) inside the scope
of the module that ran it, spelled as PyTorch's tracer spells scopes: ``Net/Sequential[features]/Conv2d[0]/conv2d``
(``ClassName[attribute]`` per level). Parameters and buffers are nodes in their module's scope, the forward's tensor
arguments are ``input/<name>`` and the results ``output/output.N``. Every node carries ``_output_shapes``, which
TensorBoard shows on the edges leaving it; the op's other (non-tensor) arguments are its ``attr`` string.
"""
from __future__ import annotations

import inspect
from typing import Any, Dict, List

__all__ = ["build_graph_def"]


def build_graph_def(model, input_array):
    """Trace ``model(*input_array)`` and return the TensorBoard ``GraphDef`` described in this module's docstring.

    The trace runs in eval mode (as ``torch.utils.tensorboard`` traces) without recording autograd, under the
    current random state, which it leaves as it found it: logging the graph changes neither the model nor the random
    streams of training.
    """
    from tensorboardX.proto.graph_pb2 import GraphDef
    from tensorboardX.proto.versions_pb2 import VersionDef
    from ..core.autograd.grad_mode import no_grad
    from ..core.onnx._trace import trace
    from ..trainer.checkpoint_connector import capture_rng_states, restore_rng_states

    inputs = tuple(input_array) if isinstance(input_array, (tuple, list)) else (input_array,)
    modes = [(sub, sub.training) for sub in model.modules()]
    rng = capture_rng_states()
    try:
        model.eval()
        with no_grad():
            root_call, outputs = trace(model, inputs)
    finally:
        for sub, mode in modes:
            sub.training = mode
        restore_rng_states(rng)

    graph = _Graph(model)
    for i, (name, value) in enumerate(zip(_input_names(model, len(inputs)), inputs)):
        for t in _tensors_in(value):
            graph.source[id(t)] = graph.add(f"input/{name}", "IO Node", [], [t.shape])
    for call in _outermost_ops(root_call):
        graph.add_op(call)
    for i, out in enumerate(_tensors_in(outputs)):
        graph.add(f"output/output.{i + 1}", "IO Node", [graph.input_name(out, "")], [out.shape])
    return GraphDef(node=graph.nodes, versions=VersionDef(producer=22))


def _outermost_ops(call):
    """The op calls not made inside another op call, in execution order (module calls are only scopes)."""
    stack = list(reversed(call.children))
    while stack:
        c = stack.pop()
        if c.module is None:
            yield c
        else:
            stack.extend(reversed(c.children))


def _input_names(model, count: int) -> List[str]:
    """The forward's positional parameter names (PyTorch names the input nodes after them), else ``input.N``."""
    try:
        params = [p.name for p in inspect.signature(model.forward).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"input.{i + 1}" for i in range(count)]


class _Graph:
    """NodeDefs with unique names, and which node produced each tensor (by id; the tracer keeps them alive)."""

    def __init__(self, model):
        root = type(model).__name__
        modules = dict(model.named_modules())
        self.scopes: Dict[str, str] = {"": root}
        for path in modules:
            if path:
                parent, _, attr = path.rpartition(".")
                self.scopes[path] = f"{self.scopes[parent]}/{type(modules[path]).__name__}[{attr}]"
        # parameters and buffers, drawn in their module's scope when an op first reads them
        self.named: Dict[int, tuple] = {}
        for kind, items in (("Parameter", model.named_parameters()), ("Buffer", model.named_buffers())):
            for path, t in items:
                owner, _, attr = path.rpartition(".")
                self.named.setdefault(id(t), (f"{self.scopes[owner]}/{attr}", kind))
        self.source: Dict[int, str] = {}
        self.nodes: list = []
        self._taken: set = set()

    def add(self, name: str, op: str, inputs: List[str], shapes, attr: str = "") -> str:
        from tensorboardX.proto.attr_value_pb2 import AttrValue
        from tensorboardX.proto.node_def_pb2 import NodeDef
        from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
        unique, n = name, 0
        while unique in self._taken:
            n += 1
            unique = f"{name}_{n}"
        self._taken.add(unique)
        attrs = {"_output_shapes": AttrValue(list=AttrValue.ListValue(shape=[
            TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(s)) for s in shape]) for shape in shapes]))}
        if attr:
            attrs["attr"] = AttrValue(s=attr.encode("utf-8"))
        self.nodes.append(NodeDef(name=unique, op=op, input=inputs, device="/device:CPU:0", attr=attrs))
        return unique

    def input_name(self, t, scope: str) -> str:
        """The node an op reads ``t`` from: its producer, a parameter/buffer/input node, else a new constant."""
        known = self.source.get(id(t))
        if known is None:
            name, kind = self.named.get(id(t), (f"{self.scopes.get(scope, self.scopes[''])}/constant", "Constant"))
            known = self.source[id(t)] = self.add(name, kind, [], [t.shape])
        return known

    def add_op(self, call) -> None:
        outputs = _tensors_in(call.result)
        if not outputs:  # an op that made no tensor (a shape, a number) is no part of the data flow
            return
        ins = [self.input_name(t, call.scope) for t in _tensors_in((call.args, call.kwargs))]
        name = self.add(f"{self.scopes.get(call.scope, self.scopes[''])}/{call.name}", f"ember::{call.name}", ins,
                        [t.shape for t in outputs], _describe_arguments(call))
        for k, t in enumerate(outputs):  # TensorFlow's spelling of an op's k-th output: "name:k"
            self.source[id(t)] = name if k == 0 else f"{name}:{k}"


def _describe_arguments(call) -> str:
    """The op's non-tensor arguments, as PyTorch shows a node's attributes: ``{stride : 1, padding : 0}``."""
    from ..core.tensor import Tensor
    try:
        bound = call.bound()
    except Exception:  # an argument the signature cannot bind: show none rather than fail the graph
        return ""
    parts = [f"{key} : {value!r}" for key, value in bound.items()
             if not key.startswith("_") and not isinstance(value, Tensor) and not _tensors_in(value)]
    return "{" + ", ".join(parts) + "}" if parts else ""


def _tensors_in(obj) -> List[Any]:
    """The tensors in ``obj`` (inside lists, tuples and dict values, in order)."""
    from ..core.tensor import Tensor
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)):
        out: List[Any] = []
        for item in obj:
            out.extend(_tensors_in(item))
        return out
    return []
