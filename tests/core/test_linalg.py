"""ember.linalg: decompositions and solvers against their defining identities and NumPy, errors and gradients."""
import numpy as np
import pytest

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck
from op_testing import npy, rand_from

L = em.linalg
RNG = np.random.default_rng(42)
rand = rand_from(RNG)


def spd(A):
    """A Hermitian positive-definite matrix built from any square A (differentiable)."""
    n = A.shape[-1]
    return A @ A.mH + em.eye(n, dtype=A.dtype) * n


def herm(A):
    return A + A.mH


# ------------------------------------------------------------------------------------------------------ must show
def test_inverse_of_a_product_is_the_reversed_product_of_inverses():
    A, B = rand(4, 4, grad=False), rand(4, 4, grad=False)
    np.testing.assert_allclose(npy(L.inv(A @ B)), npy(L.inv(B) @ L.inv(A)), rtol=1e-8, atol=1e-10)
    Ab, Bb = rand(3, 2, 2, cplx=True, grad=False), rand(3, 2, 2, cplx=True, grad=False)
    np.testing.assert_allclose(npy(L.inv(Ab @ Bb)), npy(L.inv(Bb) @ L.inv(Ab)), rtol=1e-8, atol=1e-10)


# ------------------------------------------------------------------------------------------------------- values
def test_inv_det_slogdet_by_hand():
    A = em.tensor([[4.0, 7.0], [2.0, 6.0]])
    np.testing.assert_allclose(L.inv(A).numpy(), [[0.6, -0.7], [-0.2, 0.4]], rtol=1e-6)
    assert L.det(A).item() == pytest.approx(10.0)
    sign, logabs = L.slogdet(em.tensor([[0.0, 1.0], [3.0, 0.0]]))
    assert sign.item() == -1.0 and logabs.item() == pytest.approx(np.log(3.0))
    assert em.det(A).item() == pytest.approx(10.0) and A.det().item() == pytest.approx(10.0)
    assert em.inverse(A).shape == (2, 2)


def test_solve_variants_satisfy_their_equations():
    A, B = rand(2, 3, 3, grad=False), rand(2, 3, 4, grad=False)
    X = L.solve(A, B)
    np.testing.assert_allclose(npy(A @ X), npy(B), atol=1e-10)
    b = rand(3, grad=False)  # a vector, broadcast over the batch
    x = L.solve(A, b)
    assert x.shape == (2, 3)
    np.testing.assert_allclose(np.einsum("bij,bj->bi", npy(A), npy(x)), np.broadcast_to(npy(b), (2, 3)), atol=1e-10)
    Bl = rand(2, 4, 3, grad=False)
    Xl = L.solve(A, Bl, left=False)
    np.testing.assert_allclose(npy(Xl @ A), npy(Bl), atol=1e-10)


def test_solve_triangular_reads_only_one_triangle():
    A = rand(3, 3, grad=False)
    B = rand(3, 2, grad=False)
    X = L.solve_triangular(A, B, upper=True)
    np.testing.assert_allclose(np.triu(npy(A)) @ npy(X), npy(B), atol=1e-10)
    U = L.solve_triangular(A, B, upper=False, unitriangular=True)
    unit = np.tril(npy(A), -1) + np.eye(3)
    np.testing.assert_allclose(unit @ npy(U), npy(B), atol=1e-10)


def test_cholesky_factor_is_triangular_and_reconstructs():
    A = spd(rand(2, 3, 3, cplx=True, grad=False))
    Lc = L.cholesky(A)
    np.testing.assert_allclose(npy(Lc), np.tril(npy(Lc)))
    np.testing.assert_allclose(npy(Lc @ Lc.mH), npy(A), atol=1e-10)
    U = L.cholesky(A, upper=True)
    np.testing.assert_allclose(npy(U.mH @ U), npy(A), atol=1e-10)
    assert L.cholesky_ex(A).info.tolist() == [0, 0]


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_qr_is_orthonormal_times_upper_triangular(shape):
    A = rand(*shape, grad=False)
    Q, R = L.qr(A)
    k = min(shape[-2:])
    np.testing.assert_allclose(npy(Q.mH @ Q), np.broadcast_to(np.eye(k), Q.shape[:-2] + (k, k)), atol=1e-10)
    np.testing.assert_allclose(npy(R), np.triu(npy(R)), atol=1e-12)
    np.testing.assert_allclose(npy(Q @ R), npy(A), atol=1e-10)
    Qc, Rc = L.qr(A, mode="complete")
    assert Qc.shape[-1] == shape[-2]
    assert L.qr(A, mode="r").Q.numel() == 0


