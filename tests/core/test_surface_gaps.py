"""Small PyTorch behaviours tutorials run into: signs of zero in remainder and fft, lstsq's rank shape, asarray
without a graph, autograd.grad over a generator, and PyTorch's messages for common mistakes."""
import math

import numpy as np
import pytest

import ember as em
from ember.autograd import gradcheck


def _signs(t):
    return [math.copysign(1.0, v) for v in t.tolist()]


def test_remainder_keeps_the_sign_of_fmod_on_zero_results():
    # PyTorch: fmod, then + other where a non-zero result's sign differs from other's; zeros keep input's sign
    x = em.tensor([-0.0, 0.0, -3.0, 3.0, -1.0, 5.5])
    r = em.remainder(x, 3)
    assert r.tolist() == [0.0, 0.0, 0.0, 0.0, 2.0, 2.5]
    assert _signs(r) == [-1, 1, -1, 1, 1, 1]
    r = em.tensor([0.0, 3.0, 1.0, -1.0]) % -3
    assert r.tolist() == [0.0, 0.0, -2.0, -1.0] and _signs(r) == [1, 1, -1, -1]
    assert (em.tensor([5, -5]) % 3).tolist() == [2, 1]
    y = em.randn(200, dtype=em.float64) * 10
    d = em.randn(200, dtype=em.float64)
    np.testing.assert_array_equal(em.remainder(y, d).numpy(), np.remainder(y.numpy(), d.numpy()))
    a = em.tensor([2.3, -1.7, 0.4], dtype=em.float64, requires_grad=True)
    b = em.tensor([0.9, 0.8, -0.7], dtype=em.float64, requires_grad=True)
    assert gradcheck(em.remainder, (a, b))


def test_fft_of_a_real_signal_fills_the_mirror_with_conjugates():
    z = em.fft.fft(em.tensor([1., 0., 0., 0.]))
    assert z.tolist() == [1, 1, 1, 1]
    assert _signs(z.imag) == [1, 1, 1, -1]  # bin 3 is conj(bin 1): 1-0j, as PyTorch prints it
    w = em.fft.ifft(em.tensor([1., 0., 0., 0.]))
    assert _signs(w.imag) == [-1, -1, -1, 1]  # the inverse is the conjugate of the scaled forward transform
    x = em.randn(3, 7, dtype=em.float64)
    for norm in (None, "ortho", "forward"):
        np.testing.assert_allclose(em.fft.fft(x, n=9, norm=norm).numpy(), np.fft.fft(x.numpy(), n=9, norm=norm),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(em.fft.ifft(x, dim=0, norm=norm).numpy(),
                                   np.fft.ifft(x.numpy(), axis=0, norm=norm), rtol=1e-12, atol=1e-12)
    xr = em.randn(6, dtype=em.float64, requires_grad=True)
    assert gradcheck(lambda t: em.fft.fft(t).abs(), (xr,))
    assert gradcheck(lambda t: em.fft.ifft(t, n=4).real, (xr,))


def test_lstsq_rank_has_the_batch_shape_of_A():
    A = em.randn(3, 3, dtype=em.float64)
    B = em.randn(2, 3, 1, dtype=em.float64)
    res = em.linalg.lstsq(A, B)
    assert res.solution.shape == (2, 3, 1) and res.rank.shape == () and res.rank.item() == 3
    res = em.linalg.lstsq(em.randn(1, 4, 3), em.randn(5, 4, 2), driver="gelsd")
    assert res.rank.shape == (1,) and res.singular_values.shape == (1, 3) and res.solution.shape == (5, 3, 2)
    assert em.linalg.lstsq(em.randn(2, 3, 3), em.randn(2, 3, 1)).rank.shape == (2,)


def test_asarray_without_requires_grad_gives_a_tensor_without_graph():
    w = em.ones(2, requires_grad=True)
    y = w * 2
    a = em.asarray(y)
    assert a.grad_fn is None and not a.requires_grad and a.data_ptr() == y.data_ptr()
    assert em.asarray(y, requires_grad=True).grad_fn is y.grad_fn
    assert em.asarray([1.0, 2.0], requires_grad=True).requires_grad


def test_autograd_grad_accepts_any_iterable_of_inputs():
    model = em.nn.Linear(2, 1)
    loss = model(em.ones(1, 2)).sum()
    grads = em.autograd.grad(loss, model.parameters())  # a generator
    assert [g.shape for g in grads] == [(1, 2), (1,)]
    w = em.ones(2, requires_grad=True)
    assert em.autograd.grad((w * w).sum(), (p for p in [w]))[0].tolist() == [2.0, 2.0]
    assert em.autograd.grad((w * w).sum(), w)[0].tolist() == [2.0, 2.0]


def test_matmul_does_not_promote_and_names_both_dtypes():
    with pytest.raises(RuntimeError, match=r"^expected m1 and m2 to have the same dtype, but got: float != long int$"):
        em.matmul(em.ones(2, 2), em.ones(2, 2, dtype=em.int64))
    with pytest.raises(RuntimeError, match="but got: double != float"):
        em.ones(3, 2, 2, dtype=em.float64) @ em.ones(2, 2)
    with pytest.raises(RuntimeError, match="dot : expected both vectors to have same dtype, but found Float and Long"):
        em.matmul(em.ones(2), em.ones(2, dtype=em.int64))
    with pytest.raises(TypeError, match=r"matmul\(\): argument 'input' \(position 1\) must be Tensor, not NoneType"):
        em.matmul(None, em.ones(2))


def test_to_an_unknown_device_raises_the_device_error():
    with pytest.raises(RuntimeError, match="device type at start of device string: tpu"):
        em.ones(2).to("tpu")
    assert em.ones(2).to("float64").dtype == em.float64


def test_ragged_nested_lists_name_the_dimension():
    with pytest.raises(ValueError, match=r"^expected sequence of length 2 at dim 1 \(got 1\)$"):
        em.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"^expected sequence of length 1 at dim 2 \(got 2\)$"):
        em.tensor([[[1], [2]], [[3], [4, 5]]])


@pytest.mark.parametrize("write", [
    lambda t: t.add_(1), lambda t: t.mul_(em.ones(3, 4)), lambda t: t.fill_(2), lambda t: t.zero_(),
    lambda t: t.normal_(), lambda t: t.copy_(em.zeros(3, 4)), lambda t: t.clamp_(0, 1),
    lambda t: t.__setitem__(0, 1.0), lambda t: t.index_fill_(0, em.tensor([0]), 1.0),
])
def test_in_place_on_an_expanded_tensor_raises_pytorchs_message(write):
    with pytest.raises(RuntimeError, match=r"^unsupported operation: more than one element of the written-to tensor "
                                           r"refers to a single memory location\. Please clone\(\) the tensor before "
                                           r"performing the operation\.$"):
        write(em.ones(3, 1).expand(3, 4))
    t = em.ones(3, 1).expand(3, 4).clone()
    write(t)  # the clone can be written
