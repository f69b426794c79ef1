"""``PL_TRAINER_<FLAG>`` environment variables as Trainer defaults, as Lightning's ``_defaults_from_env_vars``.

``PL_TRAINER_MAX_EPOCHS=3 python train.py`` makes ``Trainer()`` use ``max_epochs=3``; an argument given in code still
wins. The value is read as a Python literal (``3``, ``0.5``, ``True``, ``'cpu'``, ``[0, 1]``) and kept as the string
it is when it is not one (``PL_TRAINER_ACCELERATOR=cpu``). A subclass reads its own name: ``PL_MYTRAINER_...``.
"""
from __future__ import annotations

import functools
import inspect
import os
from ast import literal_eval
from typing import Any, Callable, Dict

__all__ = ["defaults_from_env_vars", "parse_env_variables"]


def parse_env_variables(cls: type, template: str = "PL_%(cls_name)s_%(cls_argument)s") -> Dict[str, Any]:
    """``{flag: value}`` for every ``__init__`` parameter of ``cls`` whose environment variable is set and not
    empty."""
    out: Dict[str, Any] = {}
    for name in inspect.signature(cls.__init__).parameters:
        if name == "self":
            continue
        var = template % {"cls_name": cls.__name__.upper(), "cls_argument": name.upper()}
        raw = os.environ.get(var)
        if raw is None or raw == "":
            continue
        try:
            out[name] = literal_eval(raw)
        except (ValueError, SyntaxError):
            out[name] = raw
    return out


def defaults_from_env_vars(init: Callable) -> Callable:
    """Decorate ``__init__`` so that ``PL_<CLASS>_<ARG>`` variables fill in the arguments not given."""

    @functools.wraps(init)
    def insert_env_defaults(self, *args: Any, **kwargs: Any) -> None:
        if args:  # positional arguments become keywords, so that they win over the environment
            names = [n for n in inspect.signature(init).parameters if n != "self"]
            kwargs.update(zip(names, args))
        kwargs = {**parse_env_variables(type(self)), **kwargs}
        return init(self, **kwargs)

    return insert_env_defaults
