"""Activation functions and modules: values from their formulas, gradients, second order, repr."""
import math
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck, gradgradcheck
from ember.core import nn
from ember.core.nn import functional as F

# values away from every kink used below (0, +-0.5, +-1, +-3, 6, threshold 0.1)
VALUES = np.array([[-4.3, -2.2, -1.3, -0.7], [-0.25, 0.3, 0.8, 1.6], [2.4, 3.7, 6.8, 0.05]])
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _x(values=VALUES):
    return em.tensor(values, dtype=em.float64, requires_grad=True)


def _erf(a):
    return np.vectorize(math.erf)(a)


def _softplus(a, beta=1.0, threshold=20.0):
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


REFERENCE = {
    "relu": (nn.ReLU(), lambda a: np.maximum(a, 0)),
    "relu6": (nn.ReLU6(), lambda a: np.clip(a, 0, 6)),
    "leaky_relu": (nn.LeakyReLU(0.2), lambda a: np.where(a > 0, a, 0.2 * a)),
    "elu": (nn.ELU(0.5), lambda a: np.where(a > 0, a, 0.5 * (np.exp(a) - 1))),
    "selu": (nn.SELU(), lambda a: SELU_SCALE * np.where(a > 0, a, SELU_ALPHA * (np.exp(a) - 1))),
    "celu": (nn.CELU(2.0), lambda a: np.maximum(a, 0) + np.minimum(0, 2.0 * (np.exp(a / 2.0) - 1))),
    "gelu": (nn.GELU(), lambda a: 0.5 * a * (1 + _erf(a / math.sqrt(2)))),
    "gelu_tanh": (nn.GELU("tanh"), lambda a: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                                                    (a + 0.044715 * a ** 3)))),
    "silu": (nn.SiLU(), lambda a: a * _sigmoid(a)),
    "mish": (nn.Mish(), lambda a: a * np.tanh(_softplus(a))),
    "sigmoid": (nn.Sigmoid(), _sigmoid),
    "tanh": (nn.Tanh(), np.tanh),
    "tanhshrink": (nn.Tanhshrink(), lambda a: a - np.tanh(a)),
    "softsign": (nn.Softsign(), lambda a: a / (1 + np.abs(a))),
    "softplus": (nn.Softplus(beta=2.0, threshold=5.0), lambda a: _softplus(a, 2.0, 5.0)),
    "hardtanh": (nn.Hardtanh(-1.0, 2.0), lambda a: np.clip(a, -1.0, 2.0)),
    "hardswish": (nn.Hardswish(), lambda a: a * np.clip(a + 3, 0, 6) / 6),
    "hardsigmoid": (nn.Hardsigmoid(), lambda a: np.clip(a + 3, 0, 6) / 6),
    "threshold": (nn.Threshold(0.1, 20.0), lambda a: np.where(a > 0.1, a, 20.0)),
    "hardshrink": (nn.Hardshrink(0.5), lambda a: np.where(np.abs(a) > 0.5, a, 0)),
    "softshrink": (nn.Softshrink(0.5), lambda a: np.where(a > 0.5, a - 0.5, np.where(a < -0.5, a + 0.5, 0))),
    "logsigmoid": (nn.LogSigmoid(), lambda a: np.log(_sigmoid(a))),
    "softmax": (nn.Softmax(dim=1), lambda a: np.exp(a) / np.exp(a).sum(1, keepdims=True)),
    "softmin": (nn.Softmin(dim=0), lambda a: np.exp(-a) / np.exp(-a).sum(0, keepdims=True)),
    "log_softmax": (nn.LogSoftmax(dim=1), lambda a: a - np.log(np.exp(a).sum(1, keepdims=True))),
    "glu": (nn.GLU(dim=1), lambda a: a[:, :2] * _sigmoid(a[:, 2:])),
}


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_forward_matches_formula(name):
    module, ref = REFERENCE[name]
    out = module(_x())
    np.testing.assert_allclose(out.detach().numpy(), ref(VALUES), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_gradcheck(name):
    module, _ = REFERENCE[name]
    assert gradcheck(module, (_x(),))


SECOND_ORDER = ["relu6", "leaky_relu", "tanh", "tanhshrink", "threshold", "sigmoid", "hardtanh", "elu", "softsign",
                "selu", "log_softmax", "celu", "gelu", "gelu_tanh", "silu", "softplus", "logsigmoid", "softmax",
                "mish", "hardswish"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradgradcheck(name):
    module, _ = REFERENCE[name]
    assert gradgradcheck(module, (_x(),))


def test_prelu_values_gradients_and_second_order():
    m = nn.PReLU(num_parameters=3, init=0.1).double()
    assert repr(m) == "PReLU(num_parameters=3)"
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.full(3, np.float32(0.1)))
    x = em.tensor(np.random.default_rng(0).standard_normal((2, 3, 4)) + 0.05, dtype=em.float64,
                  requires_grad=True)
    w = em.tensor([0.1, -0.3, 0.7], dtype=em.float64, requires_grad=True)
    expected = np.where(x.detach().numpy() > 0, x.detach().numpy(), w.detach().numpy()[None, :, None] *
                        x.detach().numpy())
    np.testing.assert_allclose(F.prelu(x, w).detach().numpy(), expected)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))
    shared = em.tensor([0.25], dtype=em.float64, requires_grad=True)
    assert gradgradcheck(F.prelu, (x, shared))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(x, em.ones(4, dtype=em.float64))


