"""Shape ops: ``reshape``/``view``/``flatten``, ``permute``/``transpose``, ``cat``/``stack``, ``split``/``chunk``,
``squeeze``/``unsqueeze``, ``expand``, ``repeat``, dtype conversions and copies.

Sizes the model computed from a dynamic axis (``x.view(x.size(0), -1)``) arrive as plain ints; :func:`target_shape`
turns each dimension that followed a dynamic axis in the probe trace into ``0`` (copy the input's) or ``-1``.
"""
from __future__ import annotations

import numpy as np

from ._common import as_list, axis, flatten_result, result_np_dtype
from ._registry import OnnxExporterError, op

__all__ = ["target_shape"]


def result_probe_shape(call, index: int = 0):
    """The call's (``index``-th) result shape in the probe trace, or None without one."""
    if call.probe is None:
        return None
    return tuple(flatten_result(call.probe.result)[index].shape)


def result_dynamic(call, index: int = 0) -> tuple:
    """Per dimension of the call's result: True when it changed size in the probe trace."""
    out = flatten_result(call.result)[index]
    probe = result_probe_shape(call, index)
    if probe is None:
        return (False,) * out.ndim
    return tuple(a != b for a, b in zip(out.shape, probe))


def target_shape(g, call, inp, out_shape, probe_shape):
    """Reshape's shape input for ``out_shape``: a list of ints where dims that follow a dynamic axis are 0 (copy
    the input's) or -1, or, when several such dims move, an ONNX value built from the inputs' runtime sizes."""
    shape = [int(s) for s in out_shape]
    if probe_shape is None:
        return shape
    in_dynamic = g.dynamic(inp)
    free = []
    for i, (size, other) in enumerate(zip(out_shape, probe_shape)):
        if size == other:
            continue
        if i < inp.ndim and in_dynamic[i] and inp.shape[i] == size:
            shape[i] = 0  # the same dynamic dimension as the input's: copy it
        else:
            free.append(i)
    if len(free) <= 1:
        if free:
            shape[free[0]] = -1
        return shape
    # several dynamic dims in new places: take each from the graph input axis that has that size in both traces
    pieces = []
    for i, size in enumerate(shape):
        source = g.dim_sources.get((out_shape[i], probe_shape[i])) if i in free else None
        if i in free and source is None:
            if -1 in shape:
                raise OnnxExporterError(
                    f"'{call.name}' in {call.where()} reshapes {tuple(inp.shape)} to {tuple(out_shape)} with several "
                    "dimensions that follow dynamic axes in new positions; ONNX's Reshape can infer only one. Keep "
                    "fewer axes dynamic, or reshape so that dynamic dimensions stay in place")
            shape[i] = -1
        pieces.append(g.ints([shape[i]]) if source is None else g.shape_of(source[0], start=source[1],
                                                                          end=source[1] + 1))
    return g.op("Concat", pieces, axis=0)


def _reshape_to_result(g, call):
    inp = call.arg("input")
    out = call.result
    if tuple(inp.shape) == tuple(out.shape) and result_dynamic(call) == g.dynamic(inp):
        return g.value(inp)
    return g.reshape(g.value(inp), target_shape(g, call, inp, out.shape, result_probe_shape(call)))


op("reshape", "view", "flatten", "unflatten", "view_as", "reshape_as", "ravel", sizes=True)(_reshape_to_result)


@op("squeeze", "squeeze_")
def _squeeze(g, call):
    inp = call.arg("input")
    dim = call.arg("dim")
    dynamic = g.dynamic(inp)
    dims = range(inp.ndim) if dim is None else ([dim] if isinstance(dim, int) else dim)
    dims = [axis(d, inp.ndim) for d in dims]
    dims = sorted(d for d in dims if inp.shape[d] == 1 and not dynamic[d])
    if not dims:
        return g.value(inp)
    return g.op("Squeeze", [g.value(inp), g.ints(dims)])


@op("unsqueeze", "unsqueeze_")
def _unsqueeze(g, call):
    inp = call.arg("input")
    return g.op("Unsqueeze", [g.value(inp), g.ints([axis(call.arg("dim"), inp.ndim + 1)])])


@op("permute")
def _permute(g, call):
    inp = call.arg("input")
    dims = as_list(call.arg("dims"))
    return g.op("Transpose", [g.value(inp)], perm=[axis(d, inp.ndim) for d in dims])


