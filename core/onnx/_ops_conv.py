"""Convolutions, pooling and padding: ``Conv1d/2d`` (stride, padding, dilation, groups, padding modes),
``ConvTranspose1d/2d``, ``max/avg_pool``, ``adaptive_avg/max_pool``, ``pad``."""
from __future__ import annotations

from ..nn.modules.conv import _ConvNd, _ConvTransposeNd
from ._common import result_np_dtype
from ._registry import OnnxExporterError, module, op

__all__ = []


def _tuple(value, nd):
    if isinstance(value, (tuple, list)):
        return [int(v) for v in value] if len(value) == nd else [int(value[0])] * nd
    return [int(value)] * nd


def _conv_pads(padding, nd, kernel, dilation):
    """ONNX ``pads`` (all begins, then all ends) for PyTorch's ``padding`` (int, tuple, 'valid' or 'same')."""
    if padding == "valid":
        return [0] * (2 * nd)
    if padding == "same":
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [t // 2 for t in totals] + [t - t // 2 for t in totals]
    p = _tuple(padding, nd)
    return p + p


def _batched(g, inp, nd, build, x=None):
    """Run ``build(x)`` on a batched ``x`` (default: ``inp``'s value): an unbatched input gets a batch dimension
    added, then removed."""
    x = g.value(inp) if x is None else x
    if inp.ndim == nd + 1:
        x = g.op("Unsqueeze", [x, g.ints([0])])
        return g.op("Squeeze", [build(x), g.ints([0])])
    return build(x)


def _conv(g, inp, weight, bias, stride, padding, dilation, groups, nd, dtype, x=None):
    kernel = list(weight.shape[2:])
    dilation, stride = _tuple(dilation, nd), _tuple(stride, nd)
    pads = _conv_pads(padding, nd, kernel, dilation)
    w = g.value(weight, dtype)
    b = [g.value(bias, dtype)] if bias is not None else []
    return _batched(g, inp, nd, lambda x: g.op("Conv", [x, w] + b, kernel_shape=kernel, strides=stride,
                                               pads=pads, dilations=dilation, group=int(groups)), x)


@op("conv1d", "conv2d")
def _conv_fn(g, call):
    nd = 1 if call.name == "conv1d" else 2
    return _conv(g, call.arg("input"), call.arg("weight"), call.arg("bias"), call.arg("stride", 1),
                 call.arg("padding", 0), call.arg("dilation", 1), call.arg("groups", 1), nd, result_np_dtype(call))


def _conv_transpose(g, inp, weight, bias, stride, padding, output_padding, groups, dilation, nd, dtype):
    kernel = list(weight.shape[2:])
    p = _tuple(padding, nd)
    w = g.value(weight, dtype)
    b = [g.value(bias, dtype)] if bias is not None else []
    return _batched(g, inp, nd, lambda x: g.op(
        "ConvTranspose", [x, w] + b, kernel_shape=kernel, strides=_tuple(stride, nd), pads=p + p,
        dilations=_tuple(dilation, nd), output_padding=_tuple(output_padding, nd), group=int(groups)))


@op("conv_transpose1d", "conv_transpose2d")
def _conv_transpose_fn(g, call):
    nd = 1 if call.name == "conv_transpose1d" else 2
    return _conv_transpose(g, call.arg("input"), call.arg("weight"), call.arg("bias"), call.arg("stride", 1),
                           call.arg("padding", 0), call.arg("output_padding", 0), call.arg("groups", 1),
                           call.arg("dilation", 1), nd, result_np_dtype(call))


@module(_ConvNd)
def _conv_module(g, call):
    # the layers run a private kernel (not a public op), so they are mapped whole, from their attributes
    m = call.module
    inp = call.args[0]
    dtype = result_np_dtype(call)
    if isinstance(m, _ConvTransposeNd):
        output_size = call.args[1] if len(call.args) > 1 else None
        return _conv_transpose(g, inp, m.weight, m.bias, m.stride, m.padding, m._output_padding(inp, output_size),
                               m.groups, m.dilation, m._nd, dtype)
    if m.padding_mode != "zeros":
        mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[m.padding_mode]
        pads = _pad_list(list(m._reversed_padding_repeated_twice), inp.ndim)
        padded = g.op("Pad", [g.value(inp), g.ints(pads)], mode=mode)
        return _conv(g, inp, m.weight, m.bias, m.stride, 0, m.dilation, m.groups, m._nd, dtype, x=padded)
    return _conv(g, inp, m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups, m._nd, dtype)


def _pad_list(torch_pads, ndim):
    """PyTorch's ``pad`` (last dimension first, (begin, end) pairs) as ONNX's pads (all begins, then all ends)."""
    begins, ends = [0] * ndim, [0] * ndim
    for i in range(len(torch_pads) // 2):
        d = ndim - 1 - i
        begins[d], ends[d] = int(torch_pads[2 * i]), int(torch_pads[2 * i + 1])
    return begins + ends


@op("pad")
def _pad(g, call):
    inp = call.arg("input")
    mode = call.arg("mode", "constant")
    onnx_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}.get(mode)
    if onnx_mode is None or (onnx_mode == "wrap" and g.opset < 19):
        return NotImplemented
    pads = g.ints(_pad_list(call.arg("pad"), inp.ndim))
    if onnx_mode == "constant":
        value = call.arg("value") or 0
        return g.op("Pad", [g.value(inp), pads, g.const(value, inp._data.dtype)], mode="constant")
    return g.op("Pad", [g.value(inp), pads], mode=onnx_mode)


def _pool(onnx_op, nd):
    def mapping(g, call):
        inp = call.arg("input")
        kernel = _tuple(call.arg("kernel_size"), nd)
        stride = call.arg("stride")
        stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, nd)
        p = _tuple(call.arg("padding", 0), nd)
        attrs = dict(kernel_shape=kernel, strides=stride, pads=p + p, ceil_mode=int(bool(call.arg("ceil_mode"))))
        if onnx_op == "MaxPool":
            if call.arg("return_indices"):
                return NotImplemented
            attrs["dilations"] = _tuple(call.arg("dilation", 1), nd)
        else:
            if call.arg("divisor_override") is not None:
                return NotImplemented
            attrs["count_include_pad"] = int(bool(call.arg("count_include_pad", True)))
        return _batched(g, inp, nd, lambda x: g.op(onnx_op, [x], **attrs))
    return mapping


