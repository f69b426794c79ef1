"""``ember.nn.utils.parametrize`` and ``ember.nn.utils.parametrizations`` against PyTorch 2.13's behaviour.

Pinned numbers were measured with torch 2.13 on the same inputs.
"""
import copy
import pickle

import numpy as np
import pytest

import ember as em
from ember.core import nn, optim
from ember.nn.utils import parametrize as P
from ember.nn.utils.parametrizations import orthogonal, spectral_norm, weight_norm


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T

    def right_inverse(self, A):
        return A.triu()


class Scale(nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, A):
        return A / 2


class NoInverse(nn.Module):
    def forward(self, X):
        return X * 3


class Counting(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, X):
        self.calls += 1
        return X + 1


class RankOne(nn.Module):
    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        return Z[:, 0].clone(), Z[0, :].clone()


W3 = np.array([[1., -2., 3.], [0.5, 4., -1.], [2., 0., -3.]], dtype=np.float32)


def _linear(weight=W3, bias=True):
    out, inp = weight.shape
    m = nn.Linear(inp, out, bias=bias)
    with em.no_grad():
        m.weight.copy_(em.tensor(weight))
    return m


def _sym(x):
    return np.triu(x) + np.triu(x, 1).T


# ------------------------------------------------------------------------------------------------ register
def test_symmetric_values_gradient_and_original_identity():
    m = _linear()
    w0 = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    original = m.parametrizations.weight.original
    assert original is w0  # the optimiser's tensor object survives registration
    np.testing.assert_array_equal(original.detach().numpy(), np.triu(W3))
    np.testing.assert_array_equal(m.weight.detach().numpy(), _sym(W3))
    C = np.arange(9, dtype=np.float32).reshape(3, 3)
    (m.weight * em.tensor(C)).sum().backward()
    np.testing.assert_allclose(original.grad.numpy(), np.triu(C) + np.triu(C.T, 1))
    y = m(em.ones(1, 3))
    np.testing.assert_allclose(y.detach().numpy(), _sym(W3).sum(1)[None] + m.bias.detach().numpy(), rtol=1e-6)


def test_training_keeps_the_weight_symmetric():
    em.manual_seed(0)
    m = nn.Linear(4, 4)
    P.register_parametrization(m, "weight", Symmetric())
    opt = optim.SGD(m.parameters(), lr=0.1)
    assert {id(p) for p in m.parameters()} == {id(m.bias), id(m.parametrizations.weight.original)}
    x, t = em.randn(8, 4), em.randn(8, 4)
    before = m.weight.detach().clone()
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = ((m(x) - t) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    w = m.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    assert not np.allclose(w, before.numpy())
    assert losses[-1] < losses[0]


def test_state_dict_keys_named_parameters_and_repr():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear"
    assert isinstance(m, nn.Linear) and type(m).__bases__ == (nn.Linear,)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n  (parametrizations): ModuleDict(\n"
                       "    (weight): ParametrizationList(\n      (0): Symmetric()\n    )\n  )\n)")
    P.register_parametrization(m, "weight", Symmetric())
    assert "(0-1): 2 x Symmetric()" in repr(m)
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.type_before_parametrizations(nn.Linear(2, 2)) is nn.Linear
    assert not P.is_parametrized(nn.Linear(2, 2))


def test_parametrizing_a_buffer_keeps_it_a_buffer():
    m = nn.BatchNorm1d(3)
    with em.no_grad():
        m.running_var.copy_(em.tensor([1., 2., 3.]))
    P.register_parametrization(m, "running_var", Scale())
    plist = m.parametrizations.running_var
    assert "original" in plist._buffers and "original" not in plist._parameters
    np.testing.assert_allclose(plist.original.numpy(), [0.5, 1., 1.5])
    np.testing.assert_allclose(m.running_var.numpy(), [1., 2., 3.])
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "num_batches_tracked",
                                    "parametrizations.running_var.original"]


def test_stacking_and_assignment_through_right_inverse():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "weight", Scale())
    np.testing.assert_allclose(m.weight.detach().numpy(), 2 * _sym(W3))
    A = _sym(np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]], dtype=np.float32))
    original = m.parametrizations.weight.original
    m.weight = em.tensor(A)
    assert m.parametrizations.weight.original is original
    np.testing.assert_allclose(original.detach().numpy(), np.triu(A) / 2)
    np.testing.assert_allclose(m.weight.detach().numpy(), A)


