"""Specification of the recurrent layers: RNN, LSTM, GRU and their cells.

The NumPy references below are written from the documented gate equations (PyTorch's docs), independently of
ember's fused kernels.
"""
import math

import numpy as np
import pytest

import ember as em
import ember.nn as nn
from ember.autograd import gradcheck, gradgradcheck


def _np(t):
    return t.detach().numpy()


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ------------------------------------------------------------------------------------------- NumPy references
def ref_rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity="tanh"):
    pre = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    return np.tanh(pre) if nonlinearity == "tanh" else np.maximum(pre, 0)


def ref_lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    H = w_hh.shape[0] // 4
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i = sigmoid(gates[:, :H])
    f = sigmoid(gates[:, H:2 * H])
    g = np.tanh(gates[:, 2 * H:3 * H])
    o = sigmoid(gates[:, 3 * H:])
    c = f * c + i * g
    h = o * np.tanh(c)
    if w_hr is not None:
        h = h @ w_hr.T
    return h, c


def ref_gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    H = w_hh.shape[0] // 3
    gi = x @ w_ih.T + b_ih
    gh = h @ w_hh.T + b_hh
    r = sigmoid(gi[:, :H] + gh[:, :H])
    z = sigmoid(gi[:, H:2 * H] + gh[:, H:2 * H])
    n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
    return (1 - z) * n + z * h


def ref_run(module, x, h0=None, c0=None):
    """Run a (seq, batch, feature) input through ``module``'s parameters with the reference cells."""
    p = {k: _np(v) for k, v in module.named_parameters()}
    D = 2 if module.bidirectional else 1
    T, B, _ = x.shape
    H = module.hidden_size
    Hout = module.proj_size or H
    h0 = np.zeros((module.num_layers * D, B, Hout)) if h0 is None else h0
    c0 = np.zeros((module.num_layers * D, B, H)) if c0 is None else c0
    layer_in = x
    hn, cn = [], []
    for layer in range(module.num_layers):
        outs = []
        for d in range(D):
            sfx = f"l{layer}" + ("_reverse" if d else "")
            w_ih, w_hh = p[f"weight_ih_{sfx}"], p[f"weight_hh_{sfx}"]
            b_ih = p.get(f"bias_ih_{sfx}", 0.0)
            b_hh = p.get(f"bias_hh_{sfx}", 0.0)
            h, c = h0[layer * D + d], c0[layer * D + d]
            ys = [None] * T
            for t in (range(T - 1, -1, -1) if d else range(T)):
                if module.mode == "LSTM":
                    h, c = ref_lstm_cell(layer_in[t], h, c, w_ih, w_hh, b_ih, b_hh, p.get(f"weight_hr_{sfx}"))
                elif module.mode == "GRU":
                    h = ref_gru_cell(layer_in[t], h, w_ih, w_hh, b_ih, b_hh)
                else:
                    h = ref_rnn_cell(layer_in[t], h, w_ih, w_hh, b_ih, b_hh, module.nonlinearity)
                ys[t] = h
            outs.append(np.stack(ys))
            hn.append(h)
            cn.append(c)
        layer_in = np.concatenate(outs, axis=2)
    return layer_in, np.stack(hn), np.stack(cn)


def _x(*shape, seed=0):
    return em.tensor(np.random.default_rng(seed).standard_normal(shape))


# ------------------------------------------------------------------------------------------------ cells
def test_lstm_cell_hand_computed_step():
    # one unit, one input: every weight 0.5, every bias 0.1, x = 1, h = 0, c = 1
    cell = nn.LSTMCell(1, 1, dtype=em.float64)
    with em.no_grad():
        for p in cell.parameters():
            p.fill_(0.5 if p.dim() == 2 else 0.1)
    h1, c1 = cell(em.tensor([[1.0]], dtype=em.float64), (em.tensor([[0.0]], dtype=em.float64),
                                                        em.tensor([[1.0]], dtype=em.float64)))
    pre = 0.5 * 1.0 + 0.1 + 0.5 * 0.0 + 0.1  # identical pre-activation for all four gates
    s, g = 1 / (1 + math.exp(-pre)), math.tanh(pre)
    c_expected = s * 1.0 + s * g  # f * c + i * g
    h_expected = s * math.tanh(c_expected)  # o * tanh(c)
    assert c1.item() == pytest.approx(c_expected, rel=1e-14)
    assert h1.item() == pytest.approx(h_expected, rel=1e-14)