def test_eigh_and_eigvalsh():
    A = herm(rand(2, 4, 4, cplx=True, grad=False))
    w, V = L.eigh(A)
    assert w.dtype == em.float64 and np.all(np.diff(npy(w), axis=-1) > 0)
    np.testing.assert_allclose(npy(A @ V), npy(V) * npy(w)[..., None, :], atol=1e-10)
    np.testing.assert_allclose(npy(L.eigvalsh(A)), npy(w), atol=1e-10)
    # UPLO="U" reads the upper triangle: a matrix whose lower triangle is garbage
    M = npy(A)[0].copy()
    M[np.tril_indices(4, -1)] = 100.0
    np.testing.assert_allclose(npy(L.eigvalsh(em.tensor(M), UPLO="U")), npy(w)[0], atol=1e-10)


@pytest.mark.parametrize("full", [True, False])
def test_svd_reconstructs(full):
    A = rand(2, 4, 3, cplx=True, grad=False)
    U, S, Vh = L.svd(A, full_matrices=full)
    assert U.shape == ((2, 4, 4) if full else (2, 4, 3)) and Vh.shape == (2, 3, 3)
    k = 3
    np.testing.assert_allclose(npy(U)[..., :k] * npy(S)[..., None, :] @ npy(Vh)[..., :k, :], npy(A), atol=1e-10)
    np.testing.assert_allclose(npy(L.svdvals(A)), npy(S), atol=1e-12)
    U_old, S_old, V_old = em.svd(A)  # the old torch.svd returns V, reduced by default
    np.testing.assert_allclose(npy(U_old * S_old.unsqueeze(-2) @ V_old.mH), npy(A), atol=1e-10)


def test_pinv_satisfies_the_penrose_conditions():
    A = rand(4, 3, grad=False)
    A = A @ em.tensor(np.diag([1.0, 1.0, 0.0])) @ rand(3, 3, grad=False)  # rank 2
    P = L.pinv(A)
    a, p = npy(A), npy(P)
    np.testing.assert_allclose(a @ p @ a, a, atol=1e-10)
    np.testing.assert_allclose(p @ a @ p, p, atol=1e-10)
    np.testing.assert_allclose((a @ p).T, a @ p, atol=1e-10)
    np.testing.assert_allclose((p @ a).T, p @ a, atol=1e-10)
    H = herm(rand(3, 3, grad=False))
    np.testing.assert_allclose(npy(L.pinv(H, hermitian=True)), np.linalg.pinv(npy(H)), atol=1e-10)
    np.testing.assert_allclose(npy(em.pinverse(A)), p, atol=1e-10)


def test_lstsq_matches_numpy_and_reports_residuals_and_rank():
    A, B = rand(2, 5, 3, grad=False), rand(2, 5, 2, grad=False)
    res = L.lstsq(A, B)
    for i in range(2):
        x, r, rank, _ = np.linalg.lstsq(npy(A)[i], npy(B)[i], rcond=None)
        np.testing.assert_allclose(npy(res.solution)[i], x, atol=1e-10)
        np.testing.assert_allclose(npy(res.residuals)[i], r, atol=1e-10)
        assert res.rank.tolist()[i] == rank
    assert res.singular_values.numel() == 0  # only gelsd / gelss report them
    assert L.lstsq(A, B, driver="gelsd").singular_values.shape == (2, 3)
    with pytest.raises(RuntimeError, match="parameter `driver` should be one of"):
        L.lstsq(A, B, driver="magic")


