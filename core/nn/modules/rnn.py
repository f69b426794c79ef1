"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Parameter names, shapes, gate order (``i, f, g, o`` for LSTM, ``r, z, n`` for GRU) and initialisation
(``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``) are PyTorch's, so state dicts load either way.

Each layer and direction is computed as (1) the input projection ``x @ W_ih^T + b_ih`` for all time steps at once,
one matmul (for LSTM with ``b_hh`` folded in and scaled per gate, as the kernel expects), then (2) one fused op for
the recurrence whose time loop is plain NumPy on preallocated buffers, with a
hand-written backpropagation-through-time backward. That op and its kernels live in
:mod:`ember.core.nn.functional._rnn`; this module holds the layers: parameters, argument checks and the layer loop.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ...ops._base import Tensor, wrap
from ..functional._rnn import _recurrence, lstm_input_scale
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ------------------------------------------------------------------------------------------------------ helpers
_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _input_projection(mode, x, w_ih, b_ih, b_hh):
    """The fused op's input for a (T, B, I) input, as one GEMM: ``x @ w_ih^T + b_ih`` reshaped to (T, B, G), and
    the ``b_hh`` the op still has to add. For LSTM both biases are folded into the GEMM's bias and the result is
    scaled by :func:`lstm_input_scale` (through the weights: three tiny ops), which the op's kernel expects."""
    from ..functional import linear
    T, B, I = x.shape
    if mode == "LSTM":
        s = wrap(lstm_input_scale(w_ih.shape[0], w_ih._data.dtype, w_ih._xp))
        w_ih = w_ih * s.unsqueeze(1)
        if b_ih is not None:
            b_ih = (b_ih + b_hh) * s if b_hh is not None else b_ih * s
        elif b_hh is not None:
            b_ih = b_hh * s
        b_hh = None
    xg = linear(x.reshape(T * B, I), w_ih, b_ih).reshape(T, B, w_ih.shape[0])  # one fused GEMM + bias
    return xg, b_hh


def _new_param(shape, factory_kwargs):
    from ... import ops
    return Parameter(ops.empty(*shape, **factory_kwargs))


def _factory_kwargs(device, dtype):
    kw = {}
    if device is not None:
        kw["device"] = device
    if dtype is not None:
        kw["dtype"] = dtype
    return kw


def _zeros(shape, like):
    return wrap(like._xp.zeros(shape, dtype=like._data.dtype))


def _check_positive_int(value, name):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")


