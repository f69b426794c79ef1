"""einsum, tensordot, kron and the top-level linear-algebra aliases (including the old gesv ``solve``)."""
import warnings

import numpy as np
import pytest

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck
from op_testing import npy, rand_from

RNG = np.random.default_rng(3)
rand = rand_from(RNG)


EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),                     # implicit output
    ("ii->i", [(3, 3)]),                             # diagonal
    ("ii", [(3, 3)]),                                # trace
    ("iij,j->i", [(3, 3, 2), (2,)]),                 # repeated label mixed with a contraction
    ("iji->j", [(2, 3, 2)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),     # ellipsis with broadcasting of the batch
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij->", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("i,i,i->", [(3,), (3,), (3,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 3), (2, 3)]),  # bilinear form, three operands
    ("ij,ij->ij", [(1, 3), (2, 3)]),                 # size-1 broadcasting of a labelled dim
    ("ij,jk->ik", [(2, 1), (3, 4)]),                 # ... even across a contraction
    ("...->...", [(2, 3)]),
    ("Ab,bA->A", [(2, 3), (3, 2)]),                  # upper-case labels
]


@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_matches_numpy(eq, shapes):
    ops = [rand(*s, grad=False) for s in shapes]
    np.testing.assert_allclose(npy(em.einsum(eq, *ops)), np.einsum(eq, *[npy(o) for o in ops]), atol=1e-12)


