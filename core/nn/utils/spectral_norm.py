"""Spectral normalisation: divide a weight by its largest singular value, estimated by power iteration."""
from __future__ import annotations

from ...autograd.grad_mode import no_grad
from ...device import array_module
from ...ops._base import wrap
from ...random import _gen
from ..parameter import Parameter

__all__ = ["spectral_norm", "remove_spectral_norm", "SpectralNorm"]


def _normalize(a, eps):
    return a / max(float(array_module(a).linalg.norm(a)), eps)


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name> = <name>_orig / sigma``."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got n_power_iterations="
                             f"{n_power_iterations}")
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix with ``dim`` first and the other dims flattened."""
        w = weight
        if self.dim != 0:
            perm = [self.dim] + [d for d in range(w.ndim) if d != self.dim]
            w = w.permute(*perm)
        return w.reshape(w.shape[0], -1)

    def compute_weight(self, module, do_power_iteration: bool):
        """``<name>_orig / sigma``, refining ``u`` and ``v`` by power iteration first if asked."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            m = mat._data
            ud, vd = u._data, v._data
            for _ in range(self.n_power_iterations):
                vd[...] = _normalize(m.T @ ud, self.eps)
                ud[...] = _normalize(m @ vd, self.eps)
            u._bump_version()
            v._bump_version()
        # u and v are constants here: sigma = u^T W v differentiates w.r.t. the weight only
        uc, vc = wrap(u._data.copy()), wrap(v._data.copy())
        sigma = (uc * mat.matmul(vc)).sum()
        return weight / sigma

    def remove(self, module) -> None:
        """Replace the reparametrisation by a plain parameter holding the normalised weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name: str, n_power_iterations: int, dim: int, eps: float) -> "SpectralNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        mat = fn.reshape_weight_to_matrix(weight.detach())
        h, w = mat.shape
        dtype = weight._data.dtype
        xp = weight._xp  # the draws come from the ember generator on the host and move to the weight's device
        u = xp.asarray(_normalize(_gen(None).normal(0, 1, h), eps).astype(dtype))
        v = xp.asarray(_normalize(_gen(None).normal(0, 1, w), eps).astype(dtype))
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())  # a plain attribute, recomputed before every forward
        module.register_buffer(fn.name + "_u", wrap(u))
        module.register_buffer(fn.name + "_v", wrap(v))
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim=None):
    """Apply spectral normalisation to the parameter ``name`` of ``module``.

    The parameter moves to ``<name>_orig``; before every forward, ``<name> = <name>_orig / sigma`` with ``sigma``
    the largest singular value estimated by ``n_power_iterations`` power-iteration steps (run in training mode only;
    the vectors ``<name>_u`` and ``<name>_v`` are buffers).

    Args:
        dim (int, optional): the output dimension; 1 for ``ConvTranspose``, otherwise 0 (the default).
    """
    if dim is None:
        name_of = type(module).__name__
        dim = 1 if name_of.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name: str = "weight"):
    """Undo :func:`spectral_norm`: ``<name>`` becomes a plain parameter holding the normalised weight."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")
