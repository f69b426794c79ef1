"""``--print_config[=FLAGS]``: the resolved config as YAML, with jsonargparse's flags.

- ``skip_default``: leave out every value equal to its default (a class entry keeps its ``class_path``);
- ``skip_null``: leave out every null value;
- ``comments``: put the help of each key (the docstrings of the Trainer and of the classes) above it as a comment.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .config_files import _dumper_class, dump_config
from .signature import REQUIRED, class_params, summary_line

__all__ = ["render_config"]

_SECTION_HELP = {
    "seed_everything": "seed for Python, NumPy and ember (true: a random seed, written back into the saved config)",
    "trainer": "the Trainer's flags",
    "model": "the LightningModule: class_path and init_args",
    "data": "the LightningDataModule: class_path and init_args",
    "optimizer": "used when the model does not define configure_optimizers",
    "lr_scheduler": "wraps the optimizer",
}

_MISSING = object()


def render_config(schema, normalized: Dict[str, Any], flags: Sequence[str]) -> str:
    """The YAML that ``--print_config=<flags>`` prints."""
    config = schema.with_defaults(normalized)
    if "skip_default" in flags:
        config = _without_defaults(schema, normalized, config)
    if "skip_null" in flags:
        config = _without_nulls(config)
    if "comments" not in flags:
        return dump_config(config)
    lines: List[str] = []
    _emit_mapping(lines, config, 0, _top_docs(schema), _top_classes(schema, normalized), schema)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------------ defaults
def _top_defaults(schema) -> Dict[str, Any]:
    out = {name: p.default for name, p in schema.run_params().items()}
    for path, p in schema.parser.arguments.items():
        if len(path) == 1:
            out[path[0]] = p.default
    return out


def _without_defaults(schema, normalized, config: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    top = _top_defaults(schema)
    trainer_defaults = {name: schema._render(p.default) for name, p in schema.trainer_params().items()}
    for key, value in config.items():
        if key == "trainer":
            kept = {k: v for k, v in (value or {}).items() if not _same(v, trainer_defaults.get(k, _MISSING))}
            kept = {k: _spec_without_defaults(schema, v) for k, v in kept.items()}
            if kept:
                out[key] = kept
        elif key in top:
            if not _same(value, schema._render(top[key])):
                out[key] = value
        elif isinstance(value, dict) and "class_path" in value:
            out[key] = _spec_without_defaults(schema, value)
        elif isinstance(value, dict) and schema.class_of(normalized.get(key)) is not None:  # a flat class section
            kept = _args_without_defaults(schema.class_of(normalized[key]), value)
            if kept:
                out[key] = kept
        elif value is not None:
            out[key] = value
    return out


def _spec_without_defaults(schema, value):
    if isinstance(value, list):
        return [_spec_without_defaults(schema, v) for v in value]
    if not (isinstance(value, dict) and "class_path" in value):
        return value
    cls = schema.resolver.resolve(value["class_path"])
    out = {"class_path": value["class_path"]}
    args = _args_without_defaults(cls, value.get("init_args") or {})
    if args:
        out["init_args"] = args
    if "dict_kwargs" in value:
        out["dict_kwargs"] = value["dict_kwargs"]
    return out


def _args_without_defaults(cls, args: Dict[str, Any]) -> Dict[str, Any]:
    params, _ = class_params(cls)
    out = {}
    for name, v in args.items():
        p = params.get(name)
        if p is None or p.default is REQUIRED or not _same(v, p.default):
            out[name] = v
    return out


def _same(a, b) -> bool:
    if b is _MISSING:
        return False
    try:
        return type(a) is type(b) and a == b or (a is None and b is None)
    except Exception:
        return False


def _without_nulls(value):
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


# ------------------------------------------------------------------------------------------------ comments
def _top_docs(schema) -> Dict[str, str]:
    from .schema import RUN_PARAM_DOCS
    docs = dict(_SECTION_HELP)
    docs.update({name: p.doc or RUN_PARAM_DOCS.get(name, "") for name, p in schema.run_params().items()
                 if name != "seed_everything"})
    for path, p in schema.parser.arguments.items():
        if len(path) == 1:
            docs[path[0]] = p.doc
    for key, group in schema.parser.class_groups.items():
        docs[key] = summary_line(group.cls)
    return docs


def _top_classes(schema, normalized) -> Dict[str, Any]:
    """Sections whose keys are a class's init_args written flat (a fixed model or data class)."""
    out = {}
    for key in list(normalized):
        cls = schema.class_of(normalized.get(key)) if isinstance(normalized.get(key), dict) else None
        if cls is not None:
            out[key] = cls
    return out


