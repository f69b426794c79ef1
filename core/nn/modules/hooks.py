"""Module hooks: the global forward/backward hook registries, their handles, and the machinery that wires a module
call's full backward hooks into the autograd graph through two identity nodes."""
from __future__ import annotations

from ...autograd.graph import Node, RemovableHandle, gradient_edge
from ...autograd.grad_mode import GRAD_ENABLED
from ...tensor import Tensor

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_hook", "register_module_full_backward_pre_hook"]

_global_forward_pre_hooks: dict = {}
_global_forward_hooks: dict = {}
_global_forward_hooks_always_called: dict = {}
_global_backward_hooks: dict = {}
_global_backward_pre_hooks: dict = {}


class _HookHandle(RemovableHandle):
    """A removable handle that also clears the hook's flags (``with_kwargs``, ``always_call``)."""

    __slots__ = ("_extra",)

    def __init__(self, container, extra=()):
        super().__init__(container)
        self._extra = extra

    def remove(self) -> None:
        self._container.pop(self._key, None)
        for d in self._extra:
            d.pop(self._key, None)


def _insert(container: dict, handle, hook, prepend: bool):
    if prepend:
        items = list(container.items())
        container.clear()
        container[handle.id] = hook
        container.update(items)
    else:
        container[handle.id] = hook


# ---------------------------------------------------------------------------------------------- backward hooks
class BackwardHookFunctionBackward(Node):
    """Identity node placed on a module's inputs or outputs to call its full backward (pre-)hooks."""

    __slots__ = ("n_outputs", "hook_state", "is_input")

    def apply(self, *grads):
        if self.is_input:
            return self.hook_state._on_input_grads(grads)
        return self.hook_state._on_output_grads(grads)


class _BackwardHook:
    """Wires a module call's full backward hooks into the graph through two identity nodes."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions = None   # positions (among tensor args) of the inputs that require grad
        self.input_node = None

    @staticmethod
    def _wrap(tensors, state, is_input):
        """Route the tensors that require grad through a fresh identity node; return the new tensors and positions."""
        positions = [i for i, t in enumerate(tensors) if t._requires_grad]
        if not positions or not GRAD_ENABLED[0]:
            return list(tensors), None
        node = BackwardHookFunctionBackward()
        node.hook_state, node.is_input, node.n_outputs = state, is_input, len(positions)
        srcs = [tensors[i] for i in positions]
        outs = []
        for t in srcs:
            o = Tensor._make(t._data)
            o._version = t._ensure_version()
            outs.append(o)
        node.next_functions = tuple(_edge(t) for t in srcs)
        for k, o in enumerate(outs):
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = k
        res = list(tensors)
        for k, i in enumerate(positions):
            res[i] = outs[k]
        if is_input:
            state.input_node = node
        return res, positions

    def setup_input_hook(self, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(idx)
        if not self.user_hooks:
            return args
        new, self.input_positions = self._wrap([args[i] for i in idx], self, True)
        args = list(args)
        for k, i in enumerate(idx):
            args[i] = new[k]
        return tuple(args)

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        items = list(result) if is_tuple else [result]
        idx = [i for i, a in enumerate(items) if isinstance(a, Tensor)]
        self.n_outputs = len(idx)
        self.output_index = idx
        new, self.output_positions = self._wrap([items[i] for i in idx], self, False)
        for k, i in enumerate(idx):
            items[i] = new[k]
        return tuple(items) if is_tuple else items[0]

    def _on_output_grads(self, grads):
        full = [None] * self.n_outputs
        for k, i in enumerate(self.output_positions):
            full[i] = grads[k]
        grad_output = tuple(full)
        for hook in self.user_pre_hooks:
            res = hook(self.module, grad_output)
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_output):
                    raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(res)}, but expected {len(grad_output)}")
                grad_output = res
        self.grad_outputs = grad_output
        if self.user_hooks and self.input_positions is None:
            grad_input = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_input, grad_output)
                if res is not None and not all(r is None for r in res):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
        return tuple(grad_output[i] for i in self.output_positions)

    def _on_input_grads(self, grads):
        full = [None] * self.n_inputs
        for k, i in enumerate(self.input_positions):
            full[i] = grads[k]
        grad_input = tuple(full)
        grad_output = self.grad_outputs if self.grad_outputs is not None else (None,) * getattr(self, "n_outputs", 0)
        for hook in self.user_hooks:
            res = hook(self.module, grad_input, grad_output)
            if res is not None:
                res = res if isinstance(res, tuple) else (res,)
                if len(res) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(res)}, but "
                                       f"expected {len(grad_input)}")
                grad_input = res
        return tuple(grad_input[i] for i in self.input_positions)


_edge = gradient_edge


# ------------------------------------------------------------------------------------------------ global hooks
def register_module_forward_pre_hook(hook):
    """Register ``hook(module, args)`` to run before the forward of every module."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, always_call: bool = False):
    """Register ``hook(module, args, output)`` to run after the forward of every module."""
    handle = _HookHandle(_global_forward_hooks, (_global_forward_hooks_always_called,))
    _global_forward_hooks[handle.id] = hook
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook):
    """Register ``hook(module, grad_output)`` for every module."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """Register ``hook(module, grad_input, grad_output)`` for every module."""
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle
