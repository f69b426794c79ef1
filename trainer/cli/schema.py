"""The config's schema: which keys exist, what types they take, their defaults, and building the objects.

The schema is derived, never written out: the ``trainer`` keys are the ``Trainer.__init__`` parameters, the
``model``/``data``/``optimizer``/``lr_scheduler`` keys are the ``__init__`` parameters of the classes their
``class_path`` names, and the top-level run keys (``ckpt_path``, ...) are the parameters of the ``Trainer`` method the
subcommand calls. ``validate`` checks a merged config against it and returns it normalized (every class section as
``{class_path, init_args}``); ``with_defaults`` fills in every default for printing and saving; ``build`` creates the
objects.
"""
from __future__ import annotations

import inspect
import traceback
import typing
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from .config_files import format_key, origin_of
from .errors import ConfigError, suggest
from .resolve import ClassResolver, canonical_path
from .signature import REQUIRED, Param, class_params, param_docs
from .typecheck import TypeMismatch, check, show_value

__all__ = ["ConfigSchema", "RUN_PARAM_DOCS", "TOP_LEVEL_ORDER"]

TOP_LEVEL_ORDER = ("seed_everything", "trainer", "model", "data", "optimizer", "lr_scheduler")

# Parameters of the Trainer methods that a config cannot set (they are the objects the CLI builds).
_RUN_SKIP = {"self", "model", "train_dataloaders", "val_dataloaders", "dataloaders", "datamodule"}

RUN_PARAM_DOCS = {
    "ckpt_path": "checkpoint to start from: a path, 'last' (the newest last.ckpt of the logger's version_N "
                 "directories; fit then continues in that directory) or 'best'",
    "weights_only": "load only the weights from ckpt_path",
    "verbose": "print the metrics table",
    "return_predictions": "keep the predictions in memory",
    "test_after_fit": "after fit, test the best checkpoint (or the final weights without one) and print the test "
                      "metrics (an ember addition to LightningCLI's keys; validate, test and predict ignore it)",
    "seed_everything": "seed for Python, NumPy and ember: an int, true for a random seed that is written back into "
                       "the saved config, or null/false for no seeding",
}

_TYPE_OF_RUN_PARAM = {"ckpt_path": Optional[str], "weights_only": Optional[bool], "verbose": bool,
                      "return_predictions": Optional[bool]}


def _trainer_flag_types() -> Dict[str, Any]:
    """Types of the Trainer flags its signature leaves unannotated (Lightning's documented types)."""
    from ...callbacks.callback import Callback
    from ..loggers.logger import Logger
    number = Union[int, float, None]
    return {
        "precision": Union[int, str, None],
        "logger": Union[bool, Logger, List[Logger], None],
        "callbacks": Union[Callback, List[Callback], None],
        "max_time": Union[str, Dict[str, int], None],
        "limit_train_batches": number, "limit_val_batches": number, "limit_test_batches": number,
        "limit_predict_batches": number,
        "val_check_interval": Union[int, float, str, None],
        "deterministic": Union[bool, Literal["warn"], None],
        "profiler": Optional[str],
    }


def _group_of(base: type) -> Optional[str]:
    names = {k.__name__ for k in base.__mro__}
    for name, group in (("Callback", "callbacks"), ("Logger", "loggers"), ("Optimizer", "optimizers"),
                        ("LRScheduler", "lr_schedulers"), ("Metric", "metrics"), ("Module", "nn")):
        if name in names and not {"LightningModule", "LightningDataModule"} & names:
            return group
    return None


def _where_raised(exc: BaseException) -> str:
    """`` (file.py:LINE)`` of the innermost frame of the user's code ('' when ember itself raised: its messages name
    the argument already)."""
    import os
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    ember_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if os.path.abspath(frames[-1].filename).startswith(ember_root + os.sep) and \
            "/examples/" not in frames[-1].filename:
        return ""
    f = frames[-1]
    return f" ({os.path.basename(f.filename)}:{f.lineno})"


