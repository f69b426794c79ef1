"""Custom differentiable ops: ``ember.autograd.Function`` with PyTorch's ``ctx`` API.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)
"""
from __future__ import annotations

from .graph import Node
from .grad_mode import GRAD_ENABLED

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` object of a custom Function: carries saved tensors and arbitrary attributes to backward."""

    def save_for_backward(self, *tensors) -> None:
        """Save tensors (or None) for backward; they are checked for in-place changes when unpacked."""
        self._node.save(*tensors)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors given to :meth:`save_for_backward`."""
        return self._node.saved_tensors

    def mark_non_differentiable(self, *tensors) -> None:
        """Mark outputs that should not require grad."""
        self._non_diff = {id(t) for t in tensors}

    def mark_dirty(self, *tensors) -> None:
        """Accepted for compatibility: ember's in-place handling does not need it."""

    def set_materialize_grads(self, value: bool) -> None:
        """If True (the default), None output gradients reach backward as zeros."""
        self.materialize_grads = value


class BackwardCFunction(Node):
    """The graph node of a custom Function call; named ``<ClassName>Backward``."""

    __slots__ = ("ctx", "fn_cls", "n_outputs", "_out_meta")

    def name(self) -> str:
        return self.fn_cls.__name__ + "Backward"

    def apply(self, *grads):
        from ..ops.creation import zeros
        if getattr(self.ctx, "materialize_grads", True):
            grads = tuple(zeros(shape, dtype=dtype) if g is None else g
                          for g, (shape, dtype) in zip(grads, self._out_meta))
        res = self.fn_cls.backward(self.ctx, *grads)
        if not isinstance(res, tuple):
            res = (res,)
        n_in = len(self.next_functions)
        if len(res) < n_in:
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected {n_in}, "
                               f"got {len(res)})")
        return tuple(res[:n_in]) if len(res) > n_in and all(r is None for r in res[n_in:]) else tuple(res)


class _FunctionMeta(type):
    def __repr__(cls):
        return f"<class '{cls.__module__}.{cls.__qualname__}'>"


class Function(metaclass=_FunctionMeta):
    """Base class for custom autograd ops: implement static ``forward(ctx, ...)`` and ``backward(ctx, *grads)``.

    Call the op through ``MyFunction.apply(*args)``. ``ctx.needs_input_grad`` tells backward which inputs need a
    gradient; backward returns one gradient (or None) per forward argument.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        """The op's computation, given ember tensors; runs with grad mode off."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients w.r.t. each forward input, given gradients w.r.t. each output."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from ..tensor import Tensor
        from .graph import gradient_edge
        ctx = FunctionCtx()
        node = BackwardCFunction()
        node.ctx, node.fn_cls = ctx, cls
        ctx._node = node
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = False
        try:
            outputs = cls.forward(ctx, *args, **kwargs)
        finally:
            GRAD_ENABLED[0] = prev
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        if prev and any(ctx.needs_input_grad):
            node.next_functions = tuple(gradient_edge(a) if isinstance(a, Tensor) else None for a in args)
            node.n_outputs = len(outs)
            node._out_meta = tuple((o.shape, o.dtype) if isinstance(o, Tensor) else ((), None) for o in outs)
            non_diff = getattr(ctx, "_non_diff", set())
            fixed = []
            for i, o in enumerate(outs):
                if isinstance(o, Tensor) and id(o) not in non_diff and o._data.dtype.kind in "fc":
                    if o.grad_fn is not None or any(o is a for a in args):
                        o = Tensor._make(o._data)  # a fresh output object owned by this node
                    o._requires_grad = True
                    o.grad_fn = node
                    o._output_nr = i
                fixed.append(o)
            outs = tuple(fixed)
        return outs if is_tuple else outs[0]


def once_differentiable(fn):
    """Decorator for ``backward``: runs it with grad mode off, so no graph of the derivative is recorded."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = False
        try:
            return fn(ctx, *args)
        finally:
            GRAD_ENABLED[0] = prev
    return wrapper
