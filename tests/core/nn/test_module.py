"""nn.Module: registration, iteration, modes, casting, state_dict, hooks and repr."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import ember as em
from ember.core import nn
from ember.core.nn import functional as F


class Net(nn.Module):
    """The seed tutorial's LeNet (convolutions are replaced by a stand-in with Conv2d's repr if Conv2d is missing)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("running", em.zeros(2))
        self.register_buffer("scratch", em.ones(2), persistent=False)

    def forward(self, x):
        return self.fc(x) + self.running


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Small()
        self.head = nn.Linear(2, 1, bias=False)

    def forward(self, x):
        return self.head(self.inner(x))


# ------------------------------------------------------------------------------------------------------ repr
def test_seed_tutorial_repr_is_pytorchs():
    if not hasattr(nn, "Conv2d") or not isinstance(getattr(nn, "Conv2d"), type):
        pytest.skip("Conv2d is built by another helper")
    assert repr(Net()) == (
        "Net(\n"
        "  (conv1): Conv2d(1, 6, kernel_size=(5, 5), stride=(1, 1))\n"
        "  (conv2): Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1))\n"
        "  (fc1): Linear(in_features=400, out_features=120, bias=True)\n"
        "  (fc2): Linear(in_features=120, out_features=84, bias=True)\n"
        "  (fc3): Linear(in_features=84, out_features=10, bias=True)\n"
        ")")


def test_nested_repr_indentation_and_extra_repr():
    m = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Dropout(0.25)), nn.LeakyReLU(0.2, inplace=True))
    assert repr(m) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): Sequential(\n"
        "    (0): ReLU()\n"
        "    (1): Dropout(p=0.25, inplace=False)\n"
        "  )\n"
        "  (2): LeakyReLU(negative_slope=0.2, inplace=True)\n"
        ")")


def test_repr_with_extra_repr_and_children_uses_multiline_form():
    class WithBoth(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)

        def extra_repr(self):
            return "alpha=1"
    assert repr(WithBoth()) == "WithBoth(\n  alpha=1\n  (lin): Linear(in_features=1, out_features=1, bias=True)\n)"


# ---------------------------------------------------------------------------------------------- registration
def test_attribute_assignment_registers_parameters_buffers_and_modules():
    m = Small()
    assert [n for n, _ in m.named_parameters()] == ["fc.weight", "fc.bias"]
    assert [n for n, _ in m.named_buffers()] == ["running", "scratch"]
    assert [n for n, _ in m.named_children()] == ["fc"]
    assert m.fc.weight is m._modules["fc"]._parameters["weight"]
    m.extra = nn.Parameter(em.zeros(1))
    assert "extra" in m._parameters and m.extra is m._parameters["extra"]
    del m.extra
    assert "extra" not in m._parameters
    with pytest.raises(AttributeError, match="has no attribute 'extra'"):
        m.extra


def test_direct_registry_edits_stay_visible_as_attributes():
    m = Small()
    p = nn.Parameter(em.ones(2))
    m._parameters["direct"] = p
    assert m.direct is p
    del m._parameters["direct"]
    with pytest.raises(AttributeError):
        m.direct
    m._buffers.pop("scratch")
    assert not hasattr(m, "scratch")


def test_assigning_a_tensor_to_a_parameter_name_is_a_type_error():
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign 'ember.FloatTensor' as parameter 'weight'"):
        m.weight = em.zeros(2, 2)
    m.bias = None
    assert m.bias is None and "bias" in m._parameters
    assert [n for n, _ in m.named_parameters()] == ["weight"]


