"""``ember.utils.checkpoint``: activation checkpointing, as ``torch.utils.checkpoint``.

``checkpoint(fn, *args)`` runs ``fn`` and keeps only its inputs and outputs: the activations inside ``fn`` are freed
as soon as it returns, and backward runs ``fn`` again (with the same random state, so dropout masks repeat) to get
them back. Gradients are the same as without checkpointing; the price is one more forward of ``fn``.

How it works here: the forward runs with grad mode on, so the graph of ``fn`` tells which tensors its result
depends on: the inputs and the leaves ``fn`` reaches by itself (a module's parameters). Then that graph and its
saved activations are dropped, and the outputs are connected to one ``CheckpointBackward`` node whose edges lead
to those inputs and leaves. Its backward recomputes ``fn`` and returns the gradients for all of them, so
``loss.backward()`` and ``ember.autograd.grad(loss, model.parameters())`` both work. The peak memory is that of the
checkpoint boundaries plus one segment's activations.
"""
from __future__ import annotations

import warnings
from typing import Any, Iterable

from ..core.autograd.engine import grad as _grad
from ..core.autograd.graph import AccumulateGrad, Node
from ..core.autograd.grad_mode import GRAD_ENABLED, enable_grad
from ..core.ops._base import record_multi
from ..core.random import get_rng_state, set_rng_state
from ..core.tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


def _detached(args):
    """Fresh leaves with the inputs' data (and ``requires_grad``), so the recomputed graph stops at them."""
    out = []
    for a in args:
        if isinstance(a, Tensor):
            d = a.detach()
            d.requires_grad_(a.requires_grad)
            out.append(d)
        else:
            out.append(a)
    return out


def _leaves_reached(outputs, own_inputs) -> list:
    """The leaf tensors requiring grad that ``outputs`` depend on, other than ``own_inputs`` (by identity)."""
    own = {id(t) for t in own_inputs if isinstance(t, Tensor)}
    found, seen = [], set()
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                found.append(node.variable)
            continue
        for edge in node.next_functions:
            if edge is not None:
                stack.append(edge[0])
    return found


def _default_reentrant() -> bool:
    """PyTorch's default variant (reentrant), with its warning that the choice should be explicit."""
    warnings.warn("ember.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                  "use_reentrant=False is recommended; use_reentrant=True keeps PyTorch's current default.",
                  UserWarning, stacklevel=3)
    return True


def _as_tuple(result):
    return (result, False) if isinstance(result, tuple) else ((result,), True)


class CheckpointBackward(Node):
    """Recomputes the checkpointed function and returns the gradients of its inputs and of the leaves it used."""

    def apply(self, *grad_outputs):
        fn, kwargs, rng_state, others, leaves, metas = self._ctx
        n_inputs = len(others)
        saved = self.saved_tensors  # tensor arguments (None in the places of the other arguments, kept in others)
        inputs = [t if t is not None else o for t, o in zip(saved, others)]
        if not GRAD_ENABLED[0]:
            inputs = _detached(inputs)  # first order: the recomputed graph stops at fresh leaves
        # (under create_graph the recomputation uses the inputs themselves, so the gradients it returns stay
        # connected to the outer graph and can be differentiated again)
        current = get_rng_state() if rng_state is not None else None
        try:
            if rng_state is not None:
                set_rng_state(rng_state)  # the same dropout masks as in the forward
            with enable_grad():
                outputs, _ = _as_tuple(fn(*inputs, **kwargs))
        finally:
            if current is not None:
                set_rng_state(current)
        tensors = [o for o in outputs if isinstance(o, Tensor)]
        redo = [(tuple(o.shape), o.dtype) for o in tensors]
        if redo != metas:
            raise RuntimeError(f"ember.utils.checkpoint: the recomputed outputs {redo} differ from the forward's "
                               f"{metas}: the checkpointed function must compute the same thing both times")
        pairs = [(o, g) for o, g in zip(tensors, grad_outputs) if g is not None and o.requires_grad]
        wanted = [t for t in inputs[:n_inputs] if isinstance(t, Tensor) and t.requires_grad]
        targets = wanted + list(leaves)
        if not pairs or not targets:
            return (None,) * len(self.next_functions)
        # retain_graph: a tensor fn closed over that is not a leaf leads into the outer graph, which the outer
        # backward still has to run
        found = _grad([o for o, _ in pairs], targets, [g for _, g in pairs], retain_graph=True,
                      create_graph=GRAD_ENABLED[0], allow_unused=True)
        it = iter(found[:len(wanted)])
        per_input = [next(it) if isinstance(t, Tensor) and t.requires_grad else None for t in inputs[:n_inputs]]
        return tuple(per_input) + tuple(found[len(wanted):])


