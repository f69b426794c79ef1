"""``EmberCLI`` (the counterpart of ``LightningCLI``) and ``main``, the ``trainer`` command."""
from __future__ import annotations

import inspect
import os
import sys
import traceback
import types
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

from .args import SUBCOMMANDS, ParsedArgs, parse_argv
from .config_files import append_path, load_file, merge_into, parse_value, set_path
from .errors import CLIError, ConfigError, UsageError
from .parser import CLIParser, read_key, split_key

__all__ = ["EmberCLI", "main"]

_PROG = "trainer"
_DEFAULT = object()  # "use SaveConfigCallback" (None disables saving, as in LightningCLI)
_MAIN_ACTIVE = [False]  # inside ``main``: run failures are reported by ``main`` rather than re-raised


class EmberCLI:
    """Build a model, a datamodule and a Trainer from YAML configs and command-line overrides, then run a subcommand.

    The config format is LightningCLI's: ``seed_everything``, ``trainer`` (every Trainer flag; callbacks and loggers
    as ``class_path``/``init_args`` entries), ``model`` and ``data`` (``class_path`` + ``init_args``), ``optimizer``
    and ``lr_scheduler`` (used when the model does not define ``configure_optimizers``) and the subcommand's
    arguments (``ckpt_path``, ...). Every value is checked against the ``__init__`` signatures and type hints, and
    every mistake is reported in one line that names the file, the line and the nearest valid key.

    Example (``main.py``)::

        from ember.trainer.cli import EmberCLI
        from model import MyModel, MyData

        if __name__ == "__main__":
            EmberCLI(MyModel, MyData)      # python main.py fit --config config.yaml --trainer.max_epochs 3

    Args:
        model_class: the LightningModule class (its ``init_args`` may then be given flat: ``--model.lr 0.1``);
            None means the config names it with ``model.class_path``.
        datamodule_class: the LightningDataModule class; None means ``data.class_path`` (optional).
        save_config_callback: the callback class that saves the resolved config in the run's log directory (None
            to not save it).
        save_config_kwargs: extra arguments for it (e.g. ``{"overwrite": True}``).
        trainer_class: the Trainer class.
        trainer_defaults: defaults for Trainer flags, applied under the configs.
        seed_everything_default: ``seed_everything`` when the config does not set it (True: a random seed, saved).
        parser_kwargs: LightningCLI's parser options: ``prog``; ``default_env=True`` to read settings from
            environment variables named as jsonargparse does (``PL_FIT__TRAINER__MAX_EPOCHS``, ``PL_FIT__CONFIG``;
            ``PL_TRAINER__MAX_EPOCHS`` with ``run=False``), under the configs and the command line;
            ``env_prefix`` (default ``"PL"``). A key named after a subcommand holds that subcommand's options
            (``{"fit": {"default_env": True}}``).
        subclass_mode_model / subclass_mode_data: print ``class_path``/``init_args`` for the fixed classes.
        args: the command line (a list of strings) or a config dict; None reads ``sys.argv[1:]``.
        run: run the subcommand; with False there is no subcommand and the objects are only created
            (``cli.trainer.fit(cli.model)`` is then up to the caller).
        auto_configure_optimizers: offer the ``optimizer``/``lr_scheduler`` sections.

    Subclasses customise it with LightningCLI's hooks: :meth:`add_arguments_to_parser` (extra keys, class
    sections, ``link_arguments``), ``before_instantiate_classes``/``after_instantiate_classes`` and
    ``before_<subcommand>``/``after_<subcommand>`` (e.g. ``before_fit``). After the run ``cli.config`` holds the
    resolved config, ``cli.config_init`` the objects created from it, and ``cli.model``, ``cli.datamodule`` and
    ``cli.trainer`` the three main ones.

    Raises:
        SystemExit: with code 2 after printing a usage or config error, 1 after a failed run, 0 after ``--help``,
            ``--version`` or ``--print_config``.
    """

    def __init__(self, model_class=None, datamodule_class=None, save_config_callback: Optional[type] = _DEFAULT,
                 save_config_kwargs: Optional[Dict[str, Any]] = None, trainer_class=None,
                 trainer_defaults: Optional[Dict[str, Any]] = None,
                 seed_everything_default: Union[bool, int, None] = True,
                 parser_kwargs: Optional[Dict[str, Any]] = None, subclass_mode_model: bool = False,
                 subclass_mode_data: bool = False, args: Union[Sequence[str], Dict[str, Any], None] = None,
                 run: bool = True, auto_configure_optimizers: bool = True) -> None:
        from .save_config import SaveConfigCallback
        self.model_class = model_class
        self.datamodule_class = datamodule_class
        self.save_config_callback = SaveConfigCallback if save_config_callback is _DEFAULT else save_config_callback
        self.save_config_kwargs = dict(save_config_kwargs or {})
        self.trainer_class = trainer_class
        self.trainer_defaults = dict(trainer_defaults or {})
        self.seed_everything_default = seed_everything_default
        self.parser_kwargs = dict(parser_kwargs or {})
        self.prog = self.parser_kwargs.get("prog") or _PROG
        self.subclass_mode_model = subclass_mode_model
        self.subclass_mode_data = subclass_mode_data
        self.auto_configure_optimizers = auto_configure_optimizers
        self.run = run
        self.subcommand: Optional[str] = None
        self.config: Dict[str, Any] = {}
        self.config_init: Dict[str, Any] = {}
        self.model = self.datamodule = self.trainer = None
        self.parser = CLIParser()
        self.debug = False
        self._resolver = None
        self._continuing = False
        self._code = 0
        try:
            self._main(args)
        except CLIError as exc:
            _print_error(exc.render(), self.debug, exc)
            raise SystemExit(exc.exit_code) from None
        except _RunError as err:
            if _MAIN_ACTIVE[0]:
                raise
            if err.exc is not None:  # a user's own script: the original exception, with its traceback
                raise err.exc
            raise SystemExit(getattr(err, "exit_code", 1)) from None  # interrupted: stop the script non-zero
        finally:
            if self._resolver is not None and self.run:  # with run=False the caller still imports from there
                self._resolver.deactivate()

    # ------------------------------------------------------------------------------------------------- flow
    def _main(self, args) -> None:
        from .resolve import ClassResolver
        if isinstance(args, dict):
            parsed = ParsedArgs(subcommand=args.get("subcommand"))
            config_dict = {k: v for k, v in args.items() if k != "subcommand"}
        else:
            argv = list(sys.argv[1:] if args is None else args)
            parsed = parse_argv(argv, SUBCOMMANDS if self.run else ())
            config_dict = None
        self.debug = parsed.debug
        self.subcommand = parsed.subcommand
        if parsed.version:
            from ... import __version__
            sys.stdout.write(f"{self.prog} (ember) {__version__}\n")
            raise SystemExit(0)
        self.add_arguments_to_parser(self.parser)
        files = [p for p in parsed.config_files]
        self._resolver = ClassResolver([os.path.dirname(os.path.abspath(f)) for f in files])
        if parsed.class_help is not None:
            self._import_config_classes(parsed)
            self._print_class_help(*parsed.class_help)
            raise SystemExit(0)
        if parsed.help:
            self._print_help(parsed)
            raise SystemExit(0)
        if self.run and self.subcommand is None:
            raise UsageError(f"choose a subcommand: {', '.join(SUBCOMMANDS)} (e.g. '{self.prog} fit config.yaml'; "
                             f"'{self.prog} --help' lists the options)")
        config, origins = self._load(parsed, config_dict)
        schema = self._make_schema(origins, self.subcommand)
        self._schema = schema
        self._check_link_targets(config)
        normalized = schema.validate(config)
        self._apply_links(normalized, "parse")
        if parsed.print_config:
            from .print_config import render_config
            sys.stdout.write(render_config(schema, normalized, parsed.print_config_flags))
            raise SystemExit(0)
        self._set_seed(normalized)
        self._normalized = normalized
        self.config = schema.with_defaults(normalized)
        self.before_instantiate_classes()
        self.instantiate_classes(parsed)
        self.after_instantiate_classes()
        if self.run:
            self._run_subcommand(self.subcommand)

    def _make_schema(self, origins, subcommand):
        from .schema import ConfigSchema
        return ConfigSchema(self._resolver, origins, subcommand, model_class=self.model_class,
                            datamodule_class=self.datamodule_class, subclass_mode_model=self.subclass_mode_model,
                            subclass_mode_data=self.subclass_mode_data, trainer_class=self.trainer_class,
                            trainer_defaults=self.trainer_defaults,
                            seed_everything_default=self.seed_everything_default,
                            auto_configure_optimizers=self.auto_configure_optimizers, parser=self.parser)

    def _parser_option(self, name: str, default=None):
        """A ``parser_kwargs`` option, the subcommand's own setting first."""
        own = self.parser_kwargs.get(self.subcommand) if self.subcommand else None
        if isinstance(own, dict) and name in own:
            return own[name]
        return self.parser_kwargs.get(name, default)

    def _env_sources(self):
        """``(kind, ...)`` sources from environment variables (``default_env``), named as jsonargparse names them."""
        if not self._parser_option("default_env", False):
            return []
        known_top = self._make_schema({}, self.subcommand or "fit").top_level_keys()
        prefix = str(self._parser_option("env_prefix", "PL"))
        head = f"{prefix}_{self.subcommand.upper()}__" if self.subcommand else f"{prefix}_"
        out = []
        config_var = head + "CONFIG"
        if os.environ.get(config_var):
            out.append(("env_file", config_var, os.environ[config_var]))
        for name in sorted(os.environ):
            if not name.startswith(head) or name == config_var or not os.environ[name]:
                continue
            path = tuple(part.lower() for part in name[len(head):].split("__"))
            if path[0] in known_top and all(path):  # other variables (PL_TRAINER_* defaults, ...) are not ours
                out.append(("env", name, path, parse_value(os.environ[name])))
        return out

    def _load(self, parsed: ParsedArgs, config_dict):
        config: Dict[str, Any] = {}
        origins: Dict[tuple, str] = {}
        for key, value in self.parser.defaults.items():  # set_defaults: under everything else
            set_path(config, {}, tuple(key.split(".")), value, "defaults")
        if config_dict is not None:
            merge_into(config, origins, config_dict, {})
        for source in self._env_sources():
            if source[0] == "env_file":
                data, where = load_file(source[2], display=f"{source[2]} (from {source[1]})")
                data, where = self._lift_subcommand(data, where)
                self._take_import_paths(data, source[2])
                merge_into(config, origins, data, where)
            else:
                set_path(config, origins, source[2], source[3], f"environment variable {source[1]}")
        for source in parsed.sources:
            if source[0] == "file":
                data, where = load_file(source[1])
                data, where = self._lift_subcommand(data, where)
                self._take_import_paths(data, source[1])
                merge_into(config, origins, data, where)
            elif source[0] == "group_file":
                group, path = source[1], source[2]
                data, where = load_file(path)
                merge_into(config, origins, {group: data}, {(group,) + k: v for k, v in where.items()})
            elif source[0] == "append":
                append_path(config, origins, source[1], source[2], "command line")
            else:
                set_path(config, origins, source[1], source[2], "command line")
        return config, origins

    # ------------------------------------------------------------------------------------------------ links
    def _check_link_targets(self, config: Dict[str, Any]) -> None:
        """A linked target is computed, never given: say which source to set instead."""
        for (section, name), link in self.parser.linked_targets().items():
            value = config.get(section)
            given = value is not None if not name else isinstance(value, dict) and (
                name in value or name in (value.get("init_args") or {}))
            if given:
                where = self._schema._where((section, name) if name else (section,))
                raise ConfigError(f"'{link.target}' is linked from '{' and '.join(link.sources)}' "
                                  f"(link_arguments, applied on {link.apply_on}); set the source instead",
                                  where=where)

    def _apply_links(self, normalized: Dict[str, Any], apply_on: str, source_section: Optional[str] = None,
                     obj: Any = None) -> None:
        links = [link for link in self.parser.links if link.apply_on == apply_on]
        if not links:
            return
        rendered = self._schema.with_defaults(normalized) if apply_on == "parse" else None
        for link in links:
            if apply_on == "parse":
                values = [read_key(rendered, source) for source in link.sources]
            else:
                if any(split_key(source)[0] != source_section for source in link.sources):
                    continue
                values = []
                for source in link.sources:
                    attr = split_key(source)[1]
                    values.append(obj if not attr else _get_attr(obj, attr, source))
            self._set_target(normalized, link.target, link.value(values), check=apply_on == "parse")

    def _set_target(self, normalized: Dict[str, Any], target: str, value: Any, check: bool) -> None:
        schema = self._schema
        section, name = split_key(target)
        if not name:
            normalized[section] = value
            return
        node = normalized.get(section)
        if section == "trainer":
            params = schema.trainer_params()
            normalized["trainer"][name] = schema._check(value, params[name].annotation, ("trainer", name)) \
                if check and name in params else value
            return
        if not (isinstance(node, dict) and "init_args" in node):
            raise ConfigError(f"link_arguments: the target '{target}' is not an argument of a class section")
        if check:
            from .signature import class_params
            params, _ = class_params(schema.class_of(node))
            if name in params:
                value = schema._check(value, params[name].annotation, (section, "init_args", name))
        node["init_args"][name] = value

    def _take_import_paths(self, data: Dict[str, Any], path: str) -> None:
        """A saved config's ``import_paths`` (directories relative to the file, written by SaveConfigCallback): the
        places its model's and data's modules were imported from, searched first."""
        dirs = data.pop("import_paths", None)
        if dirs is None:
            return
        if isinstance(dirs, str):
            dirs = [dirs]
        if not isinstance(dirs, list) or not all(isinstance(d, str) for d in dirs):
            raise ConfigError(f"'import_paths' must be a list of directories (relative to the config file), got "
                              f"{dirs!r}", where=path)
        base = os.path.dirname(os.path.abspath(path))
        self._resolver.add_dirs([os.path.join(base, d) for d in dirs])

    def _lift_subcommand(self, data, where):
        """A config written for ``--config FILE fit`` order with a ``fit:`` section applies that section."""
        subs = [k for k in data if k in SUBCOMMANDS and isinstance(data[k], dict)]
        if not subs:
            return data, where
        out = {k: v for k, v in data.items() if k not in SUBCOMMANDS}
        out_where = {k: v for k, v in where.items() if k[0] not in SUBCOMMANDS}
        if self.subcommand in subs:
            merge_into(out, out_where, data[self.subcommand],
                       {k[1:]: v for k, v in where.items() if k[0] == self.subcommand and len(k) > 1})
        return out, out_where

    def _set_seed(self, normalized) -> None:
        seed = normalized.get("seed_everything")
        if seed is None or seed is False:
            return
        from ...core.data import seed_everything
        if seed is True:
            import random
            seed = random.SystemRandom().randint(0, 4294967295)
        normalized["seed_everything"] = seed_everything(seed, workers=True)

    def _import_config_classes(self, parsed: ParsedArgs) -> None:
        """Import the classes a given config names, so that ``--model.help DigitsClassifier`` finds its subclass
        by name (as LightningCLI finds the subclasses a script imported); a broken config is ignored here."""
        try:
            config, _ = self._load(parsed, None)
        except CLIError:
            return
        for value in list(config.values()) + list((config.get("trainer") or {}).values()):
            for item in value if isinstance(value, list) else [value]:
                path = item.get("class_path") if isinstance(item, dict) else None
                if isinstance(path, str) and "." in path:
                    try:
                        self._resolver.resolve(path)
                    except CLIError:
                        pass

    def _print_class_help(self, key_path, class_name: str) -> None:
        """``--trainer.callbacks.help EarlyStopping``: the arguments of one class that may go at ``key_path``."""
        from .help import render_class_help
        from .schema import _group_of
        schema = self._make_schema({}, self.subcommand or "fit")
        key = ".".join(key_path)
        bases = {"model": (self.model_class or schema.module_base, None),
                 "data": (self.datamodule_class or schema.datamodule_base, None),
                 "optimizer": (schema._optimizer_base(), "optimizers"), "lr_scheduler": (None, "lr_schedulers")}
        from ...callbacks.callback import Callback
        from ..loggers.logger import Logger
        bases["trainer.callbacks"] = (Callback, "callbacks")
        bases["trainer.logger"] = (Logger, "loggers")
        for name, group in self.parser.class_groups.items():
            bases[name] = (group.cls, _group_of(group.cls))
        if key not in bases:
            from .errors import suggest
            close = suggest(key, list(bases))
            hint = f"; did you mean '--{close}.help'?" if close else f"; it works for {', '.join(bases)}"
            raise UsageError(f"'--{key}.help' lists the arguments of a class that '{key}' takes{hint}",
                             where="command line")
        base, group = bases[key]
        cls = self._resolver.resolve(class_name, base, group, where="command line", key=f"--{key}.help")
        sys.stdout.write(render_class_help(self.prog, key, cls, skip=("params", "optimizer")))

    def _print_help(self, parsed: ParsedArgs) -> None:
        from .help import render_help
        classes: Dict[str, Any] = {}
        schema = None
        try:  # with a config, its classes' arguments are listed too; a broken config still gets the general help
            config, origins = self._load(parsed, None)
            schema = self._make_schema(origins, self.subcommand or "fit")
            for section, group in (("model", None), ("data", None), ("optimizer", "optimizers"),
                                   ("lr_scheduler", "lr_schedulers")):
                value = config.get(section)
                path = value.get("class_path") if isinstance(value, dict) else value
                if isinstance(path, str):
                    classes[section] = self._resolver.resolve(path, None, group)
        except (CLIError, SystemExit):
            pass
        if schema is None:
            schema = self._make_schema({}, self.subcommand or "fit")
        if self.subcommand is None and self.run:
            schema.subcommand = "fit"
        sys.stdout.write(render_help(self.prog, schema, self.subcommand, SUBCOMMANDS if self.run else (),
                                     model_cls=classes.get("model", self.model_class),
                                     data_cls=classes.get("data", self.datamodule_class),
                                     optimizer_cls=classes.get("optimizer"),
                                     scheduler_cls=classes.get("lr_scheduler")))

    # ------------------------------------------------------------------------------------------ instantiate
    def add_arguments_to_parser(self, parser: CLIParser) -> None:
        """Hook: add keys, class sections, links and defaults to the config (see :class:`CLIParser`), e.g.
        ``parser.link_arguments("data.batch_size", "model.batch_size")``."""

    def before_instantiate_classes(self) -> None:
        """Hook: runs after the config is validated, before any object is created."""

    def after_instantiate_classes(self) -> None:
        """Hook: runs after the model, the datamodule and the trainer exist."""

    def instantiate_classes(self, parsed: Optional[ParsedArgs] = None) -> None:
        """Create ``self.datamodule``, ``self.model`` and ``self.trainer`` from the validated config."""
        schema, cfg = self._schema, self._normalized
        self.datamodule = schema.build(cfg.get("data"))
        if self.datamodule is not None:
            self._apply_links(cfg, "instantiate", "data", self.datamodule)
        self.model = schema.build(cfg.get("model"))
        if self.model is not None:
            self._apply_links(cfg, "instantiate", "model", self.model)
        self.config_init = {"data": self.datamodule, "model": self.model}
        group_callbacks = []
        for key in self.parser.class_groups:
            obj = schema.build(cfg.get(key))
            self.config_init[key] = obj
            if obj is not None and _is_callback(obj):
                group_callbacks.append(obj)
        if self.model is not None and self.auto_configure_optimizers and cfg.get("optimizer") is not None:
            self._add_configure_optimizers(self.model, cfg["optimizer"], cfg.get("lr_scheduler"))
        extra = list(group_callbacks)
        if self.save_config_callback is not None and self.run:
            kwargs = {"overwrite": bool(parsed.overwrite) if parsed is not None else False}
            kwargs.update(self.save_config_kwargs)
            kwargs.setdefault("input_files", parsed.config_files if parsed is not None else [])
            if "import_dirs" in inspect.signature(self.save_config_callback).parameters:
                kwargs.setdefault("import_dirs", self._resolver.used_dirs)
            extra.append(self.save_config_callback(self.config, **kwargs))
        self.trainer = self.instantiate_trainer(extra)
        self.config_init["trainer"] = self.trainer

    def instantiate_trainer(self, extra_callbacks: List[Any] = ()):
        """Create the Trainer from the ``trainer`` section (``extra_callbacks`` are appended)."""
        return self._schema.build_trainer(self._normalized.get("trainer") or {}, extra_callbacks)

    def _add_configure_optimizers(self, model, optimizer_spec, scheduler_spec) -> None:
        from ..call import is_overridden
        from ..module import LightningModule
        schema = self._schema
        if is_overridden("configure_optimizers", model, LightningModule):
            where = schema._where(("optimizer",))
            raise ConfigError(f"the config sets 'optimizer' but {type(model).__name__} defines "
                              "configure_optimizers(); remove one of them", where=where)
        monitor = (scheduler_spec or {}).get("init_args", {}).get("monitor")

        def configure_optimizers(module):
            optimizer = schema.build(optimizer_spec, params=module.parameters())
            if scheduler_spec is None:
                return optimizer
            scheduler = schema.build(scheduler_spec, exclude=("monitor",), optimizer=optimizer)
            config = {"scheduler": scheduler}
            if monitor is not None:
                config["monitor"] = monitor
            return {"optimizer": optimizer, "lr_scheduler": config}

        configure_optimizers.__doc__ = "The optimizer (and scheduler) from the CLI's config."
        # build them once now, so that a value their constructors reject is a config error before the run starts
        trial = schema.build(optimizer_spec, params=list(model.parameters()))
        if scheduler_spec is not None:
            schema.build(scheduler_spec, exclude=("monitor",), optimizer=trial)
        model.configure_optimizers = types.MethodType(configure_optimizers, model)
        if not is_overridden("configure_optimizers", model, LightningModule):
            # the Trainer looks the hook up on the class: give this one object a same-named subclass that has it
            cls = type(model)
            model.__class__ = type(cls.__name__, (cls,), {"configure_optimizers": configure_optimizers,
                                                          "__module__": cls.__module__,
                                                          "__qualname__": cls.__qualname__,
                                                          "__doc__": cls.__doc__})

    # ------------------------------------------------------------------------------------------------- run
    def _run_subcommand(self, subcommand: str) -> None:
        before = getattr(self, f"before_{subcommand}", None)
        if callable(before):
            before()
        cfg = self._normalized
        kwargs = {name: cfg[name] for name in self._schema.run_params() if name not in ("seed_everything",
                                                                                       "test_after_fit")}
        if subcommand == "fit" and kwargs.get("ckpt_path") == "last":
            kwargs["ckpt_path"] = self._find_last_checkpoint() or "last"
            self.config["ckpt_path"] = kwargs["ckpt_path"]
            if kwargs["ckpt_path"] != "last":
                self._continue_run(kwargs["ckpt_path"])
        from .export import RUN_FUNCTIONS
        fn = getattr(self.trainer, subcommand) if subcommand not in RUN_FUNCTIONS else \
            types.MethodType(RUN_FUNCTIONS[subcommand], self.trainer)
        try:
            with warnings.catch_warnings():
                if self._continuing:  # the checkpoint directory holds this run's own checkpoints: no news
                    warnings.filterwarnings("ignore", message=r"Checkpoint directory .* exists and is not empty")
                fn(self.model, datamodule=self.datamodule, **kwargs)
            if subcommand == "fit" and not self.trainer.interrupted and cfg.get("test_after_fit"):
                cb = self.trainer.checkpoint_callback
                best = "best" if cb is not None and getattr(cb, "best_model_path", "") else None
                self.trainer.test(self.model, datamodule=self.datamodule, ckpt_path=best)
        except CLIError:
            raise
        except SystemExit as exc:  # Ctrl-C (status 1) or SIGTERM (143) ended the run after its checkpoint was written
            if self.trainer.interrupted:
                err = _RunError(subcommand, None)
                err.exit_code = exc.code if isinstance(exc.code, int) and exc.code else 1
                raise err from None
            raise
        except Exception as exc:
            raise _RunError(subcommand, exc) from exc
        if self.trainer.interrupted:
            raise _RunError(subcommand, None)
        after = getattr(self, f"after_{subcommand}", None)
        if callable(after):
            after()

    def _continue_run(self, ckpt_path: str) -> None:
        """Resuming from ``<logger root>/version_N/checkpoints/last.ckpt`` continues run ``version_N`` in its own
        directory (logs, checkpoints and the tracking state of ModelCheckpoint carry on) rather than starting a new
        version; the run's config.yaml, which describes how it started, is kept."""
        logger = self.trainer.logger
        root = getattr(logger, "root_dir", None)
        if root is None or getattr(logger, "_version", 0) is not None:  # no versioned logger, or a fixed version
            return
        run_dir = os.path.dirname(os.path.dirname(os.path.abspath(ckpt_path)))
        if os.path.basename(os.path.dirname(os.path.abspath(ckpt_path))) != "checkpoints" or \
                os.path.dirname(run_dir) != os.path.abspath(root):
            return
        name = os.path.basename(run_dir)
        logger._version = int(name[len("version_"):]) if name.startswith("version_") and \
            name[len("version_"):].isdigit() else name
        for cb in self.trainer.callbacks:
            if hasattr(cb, "keep_existing"):
                cb.keep_existing = True
        self._continuing = True

    def _find_last_checkpoint(self) -> Optional[str]:
        """``ckpt_path: last`` across runs: the newest ``last*.ckpt`` in the checkpoint callbacks' directories, or
        in any version directory of the logger (an auto-versioned logger gives the resumed run a new version)."""
        import glob
        trainer = self.trainer
        dirs = []
        for cb in trainer.checkpoint_callbacks:
            if getattr(cb, "dirpath", None):
                dirs.append(cb.dirpath)
        logger = trainer.logger
        if logger is not None:
            root = getattr(logger, "root_dir", None) or getattr(logger, "save_dir", None)
            if root:
                dirs += glob.glob(os.path.join(root, "*", "checkpoints"))
        else:
            dirs.append(os.path.join(trainer.default_root_dir, "checkpoints"))
        candidates = [f for d in dirs for f in glob.glob(os.path.join(d, "last*.ckpt")) if os.path.isfile(f)]
        return max(candidates, key=os.path.getmtime) if candidates else None