def test_matrix_power_rank_multi_dot_vecdot():
    A = rand(3, 3, grad=False)
    for n in (0, 1, 2, 5, -1, -3):
        np.testing.assert_allclose(npy(L.matrix_power(A, n)), np.linalg.matrix_power(npy(A), n), rtol=1e-8,
                                   atol=1e-10)
    assert L.matrix_rank(em.tensor([[1.0, 2.0], [2.0, 4.0]])).item() == 1
    a, b, c = rand(2, 3, grad=False), rand(3, 4, grad=False), rand(4, grad=False)
    np.testing.assert_allclose(npy(L.multi_dot([a, b, c])), npy(a) @ npy(b) @ npy(c), atol=1e-10)
    x, y = rand(3, cplx=True, grad=False), rand(3, cplx=True, grad=False)
    np.testing.assert_allclose(L.vecdot(x, y).item(), np.vdot(npy(x), npy(y)))


@pytest.mark.parametrize("ord", [2, 1, 3, 0.5, 0, np.inf, -np.inf])
def test_vector_norm_matches_numpy(ord):
    x = rand(3, 4, cplx=True, grad=False)
    np.testing.assert_allclose(npy(L.vector_norm(x, ord, dim=1)), np.linalg.norm(npy(x), ord, axis=1), rtol=1e-10)
    np.testing.assert_allclose(L.vector_norm(x, ord).item(), np.linalg.norm(npy(x).ravel(), ord), rtol=1e-10)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf])
def test_matrix_norm_matches_numpy(ord):
    A = rand(2, 3, 4, grad=False)
    np.testing.assert_allclose(npy(L.matrix_norm(A, ord)), np.linalg.norm(npy(A), ord, axis=(-2, -1)), rtol=1e-10)
    np.testing.assert_allclose(npy(L.matrix_norm(A, ord, dim=(0, 2), keepdim=True)),
                               np.linalg.norm(npy(A), ord, axis=(0, 2), keepdims=True), rtol=1e-10)


def test_norm_dispatches_like_pytorch():
    A = rand(3, 4, grad=False)
    assert L.norm(A).item() == pytest.approx(np.linalg.norm(npy(A).ravel()))
    assert L.norm(A, "nuc").item() == pytest.approx(np.linalg.norm(npy(A), "nuc"))
    np.testing.assert_allclose(npy(L.norm(A, 1, dim=0)), np.abs(npy(A)).sum(0))
    with pytest.raises(RuntimeError, match="the input must be 1D or 2D"):
        L.norm(rand(2, 2, 2, grad=False), ord=2)


def test_cross_matches_numpy_and_broadcasts():
    a, b = rand(2, 3, grad=False), rand(1, 3, grad=False)
    np.testing.assert_allclose(npy(L.cross(a, b)), np.cross(npy(a), npy(b)))
    with pytest.raises(RuntimeError, match="must have length 3. Got 2 and 2"):
        L.cross(em.ones(2), em.ones(2))


# ------------------------------------------------------------------------------------------------------- errors
def test_singular_matrices_raise_pytorchs_error_naming_the_batch_element():
    A = em.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(L.LinAlgError, match=r"^linalg\.inv: \(Batch element 1\): The diagonal element 2 is zero, "
                                            r"the inversion could not be completed because the input matrix is "
                                            r"singular\.$"):
        L.inv(A)
    with pytest.raises(RuntimeError, match=r"^linalg\.inv: The diagonal element 2 is zero"):
        L.inv(A[1])
    with pytest.raises(RuntimeError, match=r"^linalg\.solve: \(Batch element 1\): The solver failed because the input "
                                           r"matrix is singular\.$"):
        L.solve(A, em.ones(2, 2, 1))
    with pytest.raises(RuntimeError, match=r"^linalg\.cholesky: \(Batch element 1\): The factorization could not be "
                                           r"completed because the input is not positive-definite \(the leading minor "
                                           r"of order 2 is not positive-definite\)\.$"):
        L.cholesky(A)
    inv, info = L.inv_ex(A)
    assert info.tolist() == [0, 2] and np.isnan(inv.numpy()[1]).all()
    assert L.cholesky_ex(A).info.tolist() == [0, 2]
    assert L.solve_ex(A, em.ones(2, 2, 1)).info.tolist() == [0, 2]