# ------------------------------------------------------------------------------------------------------ RNNBase
class RNNBase(Module):
    r"""Base class of :class:`RNN`, :class:`LSTM` and :class:`GRU`: parameters, checks and the layer loop.

    Args:
        mode (str): ``'LSTM'``, ``'GRU'``, ``'RNN_TANH'`` or ``'RNN_RELU'``.
        input_size (int): the number of expected features in the input ``x``.
        hidden_size (int): the number of features in the hidden state ``h``.
        num_layers (int): the number of stacked recurrent layers. Default: 1.
        bias (bool): if ``False``, the layers use no ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first (bool): if ``True``, input and output are ``(batch, seq, feature)`` instead of
            ``(seq, batch, feature)`` (hidden states are unaffected). Default: ``False``.
        dropout (float): dropout probability on the outputs of each layer except the last. Default: 0.
        bidirectional (bool): if ``True``, a bidirectional network. Default: ``False``.
        proj_size (int): LSTM only: if ``> 0``, an LSTM with projections of that size. Default: 0.
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout) if isinstance(dropout, numbers.Number) and not isinstance(dropout, bool) \
            else dropout
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=3)
        if not isinstance(input_size, numbers.Integral) or isinstance(input_size, bool) or input_size <= 0:
            raise ValueError(f"input_size must be a positive integer, got {input_size!r}")
        _check_positive_int(hidden_size, "hidden_size")
        _check_positive_int(num_layers, "num_layers")
        if not isinstance(proj_size, numbers.Integral) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")

        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        fk = _factory_kwargs(device, dtype)
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)), ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                names = []
                for fmt, shape in shapes:
                    name = fmt.format(layer, suffix)
                    setattr(self, name, _new_param(shape, fk))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{hidden\\_size}, 1/\\sqrt{hidden\\_size})`."""
        from .. import init
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _name(self) -> str:
        return f"{type(self).__name__}({self.extra_repr()})"

    def flatten_parameters(self) -> None:
        """Kept for compatibility: ember keeps no fused weight buffer, so there is nothing to flatten."""

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters as a list, per layer and direction, of ``[w_ih, w_hh, b_ih, b_hh, (w_hr)]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- checks ----------------------------------------------------------------------------------------------
    def check_input(self, input, batch_sizes=None) -> None:
        """Raise if ``input`` has the wrong rank, dtype or feature size."""
        if not isinstance(input, Tensor):
            raise TypeError(f"{type(self).__name__}: input must be a Tensor, got {type(input).__name__}")
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"{self._name()}: input must have the type {w.dtype}, got type {input.dtype}")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"{self._name()}: input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"{self._name()}: input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")
        if batch_sizes is None and input.size(1 if self.batch_first else 0) == 0:
            # PyTorch refuses an empty sequence rather than returning the initial state
            raise RuntimeError(f"Expected sequence length to be larger than 0 in RNN: {self._name()} got input of "
                               f"shape {tuple(input.shape)} (batch_first={self.batch_first}), whose sequence "
                               "dimension is empty. Pass at least one time step")

    def get_expected_hidden_size(self, input, batch_sizes=None):
        """The shape ``(num_layers * num_directions, batch, real_hidden_size)`` the hidden state must have."""
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else \
            (input.size(0) if self.batch_first else input.size(1))
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, real_hidden)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}") -> None:
        """Raise a ``RuntimeError`` unless ``hx`` has ``expected_hidden_size``."""
        if not isinstance(hx, Tensor):
            raise TypeError(f"{type(self).__name__}: hidden state must be a Tensor, got {type(hx).__name__}")
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(f"{self._name()}: " + msg.format(tuple(expected_hidden_size), list(hx.shape)))
        if hx.dtype != self._flat_weights[0].dtype:
            raise ValueError(f"hidden state must have the type {self._flat_weights[0].dtype}, got type {hx.dtype}")

    def check_forward_args(self, input, hidden, batch_sizes=None) -> None:
        """Check the input and the hidden state of RNN and GRU."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    # -- the computation -------------------------------------------------------------------------------------
    def _run(self, input, h0, c0, batch_sizes=None):
        """Run all layers on a (T, B, I) input. Returns ``(output, h_n, c_n or None)``."""
        from ... import ops
        num_directions = 2 if self.bidirectional else 1
        per_direction = len(self._flat_weights_names) // (self.num_layers * num_directions)
        weights = self._flat_weights
        h0s = h0.unbind(0)
        c0s = c0.unbind(0) if c0 is not None else None
        layer_input = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                w = weights[idx * per_direction:(idx + 1) * per_direction]
                w_ih, w_hh = w[0], w[1]
                b_ih, b_hh = (w[2], w[3]) if self.bias else (None, None)
                w_hr = w[-1] if self.proj_size > 0 else None
                xg, b_hh = _input_projection(self.mode, layer_input, w_ih, b_ih, b_hh)
                y, h, c = _recurrence(self.mode, xg, h0s[idx], None if c0s is None else c0s[idx], w_hh, b_hh,
                                      w_hr, direction == 1, batch_sizes)
                outputs.append(y)
                h_n.append(h)
                c_n.append(c)
            layer_input = outputs[0] if num_directions == 1 else ops.cat(outputs, 2)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                from ..functional import dropout
                layer_input = dropout(layer_input, p=self.dropout, training=True)
        return layer_input, ops.stack(h_n), (ops.stack(c_n) if c0 is not None else None)

    def _prepare(self, input, hx, name, lstm):
        """Shared forward prologue: rank check, batching, layout, default and checked hidden state."""
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is not None:
            if lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of two tensors, got "
                                    f"{type(hx).__name__}")
                want = 3 if is_batched else 2
                if hx[0].dim() != want or hx[1].dim() != want:
                    kind = "batched 3-D" if is_batched else "unbatched 2-D"
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                if not is_batched:
                    hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            else:
                if not isinstance(hx, Tensor):
                    raise TypeError(f"{name}: hx must be a Tensor, got {type(hx).__name__}")
                if is_batched and hx.dim() != 3:
                    raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
                if not is_batched and hx.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                if not is_batched:
                    hx = hx.unsqueeze(1)
        self.check_input(input)
        expected = self.get_expected_hidden_size(input)
        w = self._flat_weights[0]
        if hx is None:
            h0 = _zeros(expected, w)
            c0 = _zeros(expected[:2] + (self.hidden_size,), w) if lstm else None
        elif lstm:
            h0, c0 = hx
            self.check_hidden_size(h0, expected, "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(c0, expected[:2] + (self.hidden_size,), "Expected hidden[1] size {}, got {}")
        else:
            h0, c0 = hx, None
            self.check_hidden_size(h0, expected)
        if self.batch_first:
            input = input.transpose(0, 1)
        return input, h0, c0, is_batched

    def _finish(self, output, h_n, c_n, is_batched):
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if c_n is not None else None
        return output, h_n, c_n

    def _forward_impl(self, input, hx, name, lstm):
        packed = _is_packed(input)
        if packed:
            return self._forward_packed(input, hx, name, lstm)
        input, h0, c0, is_batched = self._prepare(input, hx, name, lstm)
        output, h_n, c_n = self._run(input, h0, c0)
        output, h_n, c_n = self._finish(output, h_n, c_n, is_batched)
        return (output, (h_n, c_n)) if lstm else (output, h_n)

    def _forward_packed(self, packed, hx, name, lstm):
        """Run on a ``PackedSequence``: returns a ``PackedSequence`` output and the per-sequence final states.

        The packed steps are laid out as a (T, B, I) block in length-sorted order; at step ``t`` only the first
        ``batch_sizes[t]`` rows are computed, the others keep their state, so each sequence's ``h_n`` is its state
        after its own last step (its first step, for the reverse direction).
        """
        from ..utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        bs = batch_sizes._data.astype(np.int64) if isinstance(batch_sizes, Tensor) else \
            np.asarray(batch_sizes, dtype=np.int64)
        self.check_input(data, bs)
        padded, _ = pad_packed_sequence(PackedSequence(data, batch_sizes))  # (T, B, I) in sorted order
        expected = self.get_expected_hidden_size(data, bs)
        w = self._flat_weights[0]
        if hx is None:
            h0 = _zeros(expected, w)
            c0 = _zeros(expected[:2] + (self.hidden_size,), w) if lstm else None
        else:
            if lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if sorted_indices is not None:  # the states come in the caller's order: put them in packing order
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            if lstm:
                self.check_hidden_size(h0, expected, "Expected hidden[0] size {}, got {}")
                self.check_hidden_size(c0, expected[:2] + (self.hidden_size,), "Expected hidden[1] size {}, got {}")
            else:
                self.check_hidden_size(h0, expected)
        output, h_n, c_n = self._run(padded, h0, c0, batch_sizes=bs)
        lengths = (bs[None, :] > np.arange(int(bs[0]))[:, None]).sum(1)
        out_data = pack_padded_sequence(output, lengths).data
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        out = PackedSequence(out_data, batch_sizes, sorted_indices, unsorted_indices)
        return (out, (h_n, c_n)) if lstm else (out, h_n)


def _refuse_extra_kwargs(name, kwargs):
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _is_packed(x) -> bool:
    return type(x).__name__ == "PackedSequence"


class RNN(RNNBase):
    r"""A multi-layer Elman RNN with :math:`\tanh` or ReLU non-linearity.

    For each element of the input sequence each layer computes

    .. math::
        h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})

    Args:
        input_size: the number of expected features in the input ``x``.
        hidden_size: the number of features in the hidden state ``h``.
        num_layers: the number of stacked recurrent layers. Default: 1.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        bias: if ``False``, no ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first: if ``True``, input and output are ``(batch, seq, feature)``. Default: ``False``.
        dropout: dropout on the outputs of each layer except the last. Default: 0.
        bidirectional: if ``True``, a bidirectional RNN. Default: ``False``.

    Inputs: ``input, hx``
        * **input**: :math:`(L, H_{in})` unbatched, :math:`(L, N, H_{in})`, or :math:`(N, L, H_{in})` with
          ``batch_first=True``.
        * **hx**: :math:`(D \cdot num\_layers, H_{out})` or :math:`(D \cdot num\_layers, N, H_{out})`; zeros if
          not given.

    Outputs: ``output, h_n``
        * **output**: :math:`(L, N, D \cdot H_{out})` (or batch first): the last layer's ``h_t`` for every ``t``.
        * **h_n**: :math:`(D \cdot num\_layers, N, H_{out})`: the final hidden state of every layer and direction.

    Attributes:
        weight_ih_l[k]: :math:`(hidden\_size, input\_size)` for ``k = 0``, else
            :math:`(hidden\_size, D \cdot hidden\_size)`.
        weight_hh_l[k]: :math:`(hidden\_size, hidden\_size)`.
        bias_ih_l[k], bias_hh_l[k]: :math:`(hidden\_size)`.

    All are drawn from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1/hidden\_size`.

    Example::

        >>> rnn = nn.RNN(10, 20, 2)
        >>> output, hn = rnn(ember.randn(5, 3, 10), ember.randn(2, 3, 20))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _refuse_extra_kwargs("RNN", kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """Run the RNN over ``input``; returns ``(output, h_n)``."""
        return self._forward_impl(input, hx, "RNN", lstm=False)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory (LSTM) RNN.

    For each element of the input sequence each layer computes

    .. math::
        \begin{array}{ll}
        i_t = \sigma(W_{ii} x_t + b_{ii} + W_{hi} h_{t-1} + b_{hi}) \\
        f_t = \sigma(W_{if} x_t + b_{if} + W_{hf} h_{t-1} + b_{hf}) \\
        g_t = \tanh(W_{ig} x_t + b_{ig} + W_{hg} h_{t-1} + b_{hg}) \\
        o_t = \sigma(W_{io} x_t + b_{io} + W_{ho} h_{t-1} + b_{ho}) \\
        c_t = f_t \odot c_{t-1} + i_t \odot g_t \\
        h_t = o_t \odot \tanh(c_t)
        \end{array}

    With ``proj_size > 0`` the hidden state is projected, :math:`h_t = W_{hr} h_t`, so ``h`` has ``proj_size``
    features.

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional: as for :class:`RNN`.
        proj_size: if ``> 0``, use an LSTM with projections of this size. Default: 0.

    Inputs: ``input, (h_0, c_0)``; both states default to zeros.

    Outputs: ``output, (h_n, c_n)``
        * **output**: :math:`(L, N, D \cdot H_{out})` (or batch first), :math:`H_{out}` = ``proj_size`` or
          ``hidden_size``.
        * **h_n**: :math:`(D \cdot num\_layers, N, H_{out})`; **c_n**: :math:`(D \cdot num\_layers, N, H_{cell})`.

    Attributes:
        weight_ih_l[k]: :math:`(4 \cdot hidden\_size, input\_size)` for ``k = 0``, gates stacked as
            ``(W_ii | W_if | W_ig | W_io)``.
        weight_hh_l[k]: :math:`(4 \cdot hidden\_size, H_{out})`.
        bias_ih_l[k], bias_hh_l[k]: :math:`(4 \cdot hidden\_size)`.
        weight_hr_l[k]: :math:`(proj\_size, hidden\_size)` when ``proj_size > 0``.
        The ``_reverse`` variants hold the backward direction of a bidirectional LSTM.

    Example::

        >>> lstm = nn.LSTM(10, 20, 2)
        >>> output, (hn, cn) = lstm(ember.randn(5, 3, 10))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device=device, dtype=dtype)

    def get_expected_cell_size(self, input, batch_sizes=None):
        """The shape ``(num_layers * num_directions, batch, hidden_size)`` the cell state must have."""
        return self.get_expected_hidden_size(input, batch_sizes)[:2] + (self.hidden_size,)

    def forward(self, input, hx=None):
        """Run the LSTM over ``input``; returns ``(output, (h_n, c_n))``."""
        return self._forward_impl(input, hx, "LSTM", lstm=True)


class GRU(RNNBase):
    r"""A multi-layer gated recurrent unit (GRU) RNN.

    For each element of the input sequence each layer computes

    .. math::
        \begin{array}{ll}
        r_t = \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}) \\
        z_t = \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}) \\
        n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})) \\
        h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}
        \end{array}

    Args:
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional: as for :class:`RNN`.

    Inputs and outputs are those of :class:`RNN`. ``weight_ih_l[k]`` is :math:`(3 \cdot hidden\_size, ...)`, gates
    stacked as ``(W_ir | W_iz | W_in)``.

    Example::

        >>> gru = nn.GRU(10, 20, 2)
        >>> output, hn = gru(ember.randn(5, 3, 10))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None, **kwargs):
        _refuse_extra_kwargs("GRU", kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """Run the GRU over ``input``; returns ``(output, h_n)``."""
        return self._forward_impl(input, hx, "GRU", lstm=False)


# -------------------------------------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh`` and their initialisation."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        if not isinstance(input_size, numbers.Integral) or isinstance(input_size, bool) or input_size <= 0:
            raise ValueError(f"input_size must be a positive integer, got {input_size!r}")
        _check_positive_int(hidden_size, "hidden_size")
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        fk = _factory_kwargs(device, dtype)
        self.weight_ih = _new_param((num_chunks * hidden_size, input_size), fk)
        self.weight_hh = _new_param((num_chunks * hidden_size, hidden_size), fk)
        if bias:
            self.bias_ih = _new_param((num_chunks * hidden_size,), fk)
            self.bias_hh = _new_param((num_chunks * hidden_size,), fk)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        """Draw every weight and bias from :math:`\\mathcal{U}(-1/\\sqrt{hidden\\_size}, 1/\\sqrt{hidden\\_size})`."""
        from .. import init
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _name(self) -> str:
        return f"{type(self).__name__}({self.extra_repr()})"

    def _step(self, mode, name, input, hx, cx=None):
        """One time step through the fused recurrence (T = 1). Returns ``(h', c' or None)``."""
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, state in (("hx", hx), ("cx", cx)):
            if state is not None and (not isinstance(state, Tensor) or state.dim() not in (1, 2)):
                got = f"{state.dim()}D" if isinstance(state, Tensor) else type(state).__name__
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {got} instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        w = self.weight_ih
        if input.dtype != w.dtype:
            raise ValueError(f"input must have the type {w.dtype}, got type {input.dtype}")
        if input.size(1) != self.input_size:
            raise RuntimeError(f"{self._name()}: input has inconsistent input_size: got {input.size(1)} expected "
                               f"{self.input_size}")
        batch = input.size(0)
        states = []
        for k, state in enumerate((hx, cx) if mode == "LSTM" else (hx,)):
            if state is None:
                state = _zeros((batch, self.hidden_size), w)
            elif state.dim() != input.dim() - (0 if is_batched else 1):
                raise RuntimeError(f"{name}: Expected hidden{k} to be {input.dim() if is_batched else 1}D for a "
                                   f"{2 if is_batched else 1}D input, got {state.dim()}D")
            elif not is_batched:
                state = state.unsqueeze(0)
            if state.size(0) != batch:
                raise RuntimeError(f"{self._name()}: Input batch size {batch} doesn't match hidden{k} batch size "
                                   f"{state.size(0)}")
            if state.size(1) != self.hidden_size:
                raise RuntimeError(f"{self._name()}: hidden{k} has inconsistent hidden_size: got {state.size(1)}, "
                                   f"expected {self.hidden_size}")
            if state.dtype != w.dtype:
                raise ValueError(f"hidden{k} must have the type {w.dtype}, got type {state.dtype}")
            states.append(state)
        xg, b_hh = _input_projection(mode, input.unsqueeze(0), self.weight_ih, self.bias_ih, self.bias_hh)
        _, h, c = _recurrence(mode, xg, states[0], states[1] if mode == "LSTM" else None, self.weight_hh, b_hh,
                              None, False)
        if not is_batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if c is not None else None
        return h, c


class RNNCell(RNNCellBase):
    r"""An Elman RNN cell with tanh or ReLU non-linearity: :math:`h' = \tanh(W_{ih} x + b_{ih} + W_{hh} h + b_{hh})`.

    Args:
        input_size: the number of expected features in the input ``x``.
        hidden_size: the number of features in the hidden state ``h``.
        bias: if ``False``, no ``b_ih`` and ``b_hh``. Default: ``True``.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.

    Inputs: ``input`` :math:`(N, H_{in})` or :math:`(H_{in})`, ``hidden`` :math:`(N, H_{out})` or :math:`(H_{out})`
    (zeros if not given). Output: ``h'`` with the shape of ``hidden``.

    Example::

        >>> cell = nn.RNNCell(10, 20)
        >>> hx = cell(ember.randn(3, 10))
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """One step: returns the next hidden state."""
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._step(mode, "RNNCell", input, hx)[0]


