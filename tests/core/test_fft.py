"""ember.fft: values against hand-computed DFTs and NumPy, dtypes, norms, errors and gradients."""
import numpy as np
import pytest

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck
from op_testing import rand_from

F = em.fft
RNG = np.random.default_rng(1234)
rand = rand_from(RNG)


# ------------------------------------------------------------------------------------------------------ must show
def test_fft_of_arange_matches_the_documented_example_and_its_repr():
    out = F.fft(em.arange(4))
    # DFT of [0, 1, 2, 3]: X_k = sum_j j * exp(-2 pi i j k / 4)
    assert out.dtype == em.complex64
    np.testing.assert_allclose(out.numpy(), [6, -2 + 2j, -2, -2 - 2j], atol=1e-6)
    assert repr(out) == "tensor([ 6.+0.j, -2.+2.j, -2.+0.j, -2.-2.j])"


def test_fft_of_complex_input_matches_the_documented_example():
    out = F.fft(em.tensor([0. + 1.j, 2. + 3.j, 4. + 5.j, 6. + 7.j]))
    np.testing.assert_allclose(out.numpy(), [12 + 16j, -8 + 0j, -4 - 4j, 0 - 8j], atol=1e-5)


@pytest.mark.parametrize("n", [6, 7])
def test_irfft_of_rfft_round_trips(n):
    x = em.randn(3, n)
    back = F.irfft(F.rfft(x), n)
    assert back.dtype == em.float32 and back.shape == x.shape
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-5)


def test_irfftn_of_rfftn_round_trips_odd_sizes():
    x = em.randn(3, 5, 7, dtype=em.float64)
    back = F.irfftn(F.rfftn(x, dim=(0, 2)), s=(3, 7), dim=(0, 2))
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)


# ------------------------------------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype,expected", [(em.int64, em.complex64), (em.float32, em.complex64),
                                            (em.float64, em.complex128), (em.complex64, em.complex64),
                                            (em.complex128, em.complex128)])
def test_fft_promotes_like_pytorch(dtype, expected):
    assert F.fft(em.ones(4, dtype=dtype)).dtype == expected
    assert F.ifftn(em.ones(2, 2, dtype=dtype)).dtype == expected


def test_real_transforms_have_matching_precision():
    assert F.rfft(em.ones(4, dtype=em.float64)).dtype == em.complex128
    assert F.rfft(em.ones(4, dtype=em.int32)).dtype == em.complex64
    assert F.irfft(em.ones(3, dtype=em.complex128)).dtype == em.float64
    assert F.irfft(em.ones(3)).dtype == em.float32  # real input is promoted to complex first
    assert F.hfft(em.ones(3, dtype=em.complex64)).dtype == em.float32
    assert F.ihfft(em.ones(4, dtype=em.float64)).dtype == em.complex128


# ----------------------------------------------------------------------------------------------- against numpy
NORMS = [None, "backward", "ortho", "forward"]


@pytest.mark.parametrize("norm", NORMS)
def test_one_dimensional_transforms_match_numpy(norm):
    xr, xc = RNG.standard_normal((3, 8)), RNG.standard_normal((3, 8)) + 1j * RNG.standard_normal((3, 8))
    for fn, x in [("fft", xc), ("ifft", xc), ("fft", xr), ("ifft", xr), ("rfft", xr), ("irfft", xc),
                  ("hfft", xc), ("ihfft", xr)]:
        for n in (None, 5, 11):
            for dim in (-1, 0):
                got = getattr(F, fn)(em.tensor(x), n=n, dim=dim, norm=norm).numpy()
                ref = getattr(np.fft, fn)(x, n=n, axis=dim, norm=norm)
                np.testing.assert_allclose(got, ref, atol=1e-10, err_msg=f"{fn} n={n} dim={dim}")