op("max_pool1d")(_pool("MaxPool", 1))
op("max_pool2d")(_pool("MaxPool", 2))
op("avg_pool1d")(_pool("AveragePool", 1))
op("avg_pool2d")(_pool("AveragePool", 2))


def _adaptive(onnx_op, global_op, nd):
    def mapping(g, call):
        inp = call.arg("input")
        if call.arg("return_indices"):
            return NotImplemented
        spatial = list(inp.shape[-nd:])
        out = call.arg("output_size")
        out = [s if o is None else int(o) for o, s in zip(_tuple(out, nd) if not isinstance(out, (tuple, list))
                                                           else list(out), spatial)]
        dynamic = g.dynamic(inp)[-nd:]
        if all(o == 1 for o in out):
            return _batched(g, inp, nd, lambda x: g.op(global_op, [x]))
        if any(dynamic) or any(s % o for s, o in zip(spatial, out)):
            raise OnnxExporterError(
                f"'{call.name}' in {call.where()}: ONNX has no adaptive pooling; it is exported as a fixed pooling "
                f"only when the input size {spatial} is static and divisible by output_size {out}")
        kernel = [s // o for s, o in zip(spatial, out)]
        return _batched(g, inp, nd, lambda x: g.op(onnx_op, [x], kernel_shape=kernel, strides=kernel))
    return mapping


op("adaptive_avg_pool1d")(_adaptive("AveragePool", "GlobalAveragePool", 1))
op("adaptive_avg_pool2d")(_adaptive("AveragePool", "GlobalAveragePool", 2))
op("adaptive_max_pool1d")(_adaptive("MaxPool", "GlobalMaxPool", 1))
op("adaptive_max_pool2d")(_adaptive("MaxPool", "GlobalMaxPool", 2))
