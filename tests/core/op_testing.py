"""The op-test helpers shared by tests/core, in teenygrad's style: each op is checked against a reference with
explicit tolerances, and its gradient against finite differences in float64.

    check_op(lambda a, b: a @ b, [(2, 3), (3, 4)], lambda a, b: a @ b, atol=1e-12)

builds float64 inputs of the given shapes, compares ``fn`` on ember tensors with ``reference`` on the NumPy arrays,
then runs ``gradcheck`` (and ``gradgradcheck`` with ``gradgrad=True``). The smaller pieces are there for tests that
need their own inputs: :func:`rand_from` (random tensors from a test file's own seeded generator), :func:`leaf`,
:func:`npy` and :func:`check_grads`.
"""
import numpy as np

import ember as em
from ember.core.autograd import gradcheck, gradgradcheck


def rand_from(rng):
    """``rand(*shape, cplx=False, grad=True)``: float64 (complex128 with ``cplx``) tensors drawn from ``rng``."""
    def rand(*shape, cplx=False, grad=True):
        a = rng.standard_normal(shape)
        if cplx:
            a = a + 1j * rng.standard_normal(shape)
        return em.tensor(a, requires_grad=grad)
    return rand


def leaf(*shape, seed=0, requires_grad=True):
    """A float64 leaf (requiring grad by default) of standard-normal values from a fresh generator seeded ``seed``."""
    rng = np.random.default_rng(seed)
    return em.tensor(rng.standard_normal(shape), dtype=em.float64, requires_grad=requires_grad)


def npy(t):
    """The tensor's values as a NumPy array (detached)."""
    return t.detach().numpy()


def check_grads(fn, *inputs):
    """First and second derivatives of ``fn`` at ``inputs`` agree with finite differences."""
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def check_op(fn, shapes, reference, atol=1e-6, rtol=1e-6, grad=True, gradgrad=False, cplx=False, seed=0):
    """Check ``fn`` on float64 inputs of ``shapes`` against ``reference`` on the same NumPy arrays.

    Args:
        fn: the ember op, called with one tensor per shape.
        shapes: the input shapes.
        reference: the same computation on NumPy arrays (None to skip the value check).
        atol, rtol: tolerances of the value check.
        grad: also check the gradient by finite differences (``gradcheck``).
        gradgrad: also check the second derivative (``gradgradcheck``).
        cplx: complex128 inputs instead of float64.
        seed: the seed of the inputs.

    Returns:
        the output of ``fn``.
    """
    rand = rand_from(np.random.default_rng(seed))
    inputs = [rand(*s, cplx=cplx, grad=grad) for s in shapes]
    out = fn(*inputs)
    if reference is not None:
        expected = reference(*[npy(t) for t in inputs])
        outs = out if isinstance(out, (tuple, list)) else (out,)
        exps = expected if isinstance(expected, (tuple, list)) else (expected,)
        assert len(outs) == len(exps)
        for o, e in zip(outs, exps):
            np.testing.assert_allclose(npy(o), e, atol=atol, rtol=rtol)
    if grad:
        assert gradcheck(fn, tuple(inputs))
        if gradgrad:
            assert gradgradcheck(fn, tuple(inputs))
    return out