def test_registration_errors_name_the_problem():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", em.zeros(1))
    with pytest.raises(KeyError, match="empty string"):
        m.register_parameter("", None)
    with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'x'"):
        m.register_buffer("x", 3)
    m.plain = 5
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", em.zeros(1))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("child", 3)
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        m.register_parameter("w", _non_leaf_param())

    class Forgot(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(em.ones(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Forgot()


def _non_leaf_param():
    p = nn.Parameter(em.ones(1))
    p.grad_fn = (p * 2).grad_fn
    return p


def test_forward_missing_raises_not_implemented():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        nn.Module()(em.zeros(1))


def test_get_submodule_parameter_and_buffer():
    m = Outer()
    assert m.get_submodule("inner.fc") is m.inner.fc
    assert m.get_parameter("inner.fc.bias") is m.inner.fc.bias
    assert m.get_buffer("inner.running") is m.inner.running
    with pytest.raises(AttributeError, match="Small has no attribute `nope`"):
        m.get_submodule("inner.nope")
    with pytest.raises(AttributeError, match="`running` is not an nn.Parameter"):
        m.get_parameter("inner.running")


def test_shared_parameters_are_yielded_once_unless_asked():
    a = nn.Linear(2, 2)
    m = nn.Sequential(a, a)
    assert len(list(m.parameters())) == 2
    assert len(list(m.named_parameters(remove_duplicate=False))) == 4
    assert [n for n, _ in m.named_modules()] == ["", "0"]


def test_dir_lists_registered_names():
    names = dir(Small())
    assert {"fc", "running", "scratch", "forward"} <= set(names)


# ---------------------------------------------------------------------------------------------- modes & grads
def test_train_eval_propagate_and_reject_non_bool():
    m = Outer()
    assert m.eval() is m and not m.inner.fc.training
    m.train()
    assert all(x.training for x in m.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")


def test_requires_grad_and_zero_grad():
    m = Small()
    m(em.ones(1, 3)).sum().backward()
    assert m.fc.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert np.all(m.fc.weight.grad.numpy() == 0)
    m.zero_grad()
    assert m.fc.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_apply_visits_children_then_self():
    seen = []
    Outer().apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Small", "Linear", "Outer"]


def test_to_double_keeps_parameter_identity_and_integer_buffers():
    m = Small()
    m.register_buffer("count", em.tensor(3))
    w = m.fc.weight
    m.double()
    assert m.fc.weight is w and w.dtype == em.float64
    assert m.running.dtype == em.float64 and m.count.dtype == em.int64
    m.to(em.float32)
    assert w.dtype == em.float32
    m.half()
    assert w.dtype == em.float16
    m.float()
    assert w.dtype == em.float32
    with pytest.raises(TypeError, match="only accepts floating point"):
        m.to(em.int64)
    out = m(em.ones(4, 3))
    assert out.dtype == em.float32


def test_to_also_casts_existing_gradients():
    m = nn.Linear(2, 1)
    m(em.ones(1, 2)).sum().backward()
    m.double()
    assert m.weight.grad.dtype == em.float64


# -------------------------------------------------------------------------------------------------- state dict
def test_state_dict_keys_for_nested_modules_and_sequential():
    # a module's own tensors come before its children's, as in PyTorch
    assert list(Outer().state_dict().keys()) == ["inner.running", "inner.fc.weight", "inner.fc.bias", "head.weight"]
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1)))
    assert list(seq.state_dict().keys()) == ["0.weight", "0.bias", "2.0.weight", "2.0.bias"]
    named = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert list(named.state_dict().keys()) == ["enc.weight", "enc.bias"]


def test_state_dict_values_are_detached_views_and_keep_vars():
    m = Small()
    sd = m.state_dict()
    assert not sd["fc.weight"].requires_grad
    assert np.shares_memory(sd["fc.weight"].numpy(), m.fc.weight.detach().numpy())
    assert m.state_dict(keep_vars=True)["fc.weight"] is m.fc.weight
    assert sd._metadata[""] == {"version": 1}


def test_load_state_dict_roundtrip_copies_in_place():
    a, b = Outer(), Outer()
    w = b.inner.fc.weight
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    assert b.inner.fc.weight is w
    np.testing.assert_array_equal(w.detach().numpy(), a.inner.fc.weight.detach().numpy())


def test_strict_load_lists_missing_unexpected_and_size_mismatch():
    m = Outer()
    sd = m.state_dict()
    del sd["head.weight"]
    sd["inner.extra"] = em.zeros(1)
    sd["inner.fc.weight"] = em.zeros(5, 3)
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(sd)
    msg = str(info.value)
    assert msg.startswith("Error(s) in loading state_dict for Outer:")
    assert 'Missing key(s) in state_dict: "head.weight".' in msg
    assert 'Unexpected key(s) in state_dict: "inner.extra".' in msg
    assert ("size mismatch for inner.fc.weight: copying a param with shape ember.Size([5, 3]) from checkpoint, the "
            "shape in current model is ember.Size([2, 3]).") in msg


def test_non_strict_load_reports_keys_but_still_raises_on_shape_mismatch():
    m = Outer()
    sd = m.state_dict()
    del sd["head.weight"]
    sd["bogus"] = em.zeros(1)
    res = m.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["head.weight"] and res.unexpected_keys == ["bogus"]
    missing, unexpected = res
    assert missing == ["head.weight"]
    sd["inner.running"] = em.zeros(7)
    with pytest.raises(RuntimeError, match="size mismatch for inner.running"):
        m.load_state_dict(sd, strict=False)


def test_load_state_dict_assign_replaces_parameters():
    m = nn.Linear(2, 2)
    new = {"weight": em.ones(2, 2), "bias": em.zeros(2)}
    m.load_state_dict(new, assign=True)
    assert isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones((2, 2)))


def test_save_to_state_dict_override_and_extra_state():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def get_extra_state(self):
            return {"calls": self.calls}

        def set_extra_state(self, state):
            self.calls = state["calls"]
    c = Counter()
    c.calls = 7
    sd = nn.Sequential(c).state_dict()
    assert sd["0._extra_state"] == {"calls": 7}
    d = nn.Sequential(Counter())
    d.load_state_dict(sd)
    assert d[0].calls == 7


def test_load_state_dict_rejects_non_mapping():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        nn.Linear(1, 1).load_state_dict([1, 2])


