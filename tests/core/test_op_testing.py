"""The shared op-test helper (op_testing.check_op) on the ops that moved files in issue 20, and its own failures."""
import numpy as np
import pytest

import ember as em
from op_testing import check_op


@pytest.mark.parametrize("fn, shapes, reference", [
    (lambda a: em.diagonal(a, 1), [(3, 4)], lambda a: np.diagonal(a, 1)),
    (lambda a: em.diag_embed(a), [(2, 3)], lambda a: np.stack([np.diag(r) for r in a])),
    (em.trace, [(3, 3)], np.trace),
    (lambda a, b: em.meshgrid(a, b, indexing="xy"), [(3,), (2,)], lambda a, b: np.meshgrid(a, b, indexing="xy")),
    (lambda a, b: em.cartesian_prod(a, b), [(3,), (2,)],
     lambda a, b: np.array([[x, y] for x in a for y in b])),
    (em.matmul, [(2, 3, 4), (4, 5)], np.matmul),
    (em.outer, [(3,), (4,)], np.outer),
    (lambda m, a, b: em.addmm(m, a, b, beta=0.5, alpha=2), [(2, 4), (2, 3), (3, 4)],
     lambda m, a, b: 0.5 * m + 2 * a @ b),
])
def test_moved_ops_match_numpy_and_finite_differences(fn, shapes, reference):
    check_op(fn, shapes, reference, atol=1e-12, gradgrad=True)


def test_complex_inputs():
    check_op(em.vdot, [(4,), (4,)], np.vdot, atol=1e-12, cplx=True)


def test_check_op_fails_on_a_wrong_reference():
    with pytest.raises(AssertionError):
        check_op(em.trace, [(3, 3)], lambda a: np.trace(a) + 1e-3, atol=1e-6)


def test_check_op_fails_on_a_wrong_gradient():
    class Doubled(em.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * 2  # wrong on purpose

    with pytest.raises((AssertionError, em.autograd.GradcheckError)):
        check_op(Doubled.apply, [(3,)], lambda a: a)
