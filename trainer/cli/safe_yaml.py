"""Bounded YAML loading for config files: linear time, bounded memory, one-line errors with ``file:line``.

PyYAML's composer recurses once per nesting level (its C version crashes the interpreter on deep input) and its
data may share sub-trees through aliases, so a 500-byte "billion laughs" file expands to billions of values as soon
as anything walks it. Here the document is composed from the parser's event stream by a loop with an explicit stack
that

* refuses nesting deeper than :data:`MAX_DEPTH`;
* counts the values the document holds *with aliases expanded* (each node's expanded size is computed once, when it
  closes) and refuses a document past :data:`MAX_VALUES`, before anything is built;
* notes the line of every key and list item (the *origins*) and refuses duplicate keys.

The composed nodes are then built into Python values by PyYAML's safe constructor, which works iteratively.
libyaml's C parser is used when PyYAML has it (about ten times faster); the Python parser otherwise.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Optional, Tuple

from .errors import ConfigError

__all__ = ["parse_yaml", "MAX_DEPTH", "MAX_VALUES"]

MAX_DEPTH = 200          # nesting levels; real configs use fewer than ten
MAX_VALUES = 2_000_000   # values after alias expansion; a 40,000-key config holds 80,000

_LOADERS: Dict[bool, type] = {}


def loader_class(fast: bool = True):
    """PyYAML's safe loader (with libyaml's parser if ``fast`` and available), plus YAML 1.2's floats without a dot
    (``1e-3``), which YAML 1.1 reads as strings."""
    if fast not in _LOADERS:
        import yaml

        class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader) if fast else yaml.SafeLoader):
            pass

        Loader.add_implicit_resolver("tag:yaml.org,2002:float",
                                     re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
                                     list("-+0123456789"))
        _LOADERS[fast] = Loader
    return _LOADERS[fast]


def _decode(data: bytes, name: str) -> str:
    """The file's text; binary and non-UTF-8 files get a one-line error naming the line of the first bad byte."""
    newline = b"\n"
    nul = data.find(b"\0")
    if nul >= 0:
        raise ConfigError("this is a binary file, not a YAML config (it contains NUL bytes)",
                          where=f"{name}:{data.count(newline, 0, nul) + 1}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x} cannot be decoded); save it "
                          "as UTF-8", where=f"{name}:{data.count(newline, 0, exc.start) + 1}") from None


class _Frame:
    __slots__ = ("node", "path", "key", "seen", "size")

    def __init__(self, node, path):
        self.node = node
        self.path = path    # key path of this container (None inside complex keys: no origins there)
        self.key = None     # a mapping's key node waiting for its value
        self.seen = {}      # key -> line, for duplicate detection
        self.size = 1       # values held, aliases expanded