def _is_callback(obj) -> bool:
    from ...callbacks.callback import Callback
    return isinstance(obj, Callback)


def _get_attr(obj, dotted: str, source: str):
    for part in dotted.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"link_arguments: '{source}' names '{part}', which {type(obj).__name__} does not have "
                              "after it was created")
        obj = getattr(obj, part)
    return obj


class _RunError(Exception):
    """The subcommand raised (``exc``) or was interrupted (``exc`` None)."""

    def __init__(self, subcommand: str, exc: Optional[BaseException]) -> None:
        self.subcommand = subcommand
        self.exc = exc
        super().__init__(subcommand)


def _print_error(text: str, debug: bool, exc: Optional[BaseException] = None) -> None:
    if debug and exc is not None:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    sys.stderr.write(f"error: {text}\n")
    sys.stderr.flush()


def _user_frame(exc: BaseException) -> str:
    """``model.py:42 in training_step``: the innermost frame outside ember's own packages."""
    frames = traceback.extract_tb(exc.__traceback__)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    user = [f for f in frames if not os.path.abspath(f.filename).startswith(root + os.sep)
            and "/site-packages/" not in f.filename]
    f = (user or frames or [None])[-1]
    if f is None:
        return ""
    return f"{os.path.relpath(f.filename) if not os.path.relpath(f.filename).startswith('..') else f.filename}:" \
           f"{f.lineno} in {f.name}"