def test_lstm_cell_matches_gate_equations():
    cell = nn.LSTMCell(3, 4, dtype=em.float64)
    x, h, c = _x(5, 3, seed=1), _x(5, 4, seed=2), _x(5, 4, seed=3)
    h1, c1 = cell(x, (h, c))
    p = {k: _np(v) for k, v in cell.named_parameters()}
    rh, rc = ref_lstm_cell(_np(x), _np(h), _np(c), p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"])
    np.testing.assert_allclose(_np(h1), rh, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(c1), rc, rtol=1e-12, atol=1e-14)


def test_gru_cell_matches_gate_equations():
    cell = nn.GRUCell(3, 4, dtype=em.float64)
    x, h = _x(5, 3, seed=4), _x(5, 4, seed=5)
    p = {k: _np(v) for k, v in cell.named_parameters()}
    ref = ref_gru_cell(_np(x), _np(h), p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"])
    np.testing.assert_allclose(_np(cell(x, h)), ref, rtol=1e-12, atol=1e-14)


def test_gru_cell_hand_computed_step():
    # zero weights: r = z = sigmoid(b_ih + b_hh), n = tanh(b_in + r * b_hn), h' = (1 - z) n + z h
    cell = nn.GRUCell(2, 1, dtype=em.float64)
    with em.no_grad():
        cell.weight_ih.zero_()
        cell.weight_hh.zero_()
        cell.bias_ih.copy_(em.tensor([0.2, -0.3, 0.4], dtype=em.float64))
        cell.bias_hh.copy_(em.tensor([0.1, 0.5, -0.6], dtype=em.float64))
    h = em.tensor([[0.7]], dtype=em.float64)
    out = cell(em.tensor([[9.0, -9.0]], dtype=em.float64), h)
    r, z = 1 / (1 + math.exp(-0.3)), 1 / (1 + math.exp(-0.2))
    n = math.tanh(0.4 + r * -0.6)
    assert out.item() == pytest.approx((1 - z) * n + z * 0.7, rel=1e-14)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_cell_matches_equation(nonlinearity):
    cell = nn.RNNCell(3, 4, nonlinearity=nonlinearity, dtype=em.float64)
    x, h = _x(5, 3, seed=6), _x(5, 4, seed=7)
    p = {k: _np(v) for k, v in cell.named_parameters()}
    ref = ref_rnn_cell(_np(x), _np(h), p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"], nonlinearity)
    np.testing.assert_allclose(_np(cell(x, h)), ref, rtol=1e-12, atol=1e-14)


def test_cells_default_state_unbatched_and_no_bias():
    cell = nn.LSTMCell(3, 2, bias=False, dtype=em.float64)
    assert cell.bias_ih is None and [n for n, _ in cell.named_parameters()] == ["weight_ih", "weight_hh"]
    x = _x(3, seed=8)
    h, c = cell(x)
    assert h.shape == (2,) and c.shape == (2,)
    p = {k: _np(v) for k, v in cell.named_parameters()}
    rh, rc = ref_lstm_cell(_np(x)[None], np.zeros((1, 2)), np.zeros((1, 2)), p["weight_ih"], p["weight_hh"], 0, 0)
    np.testing.assert_allclose(_np(h), rh[0], rtol=1e-12)
    np.testing.assert_allclose(_np(c), rc[0], rtol=1e-12)
    g = nn.GRUCell(3, 2)
    assert g(em.randn(4, 3)).shape == (4, 2)


def test_cells_gradcheck():
    for cell in (nn.RNNCell(3, 2, dtype=em.float64), nn.GRUCell(3, 2, dtype=em.float64),
                 nn.RNNCell(3, 2, nonlinearity="relu", dtype=em.float64)):
        x, h = _x(2, 3, seed=9).requires_grad_(), _x(2, 2, seed=10).requires_grad_()
        assert gradcheck(lambda x, h, *ps: cell(x, h), (x, h, *cell.parameters()))
    cell = nn.LSTMCell(3, 2, dtype=em.float64)
    x, h, c = _x(2, 3, seed=11).requires_grad_(), _x(2, 2, seed=12).requires_grad_(), _x(2, 2, seed=13)
    c.requires_grad_()
    assert gradcheck(lambda x, h, c, *ps: cell(x, (h, c)), (x, h, c, *cell.parameters()))


def test_cells_gradgradcheck():
    for cell in (nn.LSTMCell(2, 2, dtype=em.float64), nn.GRUCell(2, 2, dtype=em.float64),
                 nn.RNNCell(2, 2, dtype=em.float64)):
        x, h = _x(2, 2, seed=14).requires_grad_(), _x(2, 2, seed=15).requires_grad_()
        w = cell.weight_hh
        if isinstance(cell, nn.LSTMCell):
            assert gradgradcheck(lambda x, h, w: cell(x, (h, h))[0], (x, h, w))
        else:
            assert gradgradcheck(lambda x, h, w: cell(x, h), (x, h, w))


# ------------------------------------------------------------------------------------------- layers: values
@pytest.mark.parametrize("num_layers,bidirectional", [(1, False), (2, True)])
def test_lstm_matches_reference(num_layers, bidirectional):
    lstm = nn.LSTM(3, 4, num_layers=num_layers, bidirectional=bidirectional, dtype=em.float64)
    x = _x(5, 2, 3, seed=16)
    D = 2 if bidirectional else 1
    h0, c0 = _x(num_layers * D, 2, 4, seed=17), _x(num_layers * D, 2, 4, seed=18)
    out, (hn, cn) = lstm(x, (h0, c0))
    ro, rh, rc = ref_run(lstm, _np(x), _np(h0), _np(c0))
    assert out.shape == (5, 2, 4 * D) and hn.shape == (num_layers * D, 2, 4)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(hn), rh, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(cn), rc, rtol=1e-12, atol=1e-14)


def test_lstm_with_projection_matches_reference():
    lstm = nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True, dtype=em.float64)
    assert lstm.weight_hr_l0.shape == (2, 5) and lstm.weight_hh_l0.shape == (20, 2)
    assert lstm.weight_ih_l1.shape == (20, 4)
    x = _x(4, 3, 3, seed=19)
    out, (hn, cn) = lstm(x)
    ro, rh, rc = ref_run(lstm, _np(x))
    assert out.shape == (4, 3, 4) and hn.shape == (4, 3, 2) and cn.shape == (4, 3, 5)
    np.testing.assert_allclose(_np(out), ro, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(hn), rh, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(_np(cn), rc, rtol=1e-12, atol=1e-14)


def test_gru_and_rnn_match_reference():
    for module in (nn.GRU(3, 4, num_layers=2, bidirectional=True, dtype=em.float64),
                   nn.RNN(3, 4, num_layers=2, nonlinearity="relu", dtype=em.float64),
                   nn.RNN(3, 4, bias=False, bidirectional=True, dtype=em.float64)):
        x = _x(6, 2, 3, seed=20)
        out, hn = module(x)
        ro, rh, _ = ref_run(module, _np(x))
        np.testing.assert_allclose(_np(out), ro, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(_np(hn), rh, rtol=1e-12, atol=1e-14)


def test_last_output_step_equals_final_hidden_state():
    lstm = nn.LSTM(3, 4, bidirectional=True, dtype=em.float64)
    out, (hn, _) = lstm(_x(5, 2, 3, seed=21))
    np.testing.assert_array_equal(_np(out)[-1, :, :4], _np(hn)[0])  # forward direction ends at t = T-1
    np.testing.assert_array_equal(_np(out)[0, :, 4:], _np(hn)[1])  # reverse direction ends at t = 0


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("batch_first", [False, True])
def test_an_empty_sequence_is_refused_as_in_pytorch(cls, batch_first):
    # PyTorch 2.x: "Expected sequence length to be larger than 0 in RNN", batched (either layout) or unbatched
    layer = cls(3, 4, batch_first=batch_first)
    empty_time = (2, 0, 3) if batch_first else (0, 2, 3)
    for shape in (empty_time, (0, 3)):
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
            layer(em.zeros(*shape))


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 2}])
def test_an_empty_batch_runs_forward_and_backward(cls, kwargs):
    # an empty batch is fine in PyTorch: empty outputs, and zero weight gradients
    if "proj_size" in kwargs and cls is not nn.LSTM:
        return
    layer = cls(3, 4, **kwargs)
    x = em.zeros(5, 0, 3, requires_grad=True)
    out, _ = layer(x)
    out_size = kwargs.get("proj_size", 4) * (2 if kwargs.get("bidirectional") else 1)
    assert tuple(out.shape) == (5, 0, out_size)
    out.sum().backward()
    assert tuple(x.grad.shape) == (5, 0, 3)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in layer.parameters())


