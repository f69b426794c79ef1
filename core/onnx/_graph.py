"""The graph builder: ONNX nodes, initializers and the map from traced tensors to ONNX value names.

Mappings (the ``_ops_*.py`` files) talk to ONNX only through :class:`Graph`: :meth:`Graph.value` gives the name of a
traced tensor (or turns a constant into an initializer), :meth:`Graph.op` adds a node, :meth:`Graph.const` adds a
constant. ``onnx`` itself is imported here, so this module only loads when an export runs.
"""
from __future__ import annotations

import numbers

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..tensor import Tensor
from ._registry import OnnxExporterError

__all__ = ["Graph", "np_dtype", "onnx_dtype"]


def np_dtype(t) -> np.dtype:
    """The NumPy dtype of a tensor's data."""
    return t._data.dtype


def onnx_dtype(dtype) -> int:
    """ONNX's element type (``TensorProto.FLOAT``...) for a NumPy dtype."""
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class Graph:
    """An ONNX graph under construction, plus what the exporter knows about each traced tensor.

    Args:
        opset: the ONNX opset the nodes must belong to.
        fold: fold ops whose inputs are all constants into one constant (``do_constant_folding``).
    """

    def __init__(self, opset: int, fold: bool = True):
        self.opset = opset
        self.fold = fold
        self.nodes: list = []
        self.initializers: list = []
        self.inputs: list = []
        self._names: dict = {}       # id(tensor) -> ONNX value name
        self._live: dict = {}        # id(tensor) -> True when the value depends on a graph input
        self._probe: dict = {}       # id(tensor) -> the same tensor's shape in the probe trace
        self._taken: set = set()
        self._consts: dict = {}
        self.call = None             # the call being mapped, for error messages
        self.params: dict = {}       # id(parameter or buffer) -> (state_dict name, tensor); named on first use
        self.export_params = True
        self.known_constants = None  # ids of tensors that may become constants (None: any tensor may)
        self.dim_sources: dict = {}  # (traced size, probe size) -> (value name, axis) of a dim with that size

    # ------------------------------------------------------------------------------------------------ names
    def unique(self, hint: str) -> str:
        """A value name not used yet, derived from ``hint``."""
        hint = hint or "v"
        name, i = hint, 1
        while name in self._taken:
            name = f"{hint}_{i}"
            i += 1
        self._taken.add(name)
        return name

    # ------------------------------------------------------------------------------------------------ values
    def add_input(self, tensor: Tensor, name: str, dims) -> None:
        """Declare ``tensor`` as a graph input called ``name`` with ``dims`` (ints and symbolic names)."""
        self._taken.add(name)
        self.inputs.append(helper.make_tensor_value_info(name, onnx_dtype(np_dtype(tensor)), list(dims)))
        self.bind(tensor, name, live=True)

    def add_initializer(self, array, hint: str) -> str:
        """Add ``array`` as an initializer; returns its name."""
        name = self.unique(hint)
        self.initializers.append(numpy_helper.from_array(np.array(array, order="C"), name))  # keeps 0-d
        return name

    def bind(self, tensor: Tensor, name: str, live: bool = True, probe_shape=None) -> None:
        """Record that ``tensor`` is the ONNX value ``name`` (``live``: it depends on a graph input)."""
        self._names[id(tensor)] = name
        self._live[id(tensor)] = live
        if probe_shape is not None:
            self._probe[id(tensor)] = tuple(probe_shape)
            if live:  # its dynamic dims can give their runtime size to a later size argument (graph inputs first)
                for axis, (a, b) in enumerate(zip(tensor.shape, probe_shape)):
                    if a != b:
                        self.dim_sources.setdefault((a, b), (name, axis))

    def is_live(self, tensor) -> bool:
        """True when ``tensor`` depends on a graph input (so it cannot be folded into a constant)."""
        return isinstance(tensor, Tensor) and self._live.get(id(tensor), False)

    def known(self, tensor) -> bool:
        """True when ``tensor`` already has an ONNX name."""
        return id(tensor) in self._names

    def dynamic(self, tensor: Tensor) -> tuple:
        """Per dimension of ``tensor``: True when its size follows a dynamic axis (it changed in the probe trace)."""
        probe = self._probe.get(id(tensor))
        if probe is None or len(probe) != tensor.ndim:
            return (False,) * tensor.ndim
        return tuple(a != b for a, b in zip(tensor.shape, probe))

    def value(self, x, dtype=None) -> str:
        """The ONNX name of tensor or Python scalar ``x``, cast to NumPy ``dtype`` when given and different."""
        if isinstance(x, Tensor):
            name = self._names.get(id(x))
            if name is None:
                name = self._first_use(x)
            if dtype is not None and np.dtype(dtype) != np_dtype(x):
                return self.cast(name, dtype)
            return name
        if isinstance(x, (bool, numbers.Number, np.generic, list, tuple)):
            if dtype is None:
                dtype = np.asarray(x).dtype
            return self.const(x, dtype)
        raise TypeError(f"cannot turn {type(x).__name__} into an ONNX value")

    def _first_use(self, x: Tensor) -> str:
        param = self.params.get(id(x))
        if param is not None and not self.export_params:  # weights as extra graph inputs
            name = self.unique(param[0])
            self.inputs.append(helper.make_tensor_value_info(name, onnx_dtype(np_dtype(x)), list(x.shape)))
            self.bind(x, name, live=True)
            return name
        # a weight, or a constant: a tensor that existed before the run, or one made by a folded op
        if param is None and self.known_constants is not None and id(x) not in self.known_constants:
            where = f"'{self.call.name}' in {self.call.where()}" if self.call is not None else "an output"
            raise OnnxExporterError(
                f"{where} uses a tensor of shape {tuple(x.shape)} that was computed outside the ops the exporter "
                "sees (a private kernel or direct array code); ember's exporter cannot record how it was made")
        name = self.add_initializer(x.detach().cpu().numpy(), param[0] if param is not None else "const")
        self.bind(x, name, live=False)
        return name

    def const(self, value, dtype, hint: str = "const") -> str:
        """An initializer holding ``value`` as NumPy ``dtype`` (small constants are shared)."""
        array = np.asarray(value, dtype=dtype)
        key = (array.dtype.str, array.shape, array.tobytes()) if array.size <= 64 else None
        if key is not None and key in self._consts:
            return self._consts[key]
        name = self.add_initializer(array, hint)
        if key is not None:
            self._consts[key] = name
        return name

    def ints(self, values) -> str:
        """A 1-D int64 constant (shapes, axes, pads)."""
        return self.const(np.asarray(list(values), dtype=np.int64).reshape(-1), np.int64, "ints")

    # ------------------------------------------------------------------------------------------------ nodes
    def op(self, op_type: str, inputs, outputs: int = 1, **attrs):
        """Add an ONNX node; returns its output name (or the list of names when ``outputs > 1``).

        An input of ``None`` or ``""`` is an omitted optional input.
        """
        hint = op_type.lower()
        outs = [self.unique(hint) for _ in range(outputs)]
        names = ["" if i is None else i for i in inputs]
        while names and names[-1] == "":
            names.pop()
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op_type, names, outs, name=self.unique(f"n_{op_type}"), **attrs))
        return outs[0] if outputs == 1 else outs

    def cast(self, name: str, dtype) -> str:
        """``name`` cast to NumPy ``dtype``."""
        return self.op("Cast", [name], to=onnx_dtype(dtype))

    def reduce(self, op_type: str, x: str, axes, keepdims: bool) -> str:
        """A Reduce* node over ``axes`` (None: all), with axes as an input or attribute as the opset requires."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, [x], keepdims=keep)
        axes = [int(a) for a in axes]
        if op_type == "ReduceSum" or self.opset >= 18:
            return self.op(op_type, [x, self.ints(axes)], keepdims=keep)
        return self.op(op_type, [x], keepdims=keep, axes=axes)

    def reshape(self, x: str, shape) -> str:
        """Reshape ``x`` to ``shape``: a list of ints (0 copies the input's dimension, -1 is inferred) or the name
        of an int64 vector."""
        return self.op("Reshape", [x, shape if isinstance(shape, str) else self.ints(shape)])

    def shape_of(self, x: str, start=None, end=None) -> str:
        """``Shape(x)[start:end]`` as an int64 vector."""
        return self.op("Shape", [x], start=start, end=end)

    def dim(self, traced: int, probe: int):
        """A 1-D int64 value ``[size]`` holding, at run time, the size of a dimension (of a graph input, else of an
        earlier value) that had ``traced`` elements in the trace and ``probe`` in the probe trace; None if none did."""
        source = self.dim_sources.get((traced, probe))
        if source is None:
            return None
        return self.shape_of(source[0], start=source[1], end=source[1] + 1)

    def model(self, outputs, name: str = "ember_graph") -> "onnx.ModelProto":
        """The finished ModelProto with ``outputs`` (ValueInfoProtos)."""
        graph = helper.make_graph(self.nodes, name, self.inputs, outputs, self.initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)],
                                 producer_name="ember")
