"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
from collections import OrderedDict

import numpy as np
import pytest

import ember as em
from ember.core import nn


def _layers(n):
    return [nn.Linear(i + 1, i + 2) for i in range(n)]


def test_sequential_forward_chains_modules():
    l1, l2 = nn.Linear(2, 3), nn.Linear(3, 1)
    seq = nn.Sequential(l1, nn.ReLU(), l2)
    x = em.randn(4, 2)
    expected = l2(l1(x).relu())
    np.testing.assert_allclose(seq(x).detach().numpy(), expected.detach().numpy(), rtol=1e-6)


def test_sequential_indexing_slicing_and_negative_index():
    a, b, c = _layers(3)
    seq = nn.Sequential(a, b, c)
    assert seq[0] is a and seq[-1] is c
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c]
    assert list(sub._modules.keys()) == ["1", "2"]  # slicing keeps the names, as in PyTorch
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]


def test_sequential_ordered_dict_names():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 1)), ("act", nn.ReLU())]))
    assert isinstance(seq.fc, nn.Linear) and seq[1] is seq.act
    assert list(seq.state_dict()) == ["fc.weight", "fc.bias"]


def test_sequential_append_insert_extend_delete_pop():
    a, b, c, d = _layers(4)
    seq = nn.Sequential(a)
    assert seq.append(b) is seq
    seq.insert(0, c)
    assert list(seq) == [c, a, b]
    seq.extend([d])
    assert len(seq) == 4 and seq[3] is d
    del seq[1]
    assert list(seq) == [c, b, d]
    assert list(seq._modules.keys()) == ["0", "1", "2"]
    assert seq.pop(0) is c and list(seq) == [b, d]
    seq[0] = a
    assert seq[0] is a
    with pytest.raises(IndexError):
        seq.insert(5, nn.ReLU())


def test_sequential_add_and_multiply():
    a, b = _layers(2)
    s = nn.Sequential(a) + nn.Sequential(b)
    assert list(s) == [a, b]
    r = nn.Sequential(a) * 3
    assert len(r) == 3 and all(m is a for m in r)
    with pytest.raises(ValueError):
        nn.Sequential(a) + a


def test_module_list_behaves_like_a_list_and_registers():
    layers = nn.ModuleList(_layers(3))
    assert len(layers) == 3 and len(list(layers.parameters())) == 6
    layers.append(nn.ReLU())
    layers.insert(1, nn.Tanh())
    assert [type(m).__name__ for m in layers] == ["Linear", "Tanh", "Linear", "Linear", "ReLU"]
    del layers[1]
    assert list(layers._modules.keys()) == ["0", "1", "2", "3"]
    assert isinstance(layers[1:3], nn.ModuleList) and len(layers[1:3]) == 2
    layers += [nn.Sigmoid()]
    assert isinstance(layers[-1], nn.Sigmoid)
    with pytest.raises(TypeError, match="should be called with an iterable"):
        layers.extend(5)
    with pytest.raises(NotImplementedError):
        layers(em.zeros(1))


def test_module_list_repr_groups_repeated_blocks():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()])
    assert repr(ml) == ("ModuleList(\n"
                        "  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
                        "  (3): ReLU()\n"
                        ")")
    assert repr(nn.ModuleList()) == "ModuleList()"


def test_module_dict():
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.ReLU()
    md.update([("c", nn.Tanh())])
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert md.pop("b").__class__ is nn.ReLU and "b" not in md
    assert [k for k, _ in md.items()] == ["a", "c"]
    assert list(md.state_dict()) == ["a.weight", "a.bias"]
    with pytest.raises(ValueError, match="has length 3"):
        md.update([("x", nn.ReLU(), 1)])


def test_parameter_list_and_dict_register_and_wrap_tensors():
    pl = nn.ParameterList([nn.Parameter(em.ones(2)), em.zeros(3)])
    assert isinstance(pl[1], nn.Parameter) and pl[1].requires_grad
    pl.append(em.ones(1))
    assert len(pl) == 3 and [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert repr(pl) == ("ParameterList(\n"
                        "    (0): Parameter containing: [ember.float32 of size 2]\n"
                        "    (1): Parameter containing: [ember.float32 of size 3]\n"
                        "    (2): Parameter containing: [ember.float32 of size 1]\n"
                        ")")
    pd = nn.ParameterDict({"b": em.ones(2, 2), "a": nn.Parameter(em.zeros(1))})
    assert list(pd.keys()) == ["a", "b"]  # a plain dict is sorted, as in PyTorch
    pd["c"] = em.ones(1)
    assert isinstance(pd["c"], nn.Parameter) and "c" in pd
    assert sorted(n for n, _ in pd.named_parameters()) == ["a", "b", "c"]
    assert pd.pop("a").shape == em.Size([1]) and len(pd) == 2
    with pytest.raises(TypeError, match="not a string"):
        pd[3] = em.ones(1)


def test_containers_inside_a_model_train_together():
    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
            self.scales = nn.ParameterList([em.ones(2) for _ in range(2)])

        def forward(self, x):
            for blk, s in zip(self.blocks, self.scales):
                x = blk(x) * s
            return x
    m = Model()
    assert [n for n, _ in m.named_parameters()] == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight",
                                                    "blocks.1.bias", "scales.0", "scales.1"]
    m(em.randn(3, 2)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