class ConfigSchema:
    """Validates, completes and instantiates a config for one subcommand.

    Args:
        resolver: turns class paths into classes.
        origins: where each key was set (for error messages).
        subcommand: ``"fit"``, ``"validate"``, ``"test"``, ``"predict"`` or None (``run=False``).
        model_class / datamodule_class: a fixed model (data) class; its ``init_args`` may then be given flat.
        subclass_mode_model / subclass_mode_data: with a fixed class, print ``class_path``/``init_args`` rather than
            flat arguments (any subclass may be named either way).
        trainer_class: the Trainer (sub)class whose ``__init__`` defines the ``trainer`` keys.
        trainer_defaults: defaults that replace the ``Trainer`` signature's.
        seed_everything_default: the default of ``seed_everything``.
        auto_configure_optimizers: offer the ``optimizer`` and ``lr_scheduler`` sections.
        parser: the arguments, class sections and links added by ``EmberCLI.add_arguments_to_parser``.
    """

    def __init__(self, resolver: ClassResolver, origins, subcommand: Optional[str], *, model_class=None,
                 datamodule_class=None, subclass_mode_model: bool = False, subclass_mode_data: bool = False,
                 trainer_class=None, trainer_defaults: Optional[Dict[str, Any]] = None,
                 seed_everything_default: Union[bool, int, None] = True,
                 auto_configure_optimizers: bool = True, parser=None) -> None:
        from .parser import CLIParser
        from ..datamodule import LightningDataModule
        from ..module import LightningModule
        from ..trainer import Trainer
        self.resolver = resolver
        self.origins = origins
        self.subcommand = subcommand
        self.model_class = model_class
        self.datamodule_class = datamodule_class
        self.flat_model = model_class is not None and not subclass_mode_model
        self.flat_data = datamodule_class is not None and not subclass_mode_data
        self.trainer_class = trainer_class or Trainer
        self.trainer_defaults = dict(trainer_defaults or {})
        self.seed_everything_default = seed_everything_default
        self.auto_configure_optimizers = auto_configure_optimizers
        self.parser = parser if parser is not None else CLIParser()
        self.linked = self.parser.linked_targets()
        self.module_base = LightningModule
        self.datamodule_base = LightningDataModule
        # id(normalized spec dict) -> (class, spec, key path): what ``build`` instantiates
        self._specs: Dict[int, Tuple[type, Dict[str, Any], tuple]] = {}
        self._keep: List[Any] = []  # the specs themselves, so their ids stay unique

    # ------------------------------------------------------------------------------------------------ keys
    def trainer_params(self) -> Dict[str, Param]:
        """The ``trainer`` keys: every ``Trainer.__init__`` parameter, with types and ``trainer_defaults``."""
        params, _ = class_params(self.trainer_class)
        overrides = _trainer_flag_types()
        from ..trainer import Trainer
        flag_docs = param_docs(Trainer)  # the Args block of Trainer.__init__, also for a subclass's undocumented flags
        out = {}
        for name, p in params.items():
            ann = p.annotation
            if ann is inspect.Parameter.empty and name in overrides:
                ann = overrides[name]
            default = self.trainer_defaults.get(name, p.default)
            out[name] = Param(name, ann, default, p.doc or flag_docs.get(name, ""))
        return out

    def run_params(self) -> Dict[str, Param]:
        """The top-level keys besides the sections: ``seed_everything`` and the subcommand's arguments."""
        out = {"seed_everything": Param("seed_everything", Union[bool, int, None], self.seed_everything_default,
                                        RUN_PARAM_DOCS["seed_everything"])}
        if self.subcommand is None:
            return out
        from .export import EXPORT_PARAM_DOCS, RUN_FUNCTIONS
        method = RUN_FUNCTIONS.get(self.subcommand) or getattr(self.trainer_class, self.subcommand)
        docs = {**EXPORT_PARAM_DOCS, **RUN_PARAM_DOCS}
        hints = typing.get_type_hints(method) if not isinstance(method, property) else {}
        for name, p in inspect.signature(method).parameters.items():
            if name in _RUN_SKIP or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            ann = _TYPE_OF_RUN_PARAM.get(name, hints.get(name, p.annotation))
            default = None if p.default is p.empty else p.default
            out[name] = Param(name, ann, default, docs.get(name, ""))
        if self.subcommand == "fit":
            out["test_after_fit"] = Param("test_after_fit", bool, False, RUN_PARAM_DOCS["test_after_fit"])
        return out

    def section_names(self) -> List[str]:
        names = ["trainer", "model", "data"]
        if self.auto_configure_optimizers:
            names += ["optimizer", "lr_scheduler"]
        return names

    def top_level_keys(self) -> List[str]:
        return ["seed_everything"] + self.section_names() + [k for k in self.run_params() if k != "seed_everything"] \
            + self.custom_keys()

    def custom_keys(self) -> List[str]:
        """The top-level keys added by ``add_arguments_to_parser`` (arguments and class sections)."""
        keys = list(self.parser.class_groups)
        for path in self.parser.arguments:
            if path[0] not in keys:
                keys.append(path[0])
        return keys

    def _tolerated(self) -> List[str]:
        """Keys accepted but unused by this subcommand: a fit config's ``test_after_fit`` when it is reused by
        ``trainer test``/``validate``/``predict``."""
        return ["test_after_fit"] if self.subcommand not in ("fit", None) else []

    # ------------------------------------------------------------------------------------------- validate
    def _where(self, path) -> Optional[str]:
        return origin_of(self.origins, tuple(path))

    def _unknown(self, path: tuple, candidates, siblings_prefix: tuple, takes: Optional[str] = None) -> ConfigError:
        key = path[-1]
        close = suggest(str(key), [str(c) for c in candidates])
        if close is not None:
            msg = f"unknown key '{format_key(path)}'; did you mean '{format_key(siblings_prefix + (close,))}'?"
        elif takes is not None:
            msg = f"unknown key '{format_key(path)}'; {takes}"
        else:
            msg = f"unknown key '{format_key(path)}'"
        return ConfigError(msg, where=self._where(path))

    def _check(self, value, annotation, path: tuple):
        try:
            return check(value, annotation, resolver=lambda v, base: self.spec(v, path, base, _group_of(base)))
        except TypeMismatch as exc:
            raise ConfigError(f"wrong type for '{format_key(path)}': {exc}", where=self._where(path)) from None

    def validate(self, config: Dict[str, Any]) -> Dict[str, Any]:
        """Check ``config`` (merged from all files and overrides) and return it normalized; raises
        :class:`ConfigError` naming the file and line of the first problem."""
        known = self.top_level_keys()
        for key in config:
            if key not in known and key not in self._tolerated():
                takes = f"the top-level keys are {', '.join(known)}"
                raise self._unknown((key,), known, (), takes=takes)
        out: Dict[str, Any] = {}
        run = self.run_params()
        out["seed_everything"] = self._seed(config.get("seed_everything", run["seed_everything"].default))
        out["trainer"] = self._trainer(config.get("trainer"))
        out["model"] = self._model(config.get("model"))
        out["data"] = self._data(config.get("data"))
        if self.auto_configure_optimizers:
            out["optimizer"] = self.spec(config.get("optimizer"), ("optimizer",), self._optimizer_base(),
                                         "optimizers", skip=("params",))
            out["lr_scheduler"] = self._lr_scheduler(config.get("lr_scheduler"), out["optimizer"])
        if "test_after_fit" in config and "test_after_fit" not in run:
            self._check(config["test_after_fit"], bool, ("test_after_fit",))
        for name, p in run.items():
            if name == "seed_everything":
                continue
            out[name] = self._check(config[name], p.annotation, (name,)) if name in config else p.default
        self._custom(config, out)
        return out

    def _custom(self, config: Dict[str, Any], out: Dict[str, Any]) -> None:
        """Validate the arguments and class sections added by ``add_arguments_to_parser`` into ``out``."""
        for key, group in self.parser.class_groups.items():
            value = config.get(key)
            if value is None and not group.required:
                out[key] = None
                continue
            base = group.cls
            out[key] = self.spec(value if value is not None else {}, (key,), base, _group_of(base),
                                 default_cls=None if group.subclass_mode else group.cls)
        known = self.parser.arguments
        for path, p in known.items():
            node, present = config, True
            for part in path:
                if isinstance(node, dict) and part in node:
                    node = node[part]
                else:
                    present = False
                    break
            if not present and p.required:
                raise ConfigError(f"missing required argument '{format_key(path)}' (set --{'.'.join(path)})",
                                  where=self._first_file())
            value = self._check(node, p.annotation, path) if present else p.default
            target = out
            for part in path[:-1]:
                target = target.setdefault(part, {})
            target[path[-1]] = value
        for root in {path[0] for path in known if len(path) > 1}:  # unknown keys inside a nested argument group
            self._unknown_nested(config.get(root), (root,), [p[1:] for p in known if p[0] == root])

    def _unknown_nested(self, value, prefix: tuple, paths: List[tuple]) -> None:
        if not isinstance(value, dict):
            return
        names = {p[0] for p in paths}
        for key, sub in value.items():
            if key not in names:
                raise self._unknown(prefix + (key,), sorted(names), prefix)
            self._unknown_nested(sub, prefix + (key,), [p[1:] for p in paths if p[0] == key and len(p) > 1])

    @staticmethod
    def _scheduler_base():
        from ...core.optim.lr_scheduler import LRScheduler
        return LRScheduler

    @staticmethod
    def _optimizer_base():
        from ...core.optim import Optimizer
        return Optimizer

    def _seed(self, value):
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, int) and 0 <= value <= 4294967295:
            return value
        raise ConfigError(f"wrong type for 'seed_everything': expected an int in [0, 4294967295], true (a random "
                          f"seed) or null, got {show_value(value)}", where=self._where(("seed_everything",)))

    def _trainer(self, section) -> Dict[str, Any]:
        path = ("trainer",)
        if section is None:
            return {}
        if not isinstance(section, dict):
            raise ConfigError(f"'trainer' must be a mapping of Trainer flags, got {show_value(section)}",
                              where=self._where(path))
        params = self.trainer_params()
        out = {}
        for name, value in section.items():
            p = params.get(name)
            if p is None:
                raise self._unknown(path + (name,), params, path)
            if name == "callbacks":
                out[name] = self._spec_list(value, path + (name,), p.annotation, "Callback")
            elif name == "logger" and not isinstance(value, bool) and value is not None:
                out[name] = self._spec_list(value, path + (name,), p.annotation, "Logger")
            else:
                out[name] = self._check(value, p.annotation, path + (name,))
        return out

    def _spec_list(self, value, path, annotation, base_name: str):
        """``callbacks``/``logger``: one ``class_path`` entry or a list of them (normalized to a list)."""
        if value is None:
            return None
        items = value if isinstance(value, list) else [value]
        base = next(a for a in _flatten_union(annotation) if inspect.isclass(a) and a.__name__ == base_name)
        out = []
        for i, item in enumerate(items):
            item_path = path + (i,) if isinstance(value, list) else path
            if not isinstance(item, (dict, str)):
                raise ConfigError(f"wrong type for '{format_key(item_path)}': expected a {base_name} as "
                                  f"class_path/init_args, got {show_value(item)}", where=self._where(item_path))
            out.append(self.spec(item, item_path, base, _group_of(base)))
        if base_name == "Logger" and not isinstance(value, list):
            return out[0]  # one logger stays one entry, as it was written
        return out

    def _model(self, section):
        path = ("model",)
        if section is None:
            if self.model_class is not None:
                section = {}
            else:
                if self.subcommand is None and self.model_class is None:
                    return None
                raise ConfigError("no model given: add a 'model' section with class_path and init_args (e.g. "
                                  "model: {class_path: model.MyModel}) or pass --model.class_path",
                                  where=self._first_file())
        return self.spec(section, path, self.model_class or self.module_base, None, default_cls=self.model_class)

    def _data(self, section):
        if section is None and self.datamodule_class is None:
            return None
        return self.spec(section or {}, ("data",), self.datamodule_class or self.datamodule_base, None,
                         default_cls=self.datamodule_class)

    def _lr_scheduler(self, section, optimizer):
        if section is None:
            return None
        path = ("lr_scheduler",)
        if optimizer is None:
            raise ConfigError("'lr_scheduler' needs an 'optimizer' section too (the scheduler wraps the optimizer "
                              "that the config creates)", where=self._where(path))
        section = {"class_path": section} if isinstance(section, str) else section
        extra = {}
        if isinstance(section, dict):
            section = dict(section)
            init = dict(section.get("init_args") or {})
            for key in ("monitor",):  # Lightning's CLI adds ``monitor`` for ReduceLROnPlateau
                if key in init:
                    extra[key] = init.pop(key)
                if key in section:
                    extra[key] = section.pop(key)
            section["init_args"] = init
        spec = self.spec(section, path, self._scheduler_base(), "lr_schedulers", skip=("optimizer",))
        cls = self._specs[id(spec)][0]
        if cls.__name__ == "ReduceLROnPlateau":
            monitor = extra.get("monitor")
            if not isinstance(monitor, str):
                raise ConfigError("lr_scheduler ReduceLROnPlateau needs init_args.monitor: the logged metric it "
                                  "watches (e.g. monitor: val_loss)", where=self._where(path))
            spec["init_args"]["monitor"] = monitor
        elif extra:
            raise ConfigError(f"unknown key 'lr_scheduler.init_args.monitor': only ReduceLROnPlateau monitors a "
                              f"metric, not {cls.__name__}", where=self._where(path + ("init_args", "monitor")))
        return spec

    def _first_file(self) -> Optional[str]:
        for where in self.origins.values():
            if where != "command line":
                return where.split(":")[0]
        return None

    def spec(self, value, path: tuple, base: Optional[type], group: Optional[str], default_cls=None,
             skip: Tuple[str, ...] = ()) -> Optional[Dict[str, Any]]:
        """Normalize and check one class section (``{class_path, init_args}``, a bare class name, or flat
        ``init_args`` when a default class is known); returns ``{class_path, init_args[, dict_kwargs]}``."""
        key = format_key(path)
        if value is None:
            return None
        if isinstance(value, str):
            value = {"class_path": value}
        if not isinstance(value, dict):
            raise ConfigError(f"wrong type for '{key}': expected class_path/init_args (or a class name), got "
                              f"{show_value(value)}", where=self._where(path))
        value = dict(value)
        class_path = value.pop("class_path", None)
        init_args = value.pop("init_args", None)
        if init_args is None:
            init_args = {}
        if not isinstance(init_args, dict):
            raise ConfigError(f"wrong type for '{key}.init_args': expected a mapping of argument names to values, "
                              f"got {show_value(init_args)}", where=self._where(path + ("init_args",)))
        init_args = dict(init_args)
        dict_kwargs = value.pop("dict_kwargs", None) or {}
        if not isinstance(dict_kwargs, dict):
            raise ConfigError(f"wrong type for '{key}.dict_kwargs': expected a mapping of extra keyword arguments, "
                              f"got {show_value(dict_kwargs)}", where=self._where(path + ("dict_kwargs",)))
        for name, v in value.items():  # ``--model.lr 0.1`` is short for ``--model.init_args.lr 0.1``
            init_args[name] = v
            where = self.origins.pop(path + (name,), None)
            if where is not None:
                self.origins[path + ("init_args", name)] = where
        if class_path is None:
            if default_cls is None:
                raise ConfigError(f"'{key}' needs a class_path: the class to create (e.g. {key}: {{class_path: "
                                  f"{_example(path)}}})", where=self._where(path))
            cls = default_cls
        else:
            cls = self.resolver.resolve(class_path, base, group, where=self._where(path + ("class_path",)),
                                        key=f"{key}.class_path")
        params, open_ended = class_params(cls)
        params = {n: p for n, p in params.items() if n not in skip}
        out_args: Dict[str, Any] = {}
        for name, v in init_args.items():
            arg_path = path + ("init_args", name)
            p = params.get(name)
            if p is None:
                if open_ended:
                    out_args[name] = v
                    continue
                takes = f"{cls.__name__} takes " + (", ".join(params) if params else "no arguments")
                raise self._unknown(arg_path, params, path + ("init_args",), takes=takes)
            out_args[name] = self._check(v, p.annotation, arg_path)
        for name, p in params.items():
            if p.required and name not in out_args and name not in dict_kwargs and \
                    (path[0], name) not in self.linked:
                where = self._where(path + ("class_path",)) or self._where(path)
                raise ConfigError(f"missing required init_arg '{name}' of {canonical_path(cls)} (set "
                                  f"{key}.init_args.{name})", where=where)
        spec: Dict[str, Any] = {"class_path": canonical_path(cls), "init_args": out_args}
        if dict_kwargs:
            spec["dict_kwargs"] = dict(dict_kwargs)
        self._specs[id(spec)] = (cls, spec, path)
        self._keep.append(spec)
        return spec

    def class_of(self, spec: Optional[Dict[str, Any]]) -> Optional[type]:
        """The class a normalized spec creates (None for anything that is not a spec)."""
        if spec is None:
            return None
        return self._specs.get(id(spec), (None,))[0]

    # --------------------------------------------------------------------------------------------- defaults
    def with_defaults(self, config: Dict[str, Any]) -> Dict[str, Any]:
        """The normalized config with every default filled in, in LightningCLI's key order (for printing and
        saving)."""
        out: Dict[str, Any] = {"seed_everything": config.get("seed_everything")}
        trainer = {}
        given = config.get("trainer") or {}
        for name, p in self.trainer_params().items():
            value = given[name] if name in given else p.default
            trainer[name] = self._render(value)
        out["trainer"] = trainer
        model = self._render(config.get("model"))
        if self.flat_model and model is not None and self.class_of(config["model"]) is self.model_class:
            model = model["init_args"]
        out["model"] = model
        data = self._render(config.get("data"))
        if self.flat_data and data is not None and self.class_of(config["data"]) is self.datamodule_class:
            data = data["init_args"]
        out["data"] = data
        if self.auto_configure_optimizers:
            out["optimizer"] = self._render(config.get("optimizer"))
            out["lr_scheduler"] = self._render(config.get("lr_scheduler"))
        for name in self.run_params():
            if name != "seed_everything":
                out[name] = self._render(config.get(name))
        for key, group in self.parser.class_groups.items():
            rendered = self._render(config.get(key))
            if rendered is not None and not group.subclass_mode and self.class_of(config[key]) is group.cls:
                rendered = rendered["init_args"]
            out[key] = rendered
        for path in self.parser.arguments:
            if path[0] not in self.parser.class_groups:
                out[path[0]] = self._render(config.get(path[0]))
        return out

    def _render(self, value):
        if isinstance(value, dict) and id(value) in self._specs:
            cls, spec, _ = self._specs[id(value)]
            params, _ = class_params(cls)
            args = {}
            for name, p in params.items():
                if name in spec["init_args"]:
                    args[name] = self._render(spec["init_args"][name])
                elif p.default is not REQUIRED:
                    args[name] = self._render(p.default)
            for name, v in spec["init_args"].items():
                args.setdefault(name, self._render(v))
            rendered = {"class_path": spec["class_path"], "init_args": args}
            if "dict_kwargs" in spec:
                rendered["dict_kwargs"] = spec["dict_kwargs"]
            return rendered
        if isinstance(value, dict):
            return {k: self._render(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._render(v) for v in value]
        if inspect.isclass(value):
            return canonical_path(value)
        return value

    # ------------------------------------------------------------------------------------------------ build
    def build(self, spec: Optional[Dict[str, Any]], exclude: Tuple[str, ...] = (), **extra: Any):
        """Instantiate a normalized spec (nested specs first), leaving out the ``exclude`` init_args and adding
        ``extra`` ones; a constructor's exception becomes a :class:`ConfigError` at the spec's ``class_path``
        line."""
        if spec is None:
            return None
        cls, _, path = self._specs[id(spec)]
        kwargs = {k: self.materialize(v) for k, v in spec["init_args"].items() if k not in exclude}
        kwargs.update(spec.get("dict_kwargs", {}))
        kwargs.update(extra)
        return self._call(cls, kwargs, path, shown=spec["init_args"])

    def _call(self, cls, kwargs, path, shown):
        try:
            return cls(**kwargs)
        except ConfigError:
            raise
        except Exception as exc:
            where = self._where(path + ("class_path",)) or self._where(path)
            location = _where_raised(exc)
            if path == ("trainer",):
                # name the flag the Trainer complained about, with the line that set it
                for name in shown:
                    if f"{name}=" in str(exc) or f"`{name}`" in str(exc):
                        where = self._where(path + (name,)) or where
                        break
                raise ConfigError(f"invalid trainer flags: {exc}", where=where) from exc
            args = ", ".join(f"{k}={show_value(v)}" for k, v in shown.items())
            if len(args) > 80:
                args = args[:77] + "..."
            raise ConfigError(f"{format_key(path)}: {cls.__name__}({args}) failed: {type(exc).__name__}: {exc}"
                              f"{location}", where=where) from exc

    def materialize(self, value):
        """``value`` with every nested spec replaced by the object it describes."""
        if isinstance(value, dict) and id(value) in self._specs:
            return self.build(value)
        if isinstance(value, list):
            return [self.materialize(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.materialize(v) for v in value)
        if isinstance(value, dict):
            return {k: self.materialize(v) for k, v in value.items()}
        return value

    def build_trainer(self, trainer_section: Dict[str, Any], extra_callbacks=()):
        """The Trainer from the ``trainer`` section over ``trainer_defaults``; ``extra_callbacks`` are appended."""
        kwargs = dict(self.trainer_defaults)
        for name, value in trainer_section.items():
            kwargs[name] = self.materialize(value)
        callbacks = kwargs.get("callbacks")
        callbacks = [] if callbacks is None else list(callbacks) if isinstance(callbacks, (list, tuple)) \
            else [callbacks]
        default_cbs = self.trainer_defaults.get("callbacks")
        if default_cbs is not None and "callbacks" in trainer_section:
            # trainer_defaults' callbacks are kept and the config's are added, as in LightningCLI
            default_cbs = default_cbs if isinstance(default_cbs, (list, tuple)) else [default_cbs]
            callbacks = [c for c in default_cbs if not isinstance(c, dict)] + callbacks
        kwargs["callbacks"] = callbacks + list(extra_callbacks)
        logger = kwargs.get("logger")
        if isinstance(logger, list) and len(logger) == 1:
            kwargs["logger"] = logger[0]
        return self._call(self.trainer_class, kwargs, ("trainer",),
                          shown={k: v for k, v in trainer_section.items() if k not in ("callbacks", "logger")})


def _flatten_union(tp) -> list:
    origin = typing.get_origin(tp)
    if origin is Union:
        out = []
        for a in typing.get_args(tp):
            out += _flatten_union(a)
        return out
    if origin in (list, List):
        return _flatten_union(typing.get_args(tp)[0])
    return [tp]


def _example(path: tuple) -> str:
    return {"model": "model.MyModel", "data": "model.MyDataModule", "optimizer": "Adam",
            "lr_scheduler": "StepLR"}.get(path[0], "EarlyStopping")