@pytest.mark.parametrize("norm", NORMS)
def test_n_dimensional_transforms_match_numpy(norm):
    xr = RNG.standard_normal((4, 5, 6))
    xc = xr + 1j * RNG.standard_normal((4, 5, 6))
    for fn, x in [("fftn", xc), ("ifftn", xc), ("rfftn", xr), ("irfftn", xc)]:
        for s, dim in [(None, None), ((3, 8), None), (None, (0, 2)), ((6, 4), (2, 0)), ((-1, 7), (1, 2))]:
            got = getattr(F, fn)(em.tensor(x), s=s, dim=dim, norm=norm).numpy()
            np_s = None if s is None else tuple(
                x.shape[d] if v == -1 else v
                for v, d in zip(s, dim if dim is not None else range(x.ndim - len(s), x.ndim)))
            if fn == "irfftn" and s is not None and s[-1] == -1:
                last = dim[-1] if dim is not None else -1
                np_s = np_s[:-1] + (2 * (x.shape[last] - 1),)
            axes = dim if dim is not None or s is None else tuple(range(x.ndim - len(s), x.ndim))
            ref = getattr(np.fft, fn)(x, s=np_s, axes=axes, norm=norm)
            np.testing.assert_allclose(got, ref, atol=1e-10, err_msg=f"{fn} s={s} dim={dim}")
    for fn in ("fft2", "ifft2", "rfft2"):
        x = xr if fn == "rfft2" else xc
        np.testing.assert_allclose(getattr(F, fn)(em.tensor(x), norm=norm).numpy(),
                                   getattr(np.fft, fn)(x, norm=norm), atol=1e-10)
    np.testing.assert_allclose(F.irfft2(em.tensor(xc), s=(5, 9), norm=norm).numpy(),
                               np.fft.irfft2(xc, s=(5, 9), norm=norm), atol=1e-10)


def test_hermitian_n_dimensional_transforms_invert_each_other():
    x = em.tensor(RNG.standard_normal((4, 6)))
    half = F.ihfftn(x)
    # ihfftn of a real signal is the non-negative-frequency half of its inverse DFT
    np.testing.assert_allclose(half.numpy(), np.fft.ifftn(x.numpy())[:, :4], atol=1e-12)
    np.testing.assert_allclose(F.hfftn(half, s=(4, 6)).numpy(), x.numpy(), atol=1e-12)
    np.testing.assert_allclose(F.hfft2(F.ihfft2(x), s=(4, 6)).numpy(), x.numpy(), atol=1e-12)


def test_ortho_norm_preserves_energy():
    x = rand(16, cplx=True, grad=False)
    assert np.isclose((F.fft(x, norm="ortho").abs() ** 2).sum().item(), (x.abs() ** 2).sum().item())