class LSTMCell(RNNCellBase):
    r"""A long short-term memory (LSTM) cell: one step of :class:`LSTM` (gates ``i, f, g, o``).

    Args:
        input_size: the number of expected features in the input ``x``.
        hidden_size: the number of features in the hidden state ``h``.
        bias: if ``False``, no ``b_ih`` and ``b_hh``. Default: ``True``.

    Inputs: ``input``, ``(h_0, c_0)`` (zeros if not given). Outputs: ``(h_1, c_1)``.
    ``weight_ih`` is :math:`(4 \cdot hidden\_size, input\_size)`, ``weight_hh`` :math:`(4 \cdot hidden\_size,
    hidden\_size)`.

    Example::

        >>> cell = nn.LSTMCell(10, 20)
        >>> hx, cx = cell(ember.randn(3, 10))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """One step: returns ``(h_1, c_1)``."""
        if hx is None:
            h0 = c0 = None
        else:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"LSTMCell: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
            h0, c0 = hx
        return self._step("LSTM", "LSTMCell", input, h0, c0)


class GRUCell(RNNCellBase):
    r"""A gated recurrent unit (GRU) cell: one step of :class:`GRU` (gates ``r, z, n``).

    Args:
        input_size: the number of expected features in the input ``x``.
        hidden_size: the number of features in the hidden state ``h``.
        bias: if ``False``, no ``b_ih`` and ``b_hh``. Default: ``True``.

    Inputs: ``input``, ``hidden`` (zeros if not given). Output: ``h'``.
    ``weight_ih`` is :math:`(3 \cdot hidden\_size, input\_size)`, ``weight_hh`` :math:`(3 \cdot hidden\_size,
    hidden\_size)`.

    Example::

        >>> cell = nn.GRUCell(10, 20)
        >>> hx = cell(ember.randn(3, 10))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        """One step: returns the next hidden state."""
        return self._step("GRU", "GRUCell", input, hx)[0]
