"""``Parameter`` and ``Buffer``: tensors that a :class:`~ember.nn.Module` registers when assigned as attributes.

A ``Parameter`` is a leaf tensor that requires grad by default; assigning one to a module attribute adds it to
``module.parameters()``. Results of ops on a parameter are plain tensors (ops build results with ``Tensor._make``), so
only the leaf itself is a ``Parameter``.
"""
from __future__ import annotations

import numpy as np

from ..tensor import Tensor

__all__ = ["Parameter", "UninitializedParameter", "Buffer", "is_lazy"]


def _share_data(target: Tensor, data) -> None:
    """Initialise ``target`` so that it shares ``data``'s array (and version counter) without copying."""
    if data is None:
        from .. import dtypes as _dt
        arr = np.empty((0,), dtype=_dt.get_default_dtype().np)
        Tensor._init(target, arr)
        return
    if isinstance(data, Tensor):
        Tensor._init(target, data._data)
        target._version = data._ensure_version()
        return
    raise TypeError(f"Parameter data must be a Tensor (or None), got {type(data).__name__}. Wrap arrays with "
                    "ember.tensor(...) first.")


class Parameter(Tensor):
    """A tensor that is a module parameter.

    Assigning a ``Parameter`` as an attribute of a :class:`Module` registers it, so it appears in
    :meth:`Module.parameters` and in the ``state_dict``.

    Args:
        data (Tensor): the parameter's value; its storage is shared, not copied. ``None`` gives an empty tensor.
        requires_grad (bool): whether the parameter requires gradient. Default: ``True``.
    """

    def __new__(cls, data=None, requires_grad=True):
        self = object.__new__(cls)
        _share_data(self, data)
        if requires_grad:
            self.requires_grad_(True)
        return self

    def __init__(self, data=None, requires_grad=True):
        # all the work happens in __new__ (Tensor.__init__ has another signature)
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = type(self).__new__(type(self), Tensor._make(self._data.copy()), self._requires_grad)
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        if self.__dict__:
            import copy
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        memo[id(self)] = new
        return new

    def __reduce_ex__(self, protocol):
        # in-process copies and worker queues only; em.save never pickles
        return (_rebuild_parameter, (np.asarray(self), self._requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(Tensor._make(data), requires_grad)


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet (used by lazy modules). Call :meth:`materialize` to give it one.

    Any attempt to use its value before materialisation raises a ``RuntimeError``.
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        self = Parameter.__new__(cls, None, requires_grad)
        self.__dict__["_uninit_dtype"] = dtype
        return self

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Allocate an (uninitialised) array of ``shape`` and turn this object into a regular ``Parameter``."""
        from .. import dtypes as _dt
        dt = _dt.to_dtype(dtype or self.__dict__.get("_uninit_dtype") or _dt.get_default_dtype())
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self._data = np.empty(shape, dtype=dt.np)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    @property
    def shape(self):
        raise RuntimeError("Can't access the shape of an uninitialized parameter. This error usually happens in "
                           "`load_state_dict` when trying to load an uninitialized parameter into an initialized "
                           "one. Call `forward` to initialize the parameters before accessing their attributes.")


def is_lazy(param) -> bool:
    """True if ``param`` is an :class:`UninitializedParameter`."""
    return isinstance(param, UninitializedParameter)


class Buffer(Tensor):
    """A tensor that is a module buffer (state that is not a parameter, such as BatchNorm's running mean).

    Assigning a ``Buffer`` as a module attribute registers it with :meth:`Module.register_buffer`; the object
    registered is a plain tensor sharing the data.

    Args:
        data (Tensor): the buffer's value (shared, not copied).
        persistent (bool): whether the buffer is part of the module's ``state_dict``. Default: ``True``.
    """

    def __new__(cls, data=None, *, persistent=True):
        self = object.__new__(cls)
        _share_data(self, data)
        self.persistent = persistent
        return self

    def __init__(self, data=None, *, persistent=True):
        pass
