"""What a class accepts: the parameters of its ``__init__``, their type hints, defaults and docstring text."""
from __future__ import annotations

import inspect
import re
import sys
import typing
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

__all__ = ["Param", "REQUIRED", "class_params", "param_docs", "summary_line"]


class _Required:
    def __repr__(self) -> str:
        return "<required>"


REQUIRED = _Required()
"""The default of a parameter that has none (it must be given)."""


@dataclass
class Param:
    """One ``__init__`` parameter: its name, annotation (``inspect.Parameter.empty`` if none), default
    (:data:`REQUIRED` if none) and the help text found in the docstrings."""

    name: str
    annotation: Any
    default: Any
    doc: str = ""

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


# Framework bases whose ``__init__`` takes nothing a config could set: forwarding ``**kwargs`` to them adds no keys.
_OPAQUE_BASES = {"object", "Module", "LightningModule", "LightningDataModule", "Callback", "HyperparametersMixin",
                 "Logger", "Optimizer", "LRScheduler", "Metric", "Generic", "ABC"}

_CACHE: Dict[Any, Tuple[Dict[str, Param], bool]] = {}


def _hints(fn) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception:  # an unresolvable forward reference: evaluate what we can, one parameter at a time
        pass
    out = {}
    module = sys.modules.get(getattr(fn, "__module__", ""), None)
    namespace = dict(vars(module)) if module is not None else {}
    for name, ann in getattr(fn, "__annotations__", {}).items():
        if isinstance(ann, str):
            try:
                ann = eval(ann, namespace, dict(vars(typing)))  # noqa: S307 - annotations the user wrote
            except Exception:
                ann = inspect.Parameter.empty
        out[name] = ann
    return out


def _own_params(cls) -> Tuple[Dict[str, Param], Optional[str]]:
    """(params of ``cls.__init__`` itself, the name of its ``**kwargs`` parameter or None)."""
    init = cls.__dict__.get("__init__")
    try:
        sig = inspect.signature(init)
    except (TypeError, ValueError):
        return {}, "kwargs"
    hints = _hints(init)
    docs = param_docs(cls)
    params: Dict[str, Param] = {}
    var_kw = None
    for i, p in enumerate(sig.parameters.values()):
        if i == 0 and p.name in ("self", "cls"):
            continue
        if p.kind is p.VAR_KEYWORD:
            var_kw = p.name
            continue
        if p.kind in (p.VAR_POSITIONAL, p.POSITIONAL_ONLY):
            continue
        ann = hints.get(p.name, p.annotation)
        default = REQUIRED if p.default is p.empty else p.default
        if ann is p.empty and type(default) in (float, bool):
            # an unannotated ``lr=1e-3`` or ``amsgrad=False`` still gets checked (ints are accepted for floats)
            ann = type(default)
        params[p.name] = Param(p.name, ann, default, docs.get(p.name, ""))
    return params, var_kw


def _forwards_to_super(init, kw_name: str) -> bool:
    """Whether ``**kw_name`` is only passed on to ``super().__init__`` (then the base's parameters are the keys)."""
    try:
        source = inspect.getsource(init)
    except (OSError, TypeError):
        return False
    uses = len(re.findall(rf"\b{re.escape(kw_name)}\b", source)) - 1  # minus the signature
    forwards = len(re.findall(rf"super\([^)]*\)\.__init__\([^)]*\*\*{re.escape(kw_name)}\b", source))
    return forwards >= 1 and uses == forwards


def class_params(cls) -> Tuple[Dict[str, Param], bool]:
    """The parameters a config may give ``cls`` and whether it also takes arbitrary extra keys.

    When ``__init__`` only forwards ``**kwargs`` to ``super().__init__``, the base class's parameters are added
    (up to the framework base classes, which take nothing); when it uses them otherwise, any extra key is accepted
    unchecked.
    """
    cached = _CACHE.get(cls)
    if cached is not None:
        return cached
    params: Dict[str, Param] = {}
    open_ended = False
    for klass in cls.__mro__:
        if "__init__" not in klass.__dict__:
            continue
        if klass is not cls and klass.__name__ in _OPAQUE_BASES:
            break
        own, kw_name = _own_params(klass)
        for name, p in own.items():
            params.setdefault(name, p)
        if kw_name is None:
            break
        if not _forwards_to_super(klass.__dict__["__init__"], kw_name):
            open_ended = True
            break
    result = (params, open_ended)
    _CACHE[cls] = result
    return result


_GOOGLE_HEADER = re.compile(r"^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments)\s*:\s*$")
_GOOGLE_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(.*)$")
_SPHINX = re.compile(r"^\s*:param\s+(?:[^:]*\s)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_NUMPY_ENTRY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?::.*)?$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _parse_doc(doc: str) -> Dict[str, str]:
    out: Dict[str, list] = {}
    lines = inspect.cleandoc(doc).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _GOOGLE_HEADER.match(line)
        numpy = line.strip() in ("Parameters", "Other Parameters") and i + 1 < len(lines) and \
            set(lines[i + 1].strip()) == {"-"}
        if m or numpy:
            base = _indent(line)
            i += 2 if numpy else 1
            current = None
            entry_indent = None
            while i < len(lines):
                ln = lines[i]
                if ln.strip() and _indent(ln) <= base and not (numpy and entry_indent == base):
                    if not numpy or _GOOGLE_HEADER.match(ln) or set(ln.strip()) == {"-"} or \
                            i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
                        break
                if not ln.strip():
                    if numpy and current is None:
                        break
                    i += 1
                    continue
                ind = _indent(ln)
                if entry_indent is None:
                    entry_indent = ind
                if ind == entry_indent:
                    em = (_NUMPY_ENTRY if numpy else _GOOGLE_ENTRY).match(ln.strip())
                    if em:
                        current = em.group(1).lstrip("*")
                        out[current] = [] if numpy else [em.group(3)]
                    else:
                        current = None
                elif ind > entry_indent and current is not None:
                    out[current].append(ln.strip())
                i += 1
            continue
        sm = _SPHINX.match(line)
        if sm:
            name = sm.group(1)
            out[name] = [sm.group(2)]
            i += 1
            while i < len(lines) and lines[i].strip() and not lines[i].strip().startswith(":"):
                out[name].append(lines[i].strip())
                i += 1
            continue
        i += 1
    return {k: " ".join(t for t in v if t).strip() for k, v in out.items()}


def param_docs(cls) -> Dict[str, str]:
    """Help text per parameter from the Google, NumPy or Sphinx sections of ``__init__``'s and the class's
    docstrings (``__init__``'s wins)."""
    docs: Dict[str, str] = {}
    for doc in (cls.__dict__.get("__doc__"), getattr(cls.__dict__.get("__init__"), "__doc__", None)):
        if doc:
            docs.update({k: v for k, v in _parse_doc(doc).items() if v})
    return docs


def summary_line(obj) -> str:
    """The first line of an object's docstring ('' without one)."""
    doc = inspect.getdoc(obj) or ""
    return doc.strip().split("\n\n")[0].replace("\n", " ").strip()

