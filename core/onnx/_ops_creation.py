"""Tensors made from sizes: ``zeros_like``/``ones_like``/``full_like``, and ``arange``/``zeros``/``ones``/``full``
when a size follows a dynamic axis (otherwise they are constants): ``em.arange(x.size(1))`` stays symbolic."""
from __future__ import annotations

import numpy as np
from onnx import helper

from ._common import as_list, result_np_dtype
from ._graph import onnx_dtype
from ._registry import OnnxExporterError, op

__all__ = []


def _fill(dtype, value):
    return helper.make_tensor("value", onnx_dtype(dtype), [1], [np.asarray(value, dtype=dtype).item()])


def _like(fill):
    def mapping(g, call):
        dtype = result_np_dtype(call)
        value = call.arg("fill_value") if fill is None else fill
        return g.op("ConstantOfShape", [g.shape_of(g.value(call.arg("input")))], value=_fill(dtype, value))
    return mapping


op("zeros_like", "empty_like")(_like(0))
op("ones_like")(_like(1))
op("full_like")(_like(None))


def _size(g, call, traced, probe):
    """A 1-D int64 ``[n]``: a constant, or the runtime size of the dynamic axis that ``n`` follows."""
    if probe is None or traced == probe:
        return g.ints([traced])
    name = g.dim(traced, probe)
    if name is None:
        raise OnnxExporterError(
            f"'{call.name}' in {call.where()} uses the size {traced} (it was {probe} at another size of the dynamic "
            "axes), which is not the size of any dynamic input axis: compute it from the inputs with tensor ops")
    return name


def _sizes(call):
    size = call.arg("size")
    return as_list(size if isinstance(size, tuple) and call.name != "full" else (size,))


@op("zeros", "ones", "empty", "full", sizes=True)
def _filled(g, call):
    dtype = result_np_dtype(call)
    sizes = _sizes(call)
    probe = _sizes(call.probe) if call.probe is not None else [None] * len(sizes)
    shape = g.op("Concat", [_size(g, call, a, b) for a, b in zip(sizes, probe)], axis=0) if sizes else g.ints([])
    value = {"zeros": 0, "empty": 0, "ones": 1}.get(call.name, call.arg("fill_value"))
    if call.probe is not None and call.name == "full" and call.probe.arg("fill_value") != value:
        raise OnnxExporterError(f"'full' in {call.where()} fills with {value}, which follows a dynamic axis")
    return g.op("ConstantOfShape", [shape], value=_fill(dtype, value))


def _range_args(call):
    start, end, step = call.arg("start", 0), call.arg("end"), call.arg("step", 1)
    return (0, start, step) if end is None else (start, end, step)


@op("arange", sizes=True)
def _arange(g, call):
    dtype = result_np_dtype(call)
    traced = _range_args(call)
    probe = _range_args(call.probe) if call.probe is not None else (None,) * 3
    scalars = []
    for a, b in zip(traced, probe):
        if isinstance(a, float) or (b is not None and a != b and not isinstance(a, int)):
            return NotImplemented
        one = _size(g, call, int(a), None if b is None else int(b))
        scalar = g.op("Squeeze", [one, g.ints([0])])
        scalars.append(scalar if dtype == np.int64 else g.cast(scalar, dtype))
    return g.op("Range", scalars)