def test_batch_first_and_unbatched_input():
    gru = nn.GRU(3, 4, num_layers=2, dtype=em.float64)
    gru_bf = nn.GRU(3, 4, num_layers=2, batch_first=True, dtype=em.float64)
    gru_bf.load_state_dict(gru.state_dict())
    x = _x(5, 2, 3, seed=22)
    out, hn = gru(x)
    out_bf, hn_bf = gru_bf(x.transpose(0, 1))
    assert out_bf.shape == (2, 5, 4)
    np.testing.assert_allclose(_np(out_bf), _np(out).transpose(1, 0, 2), rtol=1e-14)
    np.testing.assert_allclose(_np(hn_bf), _np(hn), rtol=1e-14)
    # unbatched (seq, feature) input: same as a batch of one, without the batch dim
    out1, hn1 = gru(x[:, 0])
    assert out1.shape == (5, 4) and hn1.shape == (2, 4)
    np.testing.assert_allclose(_np(out1), _np(gru(x[:, :1])[0])[:, 0], rtol=1e-14)
    lstm = nn.LSTM(3, 4, dtype=em.float64)
    out, (h, c) = lstm(x[:, 0], (em.zeros(1, 4, dtype=em.float64), em.zeros(1, 4, dtype=em.float64)))
    assert out.shape == (5, 4) and h.shape == (1, 4) and c.shape == (1, 4)