def test_shape_and_dtype_errors():
    with pytest.raises(RuntimeError, match="A must be batches of square matrices, but they are 2 by 3 matrices"):
        L.inv(em.ones(2, 3))
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        L.det(em.ones(3))
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        L.inv(em.ones(2, 2, dtype=em.int64))
    with pytest.raises(RuntimeError, match="Expected UPLO argument to be 'L' or 'U'"):
        L.eigh(em.eye(2), UPLO="X")
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        L.qr(rand(3, 2), mode="complete")


# ---------------------------------------------------------------------------------------------------- gradients
@pytest.fixture(params=[False, True], ids=["real", "complex"])
def cplx(request):
    return request.param


def test_gradcheck_inv_solve_det_slogdet(cplx):
    A, B, b = rand(2, 3, 3, cplx=cplx), rand(2, 3, 2, cplx=cplx), rand(3, cplx=cplx)
    assert gradcheck(L.inv, (A,)) and gradgradcheck(L.inv, (A,))
    assert gradcheck(L.solve, (A, B)) and gradcheck(L.solve, (A, b)) and gradgradcheck(L.solve, (A, B))
    assert gradcheck(lambda A, B: L.solve(A, B, left=False), (A, rand(2, 2, 3, cplx=cplx)))
    assert gradcheck(L.det, (A,)) and gradgradcheck(L.det, (A,))
    assert gradcheck(lambda A: L.slogdet(A).logabsdet, (A,))
    assert gradcheck(lambda A: tuple(L.slogdet(A)), (A,))
    assert gradcheck(lambda A, B: L.solve_triangular(A, B, upper=True), (A, B))
    assert gradcheck(lambda A, B: L.solve_triangular(A, B, upper=False, left=False, unitriangular=True),
                     (A, rand(2, 2, 3, cplx=cplx)))


def test_det_gradient_of_a_singular_matrix_is_the_adjugate_transpose():
    A = em.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]], dtype=em.float64, requires_grad=True)
    L.det(A).backward()
    a = npy(A)
    cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                    for i in range(3)])
    np.testing.assert_allclose(A.grad.numpy(), cof, atol=1e-10)


def test_gradcheck_cholesky_qr(cplx):
    A = rand(2, 3, 3, cplx=cplx)
    assert gradcheck(lambda A: L.cholesky(spd(A)), (A,))
    assert gradcheck(lambda A: L.cholesky(spd(A), upper=True), (A,))
    assert gradgradcheck(lambda A: L.cholesky(spd(A)), (A,))
    # Householder QR fixes a real diagonal of R, so Q and R are locally unique even for complex input
    for shape in [(4, 3), (3, 3), (3, 5)]:
        assert gradcheck(lambda A: tuple(L.qr(A)), (rand(*shape, cplx=cplx),))


def test_gradcheck_eigh_svd(cplx):
    A = rand(2, 3, 3, cplx=cplx)
    # eigenvectors are unique up to phase (sign): use |V|^2 and V diag(w) V^H
    assert gradcheck(lambda A: (lambda w, V: (w, (V * V.conj()).real))(*L.eigh(herm(A))), (A,))
    assert gradcheck(lambda A: L.eigvalsh(herm(A)), (A,))
    for shape in [(4, 3), (3, 4), (3, 3)]:
        M = rand(*shape, cplx=cplx)
        k = min(shape)
        assert gradcheck(lambda M: (lambda U, S, Vh: (U[..., :k] @ Vh[..., :k, :], S, (U[..., :k] * U[..., :k].conj())
                                                      .real))(*L.svd(M)), (M,))
        assert gradcheck(lambda M: (lambda U, S, Vh: (U @ Vh, (Vh * Vh.conj()).real))(*L.svd(M, full_matrices=False)),
                         (M,))
        assert gradcheck(L.svdvals, (M,))


