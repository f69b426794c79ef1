"""The ``out=`` argument: one helper gives every op that has it in PyTorch the same rules.

PyTorch's rules for ``op(..., out=t)``:

* the op computes as usual, then its result is copied into ``t``, and ``t`` is returned (for ops with several
  results, ``out`` is a tuple of tensors and the same named tuple comes back, holding them);
* the result's dtype must be castable to ``t``'s (no float into an integer ``t``, no complex into a real one,
  nothing but bool into a bool one), else RuntimeError;
* a ``t`` of the wrong shape is resized; if it held elements, a UserWarning says the resizing is deprecated
  (an empty ``t``, e.g. after ``t.resize_(0)``, is resized silently);
* ``out=`` does not record autograd: if grad mode is on and an argument requires grad, RuntimeError.

:func:`add_out_argument` wraps the public functions of a namespace (``em.add``, ``em.linalg.inv``, ...); the Tensor
methods keep their own, ``out``-free signatures, as in PyTorch.
"""
from __future__ import annotations

import functools
import warnings

from .. import dtypes as dt
from ..autograd.grad_mode import GRAD_ENABLED
from ..tensor import Tensor

__all__ = ["write_out", "with_out", "add_out_argument"]


def _castable(src, dst) -> bool:
    """PyTorch's ``can_cast`` for out= results: never down a category (complex > float > int > bool)."""
    return src.category <= dst.category


def _write_one(out, result, fn, warn_resize=True):
    if not isinstance(out, Tensor):
        raise TypeError(f"{fn}(): argument 'out' must be Tensor, not {type(out).__name__}")
    src, dst = dt.from_numpy_dtype(result._data.dtype), out.dtype
    if not _castable(src, dst):
        raise RuntimeError(f"result type {src.scalar_name} can't be cast to the desired output type "
                           f"{dst.scalar_name}")
    shape = result._data.shape
    if out._data.shape != shape:
        if out._data.size != 0 and warn_resize:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out._data.shape)}, which does not match the required output shape {list(shape)}. "
                          "This behavior is deprecated, and in a future PyTorch release outputs will not be resized "
                          "unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
                          "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=4)
        out.resize_(shape)
    out._data[...] = result._data
    out._bump_version()
    return out


def write_out(out, result, fn: str, warn_resize: bool = True):
    """Copy ``result`` (a tensor, or a tuple of tensors) into ``out`` by PyTorch's rules; returns what the op
    returns with ``out=``: ``out`` itself, or the result's tuple type holding the ``out`` tensors."""
    if isinstance(result, Tensor):
        return _write_one(out, result, fn, warn_resize)
    if not isinstance(out, (tuple, list)) or len(out) != len(result):
        raise TypeError(f"{fn}(): argument 'out' must be tuple of {len(result)} Tensors, not "
                        f"{type(out).__name__}")
    written = [_write_one(o, r, fn) for o, r in zip(out, result)]
    return type(result)(*written) if hasattr(result, "_fields") else type(result)(written)


def _requires_grad(values) -> bool:
    for v in values:
        if isinstance(v, Tensor):
            if v._requires_grad:
                return True
        elif isinstance(v, (tuple, list)) and _requires_grad(v):
            return True
    return False


def with_out(fn, name: str = None, factory: bool = False):
    """``fn`` with a keyword-only ``out=`` argument following PyTorch's rules (see the module docstring).

    A ``factory`` (``zeros``, ``arange``, ``randn``, ...) creates its result in ``out``'s dtype unless ``dtype`` is
    given, and resizes ``out`` without a warning, as PyTorch's factories do.
    """
    name = name or fn.__name__

    @functools.wraps(fn)
    def op(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs) if kwargs else fn(*args)
        if factory and kwargs.get("dtype") is None and isinstance(out, Tensor):
            kwargs["dtype"] = out.dtype
        if GRAD_ENABLED[0] and _requires_grad(args + tuple(kwargs.values()) + (out,)):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        prev, GRAD_ENABLED[0] = GRAD_ENABLED[0], False  # the result is only copied into out: no graph to build
        try:
            result = fn(*args, **kwargs)
        finally:
            GRAD_ENABLED[0] = prev
        return write_out(out, result, name, warn_resize=not factory)

    op.has_out_argument = True
    return op


def add_out_argument(namespace: dict, names, factories=()) -> None:
    """Replace each function ``namespace[name]`` by its :func:`with_out` version (once); ``factories`` are the
    names among them that create tensors from sizes (see :func:`with_out`)."""
    for name in names:
        fn = namespace[name]
        if not getattr(fn, "has_out_argument", False):
            namespace[name] = with_out(fn, name, factory=name in factories)
