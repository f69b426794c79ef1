"""Shared machinery for op modules: wrapping, recording nodes, promotion, broadcasting and in-place updates.

The pattern every op follows (see ``arithmetic.py``)::

    def exp(input):
        out = wrap(input._xp.exp(input._data))
        if GRAD_ENABLED[0] and input._requires_grad:
            node = ExpBackward0()
            node.save_output(out)
            record(node, out, input)
        return out

    class ExpBackward0(Node):
        __slots__ = ()
        def apply(self, grad):
            return (grad * self.saved_output(),)

Backward rules use ember ops, so they differentiate again under ``create_graph=True``.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dtypes as dt
from ..autograd.graph import Node, gradient_edge
from ..autograd.grad_mode import GRAD_ENABLED
from ..tensor import Tensor, _normalize_dim, tensor_method

__all__ = ["wrap", "record", "tensor_method", "binary_arrays", "sum_to", "normalize_dim", "normalize_dims",
           "check_tensor", "apply_inplace", "check_writable", "GRAD_ENABLED", "Tensor", "broadcast_error",
           "as_tensor_arg"]

wrap = Tensor._make


def _edge(t):
    # inlined gradient_edge: the hot path of every recorded op
    if t is None:
        return None
    fn = t.grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if t._requires_grad:
        acc = t._accum  # a leaf's AccumulateGrad, created once by gradient_edge and then reused
        return (acc, 0) if acc is not None else gradient_edge(t)
    return None


def record(node, out, *inputs):
    """Connect ``out`` to ``node``, whose inputs are ``inputs`` (None entries for non-tensor arguments)."""
    if len(inputs) == 1:
        node.next_functions = (_edge(inputs[0]),)
    elif len(inputs) == 2:
        node.next_functions = (_edge(inputs[0]), _edge(inputs[1]))
    else:
        node.next_functions = tuple(_edge(t) for t in inputs)
    if out._data.dtype.kind == "c":
        _mark_real_inputs(node, inputs)
    out._requires_grad = True
    out.grad_fn = node
    return out


def _mark_real_inputs(node, inputs) -> None:
    """A complex result of real inputs: the engine keeps only the real part of those inputs' gradients, as PyTorch
    does, so a real tensor never receives a complex gradient."""
    flags = tuple(t is not None and t._data.dtype.kind != "c" for t in inputs)
    if any(flags):
        node._real_inputs = flags
        node._hooked = True


def record_multi(node, outs, *inputs):
    """Like :func:`record` for a node with several outputs; only floating outputs are connected."""
    node.next_functions = tuple(None if t is None else gradient_edge(t) for t in inputs)
    if any(o._data.dtype.kind == "c" for o in outs):
        _mark_real_inputs(node, inputs)
    for i, o in enumerate(outs):
        if o._data.dtype.kind in "fc":
            o._requires_grad = True
            o.grad_fn = node
            o._output_nr = i
    return outs


def check_tensor(value, name: str, fn: str) -> Tensor:
    """Raise PyTorch's TypeError unless ``value`` is a Tensor."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' must be Tensor, not {type(value).__name__}")
    return value


def as_tensor_arg(value, like: Tensor) -> Tensor:
    """Turn a Python number or array into a tensor with ``like``'s dtype promotion (used for tensor-or-scalar args)."""
    if isinstance(value, Tensor):
        return value
    rt = dt.result_type(like, value)
    return wrap(like._xp.asarray(value, dtype=rt.np))


def broadcast_error(shape_a, shape_b):
    """PyTorch's broadcasting error for two shapes (a RuntimeError naming the first mismatching dimension)."""
    n = max(len(shape_a), len(shape_b))
    pa = (1,) * (n - len(shape_a)) + tuple(shape_a)
    pb = (1,) * (n - len(shape_b)) + tuple(shape_b)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) at "
                                f"non-singleton dimension {i}")
    return RuntimeError(f"shapes {list(shape_a)} and {list(shape_b)} cannot be broadcast together")


def _device_error(a, b):
    from ..device import device_of
    return RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                        f"{device_of(a)} and {device_of(b)}!")


def binary_arrays(input, other):
    """The arrays of a binary op's operands, cast to PyTorch's result dtype. ``other`` may be a Python number.

    A Python scalar is returned as is when NumPy's weak-scalar rule already gives PyTorch's dtype, which keeps the
    common ``tensor * 0.5`` path free of conversions.
    """
    a = input._data
    if isinstance(other, Tensor):
        b = other._data
        if a.dtype is b.dtype and type(a) is type(b):
            return a, b
        if type(a) is not type(b):
            raise _device_error(a, b)
        rt = dt.result_type(input, other).np
        return (a if a.dtype == rt else a.astype(rt)), (b if b.dtype == rt else b.astype(rt))
    tp = type(other)
    kind = a.dtype.kind
    if (tp is float and kind in "fc") or (tp is int and kind in "iufc"):
        return a, other
    if isinstance(other, np.ndarray):
        return binary_arrays(input, wrap(other))
    if not isinstance(other, numbers.Number):
        raise TypeError(f"unsupported operand type: expected a Tensor or a number, got {type(other).__name__}")
    rt = dt.result_type(input, other).np
    return (a if a.dtype == rt else a.astype(rt)), rt.type(other)