def test_softmax2d_normalises_channels_and_second_order():
    x = em.tensor(np.random.default_rng(1).standard_normal((2, 3, 2, 2)), dtype=em.float64, requires_grad=True)
    y = nn.Softmax2d()(x)
    np.testing.assert_allclose(y.detach().numpy().sum(1), np.ones((2, 2, 2)))
    assert gradcheck(nn.Softmax2d(), (x,))
    assert gradgradcheck(nn.Softmax2d(), (x,))
    with pytest.raises(ValueError, match="expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(em.ones(2, 2))


def test_softmax_is_stable_for_large_logits_and_dtype_arg():
    x = em.tensor([[1000.0, 1001.0, 1002.0]])
    y = F.softmax(x, dim=1)
    e = np.exp([-2.0, -1.0, 0.0])
    np.testing.assert_allclose(y.numpy()[0], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(F.log_softmax(x, 1).numpy()[0], np.log(e / e.sum()), rtol=1e-5)
    assert F.softmax(x, 1, dtype=em.float64).dtype == em.float64


def test_softmax_implicit_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = F.softmax(em.ones(2, 4))
    np.testing.assert_allclose(out.numpy(), np.full((2, 4), 0.25))


def test_inplace_variants_write_into_the_input():
    x = em.tensor([-1.0, 2.0])
    y = F.relu(x, inplace=True)
    assert y is x and x.tolist() == [0.0, 2.0]
    z = em.tensor([-2.0, 0.5, 3.0])
    nn.Hardtanh(inplace=True)(z)
    assert z.tolist() == [-1.0, 0.5, 1.0]
    w = em.tensor([-1.0, 1.0])
    nn.LeakyReLU(0.5, inplace=True)(w)
    assert w.tolist() == [-0.5, 1.0]


def test_inplace_on_non_leaf_keeps_gradients_right():
    x = em.tensor([-1.0, 2.0, 3.0], requires_grad=True)
    h = x * 2
    F.relu(h, inplace=True)
    h.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_activation_reprs():
    assert repr(nn.ReLU()) == "ReLU()"
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.ReLU6()) == "ReLU6()"
    assert repr(nn.LeakyReLU()) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.ELU(alpha=0.5)) == "ELU(alpha=0.5)"
    assert repr(nn.GELU(approximate="tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.Hardtanh()) == "Hardtanh(min_val=-1.0, max_val=1.0)"
    assert repr(nn.Softmax(dim=-1)) == "Softmax(dim=-1)"
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"
    assert repr(nn.Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)"
    assert repr(nn.Softshrink()) == "Softshrink(0.5)"
    assert repr(nn.GLU()) == "GLU(dim=-1)"
    assert repr(nn.Sigmoid()) == "Sigmoid()"


def test_argument_errors():
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(em.ones(2), 2.0, 1.0)
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(em.ones(2), approximate="fast")
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(em.ones(2, 3), 1)
    with pytest.raises(TypeError, match="argument 'input'"):
        F.elu([1.0])
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        F.elu(em.tensor([1, 2]))


def test_rrelu_eval_is_leaky_relu_with_mean_slope_and_train_is_random_in_range():
    x = em.tensor([-1.0, -2.0, 3.0])
    m = nn.RReLU(0.1, 0.3)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), [-0.2, -0.4, 3.0], rtol=1e-6)
    m.train()
    y = m(em.full((1000,), -1.0)).numpy()
    assert y.min() >= -0.3 - 1e-6 and y.max() <= -0.1 + 1e-6 and y.std() > 0.01


