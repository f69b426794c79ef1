"""Reading the command line: the subcommand (anywhere), config files, ``--key value`` overrides and flags.

Written by hand rather than with argparse so that a subcommand after ``--config`` works, every override is kept in
command-line order (configs and overrides apply left to right, the last one wins), and every mistake gets a
one-line message with the nearest valid spelling.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

from .config_files import parse_value
from .errors import UsageError, suggest

__all__ = ["SUBCOMMANDS", "ParsedArgs", "parse_argv", "FLAGS", "PRINT_CONFIG_FLAGS"]

SUBCOMMANDS = ("fit", "validate", "test", "predict", "export")

# flags that take no value: name -> help
FLAGS = {
    "--help": "show this help (with a config, also the model's and the data's arguments) and exit",
    "--print_config": "print the fully resolved config, defaults filled in, and exit; --print_config=FLAGS with "
                      "comma-separated flags: comments (the help of each key as a YAML comment), skip_default "
                      "(only values that differ from the default), skip_null (no null values)",
    "--overwrite": "replace an existing config.yaml in the run's log directory",
    "--debug": "show the Python traceback of errors",
    "--version": "print ember's version and exit",
}

PRINT_CONFIG_FLAGS = ("comments", "skip_default", "skip_null")

_GROUP_FILE_KEYS = ("trainer", "model", "data", "optimizer", "lr_scheduler")


@dataclass
class ParsedArgs:
    """What the command line asked for.

    ``sources`` lists, in command-line order, ``("file", path)`` for a config file, ``("group_file", group, path)``
    for ``--trainer trainer.yaml``, ``("set", key_path, value)`` for a ``--key value`` override and
    ``("append", key_path, value)`` for ``--key+=value`` (jsonargparse's list append). ``class_help`` is
    ``(key_path, class name)`` for ``--trainer.callbacks.help EarlyStopping``.
    """

    subcommand: Optional[str] = None
    sources: List[Tuple[Any, ...]] = field(default_factory=list)
    help: bool = False
    print_config: bool = False
    print_config_flags: Tuple[str, ...] = ()
    overwrite: bool = False
    debug: bool = False
    version: bool = False
    class_help: Optional[Tuple[Tuple[str, ...], str]] = None

    @property
    def config_files(self) -> List[str]:
        return [s[-1] for s in self.sources if s[0] in ("file", "group_file")]


def _is_config_path(token: str) -> bool:
    return token.endswith((".yaml", ".yml")) or os.path.isfile(token)


def parse_argv(argv: Sequence[str], subcommands: Sequence[str] = SUBCOMMANDS) -> ParsedArgs:
    """Parse ``argv`` (without the program name); raises :class:`UsageError`."""
    out = ParsedArgs()
    tokens = list(argv)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok in ("-h", "--help"):
            out.help = True
            continue
        if tok == "--debug":
            out.debug = True
            continue
        if tok == "--overwrite":
            out.overwrite = True
            continue
        if tok == "--version":
            out.version = True
            continue
        if tok == "--print_config" or tok.startswith("--print_config="):
            out.print_config = True
            out.print_config_flags = _print_config_flags(tok.partition("=")[2])
            continue
        if tok in subcommands and out.subcommand is None:
            out.subcommand = tok
            continue
        if tok == "-c":  # LightningCLI's short spelling of --config
            if i >= len(tokens):
                raise UsageError("option '-c' needs a config file (e.g. -c config.yaml)", where="command line")
            out.sources.append(("file", tokens[i]))
            i += 1
            continue
        if tok.startswith("--") and len(tok) > 2:
            key, sep, raw = tok[2:].partition("=")
            if not sep:
                if i >= len(tokens) or tokens[i].startswith("--"):
                    close = suggest(tok, list(FLAGS)) if "." not in key else None
                    if close is not None:
                        raise UsageError(f"unknown option '{tok}'; did you mean '{close}'?", where="command line")
                    raise UsageError(f"option '--{key}' needs a value (e.g. --{key}=VALUE)", where="command line")
                raw = tokens[i]
                i += 1
            if key == "config":
                out.sources.append(("file", raw))
                continue
            append = key.endswith("+")
            key = key[:-1] if append else key
            path = tuple(key.split("."))
            if len(path) > 1 and path[-1] == "help" and not append:
                out.class_help = (path[:-1], raw)
                continue
            if any(not part for part in path):
                raise UsageError(f"malformed option '--{key}': keys are separated by single dots, as in "
                                 "--trainer.max_epochs", where="command line")
            if len(path) == 1 and path[0] in _GROUP_FILE_KEYS and raw.endswith((".yaml", ".yml")) and not append:
                out.sources.append(("group_file", path[0], raw))
                continue
            out.sources.append(("append" if append else "set", path, parse_value(raw)))
            continue
        if tok.startswith("-") and tok != "-":
            known = list(FLAGS) + ["--config", "-c"]
            close = suggest(tok, known)
            hint = f"; did you mean '{close}'?" if close else " (overrides are written --group.key VALUE)"
            raise UsageError(f"unknown option '{tok}'{hint}", where="command line")
        if _is_config_path(tok):
            out.sources.append(("file", tok))
            continue
        if out.subcommand is None and subcommands:
            close = suggest(tok, subcommands)
            hint = f"; did you mean '{close}'?" if close else f"; choose one of {', '.join(subcommands)}"
            raise UsageError(f"unknown subcommand '{tok}'{hint}", where="command line")
        raise UsageError(f"unexpected argument '{tok}': a config file must end in .yaml or .yml, and an override "
                         "is written --group.key VALUE", where="command line")
    return out


def _print_config_flags(text: str) -> Tuple[str, ...]:
    """``comments,skip_null`` -> ``("comments", "skip_null")``; an unknown flag is an error, never ignored."""
    flags = tuple(f.strip() for f in text.split(",") if f.strip()) if text else ()
    for flag in flags:
        if flag not in PRINT_CONFIG_FLAGS:
            close = suggest(flag, PRINT_CONFIG_FLAGS)
            hint = f"did you mean '{close}'? " if close else ""
            raise UsageError(f"unknown --print_config flag '{flag}'; {hint}the flags are {', '.join(PRINT_CONFIG_FLAGS)}"
                             " (comma-separated, e.g. --print_config=skip_null,comments)", where="command line")
    return flags
