"""Ready-made parametrizations built on :func:`~ember.nn.utils.parametrize.register_parametrization`:
orthogonal matrices, weight normalisation and spectral normalisation.

These are the current PyTorch forms; ``ember.nn.utils.weight_norm`` / ``spectral_norm`` are the older hook-based
versions, kept for code that uses them.
"""
from __future__ import annotations

from enum import Enum, auto

from ...autograd.grad_mode import no_grad
from ...linalg import matrix_exp, qr, solve
from ...ops.creation import eye, randn, zeros_like
from ...ops.products import mv, vdot
from ...ops.shape import cat
from ...tensor import Tensor
from ...type_info import finfo
from .. import functional as F
from ..modules.conv import _ConvTransposeNd
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ------------------------------------------------------------------------------------------------- orthogonal
def _householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``k`` columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^H``, with ``v_i`` column ``i`` of ``A``
    below the diagonal and 1 on it (``torch.linalg.householder_product``), composed of ember ops."""
    n, k = A.shape[-2], A.shape[-1]
    V = A.tril(-1) + eye(n, k, dtype=A.dtype, device=A.device)
    Q = eye(n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], n, n)
    for i in range(k):
        v = V[..., :, i:i + 1]
        Q = Q - ((Q @ v) * tau[..., i:i + 1].unsqueeze(-1)) @ v.mH
    return Q[..., :, :k]


def _householder_reflectors(Q: Tensor) -> Tensor:
    """The original that ``householder`` maps to ``Q`` (tall): the reflectors of LAPACK's ``geqrf`` of ``Q`` with
    the signs of ``diag(R)`` on the diagonal.

    The forward recomputes each ``tau`` as ``2 / ||v||^2``, so a reflector LAPACK skipped (``tau == 0``, ``v = e_i``)
    comes back as a sign flip of column ``i``; its diagonal sign is flipped here to cancel it.
    """
    xp = Q._xp
    h, tau = xp.linalg.qr(Q._data, mode="raw")  # geqrf; LAPACK hands the reflectors back transposed
    A = h.swapaxes(-1, -2).astype(Q._data.dtype)
    k = A.shape[-1]
    idx = xp.arange(k)
    signs = xp.sign(A[..., idx, idx]) * xp.where(tau == 0, -1, 1)
    A[..., idx, idx] = signs
    return Tensor._make(A)


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.shape[-2], Q.shape[-1]
    Id = eye(k, dtype=Q.dtype, device=Q.device)
    return bool((Q.mH @ Q).allclose(Id, atol=10.0 * n * finfo(Q.dtype).eps))


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of ``A = QR`` (A tall) normalised so that ``diag(R)`` is non-negative, which makes it unique."""
    Q, R = qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix to one with orthonormal columns (rows, if wide), through the matrix
    exponential or the Cayley map of a skew-symmetric matrix, or through a product of Householder reflectors.

    With ``use_trivialization`` the result is multiplied by a stored orthogonal ``base`` (the point the
    parametrization is centred on), which assignment resets.
    """

    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        # a complex reflector cannot be recovered from its stored part alone, so complex needs the other maps
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        """The orthogonal matrix (or batch of them) that ``X`` parametrizes."""
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:  # work with a tall matrix; the wide case is its transpose
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # the lower triangle (n*k - k(k-1)/2 numbers) determines a skew-symmetric n x n matrix
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:  # the Cayley map (I - A/2)^{-1} (I + A/2)
                Id = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # the diagonal of X holds the signs +-1; cast to int so it is neither differentiated nor updated
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """An original that the forward maps to ``Q`` (orthogonalised first if it is not orthogonal)."""
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q: Tensor) -> Tensor:
        # with a base, the base becomes (the orthogonalisation of) Q and the original the point mapped to I
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A = _householder_reflectors(Q)
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # complete the columns to a square orthogonal matrix
            N = randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(cat([Q, N], dim=-1))
        self.base = Q
        # -I maps to the identity under all three maps (householder(0) with tau = 2 is -I, times the -1 signs)
        return zeros_like(Q_init) - eye(Q_init.shape[-2], Q_init.shape[-1], dtype=Q.dtype, device=Q.device)


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    r"""Apply an orthogonal (or unitary) parametrization to a matrix or a batch of matrices.

    The parametrized matrix :math:`Q \in \mathbb{K}^{m \times n}` satisfies :math:`Q^H Q = I_n` if
    :math:`m \geq n` and :math:`Q Q^H = I_m` otherwise: orthonormal columns for a tall matrix, orthonormal rows
    for a wide one. A tensor with more than two dimensions is a batch of matrices.

    ``orthogonal_map`` chooses how the original tensor becomes ``Q``:

    - ``"matrix_exp"`` / ``"cayley"``: the matrix exponential or the Cayley map
      :math:`(I + A/2)(I - A/2)^{-1}` of a skew-symmetric :math:`A` built from the original.
    - ``"householder"``: a product of Householder reflectors.

    With ``use_trivialization=True`` (the default, the "dynamic trivialization" of
    https://arxiv.org/abs/1909.09501) an extra orthogonal matrix is kept in
    ``module.parametrizations.<name>[0].base`` and ``Q = base @ map(original)``.

    Initial value: when the tensor is not parametrized yet and ``use_trivialization=True`` (or
    ``orthogonal_map="householder"``), ``Q`` starts as the tensor itself if it is orthogonal and as the Q factor of
    its QR decomposition otherwise; else it starts as the parametrization of the tensor.

    Args:
        module (nn.Module): the module holding the tensor.
        name (str, optional): the tensor's name. Default: ``"weight"``.
        orthogonal_map (str, optional): ``"matrix_exp"``, ``"cayley"`` or ``"householder"``. Default:
            ``"matrix_exp"`` for square or complex matrices, ``"householder"`` otherwise.
        use_trivialization (bool, optional): use the dynamic trivialization framework. Default: ``True``.

    Returns:
        The module, with the parametrization registered.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    # vectors would be maps onto the sphere, which PyTorch leaves out on purpose
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ------------------------------------------------------------------------------------------------ weight norm
class _WeightNorm(Module):
    """``w = g * v / ||v||``, the norm taken over every dimension except ``dim`` (all of them if ``dim`` is None)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        # -1 is norm_except_dim's code for "every dimension" (not the last one), as in PyTorch
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        """The weight from its magnitude ``weight_g`` and direction ``weight_v``."""
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        """Split ``weight`` into ``(g, v)``: its norm (kept dims of size 1) and itself."""
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    r"""Apply weight normalisation to a parameter of a module.

    .. math:: \mathbf{w} = g \dfrac{\mathbf{v}}{\|\mathbf{v}\|}

    The magnitude ``g`` and the direction ``v`` become ``module.parametrizations.<name>.original0`` and
    ``original1``. With ``dim=0`` (the default) the norm is taken per output channel; ``dim=None`` takes it over
    the whole tensor. State dicts saved by the older :func:`ember.nn.utils.weight_norm` (keys ``<name>_g`` and
    ``<name>_v``) still load. See https://arxiv.org/abs/1602.07868.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.parametrizations.weight.original0.size()
        ember.Size([40, 1])
        >>> m.parametrizations.weight.original1.size()
        ember.Size([40, 20])

    Args:
        module (Module): the module holding the parameter.
        name (str, optional): the parameter's name. Default: ``"weight"``.
        dim (int, optional): the dimension kept out of the norm. Default: ``0``.

    Returns:
        The module, with the parametrization registered.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _load_old_keys(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_load_old_keys)
    return module


# ---------------------------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """``W / sigma(W)``, with ``sigma`` the largest singular value estimated by power iteration.

    The singular-vector estimates ``_u`` and ``_v`` are buffers, refined by ``n_power_iterations`` steps at every
    evaluation in training mode (after 15 steps at construction).
    """

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:  # a vector is normalised exactly, no estimate needed
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from good estimates rather than random vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        # output dimension first, everything else flattened: a conv kernel becomes (out, in * k...)
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # _u and _v are updated in place (copy_), so module replicas sharing the buffers see the refinement
        with no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(mv(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(mv(weight_mat.mH, self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        """The weight divided by its estimated spectral norm (a vector is divided by its norm)."""
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: a later in-place refinement must not invalidate this graph (e.g. D(real) - D(fake) in a GAN)
        u, v = self._u.clone(), self._v.clone()
        sigma = vdot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        """The identity: an assigned weight is stored as given."""
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    r"""Apply spectral normalisation to a parameter of a module.

    .. math:: \mathbf{W}_{SN} = \dfrac{\mathbf{W}}{\sigma(\mathbf{W})}, \quad
        \sigma(\mathbf{W}) = \max_{\mathbf{h} \ne 0} \dfrac{\|\mathbf{W} \mathbf{h}\|_2}{\|\mathbf{h}\|_2}

    ``sigma`` is estimated by the power method: the singular vectors are estimated at registration and refined by
    ``n_power_iterations`` steps every time the weight is read in training mode (none in eval mode). A weight with
    more than two dimensions is reshaped to a matrix with ``dim`` first; a vector is divided by its norm. Stabilises
    GAN discriminators by bounding their Lipschitz constant (https://arxiv.org/abs/1802.05957).

    Args:
        module (nn.Module): the module holding the parameter.
        name (str, optional): the parameter's name. Default: ``"weight"``.
        n_power_iterations (int, optional): power-iteration steps per evaluation. Default: ``1``.
        eps (float, optional): lower bound of the norms, for numerical stability. Default: ``1e-12``.
        dim (int, optional): the output dimension. Default: ``0``, or ``1`` for ``ConvTranspose{1,2,3}d``.

    Returns:
        The module, with the parametrization registered.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        # a transposed convolution stores its kernel as (in, out, ...); the shared base covers every ConvTransposeNd
        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