def checkpoint(function, *args, use_reentrant: bool = None, context_fn=None, determinism_check: str = "default",
               debug: bool = False, preserve_rng_state: bool = True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its activations; backward recomputes them.

    Args:
        function: the segment to checkpoint (a module or any function of tensors).
        *args: its inputs.
        use_reentrant (bool): PyTorch's two variants. ``True`` (PyTorch's default, with a warning when not given)
            gives no gradients when no input requires grad and takes no keyword arguments; ``False`` (recommended)
            has neither restriction. Both give the same gradients otherwise.
        preserve_rng_state (bool): replay the random state in the recomputation, so dropout repeats exactly.
        context_fn, determinism_check, debug: accepted for compatibility (the output shapes and dtypes are always
            checked against the recomputation).
        **kwargs: keyword arguments for ``function`` (``use_reentrant=False`` only).

    Returns:
        What ``function`` returns.

    Example::

        >>> out = checkpoint(block, x, use_reentrant=False)   # block's activations are recomputed in backward
    """
    if use_reentrant is None:
        use_reentrant = _default_reentrant()
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs)
                         + " (use_reentrant=True takes positional arguments only; pass use_reentrant=False)")
    if not GRAD_ENABLED[0]:
        return function(*args, **kwargs)
    if use_reentrant and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", UserWarning,
                      stacklevel=2)
        from ..core.autograd.grad_mode import no_grad
        with no_grad():
            return function(*args)
    rng_state = get_rng_state() if preserve_rng_state else None
    inputs = _detached(args)
    result = function(*inputs, **kwargs)
    outputs, single = _as_tuple(result)
    tensors = [o for o in outputs if isinstance(o, Tensor)]
    if not any(t.requires_grad for t in tensors):
        return result
    leaves = _leaves_reached(tensors, inputs)
    fresh = [Tensor._make(t._data) for t in tensors]  # the outputs' values, cut from fn's graph (freed here)
    node = CheckpointBackward()
    node.n_outputs = len(fresh)
    node.save(*[a if isinstance(a, Tensor) else None for a in args])
    others = [None if isinstance(a, Tensor) else a for a in args]
    node._ctx = (function, kwargs, rng_state, others, leaves, [(tuple(t.shape), t.dtype) for t in tensors])
    record_multi(node, fresh, *[a if isinstance(a, Tensor) else None for a in args], *leaves)
    for t, f in zip(tensors, fresh):
        if not t.requires_grad:  # e.g. an output fn detached: it stays without a gradient
            f._requires_grad, f.grad_fn = False, None
    it = iter(fresh)
    out = tuple(next(it) if isinstance(o, Tensor) else o for o in outputs)
    return out[0] if single else out


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool = None, **kwargs):
    """Run a ``Sequential`` (or a list of modules) in ``segments`` chunks, checkpointing all but the last."""
    if isinstance(functions, Iterable) and not hasattr(functions, "children"):
        functions = list(functions)
    else:
        functions = list(functions.children())
    if not 1 <= segments <= max(len(functions), 1):
        raise ValueError(f"checkpoint_sequential(segments={segments}): expected 1 to {len(functions)} segments "
                         f"for {len(functions)} functions")
    if use_reentrant is None:
        use_reentrant = _default_reentrant()

    def run(start: int, end: int):
        def forward(x: Any):
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=kwargs.get("preserve_rng_state", True))
    return run(end + 1, len(functions) - 1)(input)