def _compose(loader, name: str, origins: Dict[tuple, str]):
    """The document's root node (None if empty), composed iteratively within the limits above."""
    import yaml
    from yaml import events as ev
    loader.get_event()  # StreamStart
    if loader.check_event(ev.StreamEndEvent):
        return None
    loader.get_event()  # DocumentStart
    anchors: Dict[str, Any] = {}
    sizes: Dict[int, int] = {}  # id(node) -> expanded size, for closed nodes
    stack = []
    root = None
    while True:
        event = loader.get_event()
        line = event.start_mark.line + 1
        if isinstance(event, ev.DocumentEndEvent):
            break
        if isinstance(event, (ev.SequenceStartEvent, ev.MappingStartEvent)):
            if len(stack) >= MAX_DEPTH:
                raise ConfigError(f"the YAML is nested more than {MAX_DEPTH} levels deep; a config never needs "
                                  "that many", where=f"{name}:{line}")
            is_map = isinstance(event, ev.MappingStartEvent)
            cls = yaml.MappingNode if is_map else yaml.SequenceNode
            tag = event.tag if event.tag not in (None, "!") else loader.resolve(cls, None, event.implicit)
            node = cls(tag, [], event.start_mark, None, flow_style=event.flow_style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            stack.append(_Frame(node, _child_path(stack)))
            continue
        if isinstance(event, (ev.SequenceEndEvent, ev.MappingEndEvent)):
            frame = stack.pop()
            frame.node.end_mark = event.end_mark
            node, size = frame.node, frame.size
            sizes[id(node)] = size
        elif isinstance(event, ev.AliasEvent):
            node = anchors.get(event.anchor)
            if node is None:
                raise ConfigError(f"invalid YAML: found undefined alias '*{event.anchor}'", where=f"{name}:{line}")
            size = sizes.get(id(node))
            if size is None:
                raise ConfigError(f"invalid YAML: the alias '*{event.anchor}' refers to a node that contains it",
                                  where=f"{name}:{line}")
        else:  # a scalar
            tag = event.tag if event.tag not in (None, "!") else \
                loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            if event.anchor is not None:
                anchors[event.anchor] = node
            size = sizes[id(node)] = 1
        if not stack:
            root = node
            continue
        parent = stack[-1]
        parent.size += size
        if parent.size > MAX_VALUES:
            raise ConfigError(f"the YAML expands to more than {MAX_VALUES:,} values (through its aliases '*name'); "
                              "refusing it (an 'alias bomb' expands a small file to gigabytes)",
                              where=f"{name}:{line}")
        _attach(parent, node, name, origins)
    if not loader.check_event(ev.StreamEndEvent):
        raise ConfigError("the file holds more than one YAML document ('---'); a config is one document",
                          where=f"{name}:{loader.peek_event().start_mark.line + 1}")
    return root


def _child_path(stack):
    """The key path of a container that starts now (None where origins are not kept)."""
    if not stack:
        return ()
    parent = stack[-1]
    if parent.path is None:
        return None
    if parent.node.id == "mapping":
        key = parent.key
        if key is None or key.id != "scalar":
            return None  # a container used as a key, or the value of one
        return parent.path + (key.value,)
    return parent.path + (len(parent.node.value),)


def _attach(parent: _Frame, node, name: str, origins) -> None:
    if parent.node.id == "sequence":
        if parent.path is not None:
            origins[parent.path + (len(parent.node.value),)] = f"{name}:{node.start_mark.line + 1}"
        parent.node.value.append(node)
        return
    if parent.key is None:
        parent.key = node
        return
    key_node, parent.key = parent.key, None
    parent.node.value.append((key_node, node))
    if parent.path is None or key_node.id != "scalar" or key_node.tag == "tag:yaml.org,2002:merge":
        return
    key, line = key_node.value, key_node.start_mark.line + 1
    if key in parent.seen:
        raise ConfigError(f"duplicate key '{_format(parent.path + (key,))}' (first set at line {parent.seen[key]})",
                          where=f"{name}:{line}")
    parent.seen[key] = line
    origins[parent.path + (key,)] = f"{name}:{line}"


def _format(path) -> str:
    from .config_files import format_key
    return format_key(path)


def parse_yaml(data, name: str) -> Tuple[Any, Dict[tuple, str], Optional[int]]:
    """Parse ``data`` (bytes of a file, or a str) as one YAML document.

    Returns ``(value, origins, line)``: the Python value (None for an empty document), the ``file:line`` of every key
    and list item, and the line where the root value starts. Raises :class:`ConfigError` with ``name:line`` for
    binary or non-UTF-8 input, invalid YAML, nesting past :data:`MAX_DEPTH` and alias expansion past
    :data:`MAX_VALUES`.
    """
    import yaml
    text = _decode(data, name) if isinstance(data, bytes) else data
    try:
        return _parse(text, name, loader_class(fast=True))
    except ConfigError as exc:
        if not exc.message.startswith("invalid YAML") or not hasattr(yaml, "CSafeLoader"):
            raise
        # libyaml words its errors differently; PyYAML's own parser gives the messages users search for
        return _parse(text, name, loader_class(fast=False))


def _parse(text: str, name: str, loader_cls):
    import gc

    import yaml
    loader = loader_cls(text)
    origins: Dict[tuple, str] = {}
    gc_was_enabled = gc.isenabled()
    gc.disable()  # building a large tree of new containers triggers collection after collection (2x slower)
    try:
        node = _compose(loader, name, origins)
        value = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark is not None else name
        problem = exc.problem or exc.context or "cannot be parsed"
        raise ConfigError(f"invalid YAML: {problem}", where=where) from None
    except yaml.reader.ReaderError as exc:
        line = text[:exc.position].count("\n") + 1 if isinstance(exc.position, int) else 1
        raise ConfigError(f"invalid YAML: {exc.reason} (character {exc.character!r})", where=f"{name}:{line}") \
            from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", where=name) from None
    finally:
        loader.dispose()
        if gc_was_enabled:
            gc.enable()
    return value, origins, (node.start_mark.line + 1 if node is not None else None)