def test_assignment_needs_every_right_inverse():
    m = _linear()
    P.register_parametrization(m, "weight", NoInverse())
    np.testing.assert_allclose(m.weight.detach().numpy(), 3 * W3)  # no right_inverse: original is the weight
    with pytest.raises(RuntimeError, match="^parametrization NoInverse does not implement right_inverse.$"):
        m.weight = em.zeros(3, 3)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.weight = nn.Parameter(em.zeros(3, 3))


def test_sequence_right_inverse_registers_original0_original1():
    m = _linear(np.outer([1., 2., 3.], [1., 0.5, -1.]).astype(np.float32))
    P.register_parametrization(m, "weight", RankOne())
    plist = m.parametrizations.weight
    assert not plist.is_tensor and plist.ntensors == 2
    assert [n for n, _ in plist.named_parameters()] == ["original0", "original1"]
    assert not hasattr(plist, "original")
    np.testing.assert_allclose(plist.original0.detach().numpy(), [1., 2., 3.])
    np.testing.assert_allclose(m.weight.detach().numpy(), np.outer([1., 2., 3.], [1., 0.5, -1.]))
    m.weight = em.tensor(np.outer([2., 0., 1.], [1., 1., 1.]).astype(np.float32))
    np.testing.assert_allclose(plist.original0.detach().numpy(), [2., 0., 1.])
    np.testing.assert_allclose(plist.original1.detach().numpy(), [2., 2., 2.])
    with pytest.raises(ValueError, match=r"^Cannot leave unparametrized \(`leave_parametrized=False`\) a tensor that "
                                         "is parametrized in terms of a sequence of tensors.$"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)


def test_cached_computes_once_per_context():
    m = _linear()
    counter = Counting()
    P.register_parametrization(m, "weight", counter)
    counter.calls = 0
    m.weight, m.weight
    assert counter.calls == 2
    with P.cached():
        a = m.weight
        with P.cached():
            b = m.weight
        c = m.weight  # the inner exit must not drop the outer context's cache
    assert a is b is c and counter.calls == 3
    assert m.weight is not a and counter.calls == 4


# ------------------------------------------------------------------------------------------------ remove
def test_remove_leave_parametrized_true_restores_plain_linear():
    m = _linear()
    w0 = m.weight
    P.register_parametrization(m, "weight", Symmetric())
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and not hasattr(m, "parametrizations")
    assert m.weight is w0 and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    np.testing.assert_array_equal(m.weight.detach().numpy(), _sym(W3))
    assert list(m.state_dict()) == ["bias", "weight"]
    assert repr(m) == "Linear(in_features=3, out_features=3, bias=True)"
    with pytest.raises(ValueError, match=r"^Module Linear\(in_features=3, out_features=3, bias=True\) does not have "
                                         "a parametrization on weight$"):
        P.remove_parametrizations(m, "weight")


def test_remove_leave_parametrized_false_keeps_the_original_and_other_parametrizations():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    P.register_parametrization(m, "bias", Scale())
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.triu(W3))
    assert type(m).__name__ == "ParametrizedLinear" and list(m.parametrizations) == ["bias"]
    assert list(m.state_dict()) == ["weight", "parametrizations.bias.original"]
    P.remove_parametrizations(m, "bias", leave_parametrized=False)
    assert type(m) is nn.Linear


# ------------------------------------------------------------------------------------------------ state, copies
def test_state_dict_round_trip_into_a_fresh_parametrized_module():
    src = _linear()
    P.register_parametrization(src, "weight", Symmetric())
    dst = nn.Linear(3, 3)
    P.register_parametrization(dst, "weight", Symmetric())
    assert not np.allclose(dst.weight.detach().numpy(), src.weight.detach().numpy())
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(dst.weight.detach().numpy(), src.weight.detach().numpy())
    np.testing.assert_array_equal(dst.bias.detach().numpy(), src.bias.detach().numpy())


def test_pickling_raises_but_deepcopy_works():
    m = _linear()
    P.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is only supported through "
                                           r"state_dict\(\). See:\nhttps://pytorch.org/tutorials/"):
        pickle.dumps(m)
    c = copy.deepcopy(m)
    assert type(c) is type(m)
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_array_equal(c.weight.detach().numpy(), m.weight.detach().numpy())
    with em.no_grad():
        c.parametrizations.weight.original.zero_()
    assert float(m.weight.abs().sum()) > 0 and float(c.weight.abs().sum()) == 0
    assert list(c.state_dict()) == ["bias", "parametrizations.weight.original"]
    c.bias = nn.Parameter(em.zeros(3))  # the copy's registries are bound to the copy
    assert c._parameters["bias"] is c.bias and m.bias is not c.bias


