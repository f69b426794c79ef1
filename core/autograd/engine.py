"""The backward engine: ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad``.

Nodes are ordered by an iterative depth-first search (reverse post-order is a topological order with every node
before the nodes it feeds), so a chain of 100,000 ops needs no recursion. Each node runs once, after all gradients
for its outputs have been summed in its buffer. Rules run with grad mode set to ``create_graph``: off, they are
plain array math; on, they record the graph of the derivative.
"""
from __future__ import annotations

import sys

from ..tensor import Tensor
from .graph import AccumulateGrad, gradient_edge
from .grad_mode import GRAD_ENABLED

__all__ = ["backward", "grad"]


def _as_tuple(x):
    """A tensor as a 1-tuple; any other iterable (a list, a generator such as ``model.parameters()``) as a tuple."""
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    if isinstance(x, (list, tuple)):
        return tuple(x)
    if not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


def _make_root_grads(outputs, grad_outputs, create_graph):
    grads = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            data = out._data
            if data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if data.dtype.kind != "f":
                raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            xp = out._xp  # the seed gradient lives where the output lives (on a device for device data)
            g = Tensor._make(xp.array(1, dtype=data.dtype) if data.ndim == 0 else xp.ones_like(data))
        else:
            if not isinstance(g, Tensor):
                raise TypeError(f"grad_outputs[{i}] must be a Tensor or None, got {type(g).__name__}")
            if g.shape != out.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                                   f"has a shape of {out.shape}.")
            if not create_graph:
                g = g.detach()
            if g._data.dtype != out._data.dtype:
                g = g.to(out.dtype)  # PyTorch casts a gradient to its tensor's dtype
        grads.append(g)
    return grads


def _topological_order(roots):
    # Iterative DFS: the stack holds the nodes being expanded with the iterator over their remaining edges. A node
    # without edges (a leaf's AccumulateGrad, about half of all nodes) is emitted at once instead of being pushed.
    seen = set()
    mark = seen.add
    post = []
    emit = post.append
    for root in roots:
        if root in seen:
            continue
        mark(root)
        stack = []
        node, edges = root, iter(root.next_functions)
        while True:
            for edge in edges:
                if edge is not None and edge[0] not in seen:
                    child = edge[0]
                    mark(child)
                    child_edges = child.next_functions
                    if child_edges:
                        stack.append((node, edges))
                        node, edges = child, iter(child_edges)
                        break
                    emit(child)
            else:
                emit(node)
                if not stack:
                    break
                node, edges = stack.pop()
    return post  # children before parents; reversed, it is the execution order


def _needed_nodes(post, target_nodes):
    """(reach, run): nodes whose gradient is needed (targets and nodes leading to them), and the subset that must
    run its backward rule (those with an edge into ``reach``). A target that leads to no other target is only
    captured, never run, so its saved tensors stay alive as in PyTorch."""
    reach, run = set(), set()
    for node in post:
        leads = any(e is not None and e[0] in reach for e in node.next_functions)
        if leads:
            run.add(node)
        if leads or node in target_nodes:
            reach.add(node)
    return reach, run


def _stealable(g) -> bool:
    # A fresh gradient that nobody else references can become .grad without a copy (as PyTorch's AccumulateGrad
    # "steals" it). The counts are: the engine's buffer, this frame's argument and getrefcount's own argument.
    return g.grad_fn is None and g._data.base is None and sys.getrefcount(g) <= 4 and \
        sys.getrefcount(g._data) <= 2


def _accumulate(var, g, create_graph):
    if g._data.dtype != var._data.dtype:
        g = g.to(var.dtype)
    if var._hooks:
        for hook in tuple(var._hooks.values()):
            res = hook(g)
            if res is not None:
                g = res
    old = var._grad
    if old is None:
        if create_graph:
            var._grad = g
        else:
            var._grad = g if _stealable(g) else g.detach().clone()
    elif create_graph or old.grad_fn is not None:
        var._grad = old + g
    else:
        old._data += g._data


def _run_post_hooks(node, grads, buf):
    """The node's post hooks, then (for a complex node) the real part of real inputs' gradients."""
    post_hooks = node._post_hooks
    if post_hooks:
        for hook in tuple(post_hooks.values()):
            res = hook(grads, buf)
            if res is not None:
                grads = res
    if node._real_inputs is not None:
        grads = tuple(g.real if flag and g is not None and g._data.dtype.kind == "c" else g
                      for g, flag in zip(grads, node._real_inputs))
    return grads


def _run_pre_hooks(node, buf):
    hooks = node._pre_hooks
    if hooks:
        for nr, per_output in hooks.items():
            if buf[nr] is None:
                continue
            for hook in tuple(per_output.values()):
                res = hook(buf[nr])
                if res is not None:
                    buf[nr] = res
    retained = node._retained
    if retained:
        for nr, ref in retained.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                g = buf[nr] if t._grad is None else t._grad + buf[nr]
                t._grad = g if g.grad_fn is None or GRAD_ENABLED[0] else g.detach()


# backward-node observers (profiler, anomaly mode), installed through ember.core.observe.observe_nodes
NODE_OBSERVERS: list = []


