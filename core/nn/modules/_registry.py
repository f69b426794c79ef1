"""The parameter/buffer/module registries of ``Module``: dicts that mirror their entries into the owner's
``__dict__``, so ``self.weight`` is a plain attribute lookup (see ``module.py``)."""
from __future__ import annotations

__all__ = []  # private to ember.nn.modules


class _Registry(dict):
    """A parameter/buffer/module registry that mirrors its entries into the owning module's ``__dict__``."""

    __slots__ = ("_owner",)

    def _mirror(self):
        try:
            return self._owner.__dict__
        except AttributeError:  # not yet bound (during unpickling); Module.__setstate__ re-syncs
            return None

    def __setitem__(self, key, value):
        dict.__setitem__(self, key, value)
        d = self._mirror()
        if d is not None:
            d[key] = value

    def __delitem__(self, key):
        dict.__delitem__(self, key)
        d = self._mirror()
        if d is not None:
            d.pop(key, None)

    _MISSING = object()

    def pop(self, key, default=_MISSING):
        if key in self:
            value = dict.pop(self, key)
            d = self._mirror()
            if d is not None:
                d.pop(key, None)
            return value
        if default is _Registry._MISSING:
            raise KeyError(key)
        return default

    def popitem(self):
        key, value = dict.popitem(self)
        d = self._mirror()
        if d is not None:
            d.pop(key, None)
        return key, value

    def clear(self):
        d = self._mirror()
        if d is not None:
            for key in self:
                d.pop(key, None)
        dict.clear(self)

    def update(self, *args, **kwargs):
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other):
        self.update(other)
        return self

    def __reduce__(self):
        # the owner link is restored by Module.__setstate__
        return (_Registry, (), None, None, iter(list(self.items())))

    def _bind(self, owner):
        self._owner = owner
        d = owner.__dict__
        for key, value in self.items():
            d[key] = value