@pytest.mark.parametrize("eq,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
def test_einsum_gradcheck(eq, shapes, cplx):
    ops = tuple(rand(*s, cplx=cplx) for s in shapes)
    assert gradcheck(lambda *o: em.einsum(eq, *o), ops)


def test_einsum_second_order_and_mixed_real_complex():
    a, b = rand(2, 3), rand(3, 2, cplx=True)
    assert gradgradcheck(lambda a, b: em.einsum("ij,jk->ik", a, b), (a, b))
    assert gradgradcheck(lambda a: em.einsum("ii->i", a), (rand(3, 3),))
    out = em.einsum("ij,jk->ik", a, b)
    assert out.dtype == em.complex128
    assert gradcheck(lambda a, b: em.einsum("ij,jk->ik", a, b), (a, b))


def test_einsum_argument_forms():
    a, b = rand(2, 3, grad=False), rand(3, 4, grad=False)
    ref = npy(a) @ npy(b)
    np.testing.assert_allclose(npy(em.einsum("ij,jk->ik", [a, b])), ref)
    np.testing.assert_allclose(npy(em.einsum(a, [0, 1], b, [1, 2], [0, 2])), ref)
    np.testing.assert_allclose(npy(em.einsum(a, [Ellipsis, 1], b, [1, 2])), ref)
    np.testing.assert_allclose(npy(em.einsum(" i j , j k -> i k ", a, b)), ref)


def test_einsum_errors():
    a = rand(2, 3, grad=False)
    with pytest.raises(RuntimeError, match="more operands were provided than specified"):
        em.einsum("ij->i", a, a)
    with pytest.raises(RuntimeError, match="fewer operands were provided than specified"):
        em.einsum("ij,jk->ik", a)
    with pytest.raises(RuntimeError, match=r"invalid subscript given at index 1 in the equation string, subscripts "
                                           r"must be in \[a-zA-Z\]"):
        em.einsum("i1->i", a)
    with pytest.raises(RuntimeError, match=r"number of subscripts in the equation \(3\) does not match the number of "
                                           r"dimensions \(2\) for operand 0 and no ellipsis was given"):
        em.einsum("ijk->i", a)
    with pytest.raises(RuntimeError, match="output subscript k does not appear"):
        em.einsum("ij->k", a)
    with pytest.raises(RuntimeError, match="subscript j has size 3 and 2"):
        em.einsum("ij,jk->ik", a, a)


def test_tensordot_matches_numpy_and_differentiates():
    a, b = rand(2, 3, 4), rand(4, 3, 5)
    for dims in (([1, 2], [1, 0]), 1, ([2], [0])):
        ref = np.tensordot(npy(a), npy(b), axes=dims if not isinstance(dims, int) else dims)
        np.testing.assert_allclose(npy(em.tensordot(a, b, dims)), ref, atol=1e-12)
    np.testing.assert_allclose(npy(em.tensordot(rand(2, 3, grad=False), rand(2, 3, grad=False), 0)).shape,
                               (2, 3, 2, 3))
    assert gradcheck(lambda a, b: em.tensordot(a, b, ([1, 2], [1, 0])), (a, b))
    assert gradcheck(lambda a, b: em.tensordot(a, b, 2), (rand(2, 3, cplx=True), rand(2, 3, 2)))
    with pytest.raises(RuntimeError, match="contracted dimensions need to match"):
        em.tensordot(a, rand(3, 5), 1)


def test_kron_matches_numpy_and_differentiates():
    a, b = rand(2, 3), rand(3, 2)
    np.testing.assert_allclose(npy(em.kron(a, b)), np.kron(npy(a), npy(b)))
    c = rand(2, grad=False)
    np.testing.assert_allclose(npy(a.kron(c)), np.kron(npy(a), npy(c)))
    assert gradcheck(em.kron, (a, b)) and gradcheck(em.kron, (rand(2, 2, cplx=True), rand(3)))
    assert gradgradcheck(em.kron, (rand(2, 2), rand(2, 3)))


# ------------------------------------------------------------------------------------------------ top-level aliases
def test_old_solve_returns_the_solution_and_packed_lu():
    A = em.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=em.float64)
    B = em.tensor([[5.0], [6.0]], dtype=em.float64)
    with pytest.warns(UserWarning, match="deprecated in favor of ember.linalg.solve"):
        sol, LU = em.solve(B, A)
    np.testing.assert_allclose(sol.numpy(), [[-4.0], [4.5]])
    # partial pivoting picks row [3, 4] first: L = [[1, 0], [1/3, 1]], U = [[3, 4], [0, 2/3]]
    np.testing.assert_allclose(LU.numpy(), [[3.0, 4.0], [1 / 3, 2 / 3]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = rand(2, 2)
        assert gradcheck(lambda x, A: em.solve(x, A).solution, (x, rand(2, 2)))


def test_aliases_agree_with_linalg():
    A = rand(3, 3, grad=False)
    S = A @ A.mT + em.eye(3, dtype=em.float64)
    np.testing.assert_allclose(npy(em.inverse(A)), np.linalg.inv(npy(A)))
    np.testing.assert_allclose(npy(A.inverse()), np.linalg.inv(npy(A)))
    assert em.det(A).item() == pytest.approx(np.linalg.det(npy(A)))
    assert em.logdet(S).item() == pytest.approx(np.log(np.linalg.det(npy(S))))
    assert np.isnan(em.logdet(em.tensor([[0.0, 1.0], [1.0, 0.0]])).item())  # det = -1
    assert em.logdet(em.zeros(2, 2)).item() == -np.inf
    sign, logabs = em.slogdet(A)
    assert sign.item() * np.exp(logabs.item()) == pytest.approx(np.linalg.det(npy(A)))
    U = em.cholesky(S, upper=True)
    np.testing.assert_allclose(npy(U.mT @ U), npy(S), atol=1e-10)
    np.testing.assert_allclose(npy(em.matrix_power(A, 3)), np.linalg.matrix_power(npy(A), 3), atol=1e-10)
    Lc = em.linalg.cholesky(S)
    B = rand(3, 2, grad=False)
    np.testing.assert_allclose(npy(em.cholesky_solve(B, Lc)), np.linalg.solve(npy(S), npy(B)), atol=1e-10)
    np.testing.assert_allclose(npy(em.cholesky_solve(B, Lc.mT, upper=True)), np.linalg.solve(npy(S), npy(B)),
                               atol=1e-10)
    np.testing.assert_allclose(npy(em.cholesky_inverse(Lc)), np.linalg.inv(npy(S)), atol=1e-10)
    Q, R = em.qr(rand(4, 3, grad=False), some=False)
    assert Q.shape == (4, 4) and R.shape == (4, 3)
    np.testing.assert_allclose(npy(em.chain_matmul(A, A, A)), np.linalg.matrix_power(npy(A), 3), atol=1e-10)


def test_cross_default_dim_is_the_first_of_size_three():
    a, b = rand(3, 2, grad=False), rand(3, 2, grad=False)
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        out = em.cross(a, b)
    np.testing.assert_allclose(npy(out), np.cross(npy(a), npy(b), axis=0))
    np.testing.assert_allclose(npy(a.cross(b, dim=0)), np.cross(npy(a), npy(b), axis=0))


def test_gradcheck_aliases():
    A = rand(3, 3)
    assert gradcheck(em.inverse, (A,)) and gradcheck(em.det, (A,)) and gradcheck(em.pinverse, (rand(3, 2),))
    S = lambda A: A @ A.mT + em.eye(3, dtype=em.float64)  # noqa: E731
    assert gradcheck(lambda A: em.logdet(S(A)), (A,))
    assert gradcheck(lambda A, B: em.cholesky_solve(B, em.linalg.cholesky(S(A))), (A, rand(3, 2)))
    assert gradcheck(lambda A: em.cholesky_inverse(em.linalg.cholesky(S(A))), (A,))
    assert gradcheck(lambda z: em.logdet(z), (rand(2, 2, cplx=True),))