def _trainer_docs(schema) -> Dict[str, str]:
    return {name: p.doc for name, p in schema.trainer_params().items()}  # Trainer.__init__'s Args block


def _scalar(value) -> str:
    import yaml
    text = yaml.dump(value, Dumper=_dumper_class(), default_flow_style=True, allow_unicode=True, width=10 ** 6)
    text = text.strip()
    return text[:-4].rstrip() if text.endswith("\n...") else text.replace("\n...", "")


def _comment(lines: List[str], indent: int, doc: Optional[str]) -> None:
    if doc:
        lines.append(" " * indent + "# " + " ".join(doc.split()))


def _class_docs(cls) -> Dict[str, str]:
    params, _ = class_params(cls)
    return {name: p.doc for name, p in params.items()}


def _emit_mapping(lines, mapping: Dict[str, Any], indent: int, docs: Dict[str, str], flat_classes: Dict[str, Any],
                  schema, first_prefix: str = "") -> None:
    for i, (key, value) in enumerate(mapping.items()):
        pad = " " * indent
        lead = first_prefix if i == 0 and first_prefix else pad
        if not (i == 0 and first_prefix):
            _comment(lines, indent, docs.get(key))
        if isinstance(value, dict) and value:
            lines.append(f"{lead}{key}:")
            _emit_value_mapping(lines, key, value, indent + 2, flat_classes, schema)
        elif isinstance(value, list) and value:
            lines.append(f"{lead}{key}:")
            for item in value:
                if isinstance(item, dict) and item:
                    _emit_spec_or_mapping(lines, item, indent + 2, schema, first_prefix=" " * indent + "  - ")
                else:
                    lines.append(f"{pad}  - {_scalar(item)}")
        else:
            lines.append(f"{lead}{key}: {_scalar(value)}")


def _emit_value_mapping(lines, key, value, indent, flat_classes, schema) -> None:
    if key == "trainer" and indent == 2:
        _emit_mapping(lines, value, indent, _trainer_docs(schema), {}, schema)
    elif "class_path" in value:
        _emit_spec_or_mapping(lines, value, indent, schema)
    elif key in flat_classes and indent == 2:
        _emit_mapping(lines, value, indent, _class_docs(flat_classes[key]), {}, schema)
    else:
        _emit_mapping(lines, value, indent, {}, {}, schema)


def _emit_spec_or_mapping(lines, value: Dict[str, Any], indent: int, schema, first_prefix: str = "") -> None:
    if "class_path" not in value:
        _emit_mapping(lines, value, indent + 2 if first_prefix else indent, {}, {}, schema, first_prefix)
        return
    cls = schema.resolver.resolve(value["class_path"])
    inner = indent + 2 if first_prefix else indent
    docs = {"class_path": summary_line(cls)}
    if first_prefix:
        _comment(lines, inner - 2, docs["class_path"])
    _emit_mapping(lines, {"class_path": value["class_path"]}, inner, docs, {}, schema, first_prefix)
    rest = {k: v for k, v in value.items() if k != "class_path"}
    for key, sub in rest.items():
        if key == "init_args" and isinstance(sub, dict) and sub:
            lines.append(" " * inner + "init_args:")
            _emit_mapping(lines, sub, inner + 2, _class_docs(cls), {}, schema)
        else:
            _emit_mapping(lines, {key: sub}, inner, {}, {}, schema)
