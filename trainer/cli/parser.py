"""``CLIParser``: what :meth:`EmberCLI.add_arguments_to_parser` may add to the config, LightningArgumentParser's way.

- ``parser.add_argument("--notes", type=str, default="")``: a top-level key of the config (``--notes text``).
- ``parser.add_lightning_class_args(EarlyStopping, "early_stopping")``: a section holding one class's ``init_args``
  (flat, or ``class_path``/``init_args`` with ``subclass_mode=True``); a Callback section is added to the Trainer's
  callbacks, anything else is in ``cli.config_init[key]``.
- ``parser.link_arguments("data.batch_size", "model.batch_size")``: the target takes the source's value
  (``compute_fn(value)`` if given), either from the parsed config (``apply_on="parse"``) or, with
  ``apply_on="instantiate"``, from the created object (``"data.num_classes"`` reads ``cli.datamodule.num_classes``).
  A linked target is no longer set by the user: giving it is an error naming the source.
- ``parser.set_defaults({"early_stopping.monitor": "val_loss"})``: defaults under every config and override.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .errors import ConfigError
from .signature import REQUIRED, Param

__all__ = ["CLIParser", "Link"]


@dataclass
class Link:
    """One ``link_arguments`` call: ``target`` gets ``compute_fn(*sources)`` (or the one source's value)."""

    sources: Tuple[str, ...]
    target: str
    compute_fn: Optional[Callable[..., Any]]
    apply_on: str

    def value(self, values: List[Any]) -> Any:
        """The target's value from the sources' values."""
        if self.compute_fn is not None:
            return self.compute_fn(*values)
        if len(values) != 1:
            raise ConfigError(f"link_arguments({self.sources!r} -> {self.target!r}): several sources need a "
                              "compute_fn that combines them")
        return values[0]


@dataclass
class ClassGroup:
    """One ``add_lightning_class_args`` section."""

    cls: type
    subclass_mode: bool
    required: bool


class CLIParser:
    """The arguments, class sections, links and defaults an :class:`EmberCLI` subclass adds in
    ``add_arguments_to_parser(parser)``; the CLI's schema reads them."""

    def __init__(self) -> None:
        self.arguments: Dict[Tuple[str, ...], Param] = {}
        self.class_groups: Dict[str, ClassGroup] = {}
        self.links: List[Link] = []
        self.defaults: Dict[str, Any] = {}

    def add_argument(self, *names: str, type: Any = None, default: Any = None, help: str = "",
                     required: bool = False, **kwargs: Any) -> None:
        """Add a config key ``--name`` (dots make nested keys: ``--tags.owner``), with its type and default."""
        long = [n for n in names if n.startswith("--")]
        if not long:
            raise ValueError(f"add_argument{names!r}: give the option as '--name' (a key of the config)")
        path = tuple(long[0][2:].split("."))
        from .schema import TOP_LEVEL_ORDER
        if path[0] in TOP_LEVEL_ORDER or path[0] in self.class_groups:
            raise ValueError(f"add_argument('{long[0]}'): '{path[0]}' is a section of its own; pick another name")
        annotation = type if type is not None else Any
        self.arguments[path] = Param(".".join(path), annotation, REQUIRED if required else default, help)

    def add_lightning_class_args(self, lightning_class: type, nested_key: str, subclass_mode: bool = False,
                                 required: bool = True) -> List[str]:
        """Add a section ``nested_key`` whose value creates ``lightning_class`` (a Callback is added to the
        Trainer's callbacks). Returns the section's keys."""
        from .signature import class_params
        if not isinstance(lightning_class, type):
            raise ValueError(f"add_lightning_class_args({lightning_class!r}, {nested_key!r}): expected a class")
        self.class_groups[nested_key] = ClassGroup(lightning_class, subclass_mode, required)
        params, _ = class_params(lightning_class)
        return [f"{nested_key}.{name}" for name in params]

    add_class_arguments = add_lightning_class_args

    def link_arguments(self, source: Union[str, Tuple[str, ...]], target: str,
                       compute_fn: Optional[Callable[..., Any]] = None, apply_on: str = "parse") -> None:
        """Make ``target`` take its value from ``source`` (a key, or a tuple of keys combined by ``compute_fn``)."""
        if apply_on not in ("parse", "instantiate"):
            raise ValueError(f"link_arguments(apply_on={apply_on!r}): expected 'parse' or 'instantiate'")
        sources = (source,) if isinstance(source, str) else tuple(source)
        self.links.append(Link(sources, target, compute_fn, apply_on))

    def set_defaults(self, *args: Dict[str, Any], **kwargs: Any) -> None:
        """Defaults for keys (``{"early_stopping.patience": 5}``), applied under every config and override."""
        for mapping in args:
            self.defaults.update(mapping)
        self.defaults.update(kwargs)

    def linked_targets(self) -> Dict[Tuple[str, str], Link]:
        """``(section, name)`` of every link target -> its link."""
        return {split_key(link.target): link for link in self.links}


def split_key(key: str) -> Tuple[str, str]:
    """``"model.init_args.lr"`` or ``"model.lr"`` -> ``("model", "lr")``; ``"notes"`` -> ``("notes", "")``."""
    parts = [p for p in key.split(".") if p != "init_args"]
    if len(parts) == 1:
        return parts[0], ""
    return parts[0], ".".join(parts[1:])


def read_key(config: Dict[str, Any], key: str) -> Any:
    """The value of ``key`` in a rendered config (a class section flat or as ``class_path``/``init_args``)."""
    section, name = split_key(key)
    value = config.get(section)
    if not name:
        return value
    for part in name.split("."):
        if isinstance(value, dict) and "init_args" in value and part not in value:
            value = value["init_args"]
        if not isinstance(value, dict) or part not in value:
            raise ConfigError(f"link_arguments: the config has no key '{key}'")
        value = value[part]
    return value