def test_frequencies_and_shifts_match_numpy():
    np.testing.assert_allclose(F.fftfreq(5, 0.1).numpy(), np.fft.fftfreq(5, 0.1), rtol=1e-6)
    np.testing.assert_allclose(F.fftfreq(6).numpy(), [0, 1 / 6, 2 / 6, -3 / 6, -2 / 6, -1 / 6], rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(7, 2.0).numpy(), np.fft.rfftfreq(7, 2.0), rtol=1e-6)
    assert F.fftfreq(4).dtype == em.float32 and F.fftfreq(4, dtype=em.float64).dtype == em.float64
    x = np.arange(15).reshape(3, 5)
    np.testing.assert_array_equal(F.fftshift(em.tensor(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(F.ifftshift(em.tensor(x), dim=1).numpy(), np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(F.ifftshift(F.fftshift(em.tensor(x))).numpy(), x)


# ------------------------------------------------------------------------------------------------------- errors
def test_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="rfft expects a real input tensor, but got ComplexFloat"):
        F.rfft(em.ones(4, dtype=em.complex64))
    with pytest.raises(RuntimeError, match='Invalid normalization mode: "sideways"'):
        F.fft(em.ones(4), norm="sideways")
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        F.fft(em.ones(4), n=0)
    with pytest.raises(RuntimeError, match=r"Invalid number of data points \(0\) specified"):
        F.irfft(em.ones(1, dtype=em.complex64))
    with pytest.raises(RuntimeError, match="FFT dims must be unique"):
        F.fftn(em.ones(2, 2), dim=(0, -2))
    with pytest.raises(RuntimeError, match="dim and shape arguments must have the same length"):
        F.fftn(em.ones(2, 2), s=(2,), dim=(0, 1))
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.fft(em.ones(2, 2), dim=2)


# ---------------------------------------------------------------------------------------------------- gradients
def test_gradient_follows_pytorch_complex_convention():
    # L = sum |fft(z)|^2 = N sum |z|^2 (Parseval), so dL/dRe + i dL/dIm = 2 N z
    z = rand(8, cplx=True)
    (F.fft(z).abs() ** 2).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), 2 * 8 * z.detach().numpy(), rtol=1e-10)
    # one-sided: sum_{k=0..4} |X_k|^2 = (sum_all |X_k|^2 + |X_0|^2 + |X_4|^2) / 2 with the full sum = sum x^2
    # (ortho Parseval), X_0 = sum x / sqrt(8) and X_4 = sum (-1)^j x_j / sqrt(8)
    x = rand(8)
    (F.rfft(x, norm="ortho").abs() ** 2).sum().backward()
    v = x.detach().numpy()
    alt = (-1.0) ** np.arange(8)
    expected = v + v.sum() / 8 + alt * (alt * v).sum() / 8
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-10)


ONE_D = [F.fft, F.ifft, F.rfft, F.irfft, F.hfft, F.ihfft]
N_D = [F.fftn, F.ifftn, F.rfftn, F.irfftn, F.hfftn, F.ihfftn, F.fft2, F.ifft2, F.rfft2, F.irfft2, F.hfft2, F.ihfft2]
REAL_ONLY = {F.rfft, F.ihfft, F.rfftn, F.ihfftn, F.rfft2, F.ihfft2}


@pytest.mark.parametrize("fn", ONE_D, ids=lambda f: f.__name__)
@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_gradcheck_one_dimensional(fn, norm):
    inputs = [rand(3, 5)] + ([] if fn in REAL_ONLY else [rand(3, 5, cplx=True)])
    for x in inputs:
        for n in (None, 4, 8):  # as is, truncated, zero-padded
            assert gradcheck(lambda t: fn(t, n=n, dim=1, norm=norm), (x,))
            assert gradcheck(lambda t: fn(t, n=n, dim=0, norm=norm), (x,))


@pytest.mark.parametrize("fn", N_D, ids=lambda f: f.__name__)
def test_gradcheck_n_dimensional(fn):
    inputs = [rand(3, 4)] + ([] if fn in REAL_ONLY else [rand(3, 4, cplx=True)])
    for x in inputs:
        for s in (None, (2, 5), (4, 3)):
            for norm in ("backward", "ortho"):
                assert gradcheck(lambda t: fn(t, s=s, norm=norm), (x,))


@pytest.mark.parametrize("fn", [F.fft, F.rfft, F.irfft, F.hfft, F.fftn, F.irfftn], ids=lambda f: f.__name__)
def test_gradgradcheck(fn):
    x = rand(2, 4, cplx=fn not in REAL_ONLY)
    assert gradgradcheck(lambda t: fn(t, norm="ortho"), (x,))


def test_gradcheck_shifts_and_a_real_loss_of_a_complex_intermediate():
    x = rand(4, 5)
    assert gradcheck(lambda t: F.fftshift(F.fft2(t)), (x,))
    assert gradcheck(lambda t: F.ifftshift(t, dim=0), (x,))
    assert gradcheck(lambda t: F.irfft(F.rfft(t) * F.rfft(t.flip(1)), n=5).sum(), (x,))