def test_dropout_between_layers_only_in_training():
    em.manual_seed(0)
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=1.0, dtype=em.float64)
    x = _x(5, 2, 3, seed=23)
    # dropout=1 zeroes the first layer's output: layer 2 then sees a zero input
    second = nn.LSTM(4, 4, dtype=em.float64)
    second.load_state_dict({k.replace("l1", "l0"): v for k, v in lstm.state_dict().items() if "l1" in k})
    out_train, _ = lstm(x)
    np.testing.assert_allclose(_np(out_train), _np(second(em.zeros(5, 2, 4, dtype=em.float64))[0]), rtol=1e-14)
    lstm.eval()
    np.testing.assert_allclose(_np(lstm(x)[0]), ref_run(lstm, _np(x))[0], rtol=1e-12)


def test_float32_stays_float32():
    lstm = nn.LSTM(3, 4)
    out, (h, c) = lstm(em.randn(5, 2, 3))
    assert out.dtype == h.dtype == c.dtype == em.float32


# ------------------------------------------------------------------------------------------- layers: gradients
@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_layers_gradcheck_two_layers_bidirectional(cls):
    module = cls(2, 2, num_layers=2, bidirectional=True, dtype=em.float64)
    x = _x(3, 2, 2, seed=24).requires_grad_()
    h0 = _x(4, 2, 2, seed=25).requires_grad_()
    params = tuple(module.parameters())
    if cls is nn.LSTM:
        c0 = _x(4, 2, 2, seed=26).requires_grad_()
        assert gradcheck(lambda x, h0, c0, *ps: module(x, (h0, c0)), (x, h0, c0, *params))
    else:
        assert gradcheck(lambda x, h0, *ps: module(x, h0), (x, h0, *params))


def test_lstm_projection_gradcheck():
    lstm = nn.LSTM(2, 3, proj_size=2, batch_first=True, dtype=em.float64)
    x = _x(2, 3, 2, seed=27).requires_grad_()
    assert gradcheck(lambda x, *ps: lstm(x), (x, *lstm.parameters()))


def test_layer_gradgradcheck():
    gru = nn.GRU(2, 2, dtype=em.float64)
    x = _x(2, 1, 2, seed=28).requires_grad_()
    assert gradgradcheck(lambda x, w: gru(x)[0], (x, gru.weight_hh_l0))