def test_gumbel_softmax_hard_is_one_hot_with_soft_gradient():
    em.manual_seed(0)
    logits = em.randn(4, 5, requires_grad=True)
    y = F.gumbel_softmax(logits, tau=0.5, hard=True)
    np.testing.assert_array_equal(y.detach().numpy().sum(1), np.ones(4))
    assert set(np.unique(y.detach().numpy())) <= {0.0, 1.0}
    (y * em.arange(5.0)).sum().backward()
    assert np.abs(logits.grad.numpy()).sum() > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.gumbel_softmax(logits)


def _bits32(a):
    return np.asarray(a, np.float32).view(np.uint32)


def test_leaky_relu_matches_pytorch_bit_for_bit():
    # PyTorch 2.13 float32 outputs and gradients (of .sum()) for [-0, 0, nan, -1, 6, -inf, inf] and each slope:
    # x if x > 0 else x * slope, and grad if x > 0 else grad * slope
    v = [-0.0, 0.0, np.nan, -1.0, 6.0, -np.inf, np.inf]
    cases = {0.01: ([-0.0, 0.0, np.nan, -0.009999999776482582, 6.0, -np.inf, np.inf], [0.01] * 4 + [1.0, 0.01, 1.0]),
             0.0: ([-0.0, 0.0, np.nan, -0.0, 6.0, np.nan, np.inf], [0.0] * 4 + [1.0, 0.0, 1.0]),
             1.5: ([-0.0, 0.0, np.nan, -1.5, 6.0, -np.inf, np.inf], [1.5] * 4 + [1.0, 1.5, 1.0]),
             -0.2: ([0.0, -0.0, np.nan, 0.20000000298023224, 6.0, np.inf, np.inf], [-0.2] * 4 + [1.0, -0.2, 1.0])}
    for slope, (values, grads) in cases.items():
        for n in (1, 1000):  # small and large arrays take different kernels
            x = em.tensor(np.tile(np.array(v, np.float32), n), requires_grad=True)
            out = F.leaky_relu(x, slope)
            out.sum().backward()
            got, expected = _bits32(out.detach().numpy()[:7]), _bits32(values)
            nan = np.isnan(np.array(values))
            assert np.array_equal(got[~nan], expected[~nan]) and np.isnan(out.detach().numpy()[:7][nan]).all(), slope
            assert np.array_equal(_bits32(x.grad.numpy()[:7]), _bits32(grads)), slope


def test_hardswish_matches_pytorch_bit_for_bit():
    # PyTorch 2.13: x * min(max(x + 3, 0), 6) / 6 as it rounds, and its backward's boundaries (0 at x <= -3, the
    # middle slope below 3, the gradient itself at 3 and above and for NaN)
    v = [-3.0, 3.0, -4.0, 4.0, 1.3, 7.77777, 1e30, -0.0, np.nan, 2.9999998, 123.456789]
    values = [-0.0, 3.0, -0.0, 4.0, 0.9316666722297668, 7.777769565582275, 1.00000009060533e+30, -0.0, np.nan,
              2.999999761581421, 123.456787109375]
    grads = [0.0, 1.0, 0.0, 1.0, 0.9333332777023315, 1.0, 1.0, 0.5, 1.0, 1.5, 1.0]
    for n in (1, 1000):
        x = em.tensor(np.tile(np.array(v, np.float32), n), requires_grad=True)
        out = F.hardswish(x)
        out.sum().backward()
        nan = np.isnan(np.array(values))
        assert np.array_equal(_bits32(out.detach().numpy()[:11])[~nan], _bits32(values)[~nan])
        assert np.array_equal(_bits32(x.grad.numpy()[:11]), _bits32(grads))


@pytest.mark.parametrize("fn", [lambda t: F.leaky_relu(t, 0.1), lambda t: F.leaky_relu(t, -0.3), F.hardswish])
def test_leaky_relu_and_hardswish_second_order(fn):
    x = em.tensor(np.array([-4.5, -2.0, -0.7, 0.4, 1.9, 3.5]), requires_grad=True)
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


