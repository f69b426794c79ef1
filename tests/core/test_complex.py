"""Complex tensors: real/imag views, conj, angle, polar, complex, view_as_real/complex, printing and gradients."""
import math

import numpy as np
import pytest

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck
from op_testing import rand_from

RNG = np.random.default_rng(7)


def crand(*shape, grad=True):
    return em.tensor(RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape), requires_grad=grad)


rand = rand_from(RNG)


def test_complex_tensors_print_like_pytorch():
    assert repr(em.tensor([6 + 0j, -2 + 2j, -2 + 0j, -2 - 2j])) == "tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])"
    assert repr(em.tensor([0.5 + 1j], dtype=em.complex128)) == "tensor([0.5000+1.j], dtype=ember.complex128)"


def test_real_and_imag_are_writable_views():
    z = em.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [2.0, -4.0]
    assert z.real.dtype == em.float32 and em.imag(z).dtype == em.float32
    z.real.numpy()[0] = 10  # shares memory
    assert z.tolist()[0] == 10 + 2j
    z.imag = em.tensor([0.0, 1.0])
    assert z.tolist() == [10 + 0j, 3 + 1j]
    z.real = 5.0
    assert z.tolist() == [5 + 0j, 5 + 1j]


def test_real_of_a_real_tensor_is_itself_and_imag_raises():
    x = em.tensor([1.0, 2.0])
    assert x.real is x and em.real(x) is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
        x.imag


def test_conj_values_and_real_passthrough():
    z = em.tensor([1 + 2j, -3 - 1j])
    assert em.conj(z).tolist() == [1 - 2j, -3 + 1j]
    assert z.conj_physical().tolist() == [1 - 2j, -3 + 1j]
    x = em.tensor([1.0])
    assert x.conj() is x and em.resolve_conj(z) is z and not em.is_conj(z)
    # mH conjugates too
    m = em.tensor([[1 + 1j, 2j]])
    assert m.mH.tolist() == [[1 - 1j], [-2j]]


def test_angle_values():
    z = em.tensor([1 + 1j, -1 + 0j, -1j, 0j])
    np.testing.assert_allclose(em.angle(z).numpy(), [math.pi / 4, math.pi, -math.pi / 2, 0], rtol=1e-6)
    assert em.angle(z).dtype == em.float32
    # real input: pi for negatives, 0 otherwise (also -0.0), NaN stays NaN
    out = em.angle(em.tensor([-2.0, 3.0, -0.0, float("nan")])).tolist()
    assert out[:3] == [pytest.approx(math.pi), 0.0, 0.0] and math.isnan(out[3])
    assert em.angle(em.tensor([-1, 2])).dtype == em.float32


def test_polar_and_complex_build_the_expected_numbers():
    out = em.polar(em.tensor([2.0, 1.0]), em.tensor([math.pi / 2, math.pi]))
    np.testing.assert_allclose(out.numpy(), [2j, -1], atol=1e-6)
    assert out.dtype == em.complex64
    c = em.complex(em.tensor([1.0, 2.0], dtype=em.float64), em.tensor([3.0], dtype=em.float64))
    assert c.dtype == em.complex128 and c.tolist() == [1 + 3j, 2 + 3j]


def test_complex_and_polar_reject_mismatched_dtypes():
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double tensors but got Long"):
        em.complex(em.tensor([1]), em.tensor([2]))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got scalar type Double"):
        em.polar(em.tensor([1.0]), em.tensor([1.0], dtype=em.float64))


def test_view_as_real_and_complex_share_memory():
    z = em.tensor([[1 + 2j, 3 + 4j]])
    r = em.view_as_real(z)
    assert r.shape == (1, 2, 2) and r.tolist() == [[[1, 2], [3, 4]]]
    r.numpy()[0, 0, 1] = 9
    assert z.tolist()[0][0] == 1 + 9j
    back = em.view_as_complex(r)
    assert back.shape == (1, 2) and back.tolist() == z.tolist()
    x = em.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=em.float64)
    assert em.view_as_complex(x).tolist() == [1 + 2j, 3 + 4j] and em.view_as_complex(x).dtype == em.complex128


def test_view_errors():
    with pytest.raises(RuntimeError, match="Tensor must have a last dimension of size 2"):
        em.view_as_complex(em.ones(3))
    with pytest.raises(RuntimeError, match="only supported for float and double tensors, but got a tensor of scalar "
                                           "type: Long"):
        em.view_as_complex(em.ones(2, dtype=em.int64))
    with pytest.raises(RuntimeError, match="Tensor must have a last dimension with stride 1"):
        em.view_as_complex(em.ones(2, 4)[:, ::2])
    with pytest.raises(RuntimeError, match="view_as_real is only supported for complex tensors"):
        em.view_as_real(em.ones(2))


def test_gradient_of_squared_modulus_follows_the_convention():
    # L = sum |z|^2 = sum x^2 + y^2: dL/dx + i dL/dy = 2x + 2iy = 2z
    z = crand(3)
    (z.real ** 2 + z.imag ** 2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * z.detach().numpy())


def test_gradient_of_angle_by_hand():
    # angle = atan2(y, x): d/dx = -y / r^2, d/dy = x / r^2
    z = em.tensor([3 + 4j], requires_grad=True)
    em.angle(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [(-4 + 3j) / 25], rtol=1e-6)
    x = em.tensor([-1.0, 2.0], requires_grad=True)
    em.angle(x).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("fn", [em.real, em.imag, em.conj, em.conj_physical, em.angle, em.view_as_real, em.abs,
                                lambda z: z * z.conj(), lambda z: em.view_as_real(z).sum(-1)],
                         ids=["real", "imag", "conj", "conj_physical", "angle", "view_as_real", "abs", "mul_conj",
                              "sum_parts"])
def test_gradcheck_complex_inputs(fn):
    z = crand(2, 3)
    assert gradcheck(fn, (z,))
    if fn is not em.abs:  # AbsBackward0's double backward is the arithmetic module's concern
        assert gradgradcheck(fn, (z,))


def test_gradcheck_real_inputs_complex_outputs():
    a, b = em.tensor(RNG.random((2, 3)) + 0.5, requires_grad=True), rand(2, 3)
    assert gradcheck(em.polar, (a, b)) and gradgradcheck(em.polar, (a, b))
    assert gradcheck(em.complex, (a, rand(3))) and gradgradcheck(em.complex, (a, b))
    assert gradcheck(em.view_as_complex, (rand(3, 2),))
    assert gradcheck(em.angle, (rand(4),))


def test_complex64_abs_is_pytorchs_correctly_rounded_magnitude():
    """PyTorch 2.13's |z| for these complex64 values, where NumPy's abs is one ulp off (a third of random values)."""
    z = em.tensor([0.1257302165031433 + 0.3289696276187897j, 0.6404226422309875 + 1.5834728479385376j,
                   0.3615950644016266 - 2.20350980758667j], dtype=em.complex64)
    assert z.abs().tolist() == [0.3521776497364044, 1.708077073097229, 2.2329814434051514]
    assert z.abs().dtype == em.float32