@op("transpose", "transpose_", "swapaxes", "swapdims", "t", "t_")
def _transpose(g, call):
    inp = call.arg("input")
    if inp.ndim < 2:
        return g.value(inp)
    if call.name.startswith("t"):
        d0, d1 = (0, 1) if call.name in ("t", "t_") else (call.arg("dim0"), call.arg("dim1"))
    else:
        d0, d1 = call.arg("axis0", call.arg("dim0")), call.arg("axis1", call.arg("dim1"))
    perm = list(range(inp.ndim))
    a, b = axis(d0, inp.ndim), axis(d1, inp.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return g.op("Transpose", [g.value(inp)], perm=perm)


@op("movedim", "moveaxis")
def _movedim(g, call):
    inp = call.arg("input")
    src, dst = call.arg("source"), call.arg("destination")
    src = [src] if isinstance(src, int) else list(src)
    dst = [dst] if isinstance(dst, int) else list(dst)
    src, dst = [axis(s, inp.ndim) for s in src], [axis(d, inp.ndim) for d in dst]
    rest = [d for d in range(inp.ndim) if d not in src]
    perm = [None] * inp.ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return g.op("Transpose", [g.value(inp)], perm=perm)


@op("cat", "concat", "concatenate")
def _cat(g, call):
    dtype = result_np_dtype(call)
    tensors = [t for t in call.arg("tensors") if not (t.ndim == 1 and t.shape[0] == 0)]
    ndim = call.result.ndim
    names = [g.value(t, dtype) for t in tensors]
    return g.op("Concat", names, axis=axis(call.arg("dim", 0), ndim))


@op("stack")
def _stack(g, call):
    dtype = result_np_dtype(call)
    ndim = call.result.ndim
    dim = axis(call.arg("dim", 0), ndim)
    names = [g.op("Unsqueeze", [g.value(t, dtype), g.ints([dim])]) for t in call.arg("tensors")]
    return g.op("Concat", names, axis=dim)


def _check_static(g, call, inp, dim):
    if g.dynamic(inp)[dim]:
        raise OnnxExporterError(f"'{call.name}' in {call.where()} splits dimension {dim}, which follows a dynamic "
                                "axis: the pieces' sizes would stay those of the traced input")


@op("split", "chunk", "tensor_split", "split_with_sizes")
def _split(g, call):
    inp = call.arg("tensor", call.arg("input"))
    dim = axis(call.arg("dim", 0), inp.ndim)
    _check_static(g, call, inp, dim)
    sizes = [t.shape[dim] for t in call.result]
    outs = g.op("Split", [g.value(inp), g.ints(sizes)], outputs=len(sizes), axis=dim)
    return [outs] if len(sizes) == 1 else list(outs)


@op("unbind")
def _unbind(g, call):
    inp = call.arg("input")
    dim = axis(call.arg("dim", 0), inp.ndim)
    _check_static(g, call, inp, dim)
    n = inp.shape[dim]
    outs = g.op("Split", [g.value(inp), g.ints([1] * n)], outputs=n, axis=dim)
    outs = [outs] if n == 1 else outs
    return [g.op("Squeeze", [o, g.ints([dim])]) for o in outs]


@op("expand", "expand_as", "broadcast_to", sizes=True)
def _expand(g, call):
    inp = call.arg("input")
    other = call.arg("other")
    if call.name == "expand_as" and other is not None:
        return g.op("Expand", [g.value(inp), g.shape_of(g.value(other))])
    out = call.result
    probe = result_probe_shape(call) or tuple(out.shape)
    offset = out.ndim - inp.ndim
    pieces = []
    for i, size in enumerate(out.shape):
        j = i - offset
        if j >= 0 and inp.shape[j] == size:
            pieces.append(g.ints([1]))  # broadcasting keeps the input's own size, dynamic or not
        elif size != probe[i]:
            piece = g.dim(size, probe[i])
            if piece is None:
                raise OnnxExporterError(f"'{call.name}' in {call.where()} expands to size {size}, which follows a "
                                        "dynamic axis but is no dynamic input axis's size: use expand_as")
            pieces.append(piece)
        else:
            pieces.append(g.ints([int(size)]))
    return g.op("Expand", [g.value(inp), g.op("Concat", pieces, axis=0) if pieces else g.ints([])])


@op("repeat")
def _repeat(g, call):
    inp = call.arg("input")
    reps = as_list(call.arg("sizes", call.arg("repeats")))
    x = g.value(inp)
    if len(reps) > inp.ndim:
        x = g.op("Unsqueeze", [x, g.ints(range(len(reps) - inp.ndim))])
    return g.op("Tile", [x, g.ints(reps)])


@op("flip")
def _flip(g, call):
    inp = call.arg("input")
    dims = [axis(d, inp.ndim) for d in as_list(call.arg("dims"))]
    n = len(dims)
    return g.op("Slice", [g.value(inp), g.ints([-1] * n), g.ints([np.iinfo(np.int64).min] * n), g.ints(dims),
                          g.ints([-1] * n)])


@op("tril", "triu", "tril_", "triu_")
def _trilu(g, call):
    return g.op("Trilu", [g.value(call.arg("input")), g.const(int(call.arg("diagonal", 0)), np.int64)],
                upper=int(call.name.startswith("triu")))


def _alias_or_cast(g, call):
    dtype = result_np_dtype(call)
    return g.value(call.arg("input"), dtype)


op("contiguous", "clone", "detach", "detach_", "to", "type", "type_as", "float", "double", "half", "long", "int",
   "short", "bool", "byte", "char", "cpu", "cuda", "requires_grad_", "dropout_eval", "alias")(_alias_or_cast)