def normalize_dim(dim, ndim: int) -> int:
    """Map a possibly negative ``dim`` into ``[0, ndim)``, raising PyTorch's IndexError when out of range."""
    return _normalize_dim(dim, ndim)


def normalize_dims(dim, ndim: int):
    """Normalise an int or a sequence of ints into a sorted tuple of non-negative dims (None means all)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (_normalize_dim(dim, ndim),)
    dims = tuple(_normalize_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {list(dim)} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def sum_to(grad: Tensor, shape) -> Tensor:
    """Sum ``grad`` down to ``shape``: the one place gradients of broadcast inputs are reduced."""
    gshape = grad._data.shape
    if gshape == shape:  # the common case, checked before normalising ``shape`` (a list never equals a tuple)
        return grad
    shape = tuple(shape)
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1)
    out = grad.sum(axes) if axes else grad
    return out.reshape(shape) if out._data.shape != shape else out


def check_writable(t: Tensor) -> None:
    """Raise PyTorch's error before an in-place write into memory shared by several elements (an ``expand()``ed
    tensor: NumPy marks such views read-only), or into a read-only array."""
    data = t._data
    if data.flags.writeable:
        return
    if any(st == 0 and n > 1 for st, n in zip(data.strides, data.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    raise RuntimeError("this tensor's memory is read-only (it views a read-only NumPy array); clone() it before "
                       "writing to it in place")


def apply_inplace(self: Tensor, compute, *args, **kwargs) -> Tensor:
    """Run an in-place op: ``compute(self_value, *args)`` is the out-of-place op giving the new value.

    Without autograd the result is written into ``self``'s existing array (so views and NumPy arrays sharing its
    memory see it). With autograd the graph is rebased: ``self`` takes the result's ``grad_fn``, and the op saw a
    copy of the old value, so tensors it saved cannot be changed by the write.
    """
    if not self._data.flags.writeable:
        check_writable(self)
    tracking = GRAD_ENABLED[0] and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if tracking and self.grad_fn is None and self._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if tracking and self._base is not None and (self._base[0]._requires_grad or self._requires_grad or
                                                any(isinstance(a, Tensor) and a._requires_grad for a in args)):
        return _inplace_on_view(self, compute, args, kwargs)
    if tracking:
        old = wrap(self._data.copy())
        old._requires_grad = self._requires_grad
        old.grad_fn, old._output_nr, old._accum = self.grad_fn, self._output_nr, self._accum
        res = compute(old, *args, **kwargs)
    else:
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = False
        try:
            res = compute(self, *args, **kwargs)
        finally:
            GRAD_ENABLED[0] = prev
    data = res._data
    if data.shape != self._data.shape:
        raise RuntimeError(f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                           f"{list(data.shape)}")
    if data.dtype != self._data.dtype:
        if not np.can_cast(data.dtype, self._data.dtype, casting="same_kind"):
            raise RuntimeError(f"result type {dt.from_numpy_dtype(data.dtype).scalar_name} can't be cast to the "
                               f"desired output type {self.dtype.scalar_name}")
    if data is not self._data:
        self._data[...] = data
    self._bump_version()
    if tracking and res.grad_fn is not None:
        self.grad_fn, self._output_nr, self._requires_grad = res.grad_fn, res._output_nr, True
    return self


class CopySlices(Node):
    """The root's node after an in-place op on one of its views: the view region takes the op's gradient, the rest
    of the root passes the gradient through to the root's previous value."""

    __slots__ = ()

    def apply(self, grad):
        replay, root_shape = self.replay, self.root_shape
        g_root = None
        if self.next_functions[0] is not None:
            mask = grad._xp.ones(root_shape, dtype=grad._data.dtype)
            replay(wrap(mask))._data[...] = 0
            g_root = grad * wrap(mask)
        g_view = replay(grad) if self.next_functions[1] is not None else None
        return g_root, g_view


def _inplace_on_view(view: Tensor, compute, args, kwargs) -> Tensor:
    """In-place op on a view under autograd: compute on the view of the root's old value, write the result through
    the view, and give the root a CopySlices node (PyTorch's rebase of the base's history)."""
    root, replay = view._base
    if replay is None:
        raise RuntimeError("an in-place operation on this view (e.g. an expand()) is not supported under autograd; "
                           "use the out-of-place op, or clone() the view first")
    if root.grad_fn is None and root._requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    old_root = wrap(root._data.copy())
    old_root._requires_grad = root._requires_grad
    old_root.grad_fn, old_root._output_nr, old_root._accum = root.grad_fn, root._output_nr, root._accum
    result = compute(replay(old_root), *args, **kwargs)
    if result._data.shape != view._data.shape:
        raise RuntimeError(f"output with shape {list(view._data.shape)} doesn't match the broadcast shape "
                           f"{list(result._data.shape)}")
    view._data[...] = result._data
    node = CopySlices()
    node.replay, node.root_shape = replay, root._data.shape
    record(node, root, old_root, result)
    root._output_nr = 0
    root._bump_version()
    rebased = replay(root)
    view.grad_fn, view._output_nr, view._requires_grad = rebased.grad_fn, rebased._output_nr, True
    return view