def test_transfer_parametrizations_and_params():
    src = _linear()
    P.register_parametrization(src, "weight", Symmetric())
    dst = nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(src, dst)
    assert type(dst).__name__ == "ParametrizedLinear"
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_array_equal(dst.weight.detach().numpy(), _sym(W3))
    plain = nn.Linear(3, 3)
    assert P.transfer_parametrizations_and_params(nn.Linear(3, 3), plain) is plain and type(plain) is nn.Linear


# ------------------------------------------------------------------------------------------------ errors
def test_registration_errors():
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError) as e:
        P.register_parametrization(m, "foo", Symmetric())
    assert str(e.value) == ("Module 'Linear(in_features=2, out_features=2, bias=True)' does not have a parameter, a "
                            "buffer, or a parametrized element with name 'foo'")

    class FirstRow(nn.Module):
        def forward(self, X):
            return X[0]

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    with pytest.raises(ValueError) as e:
        P.register_parametrization(m, "weight", FirstRow())
    assert str(e.value) == ("Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                            "flag is enabled.\nunparametrized shape: ember.Size([2, 2])\n"
                            "parametrized shape: ember.Size([2])")
    assert type(m) is nn.Linear and "weight" in m._parameters  # a failed registration changes nothing
    with pytest.raises(ValueError, match="may not change the dtype of the tensor, unless `unsafe` flag is enabled.\n"
                                         "unparametrized dtype: ember.float32\nparametrized dtype: ember.float64"):
        P.register_parametrization(m, "weight", ToDouble())
    P.register_parametrization(m, "weight", Symmetric())
    with pytest.raises(ValueError) as e:
        P.register_parametrization(m, "weight", FirstRow())
    assert str(e.value) == ("Registering a parametrization may not change the shape of the tensor, unless the "
                            "`unsafe` flag is enabled.\nmodule.weight.shape: ember.Size([2, 2])\n"
                            "parametrization(module.weight).shape: ember.Size([2])")
    P.register_parametrization(m, "weight", FirstRow(), unsafe=True)
    assert m.weight.shape == (2,) and m.parametrizations.weight.unsafe
    P.register_parametrization(m, "weight", Scale())  # stays unsafe once unsafe
    assert m.parametrizations.weight.unsafe


# ------------------------------------------------------------------------------------------------ weight_norm
@pytest.mark.parametrize("dim, g, grad_g, grad_v", [
    (0, [3.7416575, 4.1533117], [1.6035674, 3.8523474],
     [[1.1428572, 5.7142859, 3.4285717], [7.0724635, 2.5797095, 13.855073]]),
    (1, [1.118034, 4.472136, 3.1622777], [2.6832814, 3.5777087, 0.9486833],
     [[-2.8, 7.2, 4.2], [5.6, 3.6, 12.6]]),
    (None, [5.5901699], [3.9354796], [[0.592, 6.816, 1.776], [7.296, 4.368, 13.408]]),
])
def test_weight_norm_matches_pytorch(dim, g, grad_g, grad_v):
    W = np.array([[1., -2., 3.], [0.5, 4., -1.]], dtype=np.float32)
    m = weight_norm(_linear(W), dim=dim)
    plist = m.parametrizations.weight
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert "(0): _WeightNorm()" in repr(m)
    np.testing.assert_allclose(plist.original0.detach().numpy().ravel(), g, rtol=1e-6)
    np.testing.assert_array_equal(plist.original1.detach().numpy(), W)
    with em.no_grad():
        plist.original0.mul_(2)
    w = m.weight
    np.testing.assert_allclose(w.detach().numpy(), 2 * W, rtol=1e-6)  # g * v / ||v|| with g = 2 ||v||
    (w * em.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
    np.testing.assert_allclose(plist.original0.grad.numpy().ravel(), grad_g, rtol=1e-5)
    np.testing.assert_allclose(plist.original1.grad.numpy(), grad_v, rtol=1e-5, atol=1e-6)


def test_weight_norm_shapes_old_keys_and_removal():
    conv = weight_norm(nn.Conv1d(2, 3, 2))
    assert conv.parametrizations.weight.original0.shape == (3, 1, 1)
    old = nn.utils.weight_norm(_linear(np.ones((2, 3), np.float32)))  # the hook-based version: weight_g, weight_v
    m = weight_norm(nn.Linear(3, 2))
    m.load_state_dict(old.state_dict())
    np.testing.assert_allclose(m.weight.detach().numpy(), np.ones((2, 3)), rtol=1e-6)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter) and m.weight.grad_fn is None
    np.testing.assert_allclose(m.weight.detach().numpy(), np.ones((2, 3)), rtol=1e-6)


