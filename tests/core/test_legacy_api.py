"""PyTorch 1.x names that 2.x keeps: ``autograd.Variable``, ``set_default_tensor_type``, ``nn.DataParallel`` and the
``DistributedDataParallel as DDP`` import of the tutorials."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.autograd import Variable


def test_variable_returns_a_tensor_that_shares_data_and_honours_requires_grad():
    data = em.tensor([1.0, 2.0, 3.0])
    x = Variable(data, requires_grad=True)
    assert type(x) is em.Tensor and x.requires_grad and x.is_leaf and x.grad_fn is None
    assert not data.requires_grad
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    x.data.mul_(10)  # .data works and writes through to the shared storage
    assert data.tolist() == [10.0, 20.0, 30.0]
    y = Variable(em.ones(2))
    assert not y.requires_grad and isinstance(y, Variable) and isinstance(em.zeros(1), Variable)
    assert not isinstance([1.0], Variable)
    empty = Variable()
    assert empty.shape == (0,) and empty.dtype == em.float32


def test_variable_of_a_non_leaf_is_cut_from_the_graph():
    a = em.ones(2, requires_grad=True)
    v = Variable(a * 2)
    assert v.grad_fn is None and not v.requires_grad


def test_variable_volatile_warns_and_bad_data_is_named():
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(em.ones(1), volatile=True)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        Variable([1.0, 2.0])


@pytest.mark.parametrize("kind, expected", [("torch.DoubleTensor", em.float64), ("DoubleTensor", em.float64),
                                            ("ember.FloatTensor", em.float32)])
def test_set_default_tensor_type_with_names(kind, expected):
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated as of PyTorch 2.1"):
            em.set_default_tensor_type(kind)
        assert em.get_default_dtype() == expected
        assert em.tensor([1.5]).dtype == expected and em.randn(2).dtype == expected
    finally:
        em.set_default_dtype(em.float32)


def test_set_default_tensor_type_with_the_legacy_classes_and_errors():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            em.set_default_tensor_type(em.DoubleTensor)
            assert em.ones(1).dtype == em.float64
            em.set_default_tensor_type(em.FloatTensor)
            assert em.ones(1).dtype == em.float32
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                em.set_default_tensor_type("torch.LongTensor")
            with pytest.raises(RuntimeError, match="no CUDA device is available"):
                em.set_default_tensor_type("torch.cuda.FloatTensor")
            with pytest.raises(TypeError, match="invalid type"):
                em.set_default_tensor_type("torch.WeirdTensor")
    finally:
        em.set_default_dtype(em.float32)


def test_nn_data_parallel_runs_the_module_unchanged():
    from ember.nn.parallel import DataParallel
    assert em.nn.DataParallel is DataParallel
    em.manual_seed(0)
    inner = em.nn.Linear(4, 2)
    model = em.nn.DataParallel(inner)
    x = em.randn(3, 4)
    np.testing.assert_array_equal(model(x).detach().numpy(), inner(x).detach().numpy())
    assert list(model.state_dict()) == ["module.weight", "module.bias"]


def test_the_ddp_import_of_the_tutorials():
    from ember.nn.parallel import DistributedDataParallel as DDP
    import ember.nn.parallel
    assert DDP is em.nn.parallel.DistributedDataParallel is ember.nn.parallel.DistributedDataParallel
    assert ember.nn.parallel is em.nn.parallel
