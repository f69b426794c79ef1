"""Checking config values against type hints, and naming types the way a user reads them.

``check(value, annotation, resolver)`` returns the value (ints become floats where a float is expected, lists become
tuples where a tuple is expected, ``{class_path: ...}`` mappings become validated class specs) or raises
:class:`TypeMismatch`, whose ``expected`` says in words what was allowed ("int or null", "list of Callback").
"""
from __future__ import annotations

import collections.abc as cabc
import enum
import inspect
import numbers
import os
import pathlib
import types
import typing
from datetime import timedelta
from typing import Any

__all__ = ["TypeMismatch", "check", "describe", "show_value", "is_class_type"]

_EMPTY = inspect.Parameter.empty
_NONE = type(None)
_UNION_TYPES = (typing.Union, getattr(types, "UnionType", typing.Union))
_SEQUENCES = (list, tuple, set, frozenset, cabc.Sequence, cabc.Iterable, cabc.Collection, cabc.MutableSequence)
_MAPPINGS = (dict, cabc.Mapping, cabc.MutableMapping)


class TypeMismatch(Exception):
    """``value`` does not match the annotation described by ``expected``."""

    def __init__(self, expected: str, value: Any, detail: str = "") -> None:
        self.expected = expected
        self.value = value
        self.detail = detail
        super().__init__(f"expected {expected}, got {show_value(value)}{detail}")