def test_backward_fills_every_parameter_grad():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    out, (h, c) = lstm(em.randn(5, 2, 3))
    (out.sum() + h.sum() + c.sum()).backward()
    for name, p in lstm.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
        assert np.any(p.grad.numpy() != 0), name


# ------------------------------------------------------------------------------------------ parameters, repr
def test_lstm_state_dict_keys_and_shapes():
    lstm = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    sd = lstm.state_dict()
    per = ["weight_ih_l{}{}", "weight_hh_l{}{}", "bias_ih_l{}{}", "bias_hh_l{}{}"]
    expected = [k.format(layer, sfx) for layer in range(2) for sfx in ("", "_reverse") for k in per]
    assert list(sd.keys()) == expected
    assert sd["weight_ih_l0"].shape == (16, 3) and sd["weight_ih_l1"].shape == (16, 8)
    assert sd["weight_hh_l1_reverse"].shape == (16, 4) and sd["bias_hh_l0"].shape == (16,)
    assert list(nn.GRU(3, 4, bias=False).state_dict()) == ["weight_ih_l0", "weight_hh_l0"]
    assert nn.GRU(3, 4).weight_ih_l0.shape == (12, 3)
    assert list(nn.LSTM(3, 4, proj_size=2).state_dict())[-1] == "weight_hr_l0"
    assert list(nn.LSTMCell(3, 4).state_dict()) == ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]


def test_default_init_is_uniform_in_inverse_sqrt_hidden():
    em.manual_seed(0)
    lstm = nn.LSTM(50, 64, num_layers=2)
    k = 1 / math.sqrt(64)
    values = np.concatenate([p.detach().numpy().ravel() for p in lstm.parameters()])
    assert values.min() >= -k and values.max() <= k
    assert values.std() == pytest.approx(2 * k / math.sqrt(12), rel=0.02)  # std of U(-k, k)
    cell = nn.GRUCell(10, 16)
    assert np.abs(cell.weight_hh.detach().numpy()).max() <= 0.25


def test_repr():
    assert repr(nn.LSTM(10, 20, num_layers=2, bidirectional=True)) == "LSTM(10, 20, num_layers=2, bidirectional=True)"
    assert repr(nn.RNN(10, 20)) == "RNN(10, 20)"
    assert repr(nn.GRU(10, 20, num_layers=2, batch_first=True, dropout=0.5, bias=False)) == \
        "GRU(10, 20, num_layers=2, bias=False, batch_first=True, dropout=0.5)"
    assert repr(nn.LSTM(10, 20, proj_size=5)) == "LSTM(10, 20, proj_size=5)"
    assert repr(nn.LSTMCell(10, 20)) == "LSTMCell(10, 20)"
    assert repr(nn.RNNCell(10, 20, nonlinearity="relu", bias=False)) == "RNNCell(10, 20, bias=False, nonlinearity=relu)"


def test_all_weights_and_to_double():
    lstm = nn.LSTM(3, 4, bidirectional=True).double()
    assert [len(w) for w in lstm.all_weights] == [4, 4]
    assert lstm.all_weights[1][0] is lstm.weight_ih_l0_reverse
    out, _ = lstm(em.randn(2, 1, 3, dtype=em.float64))
    assert out.dtype == em.float64


# ---------------------------------------------------------------------------------------------------- errors
def test_constructor_errors():
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, num_layers=2, dropout=1.5)
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'"):
        nn.RNN(3, 4, nonlinearity="gelu")
    with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
        nn.GRU(3, 0)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.LSTM(3, 4, dropout=0.5)