def _apply_observed(node, buf):
    observers = tuple(NODE_OBSERVERS)
    tokens = [obs.enter_node(node, buf) for obs in observers]
    grads = None
    try:
        grads = node.apply(*buf) if node.n_outputs > 1 else node.apply(buf[0])
        return grads
    finally:
        for obs, token in zip(reversed(observers), reversed(tokens)):
            obs.exit_node(token, node, grads)


def _execute(outputs, grad_outputs, retain_graph, create_graph, targets, accumulate):
    """Run backward from ``outputs``. ``targets`` maps edges to lists of result slots (for grad() and
    backward(inputs=)); a tensor passed twice as an input gets its gradient in both slots."""
    roots = []
    for i, out in enumerate(outputs):
        edge = gradient_edge(out)
        if edge is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append(edge)
    root_grads = _make_root_grads(outputs, grad_outputs, create_graph)
    post = _topological_order([e[0] for e in roots])
    needed, runnable = _needed_nodes(post, {e[0] for e in targets}) if targets is not None else (None, None)
    results = [None] * sum(len(v) for v in targets.values()) if targets is not None else None

    buffers = {}
    for (node, nr), g in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node.n_outputs
        buf[nr] = g if buf[nr] is None else buf[nr] + g

    take, find = buffers.pop, buffers.get
    prev = GRAD_ENABLED[0]
    GRAD_ENABLED[0] = bool(create_graph)
    try:
        for node in reversed(post):
            buf = take(node, None)
            if buf is None or (needed is not None and node not in needed):
                continue
            hooked = node._hooked  # hooks, retained outputs or real-input marks: rare, so one flag guards them
            if hooked:
                _run_pre_hooks(node, buf)
            if targets is not None:
                for nr, g in enumerate(buf):
                    slots = targets.get((node, nr))
                    if slots is not None and g is not None:
                        for slot in slots:
                            results[slot] = g
            if type(node) is AccumulateGrad:
                if accumulate and buf[0] is not None:
                    _accumulate(node.variable, buf[0], create_graph)
                continue
            if runnable is not None and node not in runnable:
                continue
            if NODE_OBSERVERS:
                grads = _apply_observed(node, buf)
            else:
                grads = node.apply(buf[0]) if len(buf) == 1 else node.apply(*buf)
            if hooked:
                grads = _run_post_hooks(node, grads, buf)
            if not retain_graph:
                node._release()
            for edge, g in zip(node.next_functions, grads):
                if edge is None or g is None:
                    continue
                nxt, nr = edge
                nbuf = find(nxt)
                if nbuf is None:
                    nbuf = buffers[nxt] = [None] * nxt.n_outputs
                    nbuf[nr] = g
                else:
                    cur = nbuf[nr]
                    nbuf[nr] = g if cur is None else cur + g
            # drop this frame's references, so a leaf can take a fresh gradient as .grad without a copy
            grads = g = cur = None
    finally:
        GRAD_ENABLED[0] = prev
    return results


def _targets(inputs):
    """Map each input's gradient edge to its result slots (an input passed twice gets both)."""
    targets = {}
    for i, t in enumerate(inputs):
        edge = gradient_edge(t)
        if edge is None:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
        targets.setdefault(edge, []).append(i)
    return targets


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Compute the sum of gradients of ``tensors`` w.r.t. graph leaves and accumulate them into ``.grad``.

    ``retain_graph`` defaults to ``create_graph``. With ``inputs``, only those tensors accumulate gradients.
    """
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors)
    if grad_tensors is not None and len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(grad_tensors)} tensors and {len(tensors)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    targets = None
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        targets = _targets(inputs)
    results = _execute(tensors, grad_tensors, retain_graph, create_graph, targets, accumulate=True)
    if inputs is not None:
        for t, g in zip(inputs, results):
            if t.grad_fn is not None and g is not None:  # non-leaf inputs accumulate too, as in PyTorch
                t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, materialize_grads=False):
    """Compute and return the gradients of ``outputs`` w.r.t. ``inputs`` without touching ``.grad``.

    Args:
        outputs: tensors of the differentiated function.
        inputs: tensors w.r.t. which the gradient is returned.
        grad_outputs: the vector in the vector-Jacobian product, one per output (None for scalars).
        retain_graph: keep the graph for another backward; defaults to ``create_graph``.
        create_graph: record the derivative's graph so higher-order gradients can be taken.
        allow_unused: return None for inputs that were not used instead of raising.
        materialize_grads: return zeros instead of None for unused inputs (implies ``allow_unused``).
    """
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs)
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grad_outputs)} grad_outputs and "
                           f"{len(outputs)} outputs")
    if retain_graph is None:
        retain_graph = create_graph
    results = _execute(outputs, grad_outputs, retain_graph, create_graph, _targets(inputs), accumulate=False)
    out = []
    for t, g in zip(inputs, results):
        if g is None:
            if materialize_grads:
                g = Tensor._make(t._xp.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in the graph. "
                                   "Set allow_unused=True if this is the desired behavior.")
        else:
            if not create_graph and g.grad_fn is not None:
                g = g.detach()
            if g._data.dtype != t._data.dtype:
                g = g.to(t.dtype)
        out.append(g)
    return tuple(out)
