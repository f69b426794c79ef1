"""``default_collate`` and ``default_convert``: how a DataLoader turns fetched samples into a batch.

``default_collate`` follows PyTorch's rules, recursing into containers:

============================  =========================================================
element type                  batch
============================  =========================================================
Tensor                        ``stack`` along a new first dimension
NumPy array                   a stacked tensor (string/object arrays are rejected)
NumPy scalar                  a 1-D tensor of its dtype
int / bool                    a 1-D int64 / bool tensor (``ember.tensor(batch)``)
float                         a 1-D float64 tensor
str / bytes                   the list of strings, unchanged
Mapping                       the same mapping type, each key collated
namedtuple                    the same namedtuple type, each field collated
tuple                         a list, each position collated
other Sequence                the same type (a list if it cannot be rebuilt), each position collated
============================  =========================================================

When a batch cannot be collated, the error names the element that broke it, e.g.
``default_collate: could not collate element 3 of the batch at ['image']: stack expects each tensor to be equal
size, but got [3] at entry 0 and [4] at entry 3``.
"""
from __future__ import annotations

import collections.abc
import copy
import numbers
import re

import numpy as np

from .. import dtypes as dt
from ..autograd.grad_mode import GRAD_ENABLED
from ..tensor import Tensor
from .dataset import _BatchedSamples

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map",
           "default_collate_err_msg_format"]

default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                                  "lists; found {}")


def _unsupported(found):
    return default_collate_err_msg_format.format(found)[len("default_collate: "):]


_NP_STR_OR_OBJECT = re.compile(r"[SaUO]")
_wrap = Tensor._make


class _CollateError(Exception):
    """Internal: a collate failure at ``index`` of the batch, with the path inside the sample."""

    def __init__(self, exc_type, index, detail, path=""):
        super().__init__(detail)
        self.exc_type, self.index, self.detail, self.path = exc_type, index, detail, path

    def at(self, key):
        self.path = f"[{key!r}]" + self.path
        return self

    def message(self):
        where = f" at {self.path}" if self.path else ""
        return f"default_collate: could not collate element {self.index} of the batch{where}: {self.detail}"


def _first(batch, bad):
    """Index of the first element for which ``bad(element)`` holds."""
    return next(i for i, e in enumerate(batch) if bad(e))


