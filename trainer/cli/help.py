"""``trainer --help`` and ``trainer fit --help``: the groups and their arguments, with types, defaults and the text
of the classes' docstrings."""
from __future__ import annotations

import shutil
import textwrap
from typing import List, Optional

from .signature import REQUIRED, Param, class_params, summary_line
from .typecheck import describe, show_value

__all__ = ["render_help", "render_class_help"]

_OPTIONS = [
    ("-h, --help", "show this help (after a config file, also the model's and the data's arguments) and exit"),
    ("-c, --config FILE", "a YAML config; repeat it to merge several, the last one wins (a config file may also "
                          "be given without --config)"),
    ("--print_config[=FLAGS]", "print the fully resolved config, defaults filled in, and exit; FLAGS (comma-"
                               "separated): comments, skip_default, skip_null"),
    ("--KEY+=VALUE", "append to a list, e.g. --trainer.callbacks+=EarlyStopping (then --trainer.callbacks.KEY "
                     "VALUE sets the appended callback's init_args)"),
    ("--GROUP.help CLASS", "list the init_args of CLASS for GROUP (model, data, optimizer, lr_scheduler, "
                           "trainer.callbacks, trainer.logger) and exit"),
    ("--overwrite", "replace an existing config.yaml in the run's log directory"),
    ("--debug", "show the Python traceback of errors"),
    ("--version", "print ember's version and exit"),
]

_SUBCOMMAND_HELP = {
    "fit": "train the model (Trainer.fit)",
    "validate": "run one validation epoch (Trainer.validate)",
    "test": "run one test epoch (Trainer.test)",
    "predict": "run prediction (Trainer.predict)",
    "export": "write the model, with a checkpoint's weights, as ONNX (LightningModule.to_onnx)",
}


def _width() -> int:
    return max(60, min(110, shutil.get_terminal_size((100, 20)).columns))


def _entry(lines: List[str], name: str, param: Param, doc: str = "") -> None:
    width = _width()
    kind = describe(param.annotation)
    default = "required" if param.default is REQUIRED else f"default: {show_value(param.default)}"
    head = f"  --{name}"
    meta = f"{kind}; {default}" if kind != "any value" else default
    lines.append(f"{head}  ({meta})")
    text = doc or param.doc
    if text:
        lines.extend(textwrap.wrap(text, width=width, initial_indent=" " * 6, subsequent_indent=" " * 6))


def _class_group(lines: List[str], prefix: str, cls, note: Optional[str] = None, skip=()) -> None:
    summary = summary_line(cls)
    from .resolve import canonical_path
    lines.append(f"  {prefix}.class_path: {canonical_path(cls)}" + (f"  ({note})" if note else ""))
    if summary:
        lines.extend(textwrap.wrap(summary, width=_width(), initial_indent=" " * 6, subsequent_indent=" " * 6))
    params, open_ended = class_params(cls)
    for name, p in params.items():
        if name in skip:
            continue
        _entry(lines, f"{prefix}.init_args.{name}", p)
    if open_ended:
        lines.append(f"      ({cls.__name__} also takes extra keyword arguments)")
    if not params:
        lines.append(f"      ({cls.__name__} takes no init_args)")


def render_class_help(prog: str, key: str, cls, skip=()) -> str:
    """``--KEY.help CLASS``: the ``init_args`` that ``cls`` takes when given at ``key``."""
    lines = [f"usage: {prog} ... --{key}+={cls.__name__} --{key}.KEY VALUE ..." if key == "trainer.callbacks"
             else f"usage: {prog} ... --{key} {cls.__name__} --{key}.KEY VALUE ...", ""]
    _class_group(lines, key, cls, skip=skip)
    return "\n".join(lines) + "\n"


