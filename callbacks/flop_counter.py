"""Counting the floating-point operations of a forward pass, as ``torch.utils.flop_counter.FlopCounterMode`` does.

Only the ops that dominate the cost are counted, with PyTorch's formulas: matrix products (``matmul``, ``mm``,
``bmm``, ``linear``: 2 x m x n x k), convolutions (2 x output elements x weight elements per output channel),
transposed convolutions and scaled dot-product attention. Elementwise ops, norms and pooling count zero, as in
PyTorch. An op that calls another counted op (``linear`` around ``matmul``) is counted once, at the outermost call.
Counts are attributed to every module whose ``forward`` is running, so a block's count includes its layers'.
"""
from __future__ import annotations

import math
from typing import Dict, Iterable, List, Tuple

__all__ = ["FlopCounter", "op_flops"]


def _numel(shape) -> int:
    return int(math.prod(shape))


def op_flops(name: str, args, kwargs, result) -> int:
    """FLOPs of one call of op ``name`` (0 for ops that are not counted)."""
    if name in ("matmul", "mm", "bmm"):
        a = args[0]
        return 2 * _numel(result.shape) * int(a.shape[-1]) if a.ndim else 0
    if name == "linear":
        return 2 * _numel(result.shape) * int(args[0].shape[-1])
    if name in ("conv1d", "conv2d", "conv3d"):
        weight = args[1] if len(args) > 1 else kwargs["weight"]
        return 2 * _numel(result.shape) * _numel(weight.shape[1:])
    if name.startswith("conv_transpose"):
        x = args[0]
        weight = args[1] if len(args) > 1 else kwargs["weight"]
        batch = int(x.shape[0]) if x.ndim == weight.ndim else 1
        return 2 * batch * _numel(weight.shape) * _numel(x.shape[-(weight.ndim - 2):])
    if name == "scaled_dot_product_attention":
        q, k, v = args[0], args[1], args[2]
        batch = _numel(q.shape[:-2])
        length, source = int(q.shape[-2]), int(k.shape[-2])
        return 2 * batch * length * source * (int(q.shape[-1]) + int(v.shape[-1]))
    return 0


_COUNTED = ("matmul", "mm", "bmm", "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "scaled_dot_product_attention")


class FlopCounter:
    """Counts FLOPs per named module while a forward pass runs (``with FlopCounter(modules) as c: model(x)``).

    Args:
        modules: ``(name, module)`` pairs whose counts are wanted.

    After the block, ``c.total`` is the count of the whole pass and ``c.by_module[name]`` the count inside that
    module's ``forward``.
    """

    def __init__(self, modules: Iterable[Tuple[str, object]]) -> None:
        self.modules = list(modules)
        self.total = 0
        self.by_module: Dict[str, int] = {name: 0 for name, _ in self.modules}
        self._active: List[str] = []
        self._depth = 0
        self._handles: list = []
        self._observing = None

    # op observer (ember.core.observe)
    def enter(self, name, fn, args, kwargs):
        """Op observer: note the depth of counted ops (only the outermost one is counted)."""
        counted = name in _COUNTED
        self._depth += counted
        return (name, args, kwargs, counted, self._depth)

    def exit(self, token, result) -> None:
        """Op observer: count the FLOPs of an outermost counted op."""
        name, args, kwargs, counted, depth = token
        if not counted:
            return
        self._depth -= 1
        if depth != 1 or result is None:
            return
        self._add(op_flops(name, args, kwargs, result))

    def _add(self, flops: int) -> None:
        self.total += flops
        for active in set(self._active):
            self.by_module[active] += flops

    def __enter__(self) -> "FlopCounter":
        from ..core.observe import observe_ops
        for name, module in self.modules:
            self._handles.append(module.register_forward_pre_hook(lambda m, a, _n=name: self._active.append(_n)))
            self._handles.append(module.register_forward_hook(lambda m, a, o, _n=name: self._pop(_n)))
        self._observing = observe_ops(self)
        self._observing.__enter__()
        return self

    def _pop(self, name: str) -> None:
        if self._active and self._active[-1] == name:
            self._active.pop()
        elif name in self._active:
            self._active.remove(name)

    def __exit__(self, *exc) -> None:
        try:
            self._observing.__exit__(*exc)
        finally:
            for handle in self._handles:
                handle.remove()
            self._handles = []
            self._active = []
