"""Weight normalisation: reparametrise ``w = g * v / ||v||`` with the norm taken over all dims except ``dim``."""
from __future__ import annotations

from ..parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm", "WeightNorm"]


def norm_except_dim(v, pow: float = 2, dim: int = 0):
    """The ``pow``-norm of ``v`` over every dim except ``dim`` (kept with size 1), or over all dims if dim=-1."""
    if dim == -1:
        return (v.abs() ** pow).sum() ** (1.0 / pow)
    dim = dim % v.ndim
    dims = tuple(d for d in range(v.ndim) if d != dim)
    if not dims:
        return v.abs()
    return (v.abs() ** pow).sum(dims, keepdim=True) ** (1.0 / pow) if pow != 2 else \
        (v * v).sum(dims, keepdim=True).sqrt()


def _weight_norm(v, g, dim):
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name: str, dim: int):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """``g * v / ||v||`` from the module's current ``<name>_g`` and ``<name>_v``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name: str, dim: int) -> "WeightNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if not isinstance(weight, Parameter):
            raise ValueError(f"weight_norm: '{name}' of {type(module).__name__} is not a Parameter")
        del module._parameters[name]
        g = norm_except_dim(weight.detach(), 2, dim)
        module.register_parameter(name + "_g", Parameter(g.detach().clone()))
        module.register_parameter(name + "_v", Parameter(weight.detach().clone()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module) -> None:
        """Replace ``<name>_g``/``<name>_v`` by a plain parameter ``<name>`` holding the current weight."""
        weight = self.compute_weight(module).detach()
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.clone()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name: str = "weight", dim: int = 0):
    """Apply weight normalisation to the parameter ``name`` of ``module``.

    The parameter is replaced by ``<name>_g`` (magnitude) and ``<name>_v`` (direction); before every forward
    ``<name> = <name>_g * <name>_v / ||<name>_v||`` is recomputed. ``dim=None`` normalises over the whole tensor.

    Returns:
        The module, with the hook registered.
    """
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name: str = "weight"):
    """Undo :func:`weight_norm`: ``<name>`` becomes a plain parameter again."""
    for k, hook in list(module._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