def test_gradcheck_pinv_lstsq_matrix_power(cplx):
    for shape in [(4, 3), (3, 4)]:
        M = rand(*shape, cplx=cplx)
        assert gradcheck(L.pinv, (M,))
    assert gradgradcheck(L.pinv, (rand(3, 2, cplx=cplx),))
    assert gradcheck(lambda A, B: L.lstsq(A, B).solution, (rand(4, 3, cplx=cplx), rand(4, 2, cplx=cplx)))
    A = rand(3, 3, cplx=cplx)
    assert gradcheck(lambda A: L.matrix_power(A, 3), (A,)) and gradcheck(lambda A: L.matrix_power(A, -2), (A,))


def test_gradcheck_norms_and_cross(cplx):
    x = rand(2, 4, cplx=cplx)
    for ord in (2, 1, 3, np.inf, -np.inf):
        assert gradcheck(lambda x: L.vector_norm(x, ord, dim=1), (x,))
    assert gradgradcheck(lambda x: L.vector_norm(x), (x,))
    A = rand(2, 3, 4, cplx=cplx)
    for ord in ("fro", "nuc", 2, -2, 1, np.inf):
        assert gradcheck(lambda A: L.matrix_norm(A, ord), (A,))
    assert gradcheck(lambda A: L.norm(A, dim=(0, 2)), (A,))
    assert gradcheck(L.cross, (rand(2, 3, cplx=cplx), rand(1, 3, cplx=cplx)))
    assert gradgradcheck(L.cross, (rand(3, cplx=cplx), rand(3, cplx=cplx)))


def test_matrix_exp_values_gradients_and_errors_as_pytorch():
    """PyTorch 2.13: linalg.matrix_exp([[1, 2], [3, 4]]) in float64, the rotation exp([[0, 1], [-1, 0]]), and its
    messages; the torch-level em.matrix_exp and Tensor.matrix_exp are the same function."""
    A = em.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=em.float64)
    np.testing.assert_allclose(em.linalg.matrix_exp(A).numpy(), [[51.96895619870503, 74.73656456700323],
                                                                   [112.10484685050488, 164.07380304920986]],
                               rtol=1e-14)
    rot = em.matrix_exp(em.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=em.float64))
    np.testing.assert_allclose(rot.numpy(), [[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]], rtol=1e-15)
    batch = em.randn(3, 4, 4, dtype=em.float64) * 3
    assert em.allclose(batch.matrix_exp()[1], em.linalg.matrix_exp(batch[1]))
    identity = em.eye(4, dtype=em.float64).expand(3, 4, 4)
    assert em.allclose(em.linalg.matrix_exp(batch) @ em.linalg.matrix_exp(-batch), identity)
    X = em.randn(3, 3, dtype=em.float64, requires_grad=True)
    assert gradcheck(em.linalg.matrix_exp, (X,))
    with pytest.raises(RuntimeError, match="^linalg.matrix_exp: The input tensor A must have at least 2 dimensions.$"):
        em.linalg.matrix_exp(em.zeros(3))
    with pytest.raises(RuntimeError, match="^linalg.matrix_exp: A must be batches of square matrices, but they are 2 "
                                           "by 3 matrices$"):
        em.linalg.matrix_exp(em.zeros(2, 3))


def test_complex_inf_norm_gradient_reaches_the_largest_element():
    """The forward's magnitudes and the backward's must be one computation (PyTorch's complex abs): with NumPy's abs
    in one and hypot in the other, a one-ulp difference left the maximum unmatched and the gradient all zero."""
    rng = np.random.default_rng(1)
    for _ in range(50):
        z = rng.standard_normal((4, 8)) + 1j * rng.standard_normal((4, 8))
        for dtype in (em.complex64, em.complex128):
            for norm in (lambda t: L.vector_norm(t, float("inf"), dim=1), lambda t: em.norm(t, p=float("inf"), dim=1)):
                x = em.tensor(z, dtype=dtype, requires_grad=True)
                norm(x).sum().backward()
                assert (x.grad.abs() > 0).sum(1).tolist() == [1, 1, 1, 1]