def _one_line_warnings():
    """Show warnings as ``warning: message`` (one line, no source excerpt) while the command runs."""
    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        name = "" if category is UserWarning else f"{category.__name__}: "
        (file or sys.stderr).write(f"warning: {name}{message}\n")

    warnings.showwarning = show
    return original


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The ``trainer`` command (and ``python -m ember``): run :class:`EmberCLI` and return the exit code
    (0 success, 1 failed run, 2 usage or config error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    if not argv:
        sys.stderr.write(f"usage: {_PROG} {{{','.join(SUBCOMMANDS)}}} CONFIG.yaml [--GROUP.KEY VALUE ...]\n"
                         f"error: choose a subcommand: {', '.join(SUBCOMMANDS)} ('{_PROG} --help' lists the "
                         "options)\n")
        return 2
    original = None if debug else _one_line_warnings()
    saved_path = list(sys.path)
    _MAIN_ACTIVE[0] = True
    try:
        EmberCLI(args=argv)
        return 0
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:  # before the Trainer runs (it handles Ctrl-C itself during a run)
        sys.stderr.write("error: interrupted\n")
        return 1
    except _RunError as err:
        if err.exc is None:
            sys.stderr.write(f"error: {err.subcommand} was interrupted; resume it with --ckpt_path last\n")
            return getattr(err, "exit_code", 1)
        exc = err.exc
        from ..exceptions import MisconfigurationException
        if isinstance(exc, MisconfigurationException):
            _print_error(f"{err.subcommand} failed: {exc}", debug, exc)
        else:
            where = _user_frame(exc)
            _print_error(f"{err.subcommand} failed: {type(exc).__name__}: {exc}" +
                         (f"\n  at {where} (run with --debug for the full traceback)" if where and not debug
                          else ""), debug, exc)
        return 1
    finally:
        _MAIN_ACTIVE[0] = False
        sys.path[:] = saved_path
        if original is not None:
            warnings.showwarning = original
