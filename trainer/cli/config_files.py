"""Reading config files with the line of every key, merging configs, and writing the resolved config.

A config is a plain nested dict. Where each value came from is kept beside it in an *origins* dict that maps a key
path (a tuple such as ``("trainer", "max_epochs")`` or ``("trainer", "callbacks", 0, "init_args")``) to
``"config.yaml:4"`` or ``"command line"``, so every error can name the file and line the user has to edit.
"""
from __future__ import annotations

import copy
import os
from typing import Any, Dict, Optional, Tuple

from .errors import ConfigError, UsageError
from .safe_yaml import parse_yaml

__all__ = ["load_file", "parse_value", "merge_into", "set_path", "append_path", "dump_config", "format_key",
           "origin_of"]

Path = Tuple[Any, ...]
Origins = Dict[Path, str]


def format_key(path: Path) -> str:
    """``("trainer", "callbacks", 1, "init_args")`` -> ``"trainer.callbacks[1].init_args"``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def origin_of(origins: Origins, path: Path) -> Optional[str]:
    """Where ``path`` was set, else where its nearest parent was set, else where its first child was set (None for
    pure defaults)."""
    path = tuple(path)
    n = len(path)
    children = [where for key, where in origins.items() if key[:n] == path and len(key) > n]
    if path not in origins and children:
        return children[0]
    while path:
        where = origins.get(path)
        if where is not None:
            return where
        path = path[:-1]
    return None


def load_file(path: str, display: Optional[str] = None) -> Tuple[Dict[str, Any], Origins]:
    """Read a YAML config file; returns ``(data, origins)``.

    Raises :class:`UsageError` if the file does not exist and :class:`ConfigError` with ``file:line:column`` for
    invalid YAML or a root that is not a mapping.
    """
    name = display if display is not None else path
    if not os.path.isfile(path):
        what = "is a directory, not a config file" if os.path.isdir(path) else "does not exist"
        raise UsageError(f"config file '{name}' {what}")
    with open(path, "rb") as f:
        data, origins, line = parse_yaml(f.read(), name)
    if data is None:
        raise ConfigError("the config file is empty (or holds only comments): write its settings (e.g. 'model: "
                          "{class_path: model.MyModel}') or leave it off the command line", where=f"{name}:1")
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping of keys to values (such as 'trainer:' and 'model:'), got a "
                          f"{type(data).__name__}", where=f"{name}:{line}")
    return data, origins


def parse_value(text: str) -> Any:
    """A command-line value read as YAML: ``3`` -> 3, ``true`` -> True, ``null`` -> None, ``1e-3`` -> 0.001,
    ``[1, 2]`` -> a list; anything that is not valid YAML stays the string it was."""
    if text == "":
        return ""
    try:
        return parse_yaml(text, "command line")[0]
    except ConfigError as exc:
        if exc.message.startswith("invalid YAML"):
            return text
        raise  # too deep, or an alias bomb


def _drop_origins(origins: Origins, prefix: Path) -> None:
    n = len(prefix)
    for key in [k for k in origins if k[:n] == prefix]:
        del origins[key]


def _paths_in(value, prefix: Path):
    """``prefix`` and the path of every key and list item inside ``value``: the only paths that can carry an origin
    for it. Walking the value (rather than scanning every origin) keeps a merge linear in the size of the config."""
    stack = [(prefix, value)]
    while stack:
        path, node = stack.pop()
        yield path
        if isinstance(node, dict):
            stack.extend((path + (k,), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((path + (i,), v) for i, v in enumerate(node))


def _class_path(section) -> Optional[str]:
    return section.get("class_path") if isinstance(section, dict) else None


def merge_into(base: Dict[str, Any], base_origins: Origins, new: Dict[str, Any], new_origins: Origins,
               prefix: Path = ()) -> None:
    """Merge ``new`` into ``base`` in place; the later config wins.

    Mappings merge key by key; lists and scalars are replaced whole. A section whose ``class_path`` changes is
    replaced whole too, so ``init_args`` meant for one class never leak into another. Time is linear in the size of
    both configs.
    """
    for key, value in new.items():
        path = prefix + (key,)
        old = base.get(key)
        same_class = _class_path(value) is None or _class_path(old) in (None, _class_path(value))
        if isinstance(old, dict) and isinstance(value, dict) and same_class:
            merge_into(old, base_origins, value, new_origins, path)
            if path in new_origins:
                base_origins[path] = new_origins[path]
            continue
        for k in _paths_in(old, path):
            base_origins.pop(k, None)
        base[key] = copy.deepcopy(value)
        for k in _paths_in(value, path):
            where = new_origins.get(k)
            if where is not None:
                base_origins[k] = where


def _bad_index(path: Path, i: int, n: int) -> str:
    entries = "1 entry" if n == 1 else f"{n} entries"
    return (f"no entry {path[i]!r} in '{format_key(path[:i])}' (for --{'.'.join(map(str, path))}): it is a list of "
            f"{entries}, indexed from 0")


def set_path(config: Dict[str, Any], origins: Origins, path: Path, value: Any, where: str) -> None:
    """Set ``config[path[0]][path[1]]... = value`` (a ``--a.b.c value`` override), creating mappings on the way.

    A section given as a bare class name (``model: model.Net``) becomes ``{class_path: model.Net}`` so that
    ``--model.init_args.lr`` can be added to it; a number steps into a list (``--trainer.callbacks.0.init_args.x``)
    and a name steps into its last entry, as in jsonargparse (``--trainer.callbacks+=EarlyStopping
    --trainer.callbacks.patience=5`` configures the callback just appended).
    """
    path = tuple(int(p) if isinstance(p, str) and p.isdigit() else p for p in path)
    path = _into_last_entries(config, path)
    node: Any = config
    for i, part in enumerate(path[:-1]):
        if isinstance(node, list):
            if not isinstance(part, int) or not 0 <= part < len(node):
                raise ConfigError(_bad_index(path, i, len(node)), where=where)
            nxt = node[part]
        else:
            nxt = node.get(part)
        if isinstance(nxt, str) and (i == 0 or isinstance(node, list) or
                                     path[i + 1] in ("init_args", "class_path", "dict_kwargs")):
            nxt = {"class_path": nxt}
        elif isinstance(nxt, list) and isinstance(path[i + 1], int):
            pass
        elif not isinstance(nxt, dict):
            nxt = {}
        node[part] = nxt
        node = nxt
    last = path[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or not 0 <= last < len(node):
            raise ConfigError(_bad_index(path, len(path) - 1, len(node)), where=where)
        node[last] = value
    elif isinstance(value, dict) and isinstance(node.get(last), dict):
        merge_into(node[last], origins, value, {}, tuple(path))
    else:
        node[last] = value
    _drop_origins(origins, tuple(path))
    origins[tuple(path)] = where


def _into_last_entries(config: Dict[str, Any], path: Path) -> Path:
    """``("trainer", "callbacks", "patience")`` -> ``("trainer", "callbacks", 2, "patience")`` when callbacks is a
    list of 3 class entries: a key after a list of classes applies to its last entry."""
    node: Any = config
    out = []
    for i, part in enumerate(path):
        if isinstance(node, list) and not isinstance(part, int) and node and \
                isinstance(node[-1], (dict, str)) and i < len(path):
            out.append(len(node) - 1)
            node = node[-1]
        out.append(part)
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            node = None
    return tuple(out)


def append_path(config: Dict[str, Any], origins: Origins, path: Path, value: Any, where: str) -> None:
    """``--a.b+=value`` (jsonargparse's list append): add ``value`` (or every item of a list ``value``) to the list at
    ``path``; a single value there becomes the list's first entry, and no value an empty list."""
    node: Any = config
    for part in path[:-1]:
        nxt = node.get(part) if isinstance(node, dict) else None
        if not isinstance(nxt, dict):
            nxt = {"class_path": nxt} if isinstance(nxt, str) else {}
            node[part] = nxt
        node = nxt
    last = path[-1]
    current = node.get(last)
    items = list(current) if isinstance(current, list) else ([] if current is None else [current])
    start = len(items)
    items.extend(copy.deepcopy(value) if isinstance(value, list) else [copy.deepcopy(value)])
    node[last] = items
    for i in range(start, len(items)):
        origins[tuple(path) + (i,)] = where


def _dumper_class():
    import enum
    from datetime import timedelta

    import yaml

    class Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # libyaml's emitter is ~10x faster
        pass

    def as_list(dumper, data):
        return dumper.represent_list(list(data))

    def as_str(dumper, data):
        return dumper.represent_str(str(data))

    def as_duration(dumper, data):
        seconds = int(data.total_seconds())
        days, rest = divmod(seconds, 86400)
        return dumper.represent_str(f"{days:02d}:{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}")

    def as_enum(dumper, data):
        return dumper.represent_data(data.value)

    Dumper.add_representer(tuple, as_list)
    Dumper.add_representer(timedelta, as_duration)
    Dumper.add_multi_representer(enum.Enum, as_enum)
    Dumper.add_multi_representer(os.PathLike, lambda d, v: d.represent_str(os.fspath(v)))
    Dumper.add_multi_representer(object, as_str)  # last resort: never fail to print a config
    return Dumper


def dump_config(config: Dict[str, Any], header: Optional[str] = None) -> str:
    """The config as YAML, keys in the order given, with an optional ``# comment`` header line."""
    import yaml
    text = yaml.dump(config, Dumper=_dumper_class(), sort_keys=False, default_flow_style=False, allow_unicode=True)
    return (f"# {header}\n" if header else "") + text