# ------------------------------------------------------------------------------------------------------- hooks
def test_forward_pre_hook_and_forward_hook_modify_and_remove():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 1)
    y = m(em.ones(1, 2))
    np.testing.assert_allclose(y.detach().numpy(), m.bias.detach().numpy()[None] + 1, rtol=1e-6)
    assert calls == [em.Size([1, 2])]
    h1.remove()
    h2.remove()
    y2 = m(em.ones(1, 2))
    expected = np.ones((1, 2)) @ m.weight.detach().numpy().T + m.bias.detach().numpy()
    np.testing.assert_allclose(y2.detach().numpy(), expected, rtol=1e-6)


def test_hooks_with_kwargs_and_prepend_order():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor
    m = Scale()
    order = []
    m.register_forward_pre_hook(lambda mod, a, kw: order.append("b") or (a, {"factor": 3.0}), with_kwargs=True)
    m.register_forward_pre_hook(lambda mod, a: order.append("a"), prepend=True)
    m.register_forward_hook(lambda mod, a, kw, out: out + kw["factor"], with_kwargs=True)
    y = m(em.ones(2))
    assert order == ["a", "b"]
    np.testing.assert_array_equal(y.numpy(), [6.0, 6.0])


def test_full_backward_hook_sees_grad_input_and_output_and_can_replace():
    m = nn.Linear(3, 2)
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["gi"] = [g.shape for g in grad_input]
        seen["go"] = [g.shape for g in grad_output]
        return (grad_input[0] * 0,)
    h = m.register_full_backward_hook(hook)
    x = em.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert seen == {"gi": [em.Size([4, 3])], "go": [em.Size([4, 2])]}
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((4, 3)))
    # parameter gradients are unaffected by replacing grad_input
    np.testing.assert_allclose(m.weight.grad.numpy(), np.tile(x.detach().numpy().sum(0), (2, 1)), rtol=1e-5)
    h.remove()
    x.grad = None
    m(x).sum().backward()
    assert np.abs(x.grad.numpy()).sum() > 0


def test_backward_pre_hook_can_scale_grad_output_and_no_grad_inputs_get_none():
    m = nn.Linear(2, 1)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 2,))
    got = []
    m.register_full_backward_hook(lambda mod, gi, go: got.append((gi, go[0].numpy().copy())))
    m(em.ones(3, 2)).sum().backward()  # the input needs no grad
    assert got[0][0] == (None,)
    np.testing.assert_array_equal(got[0][1], np.full((3, 1), 2.0))
    np.testing.assert_allclose(m.bias.grad.numpy(), [6.0])


def test_global_forward_hook():
    from ember.core.nn.modules.module import register_module_forward_hook
    names = []
    h = register_module_forward_hook(lambda mod, args, out: names.append(type(mod).__name__))
    try:
        nn.Sequential(nn.ReLU())(em.ones(1))
    finally:
        h.remove()
    assert names == ["ReLU", "Sequential"]


def test_state_dict_and_load_hooks():
    m = nn.Linear(1, 1)
    m._register_state_dict_hook(lambda mod, sd, prefix, meta: sd.__setitem__(prefix + "tag", em.zeros(1)))
    assert "tag" in m.state_dict()
    post = []
    m.register_load_state_dict_post_hook(lambda mod, keys: post.append(list(keys.unexpected_keys)))
    m.load_state_dict(m.state_dict(), strict=False)
    assert post == [["tag"]]


# ---------------------------------------------------------------------------------------------- copies & pickles
def test_deepcopy_and_pickle_keep_registrations_consistent():
    m = Outer()
    for clone in (copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert clone.inner.fc.weight is clone.inner.fc._parameters["weight"]
        assert clone.inner.fc.weight is not m.inner.fc.weight
        np.testing.assert_array_equal(clone.inner.fc.weight.detach().numpy(), m.inner.fc.weight.detach().numpy())
        clone.inner.fc.weight = nn.Parameter(em.zeros(2, 3))
        assert clone.inner.fc._parameters["weight"] is clone.inner.fc.weight
        assert [n for n, _ in clone.named_parameters()] == [n for n, _ in m.named_parameters()]


def test_parameter_repr_and_defaults():
    p = nn.Parameter(em.tensor([1.0, 2.0]))
    assert p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    q = nn.Parameter(em.tensor([1.0]), requires_grad=False)
    assert not q.requires_grad
    assert type(p * 2) is em.Tensor
    with pytest.raises(TypeError, match="Parameter data must be a Tensor"):
        nn.Parameter([1.0])


def test_buffer_assignment_registers_buffer():
    m = nn.Module()
    m.stat = nn.Buffer(em.ones(2), persistent=False)
    assert "stat" in m._buffers and "stat" in m._non_persistent_buffers_set
    assert m.state_dict() == OrderedDict()


def test_module_call_fast_path_runs_forward():
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    x = em.randn(3, 4)
    expected = F.linear(F.relu(F.linear(x, m[0].weight, m[0].bias)), m[2].weight, m[2].bias)
    np.testing.assert_array_equal(m(x).detach().numpy(), expected.detach().numpy())