def render_help(prog: str, schema, subcommand: Optional[str], subcommands, model_cls=None, data_cls=None,
                optimizer_cls=None, scheduler_cls=None) -> str:
    """The help page. ``schema`` is a :class:`ConfigSchema`; the ``*_cls`` are the classes a given config names
    (their ``__init__`` arguments are listed with their docstring text)."""
    lines: List[str] = []
    cmd = f"{prog} {subcommand}" if subcommand else prog
    if subcommand or not subcommands:
        lines.append(f"usage: {cmd} [CONFIG.yaml ...] [--config FILE] [--GROUP.KEY VALUE ...] [--print_config] "
                     "[--overwrite] [--debug]")
    else:
        lines.append(f"usage: {prog} {{{','.join(subcommands)}}} [CONFIG.yaml ...] [--config FILE] "
                     "[--GROUP.KEY VALUE ...] [--print_config] [--overwrite] [--debug]")
    lines.append("")
    if subcommand:
        lines.append(f"{_SUBCOMMAND_HELP.get(subcommand, subcommand)}, as set by YAML configs and --KEY VALUE "
                     "overrides (LightningCLI's format).")
    else:
        lines.append("Run a LightningModule from YAML configs and --KEY VALUE overrides (LightningCLI's format). "
                     f"Example: {prog} fit config.yaml --trainer.max_epochs 3")
    if subcommands and not subcommand:
        lines += ["", "subcommands:"]
        for name in subcommands:
            lines.append(f"  {name:<10}{_SUBCOMMAND_HELP.get(name, '')}")
    lines += ["", "options:"]
    for flag, text in _OPTIONS:
        if len(flag) > 20:
            lines.append(f"  {flag}")
            lines.extend(textwrap.wrap(text, width=_width(), initial_indent=" " * 24, subsequent_indent=" " * 24))
        else:
            lines.extend(textwrap.wrap(f"  {flag:<22}{text}", width=_width(), subsequent_indent=" " * 24))
    lines += ["", "top level (--KEY VALUE or KEY: VALUE in a config):"]
    for name, p in schema.run_params().items():
        _entry(lines, name, p)
    lines += ["", "trainer: the Trainer's flags (--trainer.KEY VALUE)"]
    for name, p in schema.trainer_params().items():
        _entry(lines, f"trainer.{name}", p)  # the text of Trainer.__init__'s Args block
    lines += ["", "model: the LightningModule (--model.class_path PATH, --model.init_args.KEY VALUE or --model.KEY "
                  "VALUE)"]
    if model_cls is not None:
        _class_group(lines, "model", model_cls)
    else:
        lines.append(f"  name it with model.class_path (module.Class; a model.py beside the config is importable); "
                     f"'{prog} {subcommand or 'fit'} CONFIG.yaml --help' then lists its init_args")
    lines += ["", "data: the LightningDataModule, optional (--data.class_path PATH, --data.init_args.KEY VALUE)"]
    if data_cls is not None:
        _class_group(lines, "data", data_cls)
    else:
        lines.append("  name it with data.class_path; without it the model's own *_dataloader methods are used")
    if schema.auto_configure_optimizers:
        from .resolve import group_names
        lines += ["", "optimizer: used when the model does not define configure_optimizers (--optimizer CLASS, "
                      "--optimizer.init_args.KEY VALUE)"]
        if optimizer_cls is not None:
            _class_group(lines, "optimizer", optimizer_cls, skip=("params",))
        else:
            names = [n for n in group_names("optimizers") if n != "Optimizer"]
            lines.extend(textwrap.wrap("  short names: " + ", ".join(names), width=_width(),
                                       subsequent_indent=" " * 4))
        lines += ["", "lr_scheduler: wraps the optimizer (--lr_scheduler CLASS, --lr_scheduler.init_args.KEY "
                      "VALUE; ReduceLROnPlateau also takes init_args.monitor)"]
        if scheduler_cls is not None:
            _class_group(lines, "lr_scheduler", scheduler_cls, skip=("optimizer",))
        else:
            names = [n for n in group_names("lr_schedulers") if not n.startswith("_") and n != "LRScheduler"]
            lines.extend(textwrap.wrap("  short names: " + ", ".join(names), width=_width(),
                                       subsequent_indent=" " * 4))
    lines += ["", "callbacks and loggers: trainer.callbacks / trainer.logger entries take a class_path (short "
                  "names: EarlyStopping, ModelCheckpoint, LearningRateMonitor, Timer, TensorBoardLogger, "
                  "CSVLogger, ...) and init_args."]
    lines += ["", "exit codes: 0 success, 1 the run failed, 2 a usage or config error."]
    return "\n".join(lines) + "\n"
