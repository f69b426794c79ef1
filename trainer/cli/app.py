"""``EmberCLI`` (the counterpart of ``LightningCLI``) and ``main``, the ``trainer`` command."""
from __future__ import annotations

import os
import sys
import traceback
import types
import warnings
from typing import Any, Dict, List, Optional, Sequence, Union

from .args import SUBCOMMANDS, ParsedArgs, parse_argv
from .config_files import load_file, merge_into, set_path
from .errors import CLIError, ConfigError, UsageError

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
        parser_kwargs: accepted for LightningCLI compatibility (``prog``, ``description``).
        subclass_mode_model / subclass_mode_data: print ``class_path``/``init_args`` for the fixed classes.
        args: the command line (a list of strings) or a config dict; None reads ``sys.argv[1:]``.
        run: run the subcommand; with False there is no subcommand and the objects are only created
            (``cli.trainer.fit(cli.model)`` is then up to the caller).
        auto_configure_optimizers: offer the ``optimizer``/``lr_scheduler`` sections.

    Raises:
        SystemExit: with code 2 after printing a usage or config error, 1 after a failed run, 0 after ``--help``
            or ``--print_config``.
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
        self.model = self.datamodule = self.trainer = None
        self.debug = False
        self._resolver = None
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
        from .schema import ConfigSchema
        if isinstance(args, dict):
            parsed = ParsedArgs(subcommand=args.get("subcommand"))
            config_dict = {k: v for k, v in args.items() if k != "subcommand"}
        else:
            argv = list(sys.argv[1:] if args is None else args)
            parsed = parse_argv(argv, SUBCOMMANDS if self.run else ())
            config_dict = None
        self.debug = parsed.debug
        self.subcommand = parsed.subcommand
        files = [p for p in parsed.config_files]
        self._resolver = ClassResolver([os.path.dirname(os.path.abspath(f)) for f in files])
        if parsed.help:
            self._print_help(parsed)
            raise SystemExit(0)
        if self.run and self.subcommand is None:
            raise UsageError(f"choose a subcommand: {', '.join(SUBCOMMANDS)} (e.g. '{self.prog} fit config.yaml'; "
                             f"'{self.prog} --help' lists the options)")
        config, origins = self._load(parsed, config_dict)
        schema = ConfigSchema(self._resolver, origins, self.subcommand, model_class=self.model_class,
                              datamodule_class=self.datamodule_class, subclass_mode_model=self.subclass_mode_model,
                              subclass_mode_data=self.subclass_mode_data, trainer_class=self.trainer_class,
                              trainer_defaults=self.trainer_defaults,
                              seed_everything_default=self.seed_everything_default,
                              auto_configure_optimizers=self.auto_configure_optimizers)
        self._schema = schema
        normalized = schema.validate(config)
        if parsed.print_config:
            from .config_files import dump_config
            sys.stdout.write(dump_config(schema.with_defaults(normalized)))
            raise SystemExit(0)
        self._set_seed(normalized)
        self._normalized = normalized
        self.config = schema.with_defaults(normalized)
        self.before_instantiate_classes()
        self.instantiate_classes(parsed)
        self.after_instantiate_classes()
        if self.run:
            self._run_subcommand(self.subcommand)

    def _load(self, parsed: ParsedArgs, config_dict):
        config: Dict[str, Any] = {}
        origins: Dict[tuple, str] = {}
        if config_dict is not None:
            merge_into(config, origins, config_dict, {})
        for source in parsed.sources:
            if source[0] == "file":
                data, where = load_file(source[1])
                data, where = self._lift_subcommand(data, where)
                merge_into(config, origins, data, where)
            elif source[0] == "group_file":
                group, path = source[1], source[2]
                data, where = load_file(path)
                merge_into(config, origins, {group: data}, {(group,) + k: v for k, v in where.items()})
            else:
                set_path(config, origins, source[1], source[2], "command line")
        return config, origins

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

    def _print_help(self, parsed: ParsedArgs) -> None:
        from .help import render_help
        from .schema import ConfigSchema
        classes: Dict[str, Any] = {}
        schema = None
        try:  # with a config, its classes' arguments are listed too; a broken config still gets the general help
            config, origins = self._load(parsed, None)
            schema = ConfigSchema(self._resolver, origins, self.subcommand or "fit", model_class=self.model_class,
                                  datamodule_class=self.datamodule_class, trainer_class=self.trainer_class,
                                  trainer_defaults=self.trainer_defaults,
                                  seed_everything_default=self.seed_everything_default,
                                  auto_configure_optimizers=self.auto_configure_optimizers)
            for section, group in (("model", None), ("data", None), ("optimizer", "optimizers"),
                                   ("lr_scheduler", "lr_schedulers")):
                value = config.get(section)
                path = value.get("class_path") if isinstance(value, dict) else value
                if isinstance(path, str):
                    classes[section] = self._resolver.resolve(path, None, group)
        except (CLIError, SystemExit):
            pass
        if schema is None:
            schema = ConfigSchema(self._resolver, {}, self.subcommand or "fit", model_class=self.model_class,
                                  datamodule_class=self.datamodule_class, trainer_class=self.trainer_class,
                                  trainer_defaults=self.trainer_defaults,
                                  seed_everything_default=self.seed_everything_default,
                                  auto_configure_optimizers=self.auto_configure_optimizers)
        if self.subcommand is None and self.run:
            schema.subcommand = "fit"
        sys.stdout.write(render_help(self.prog, schema, self.subcommand, SUBCOMMANDS if self.run else (),
                                     model_cls=classes.get("model", self.model_class),
                                     data_cls=classes.get("data", self.datamodule_class),
                                     optimizer_cls=classes.get("optimizer"),
                                     scheduler_cls=classes.get("lr_scheduler")))

    # ------------------------------------------------------------------------------------------ instantiate
    def before_instantiate_classes(self) -> None:
        """Hook: runs after the config is validated, before any object is created."""

    def after_instantiate_classes(self) -> None:
        """Hook: runs after the model, the datamodule and the trainer exist."""

    def instantiate_classes(self, parsed: Optional[ParsedArgs] = None) -> None:
        """Create ``self.datamodule``, ``self.model`` and ``self.trainer`` from the validated config."""
        schema, cfg = self._schema, self._normalized
        self.datamodule = schema.build(cfg.get("data"))
        self.model = schema.build(cfg.get("model"))
        if self.model is not None and self.auto_configure_optimizers and cfg.get("optimizer") is not None:
            self._add_configure_optimizers(self.model, cfg["optimizer"], cfg.get("lr_scheduler"))
        extra = []
        if self.save_config_callback is not None and self.run:
            kwargs = {"overwrite": bool(parsed.overwrite) if parsed is not None else False}
            kwargs.update(self.save_config_kwargs)
            kwargs.setdefault("input_files", parsed.config_files if parsed is not None else [])
            extra.append(self.save_config_callback(self.config, **kwargs))
        self.trainer = self.instantiate_trainer(extra)

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
        fn = getattr(self.trainer, subcommand)
        try:
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
