"""Recurrent layers: ``LSTM``, ``GRU`` and ``RNN`` modules to ONNX's ``LSTM``, ``GRU`` and ``RNN`` ops, one node per
layer (both directions in one node), with PyTorch's gate order rearranged to ONNX's."""
from __future__ import annotations

from ..nn.modules.rnn import RNNBase
from ..tensor import Tensor
from ._common import result_np_dtype
from ._registry import module

__all__ = []

# PyTorch stacks gates (i, f, g, o) for LSTM and (r, z, n) for GRU; ONNX wants (i, o, f, c) and (z, r, h)
_ORDER = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}
_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


def _gates(g, weight, mode, dtype):
    """``weight`` (gates stacked on dim 0) with its gate blocks in ONNX's order."""
    n = len(_ORDER[mode])
    w = g.value(weight, dtype)
    if n == 1:
        return w
    size = weight.shape[0] // n
    parts = g.op("Split", [w, g.ints([size] * n)], outputs=n, axis=0)
    return g.op("Concat", [parts[i] for i in _ORDER[mode]], axis=0)


def _stack_directions(g, names):
    names = [g.op("Unsqueeze", [n, g.ints([0])]) for n in names]
    return names[0] if len(names) == 1 else g.op("Concat", names, axis=0)


@module(RNNBase)
def _rnn_module(g, call):
    m = call.module
    inp = call.args[0] if call.args else None
    hx = call.args[1] if len(call.args) > 1 else None
    if not isinstance(inp, Tensor) or m.proj_size > 0 or not isinstance(call.result, tuple):
        return NotImplemented  # packed sequences and projections have no ONNX counterpart
    dtype = result_np_dtype(call)
    mode, lstm = m.mode, m.mode == "LSTM"
    nd = 2 if m.bidirectional else 1
    hidden = m.hidden_size
    batched = inp.ndim == 3
    x = g.value(inp, dtype)
    if not batched:
        x = g.op("Unsqueeze", [x, g.ints([1])])
    elif m.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    h0 = c0 = None
    if hx is not None:
        h_t, c_t = hx if lstm else (hx, None)
        h0 = g.value(h_t, dtype)
        c0 = g.value(c_t, dtype) if c_t is not None else None
        if not batched:
            h0 = g.op("Unsqueeze", [h0, g.ints([1])])
            c0 = g.op("Unsqueeze", [c0, g.ints([1])]) if c0 is not None else None
    hs, cs = [], []
    for layer in range(m.num_layers):
        ws, rs, bs = [], [], []
        for direction in range(nd):
            suffix = f"_l{layer}" + ("_reverse" if direction else "")
            ws.append(_gates(g, getattr(m, "weight_ih" + suffix), mode, dtype))
            rs.append(_gates(g, getattr(m, "weight_hh" + suffix), mode, dtype))
            if m.bias:
                b_ih = _gates(g, getattr(m, "bias_ih" + suffix), mode, dtype)
                b_hh = _gates(g, getattr(m, "bias_hh" + suffix), mode, dtype)
                bs.append(g.op("Concat", [b_ih, b_hh], axis=0))
        inputs = [x, _stack_directions(g, ws), _stack_directions(g, rs), _stack_directions(g, bs) if bs else None,
                  None]
        lo, hi = layer * nd, (layer + 1) * nd
        layer_state = lambda s: g.op("Slice", [s, g.ints([lo]), g.ints([hi]), g.ints([0])])  # noqa: E731
        inputs.append(layer_state(h0) if h0 is not None else None)
        if lstm:
            inputs.append(layer_state(c0) if c0 is not None else None)
        attrs = dict(hidden_size=hidden, direction="bidirectional" if nd == 2 else "forward")
        if mode == "GRU":
            attrs["linear_before_reset"] = 1
        if mode.startswith("RNN"):
            attrs["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * nd
        outs = g.op(_OP[mode], inputs, outputs=3 if lstm else 2, **attrs)
        y, h = outs[0], outs[1]
        hs.append(h)
        if lstm:
            cs.append(outs[2])
        # Y is (seq, directions, batch, hidden): the next layer wants (seq, batch, directions * hidden)
        y = g.op("Transpose", [y], perm=[0, 2, 1, 3])
        x = g.reshape(y, [0, 0, -1])
    h_n = hs[0] if len(hs) == 1 else g.op("Concat", hs, axis=0)
    c_n = (cs[0] if len(cs) == 1 else g.op("Concat", cs, axis=0)) if lstm else None
    if not batched:
        x = g.op("Squeeze", [x, g.ints([1])])
        h_n = g.op("Squeeze", [h_n, g.ints([1])])
        c_n = g.op("Squeeze", [c_n, g.ints([1])]) if lstm else None
    elif m.batch_first:
        x = g.op("Transpose", [x], perm=[1, 0, 2])
    return (x, (h_n, c_n)) if lstm else (x, h_n)