# ------------------------------------------------------------------------------------------------ spectral_norm
W34 = np.array([[1., -2., 3., 0.5], [0.5, 4., -1., 2.], [-3., 1., 0., 1.]], dtype=np.float32)


def test_spectral_norm_one_power_step_matches_pytorch():
    m = spectral_norm(_linear(W34))
    sn = m.parametrizations.weight[0]
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    assert "(0): _SpectralNorm()" in repr(m) and sn.training and sn.dim == 0
    with em.no_grad():
        sn._u.copy_(em.tensor([1., 0., 0.]))
        sn._v.copy_(em.tensor([0., 1., 0., 0.]))
    w = m.weight
    np.testing.assert_allclose(sn._u.numpy(), [-0.43643576, 0.87287152, 0.21821788], rtol=1e-5)
    np.testing.assert_allclose(sn._v.numpy(), [-0.12107015, 0.84749097, -0.40356717, 0.32285371], rtol=1e-5)
    np.testing.assert_allclose(w.detach().numpy(), W34 * 0.18493773, rtol=1e-5)
    (w * em.arange(12.).reshape(3, 4)).sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), [
        [-0.0569271, 0.58342737, 0.18011847, 0.70661873], [0.85360509, 0.12770933, 1.48914027, 0.99095297],
        [1.50796545, 1.4651947, 1.94425583, 1.95841205]], rtol=1e-4, atol=1e-6)


def test_spectral_norm_converges_to_the_largest_singular_value():
    em.manual_seed(0)
    m = spectral_norm(nn.Conv2d(3, 5, 3))
    original = m.parametrizations.weight.original.detach().numpy()
    sigma = np.linalg.svd(original.reshape(5, -1), compute_uv=False)[0]
    for _ in range(30):
        w = m.weight
    np.testing.assert_allclose(w.detach().numpy(), original / sigma, rtol=1e-4, atol=1e-6)
    assert np.linalg.svd(w.detach().numpy().reshape(5, -1), compute_uv=False)[0] == pytest.approx(1.0, abs=1e-4)


def test_spectral_norm_eval_mode_does_not_update_u():
    m = spectral_norm(nn.Linear(4, 3))
    sn = m.parametrizations.weight[0]
    with em.no_grad():
        sn._u.copy_(em.tensor([1., 0., 0.]))
    m.eval()
    m.weight
    np.testing.assert_array_equal(sn._u.numpy(), [1., 0., 0.])
    m.train()
    m.weight
    assert not np.array_equal(sn._u.numpy(), [1., 0., 0.])


def test_spectral_norm_dims_vectors_and_errors():
    ct = spectral_norm(nn.ConvTranspose2d(2, 5, 3))
    sn = ct.parametrizations.weight[0]
    assert sn.dim == 1 and sn._u.shape == (5,) and sn._v.shape == (18,)
    b = spectral_norm(nn.Linear(2, 2), name="bias")
    np.testing.assert_allclose(float((b.bias ** 2).sum()), 1.0, rtol=1e-6)
    assert not hasattr(b.parametrizations.bias[0], "n_power_iterations")
    with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive, but got n_power_iterations=0$"):
        spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\] but got 2\)$"):
        spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match=r"^Module 'Linear\(in_features=2, out_features=2, bias=True\)' has no "
                                         "parameter or buffer with name 'foo'$"):
        spectral_norm(nn.Linear(2, 2), name="foo")


# ------------------------------------------------------------------------------------------------ orthogonal
QR_W3 = [[0.436436, -0.447214, 0.78072], [0.218218, 0.894427, 0.39036], [0.872872, 0.0, -0.48795]]