def test_forward_errors():
    lstm = nn.LSTM(3, 4, num_layers=2)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 3, got 5"):
        lstm(em.randn(2, 1, 5))
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        lstm(em.randn(2, 1, 3, 1))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(2, 1, 4\), got \[1, 1, 4\]"):
        lstm(em.randn(2, 1, 3), (em.zeros(1, 1, 4), em.zeros(2, 1, 4)))
    with pytest.raises(RuntimeError, match=r"Expected hidden size \(1, 3, 4\), got \[1, 2, 4\]"):
        nn.GRU(3, 4)(em.randn(5, 3, 3), em.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D"):
        nn.RNN(3, 4)(em.randn(5, 3, 3), em.zeros(3, 4))
    with pytest.raises(ValueError, match="input must have the type"):
        lstm(em.randn(2, 1, 3, dtype=em.float64))
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 2 expected 3"):
        nn.GRUCell(3, 4)(em.randn(2, 2))
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        nn.RNNCell(3, 4)(em.randn(2, 3), em.zeros(3, 4))
    with pytest.raises(RuntimeError, match="Expected hidden0 to be 2D for a 2D input, got 1D"):
        nn.GRUCell(3, 4)(em.randn(2, 3), em.zeros(4))
    with pytest.raises(RuntimeError, match="hidden1 has inconsistent hidden_size: got 5, expected 4"):
        nn.LSTMCell(3, 4)(em.randn(2, 3), (em.zeros(2, 4), em.zeros(2, 5)))


def test_modifying_the_output_in_place_is_caught_by_backward():
    # the outputs are saved for backward (not copied), so an in-place change must be detected, as in PyTorch
    gru = nn.GRU(3, 4)
    out, _ = gru(em.randn(5, 2, 3))
    out.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_grad_fn_is_one_node_per_layer_and_direction():
    lstm = nn.LSTM(3, 4)
    x = em.randn(50, 2, 3, requires_grad=True)
    out, _ = lstm(x)
    # a 50-step sequence is still a handful of graph nodes: the time loop lives inside one fused node
    seen, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(e[0] for e in node.next_functions if e is not None)
    assert len(seen) < 15
    assert any(type(n).__name__ == "RecurrenceBackward0" for n in seen)


# ----------------------------------------------------------------------------------------- packed sequences
@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_packed_sequence_equals_running_each_sequence_alone(cls):
    from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    module = cls(3, 4, num_layers=2, bidirectional=True, dtype=em.float64)
    lengths = [3, 5, 1, 4]  # unsorted: enforce_sorted=False sorts and restores the order
    x = _x(5, 4, 3, seed=40)
    h0 = _x(4, 4, 4, seed=41)
    hx = (h0, _x(4, 4, 4, seed=42)) if cls is nn.LSTM else h0
    packed = pack_padded_sequence(x, lengths, enforce_sorted=False)
    out, state = module(packed, hx)
    assert type(out).__name__ == "PackedSequence"
    padded, lens = pad_packed_sequence(out)
    assert list(lens.numpy()) == lengths and padded.shape == (5, 4, 8)
    for i, L in enumerate(lengths):
        hi = (hx[0][:, i], hx[1][:, i]) if cls is nn.LSTM else hx[:, i]
        ref_out, ref_state = module(x[:L, i], hi)
        np.testing.assert_allclose(_np(padded)[:L, i], _np(ref_out), rtol=1e-12, atol=1e-14)
        assert np.all(_np(padded)[L:, i] == 0)
        if cls is nn.LSTM:
            np.testing.assert_allclose(_np(state[0])[:, i], _np(ref_state[0]), rtol=1e-12, atol=1e-14)
            np.testing.assert_allclose(_np(state[1])[:, i], _np(ref_state[1]), rtol=1e-12, atol=1e-14)
        else:
            np.testing.assert_allclose(_np(state)[:, i], _np(ref_state), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU, nn.RNN])
def test_packed_sequence_gradcheck(cls):
    from ember.nn.utils.rnn import pack_padded_sequence
    module = cls(2, 2, bidirectional=True, dtype=em.float64)
    x = _x(3, 3, 2, seed=43).requires_grad_()

    def f(x, *ps):
        out, state = module(pack_padded_sequence(x, [3, 1, 2], enforce_sorted=False))
        return (out.data,) + (state if isinstance(state, tuple) else (state,))
    assert gradcheck(f, (x, *module.parameters()))


def test_packed_sequence_gradgradcheck():
    from ember.nn.utils.rnn import pack_padded_sequence
    gru = nn.GRU(2, 2, dtype=em.float64)
    x = _x(3, 2, 2, seed=44).requires_grad_()
    assert gradgradcheck(lambda x: gru(pack_padded_sequence(x, [3, 2]))[1], (x,))