def _stack(batch):
    """Stack tensors along a new first dimension. Tensors that need no graph are stacked on their arrays."""
    if GRAD_ENABLED[0] and any(t._requires_grad for t in batch):
        from .. import ops
        return ops.stack(batch, 0)
    arrays = [t._data for t in batch]
    first = arrays[0].dtype
    if any(a.dtype != first for a in arrays):
        # ember's promotion (not NumPy's), as torch.stack promotes
        target = dt.from_numpy_dtype(first)
        for a in arrays:
            target = dt.promote_types(target, dt.from_numpy_dtype(a.dtype))
        arrays = [a.astype(target.np, copy=False) for a in arrays]
    return _wrap(batch[0]._xp.stack(arrays))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack a batch of tensors."""
    shape = batch[0].shape
    if any(not isinstance(t, Tensor) for t in batch):
        i = _first(batch, lambda t: not isinstance(t, Tensor))
        raise _CollateError(TypeError, i, f"expected a Tensor like element 0, got {type(batch[i]).__name__}")
    if any(t._data.shape != batch[0]._data.shape for t in batch):
        i = _first(batch, lambda t: t._data.shape != batch[0]._data.shape)
        raise _CollateError(RuntimeError, i, f"stack expects each tensor to be equal size, but got {list(shape)} "
                                             f"at entry 0 and {list(batch[i].shape)} at entry {i}")
    return _stack(batch)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """Stack a batch of NumPy arrays into a tensor."""
    elem = batch[0]
    if _NP_STR_OR_OBJECT.search(elem.dtype.str) is not None:
        raise _CollateError(TypeError, 0, _unsupported(elem.dtype))
    if any(not isinstance(a, np.ndarray) or a.shape != elem.shape for a in batch):
        i = _first(batch, lambda a: not isinstance(a, np.ndarray) or a.shape != elem.shape)
        got = f"shape {list(batch[i].shape)}" if isinstance(batch[i], np.ndarray) else type(batch[i]).__name__
        raise _CollateError(RuntimeError, i, f"expected an array of shape {list(elem.shape)} like element 0, got "
                                             f"{got}")
    return collate_tensor_fn([_wrap(a) for a in batch])


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """A batch of NumPy scalars as a 1-D tensor of their dtype."""
    if any(not isinstance(x, (np.generic, numbers.Number)) for x in batch):
        i = _first(batch, lambda x: not isinstance(x, (np.generic, numbers.Number)))
        raise _CollateError(TypeError, i, f"expected a number like element 0, got {type(batch[i]).__name__}")
    return _wrap(np.asarray(batch))


def _check_numbers(batch):
    if any(not isinstance(x, numbers.Number) or isinstance(x, complex) for x in batch):
        i = _first(batch, lambda x: not isinstance(x, numbers.Number) or isinstance(x, complex))
        raise _CollateError(TypeError, i, f"expected a real number like element 0, got {type(batch[i]).__name__}")


def collate_int_fn(batch, *, collate_fn_map=None):
    """A batch of Python ints (or bools) as an int64 (bool) tensor."""
    _check_numbers(batch)
    from ..ops.creation import tensor
    return tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    """A batch of Python floats as a float64 tensor (as PyTorch does)."""
    _check_numbers(batch)
    from ..ops.creation import tensor
    return tensor(batch, dtype=dt.float64)


def collate_str_fn(batch, *, collate_fn_map=None):
    """A batch of strings stays the list of strings."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map=None):
    """Collate a batch with the per-type functions of ``collate_fn_map`` (type -> ``fn(batch, *, collate_fn_map)``).

    Containers (mappings, namedtuples, sequences) recurse into their items. This is the engine behind
    :func:`default_collate`; pass a modified copy of :data:`default_collate_fn_map` to handle custom types.
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _collate_mapping(batch, collate_fn_map)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        _check_lengths(batch)
        fields = []
        for name, samples in zip(elem._fields, zip(*batch)):
            fields.append(_collate_at(samples, collate_fn_map, name))
        return elem_type(*fields)
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)):
        return _collate_sequence(batch, collate_fn_map)
    raise _CollateError(TypeError, 0, _unsupported(elem_type))


def _collate_at(samples, collate_fn_map, key):
    try:
        return collate(samples, collate_fn_map=collate_fn_map)
    except _CollateError as e:
        raise e.at(key) from None


def _check_lengths(batch):
    elem = batch[0]
    for i, e in enumerate(batch):
        if not isinstance(e, type(elem)) and not (isinstance(e, collections.abc.Sequence) and
                                                  isinstance(elem, collections.abc.Sequence)):
            raise _CollateError(TypeError, i, f"expected a {type(elem).__name__} like element 0, got "
                                              f"{type(e).__name__}")
        if len(e) != len(elem):
            raise _CollateError(RuntimeError, i, f"each element in list of batch should be of equal size (element "
                                                 f"0 has {len(elem)} items, element {i} has {len(e)})")


def _collate_mapping(batch, collate_fn_map):
    elem = batch[0]
    for i, d in enumerate(batch):
        if not isinstance(d, collections.abc.Mapping):
            raise _CollateError(TypeError, i, f"expected a mapping like element 0, got {type(d).__name__}")
        missing = [k for k in elem if k not in d]
        if missing:
            raise _CollateError(KeyError, i, f"missing key {missing[0]!r} that element 0 has")
    collated = {key: _collate_at([d[key] for d in batch], collate_fn_map, key) for key in elem}
    if isinstance(elem, collections.abc.MutableMapping):
        # a shallow copy keeps the mapping's type and extra attributes (OrderedDict, defaultdict, ...)
        clone = copy.copy(elem)
        clone.update(collated)
        return clone
    try:
        return type(elem)(collated)
    except TypeError:  # the mapping type cannot be built from a dict
        return collated


def _collate_sequence(batch, collate_fn_map):
    _check_lengths(batch)
    elem = batch[0]
    transposed = list(zip(*batch))
    items = [_collate_at(samples, collate_fn_map, i) for i, samples in enumerate(transposed)]
    if isinstance(elem, tuple):
        return items  # PyTorch returns a list for tuples (backwards compatibility)
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:  # the sequence type cannot be rebuilt from a list
        return items


def default_collate(batch):
    """Merge a list of samples into a batch: tensors are stacked, numbers become tensors, containers recurse.

    See the table in this module's docstring. A batch fetched by a dataset's ``__getitems__`` that is already
    stacked (:class:`~ember.data.TensorDataset`) is returned without re-stacking.

    Examples::

        >>> default_collate([0, 1, 2, 3])
        tensor([0, 1, 2, 3])
        >>> default_collate(['a', 'b', 'c'])
        ['a', 'b', 'c']
        >>> default_collate([{'A': 0, 'B': 1}, {'A': 100, 'B': 100}])
        {'A': tensor([  0, 100]), 'B': tensor([  1, 100])}
        >>> default_collate([(1, 'a'), (2, 'b')])
        [tensor([1, 2]), ('a', 'b')]
    """
    if type(batch) is _BatchedSamples:
        return batch.collate()
    if isinstance(batch, (str, bytes)) or not hasattr(batch, "__len__") or not hasattr(batch, "__getitem__"):
        raise TypeError(f"default_collate: batch must be a sequence of samples, got {type(batch).__name__}")
    if len(batch) == 0:
        raise ValueError("default_collate: the batch is empty")
    try:
        return collate(batch, collate_fn_map=default_collate_fn_map)
    except _CollateError as e:
        raise e.exc_type(e.message()) from None


def default_convert(data):
    """Convert NumPy arrays and scalars inside ``data`` to tensors, keeping every container's structure.

    This is the ``collate_fn`` when automatic batching is off (``batch_size=None``). Tensors are returned as they
    are, and string or object arrays are left alone.

    Examples::

        >>> default_convert(np.array([0, 1]))
        tensor([0, 1])
        >>> default_convert([np.array([0, 1]), np.array([2, 3])])
        [tensor([0, 1]), tensor([2, 3])]
    """
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        if isinstance(data, np.ndarray) and _NP_STR_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return _wrap(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        if isinstance(data, collections.abc.MutableMapping):
            clone = copy.copy(data)
            clone.update(converted)
            return clone
        try:
            return elem_type(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        items = [default_convert(d) for d in data]
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(items):
                    clone[i] = d
                return clone
            return elem_type(items)
        except TypeError:
            return items
    return data