def show_value(value: Any) -> str:
    """A short, YAML-flavoured rendering of a config value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {show_value(v)}" for k, v in value.items()) + "}"
        return "a mapping " + (text if len(text) <= 60 else text[:57] + "...}")
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(show_value(v) for v in value) + "]"
        return "a list " + (text if len(text) <= 60 else text[:57] + "...]")
    return repr(value)


def _is_any(tp) -> bool:
    return tp is _EMPTY or tp is Any or tp is object or isinstance(tp, (str, typing.ForwardRef, typing.TypeVar)) \
        or type(tp).__name__ == "NewType"


def is_class_type(tp) -> bool:
    """True for a user or library class whose values are given as ``{class_path, init_args}``."""
    return inspect.isclass(tp) and not issubclass(tp, (numbers.Number, str, bytes, bool, enum.Enum, timedelta,
                                                       os.PathLike, pathlib.PurePath) + _MAPPINGS) \
        and tp not in (list, tuple, set, frozenset, _NONE) and typing.get_origin(tp) is None \
        and not (tp.__module__ == "collections.abc" or tp.__module__ == "typing")


def describe(tp) -> str:
    """The annotation in words: ``Optional[int]`` -> ``"int or null"``, ``List[Callback]`` -> ``"list of Callback"``."""
    if _is_any(tp):
        return "any value"
    if tp is _NONE or tp is None:
        return "null"
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in _UNION_TYPES:
        parts = [describe(a) for a in args if a is not _NONE]
        if _NONE in args:
            parts.append("null")
        out = []
        for p in parts:
            if p not in out:
                out.append(p)
        return " or ".join(out) if len(out) <= 2 else ", ".join(out[:-1]) + " or " + out[-1]
    if origin is typing.Literal:
        return "one of " + ", ".join(show_value(a) for a in args)
    if origin in (tuple,) and args and args[-1] is not Ellipsis:
        return f"a list of {len(args)} ({', '.join(describe(a) for a in args)})"
    if origin in _SEQUENCES or tp in _SEQUENCES:
        return f"list of {describe(args[0])}" if args else "list"
    if origin in _MAPPINGS or tp in _MAPPINGS:
        return f"mapping of {describe(args[0])} to {describe(args[1])}" if len(args) == 2 else "mapping"
    if origin is type or tp is type:
        return "class path"
    if origin is not None and (origin is cabc.Callable or getattr(origin, "__name__", "") == "Callable") \
            or tp is cabc.Callable or tp is typing.Callable:
        return "callable"
    if inspect.isclass(tp):
        if issubclass(tp, bool):
            return "bool"
        if issubclass(tp, enum.Enum):
            return "one of " + ", ".join(repr(m.name) for m in tp)
        if issubclass(tp, (os.PathLike, pathlib.PurePath)):
            return "path"
        if tp is timedelta:
            return "duration ('DD:HH:MM:SS' or a mapping such as {minutes: 5})"
        if is_class_type(tp):
            return f"{tp.__name__} (class_path/init_args)"
        return tp.__name__
    return str(tp).replace("typing.", "")


def _parse_duration(value) -> timedelta:
    if isinstance(value, dict):
        try:
            return timedelta(**value)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
    if isinstance(value, str):
        parts = value.split(":")
        if 1 <= len(parts) <= 4 and all(p.strip().isdigit() for p in parts):
            nums = [int(p) for p in parts]
            nums = [0] * (4 - len(nums)) + nums
            return timedelta(days=nums[0], hours=nums[1], minutes=nums[2], seconds=nums[3])
    raise ValueError("not a duration")


def check(value: Any, tp: Any, resolver=None) -> Any:
    """``value`` converted to ``tp`` (see the module docstring); raises :class:`TypeMismatch`.

    ``resolver(value, base_class)`` validates a nested ``{class_path, init_args}`` mapping whose class must
    subclass ``base_class`` and returns its normalized form; without a resolver such mappings are accepted as is.
    """
    try:
        return _check(value, tp, resolver, strict=True)
    except TypeMismatch:
        pass
    return _check(value, tp, resolver, strict=False)


def _fail(tp, value):
    raise TypeMismatch(describe(tp), value)


def _check(value, tp, resolver, strict: bool):  # noqa: C901 - one branch per kind of annotation
    if _is_any(tp):
        return value
    if tp is _NONE or tp is None:
        if value is None:
            return None
        _fail(tp, value)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in _UNION_TYPES:
        # strict pass over every member first, so Union[int, float] keeps 1 an int (one batch, not 100%)
        for a in args:
            try:
                return _check(value, a, resolver, strict=True)
            except TypeMismatch:
                pass
        if not strict:
            nested = None
            for a in args:
                try:
                    return _check(value, a, resolver, strict=False)
                except TypeMismatch as exc:
                    nested = nested or (exc if exc.detail else None)
            if nested is not None and sum(1 for a in args if a is not _NONE) == 1:
                raise TypeMismatch(describe(tp), value, nested.detail)
        _fail(tp, value)
    if origin is typing.Literal:
        for a in args:
            if value == a and type(value) is type(a):
                return value
        _fail(tp, value)
    if origin is typing.Annotated if hasattr(typing, "Annotated") else False:
        return _check(value, args[0], resolver, strict)
    if origin is tuple or tp is tuple:
        if not isinstance(value, (list, tuple)):
            _fail(tp, value)
        if args and args[-1] is not Ellipsis:
            if len(args) != len(value):
                _fail(tp, value)
            return tuple(_item(v, a, resolver, tp, value) for v, a in zip(value, args))
        return tuple(_item(v, args[0], resolver, tp, value) for v in value) if args else tuple(value)
    if origin in _SEQUENCES or tp in _SEQUENCES:
        if not isinstance(value, (list, tuple)):
            _fail(tp, value)
        items = [_item(v, args[0], resolver, tp, value) for v in value] if args else list(value)
        return set(items) if origin in (set, frozenset) or tp in (set, frozenset) else items
    if origin in _MAPPINGS or tp in _MAPPINGS:
        if not isinstance(value, dict):
            _fail(tp, value)
        if len(args) == 2:
            return {_item(k, args[0], resolver, tp, value): _item(v, args[1], resolver, tp, value)
                    for k, v in value.items()}
        return dict(value)
    if origin is type or tp is type or origin is not None and getattr(origin, "__name__", "") == "Callable" \
            or tp in (cabc.Callable, typing.Callable):
        return value  # class objects and callables cannot be written in YAML; leave them to the class itself
    if origin is not None:
        return value  # an exotic generic: do not guess
    if not inspect.isclass(tp):
        return value
    if issubclass(tp, bool):
        if isinstance(value, bool):
            return value
        _fail(tp, value)
    if issubclass(tp, numbers.Integral):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        _fail(tp, value)
    if issubclass(tp, numbers.Real):
        if isinstance(value, float) or not strict and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not strict and isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        _fail(tp, value)
    if tp is str:
        if isinstance(value, str):
            return value
        _fail(tp, value)
    if issubclass(tp, enum.Enum):
        if isinstance(value, tp):
            return value
        for member in tp:
            if value == member.name or value == member.value:
                return member
        _fail(tp, value)
    if issubclass(tp, (os.PathLike, pathlib.PurePath)):
        if isinstance(value, (str, os.PathLike)):
            return os.fspath(value)
        _fail(tp, value)
    if tp is timedelta:
        if isinstance(value, timedelta):
            return value
        try:
            return _parse_duration(value)
        except ValueError:
            _fail(tp, value)
    if is_class_type(tp):
        if isinstance(value, tp):
            return value
        if isinstance(value, dict) and "class_path" in value or not strict and isinstance(value, str):
            if resolver is None:
                return value
            return resolver(value, tp)
        _fail(tp, value)
    if isinstance(value, tp):
        return value
    _fail(tp, value)


def _item(v, tp, resolver, outer_tp, outer_value):
    try:
        return check(v, tp, resolver)
    except TypeMismatch as exc:
        raise TypeMismatch(describe(outer_tp), outer_value,
                           f" (the item {show_value(v)} is not {exc.expected})") from None