# PyTorch 2.13's gradients (float32) at these inputs, measured in its venv: elu_backward reads the input for the
# out-of-place ops and the output for the in-place ones
_ELU_X = [-15.0, -12.5, -10.0, -5.0, -1.0, -0.0, 0.0, 1.0, math.inf, -math.inf]
_ELU_GRADS = {
    "elu": [3.0590231858695915e-07, 3.726653176272521e-06, 4.539993096841499e-05, 0.0067379469983279705,
            0.3678794503211975, 1.0, 1.0, 1.0, 1.0, 0.0],
    "selu": [5.378066703087825e-07, 6.551826572831487e-06, 7.981758972164243e-05, 0.01184597983956337,
             0.6467686295509338, 1.7580993175506592, 1.7580993175506592, 1.0507010221481323, 1.0507010221481323,
             0.0],
    "celu": [0.0005530843627639115, 0.0019304541638121009, 0.0067379469983279705, 0.08208499848842621,
             0.6065306663513184, 1.0, 1.0, 1.0, 1.0, 0.0],
}
_ELU_INPLACE_GRADS = {
    "elu_": [1.4901161193847656e-07, 1.8775463104248047e-06, 2.2709369659423828e-05, 0.003368973731994629,
             0.18393972516059875, 0.5, 0.5, 1.0, 1.0, 0.0],
    "selu_": [4.76837158203125e-07, 6.556510925292969e-06, 7.987022399902344e-05, 0.011845946311950684,
              0.6467685699462891, 1.7580993175506592, 1.7580993175506592, 1.0507010221481323, 1.0507010221481323,
              0.0],
}


@pytest.mark.parametrize("name,fn", [("elu", F.elu), ("selu", F.selu), ("celu", lambda t: F.celu(t, 2.0))])
def test_elu_family_gradient_from_the_input_as_pytorch(name, fn):
    # from the output, out + alpha cancelled: the slope at x = -15 was 3 % off and +inf gave NaN
    x = em.tensor(_ELU_X, requires_grad=True)
    (g,) = em.autograd.grad(fn(x).sum(), x)
    np.testing.assert_allclose(g.numpy(), np.float32(_ELU_GRADS[name]), rtol=3e-7, atol=0)  # exp: within an ulp
    assert gradcheck(fn, (em.tensor(np.array([-12.0, -3.0, -0.5, 0.7, 2.0]), requires_grad=True),))
    assert gradgradcheck(fn, (em.tensor(np.array([-12.0, -3.0, -0.5, 0.7, 2.0]), requires_grad=True),))


@pytest.mark.parametrize("name,fn", [("elu_", lambda t: F.elu(t, 0.5, inplace=True)),
                                     ("selu_", lambda t: F.selu(t, inplace=True))])
def test_inplace_elu_gradient_from_the_output_and_its_negative_alpha_error(name, fn):
    x = em.tensor(_ELU_X, requires_grad=True)
    (g,) = em.autograd.grad(fn(x * 1.0).sum(), x)
    assert np.array_equal(g.numpy(), np.float32(_ELU_INPLACE_GRADS[name]))
    y = F.elu(x * 1.0, -0.5, inplace=True)
    with pytest.raises(RuntimeError, match="In-place elu backward calculation is triggered with a negative slope"):
        y.sum().backward()
    (g,) = em.autograd.grad(F.elu(x, -0.5).sum(), x)  # out of place, a negative alpha is fine
    assert g[0].item() == pytest.approx(-0.5 * math.exp(-15.0), rel=1e-6)


def test_shrinks_keep_nan_and_the_sign_of_zero_as_pytorch():
    # PyTorch: hardshrink is 0 where -lambd <= x <= lambd (a NaN is not, so it passes), softshrink's middle is x * 0
    x = em.tensor([math.nan, 0.0, -0.0, 2.0, -3.0, 0.3, -0.3], requires_grad=True)
    hard, soft = F.hardshrink(x).detach().numpy(), F.softshrink(x).detach().numpy()
    assert math.isnan(hard[0]) and hard[1:].tolist() == [0.0, 0.0, 2.0, -3.0, 0.0, 0.0]
    assert math.isnan(soft[0]) and soft[1:].tolist() == [0.0, -0.0, 1.5, -2.5, 0.0, -0.0]
    assert np.signbit(soft).tolist()[1:] == [False, True, False, True, False, True]
    (g,) = em.autograd.grad(F.softshrink(x).sum(), x)
    assert g.tolist()[1:] == [0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
