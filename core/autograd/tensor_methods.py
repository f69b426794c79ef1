"""``Tensor.backward`` and ``Tensor.register_hook``: the tensor's autograd methods, bound here as ops bind theirs
(``tensor_method``), so ``tensor.py`` imports nothing from autograd."""
from __future__ import annotations

from ..tensor import tensor_method
from .engine import _execute, backward as _run_backward
from .graph import RemovableHandle

__all__ = []  # methods only


@tensor_method()
def register_hook(self, hook):
    """Register ``hook(grad) -> Tensor or None`` to run when this tensor's gradient is computed.

    Returns a handle whose ``remove()`` unregisters the hook.
    """
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._add_tensor_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = {}
    handle = RemovableHandle(self._hooks)
    self._hooks[handle.id] = hook
    return handle


@tensor_method()
def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor w.r.t. graph leaves into their ``.grad``.

    Args:
        gradient: the gradient w.r.t. this tensor; needed unless it holds a single element.
        retain_graph: keep saved tensors for another backward (defaults to ``create_graph``).
        create_graph: record the derivative graph for higher-order gradients.
        inputs: accumulate only into these tensors.
    """
    if gradient is None and inputs is None:
        # the common ``loss.backward()`` goes straight to the engine: autograd.backward would only wrap the arguments
        _execute((self,), None, create_graph if retain_graph is None else retain_graph, create_graph, None, True)
        return
    _run_backward(self, gradient, retain_graph, create_graph, inputs)
