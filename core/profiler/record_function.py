"""``record_function``: a named range in the profile, around a block or a function."""
from __future__ import annotations

import functools

from .recorder import _ACTIVE

__all__ = ["record_function"]


class record_function:
    """Mark a block (``with record_function("name"):``) or every call of a function (``@record_function("name")``)
    as a named range; the ops inside nest under it in the profile. Costs one check when no profiler records.

    Args:
        name: the range's name in the table and the trace.
        args: accepted for PyTorch compatibility (an extra string PyTorch attaches to the range).

    Example::

        with profile() as prof:
            with record_function("model_inference"):
                model(x)
    """

    def __init__(self, name: str, args=None):
        if not isinstance(name, str):
            raise TypeError(f"record_function(name={name!r}): the name must be a str")
        self.name = name
        self.args = args
        self._event = None
        self._recorder = None

    def __enter__(self):
        recorder = _ACTIVE[0]
        if recorder is not None:
            self._recorder = recorder
            self._event = recorder.begin(self.name, self.name, "user_annotation")
        return self

    def __exit__(self, *exc):
        if self._event is not None:
            self._recorder.end(self._event)
            self._event = self._recorder = None
        return False

    def __call__(self, fn):
        """Use as a decorator: every call of ``fn`` is a range named ``self.name``."""
        name = self.name

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(name):
                return fn(*args, **kwargs)
        return wrapped
