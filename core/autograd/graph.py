"""Graph nodes: the backward half of every differentiable op.

A ``Node`` is created by an op's forward when grad mode is on and an input requires grad. It holds:

* ``next_functions``: one ``(node, output_nr)`` edge per differentiable input (``None`` for inputs that need no
  gradient), exactly like PyTorch's ``grad_fn.next_functions``;
* the tensors saved for backward, with their version numbers so in-place changes are caught;
* named attributes for whatever non-tensor data the rule needs (``node.shape_a``, ``node.dim``, ``node.alpha``).

Its ``apply(*grad_outputs)`` is the backward rule. Rules are written with ember ops, so running them with grad mode
on (``create_graph=True``) records the graph of the derivative and gives higher-order gradients.

Saved *outputs* are kept as raw data plus a version box and rebuilt on unpack with ``grad_fn`` pointing back at the
node, which avoids a tensor -> node -> tensor reference cycle (so graphs free by reference counting alone).
"""
from __future__ import annotations

import weakref

from ..tensor import Tensor
from .grad_mode import GRAD_ENABLED

__all__ = ["Node", "AccumulateGrad", "RemovableHandle", "ERR_BACKWARD_TWICE", "gradient_edge"]

ERR_BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward.")

_FREED = object()


class RemovableHandle:
    """Returned by ``register_*hook`` calls; ``remove()`` unregisters the hook."""

    __slots__ = ("_container", "_key")
    _next_id = [0]

    def __init__(self, container):
        self._container = container
        RemovableHandle._next_id[0] += 1
        self._key = RemovableHandle._next_id[0]

    @property
    def id(self) -> int:
        return self._key

    def remove(self) -> None:
        """Unregister the hook; removing twice is harmless."""
        self._container.pop(self._key, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class Node:
    """Base class of autograd graph nodes (``grad_fn``); subclasses implement ``apply(*grad_outputs)``."""

    # Only the edges are a slot; everything optional lives in the (lazily created) instance dict with a class-level
    # default, so reading an attribute a node never set costs no exception.
    __slots__ = ("next_functions", "__dict__", "__weakref__")
    n_outputs = 1
    _saved = None
    _versions = ()
    _ctx = None  # legacy positional context, still read by some nn.functional nodes; new nodes use named attributes
    _out = None
    _pre_hooks = None
    _retained = None
    _post_hooks = None
    _real_inputs = None  # for complex-output nodes: which inputs are real (their gradients keep the real part)
    # True once any of the four above is set: the engine checks this one flag per node instead of all four
    _hooked = False

    def name(self) -> str:
        """The node's type name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __call__(self, *grads):
        return self.apply(*grads)

    def apply(self, *grad_outputs):
        """The backward rule: map gradients w.r.t. the outputs to a tuple of gradients w.r.t. the inputs."""
        raise NotImplementedError(f"{self.name()} does not implement apply()")

    # -- saved tensors ---------------------------------------------------------------------------------------
    def save(self, *tensors) -> None:
        """Save input tensors (None allowed) for backward, remembering their versions to catch in-place changes."""
        self._saved = tensors
        versions = []  # a plain loop: a generator and a call per tensor are a measurable part of a one-element op
        for t in tensors:
            box = None if t is None else t._version
            versions.append(0 if box is None else box[0])
        self._versions = tuple(versions)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to :meth:`save`, checked against freeing and in-place modification."""
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        if saved is None:
            return ()
        for t, v in zip(saved, self._versions):
            if t is not None:
                box = t._version
                if (box[0] if box is not None else 0) != v:
                    _raise_modified(t, saved.index(t), self, v)
        return saved

    def save_output(self, out) -> None:
        """Save this node's own output without creating a reference cycle."""
        box = out._version
        if box is None:
            box = out._version = [0]
        self._out = (out._data, box, box[0], out._output_nr)

    def saved_output(self):
        """Rebuild the saved output; under ``create_graph`` it is connected to this node for higher order."""
        entry = self._out
        if entry is _FREED or entry is None:
            raise RuntimeError(ERR_BACKWARD_TWICE)
        data, box, version, nr = entry
        t = Tensor._make(data)
        if box[0] != version:
            _raise_modified(t, 0, self, version, box[0])
        t._version = box
        if GRAD_ENABLED[0]:
            t._requires_grad = True
            t.grad_fn = self
            t._output_nr = nr
        return t

    @property
    def metadata(self) -> dict:
        """A dict for user data attached to the node (as in PyTorch)."""
        meta = self.__dict__.get("_metadata")
        if meta is None:
            meta = self._metadata = {}
        return meta

    def _release(self) -> None:
        if self._saved is not None:
            self._saved = _FREED
        if self._out is not None:
            self._out = _FREED

    # -- hooks -----------------------------------------------------------------------------------------------
    def register_hook(self, fn) -> RemovableHandle:
        """Register ``fn(grad_inputs, grad_outputs)`` to run after this node's backward."""
        hooks = self._post_hooks
        if hooks is None:
            hooks = self._post_hooks = {}
            self._hooked = True
        handle = RemovableHandle(hooks)
        hooks[handle.id] = fn
        return handle

    def _add_tensor_hook(self, output_nr, fn) -> RemovableHandle:
        hooks = self._pre_hooks
        if hooks is None:
            hooks = self._pre_hooks = {}
            self._hooked = True
        per_output = hooks.setdefault(output_nr, {})
        handle = RemovableHandle(per_output)
        per_output[handle.id] = fn
        return handle

    def _retain_grad_of(self, tensor) -> None:
        retained = self._retained
        if retained is None:
            retained = self._retained = {}
            self._hooked = True
        retained[tensor._output_nr] = weakref.ref(tensor)


class AccumulateGrad(Node):
    """The node at a leaf tensor: runs the leaf's hooks and accumulates into ``.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()

    def apply(self, grad):  # accumulation is done by the engine, which knows whether to accumulate or capture
        return ()


def gradient_edge(t):
    """The ``(node, output_nr)`` that receives the gradient of ``t``, or None if ``t`` needs no gradient."""
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._requires_grad:
        acc = t._accum
        if acc is None:
            acc = t._accum = AccumulateGrad(t)
        return (acc, 0)
    return None


def _version_of(t) -> int:
    box = t._version
    return box[0] if box is not None else 0


def _raise_modified(t, index, node, expected, actual=None):
    actual = _version_of(t) if actual is None else actual
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{t.type()} {list(t.shape)}], which is output {index} of {node.name()}, is at version {actual}; "
        f"expected version {expected} instead. Hint: the backtrace further above shows the operation that failed "
        "to compute its gradient. The variable in question was changed in there or anywhere later. Good luck!")
