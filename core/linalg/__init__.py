"""``ember.linalg``: linear algebra with PyTorch's ``torch.linalg`` API, batched and differentiable.

Every function accepts batches of matrices (``(*, m, n)``) and float32/float64/complex64/complex128 input. The
forwards are single NumPy LAPACK calls; the backward rules are written with ember ops (matmul, solve, ...), so most
of them differentiate again under ``create_graph=True``.

Gradient conventions follow PyTorch: for complex input the gradient of a real loss is ``dL/dRe + i dL/dIm``; the
gradients of ``cholesky`` and ``eigh`` are returned Hermitian (they only read one triangle of the input); the
gradients of ``svd`` and ``eigh`` are defined for distinct singular values / eigenvalues and for losses that do not
depend on the arbitrary phase (sign) of the singular vectors / eigenvectors.

A singular (or not positive-definite) input raises :class:`LinAlgError`, a ``RuntimeError``, with PyTorch's message,
which names the batch element when the input is batched.

The package is split by family: ``solvers`` (inv, solve, solve_triangular), ``least_squares`` (pinv, lstsq),
``determinants``, ``decompositions`` (cholesky, qr, eigh, svd), ``matrix_functions`` (matrix_power, matrix_rank,
multi_dot, vecdot, matmul, diagonal, cross) and ``norms``; ``_common`` holds the checks they share.
"""
from __future__ import annotations

from ..ops._linalg_table import LINALG
from ..ops._out import add_out_argument
from ._common import (CholeskyExResult, EighResult, InvExResult, LinAlgError, LstsqResult, QRResult,  # noqa: F401
                      SlogdetResult, SolveExResult, SVDResult)
from .decompositions import cholesky, cholesky_ex, eigh, eigvalsh, qr, svd, svdvals
from .determinants import det, slogdet
from .least_squares import lstsq, pinv
from .matrix_functions import cross, diagonal, matmul, matrix_exp, matrix_power, matrix_rank, multi_dot, vecdot
from .norms import matrix_norm, norm, vector_norm
from .solvers import inv, inv_ex, solve, solve_ex, solve_triangular

__all__ = ["LinAlgError", "inv", "inv_ex", "solve", "solve_ex", "solve_triangular", "det", "slogdet", "cholesky",
           "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "svdvals", "pinv", "lstsq", "matrix_power", "matrix_exp",
           "matrix_rank", "norm", "vector_norm", "matrix_norm", "cross", "multi_dot", "vecdot", "matmul",
           "diagonal"]

# PyTorch's linalg functions take ``out=`` (all but lstsq and diagonal); one helper gives them its rules.
add_out_argument(globals(), [n for n in __all__ if n not in ("LinAlgError", "lstsq", "diagonal")])

# The torch.* forms (em.inverse, em.det, Tensor.cholesky, em.norm(p="nuc"), ...) live with the ops, which must not
# import linalg: linalg registers the functions they call.
LINALG.register(globals(), ["inv", "det", "slogdet", "solve", "solve_triangular", "cholesky", "pinv", "matrix_power",
                            "matrix_exp",
                            "cross", "svd", "svdvals", "qr", "multi_dot", "matrix_norm"])