@pytest.mark.parametrize("orthogonal_map, trivialization, weight, grad", [
    ("matrix_exp", False, [[-0.471292, -0.213911, -0.855643], [0.213911, 0.913454, -0.346187],
                           [0.855643, -0.346187, -0.384747]], [[0, 0, 0], [-0.838902, 0, 0], [-0.964955, -0.05291, 0]]),
    ("cayley", False, [[-0.030303, -0.242424, -0.969697], [0.242424, 0.939394, -0.242424],
                       [0.969697, -0.242424, 0.030303]], [[0, 0, 0], [-0.502479, 0, 0], [-0.409917, 0, 0]]),
    ("householder", False, QR_W3, [[0, 0, 0], [-0.666546, 0, 0], [1.193258, 0.912735, 0]]),
    ("matrix_exp", True, QR_W3, [[0, 0, 0], [-0.473613, 0, 0], [-1.070355, -0.46512, 0]]),
    ("cayley", True, QR_W3, [[0, 0, 0], [-0.473613, 0, 0], [-1.070355, -0.46512, 0]]),
    ("householder", True, QR_W3, [[0, 0, 0], [-0.947225, 0, 0], [-2.14071, -0.93024, 0]]),
])
def test_orthogonal_matches_pytorch(orthogonal_map, trivialization, weight, grad):
    m = orthogonal(_linear(), orthogonal_map=orthogonal_map, use_trivialization=trivialization)
    w = m.weight
    np.testing.assert_allclose(w.detach().numpy(), weight, atol=2e-5)
    np.testing.assert_allclose(w.detach().numpy().T @ w.detach().numpy(), np.eye(3), atol=1e-5)
    (w * em.arange(9.).reshape(3, 3) / 10).sum().backward()
    np.testing.assert_allclose(m.parametrizations.weight.original.grad.numpy(), grad, atol=2e-5)
    keys = ["bias", "parametrizations.weight.original"] + (["parametrizations.weight.0.base"] if trivialization else [])
    assert list(m.state_dict()) == keys


def test_orthogonal_tall_wide_and_batched_stay_orthogonal_while_training():
    W = np.array([[1., -2., 3.], [0.5, 4., -1.], [2., 0., -3.], [1., 1., 1.]], dtype=np.float32)
    tall = orthogonal(_linear(W))  # default map for a non-square matrix: householder
    assert tall.parametrizations.weight[0].orthogonal_map.name == "householder"
    np.testing.assert_allclose(tall.weight.detach().numpy(), [  # torch 2.13
        [0.4, -0.473156, 0.638203], [0.2, 0.858692, 0.208014], [0.8, -0.070097, -0.59328], [0.4, 0.184005, 0.444349]],
        atol=2e-5)
    wide = orthogonal(_linear(W.T.copy()), orthogonal_map="cayley")
    np.testing.assert_allclose(wide.weight.detach().numpy(), tall.weight.detach().numpy().T, atol=2e-5)

    class Batched(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(em.randn(2, 5, 3))

    em.manual_seed(0)
    for orthogonal_map in ("matrix_exp", "cayley", "householder"):
        b = orthogonal(Batched(), "w", orthogonal_map=orthogonal_map)
        opt = optim.SGD(b.parameters(), lr=0.5)
        start = b.w.detach().clone()
        for _ in range(3):
            opt.zero_grad()
            (b.w ** 3).sum().backward()
            opt.step()
        Q = b.w.detach().numpy()
        assert not np.allclose(Q, start.numpy())
        np.testing.assert_allclose(Q.transpose(0, 2, 1) @ Q, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-5)


def test_orthogonal_assignment_and_errors():
    m = orthogonal(nn.Linear(3, 3))
    Q = np.array(QR_W3, dtype=np.float32)
    assert not np.allclose(m.weight.detach().numpy(), Q, atol=1e-3)
    with em.no_grad():
        m.parametrizations.weight.original.add_(0.1)  # move away from the base
    m.weight = em.tensor(Q)  # an orthogonal value becomes the new base, the original goes back to -I
    np.testing.assert_allclose(m.weight.detach().numpy(), Q, atol=1e-5)
    np.testing.assert_allclose(m.parametrizations.weight[0].base.numpy(), Q, atol=1e-5)
    np.testing.assert_array_equal(m.parametrizations.weight.original.detach().numpy(), -np.eye(3))
    with pytest.raises(ValueError, match=r"^Expected a matrix or batch of matrices of shape ember.Size\(\[3, 3\]\). "
                                         r"Got a tensor of shape ember.Size\(\[2, 2\]\).$"):
        m.weight = em.zeros(2, 2)
    cayley = orthogonal(nn.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="^It is not possible to assign to the matrix exponential or the "
                                                  "Cayley parametrizations when use_trivialization=False.$"):
        cayley.weight = em.eye(3)
    with pytest.raises(ValueError, match='^orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                                         "Got: foo$"):
        orthogonal(nn.Linear(3, 3), orthogonal_map="foo")
    with pytest.raises(ValueError, match="^Expected a matrix or batch of matrices. Got a tensor of 1 dimensions.$"):
        orthogonal(nn.Linear(3, 3), name="bias")
