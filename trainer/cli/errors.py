"""Errors of the command line: one readable line that says where (file:line), what, and how to fix it."""
from __future__ import annotations

import difflib
from typing import Iterable, Optional

__all__ = ["CLIError", "ConfigError", "UsageError", "suggest"]


class CLIError(Exception):
    """An error the user can fix in the config or on the command line (exit code 2).

    Args:
        message: what is wrong, naming the key and the value.
        where: ``file:line`` (or ``"command line"``) the offending value came from; prefixed to the message.
        hint: an optional second line (e.g. which help page lists the valid keys).
    """

    exit_code = 2

    def __init__(self, message: str, where: Optional[str] = None, hint: Optional[str] = None) -> None:
        self.message = message
        self.where = where
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        """The one- or two-line text printed for this error (without the ``error: `` prefix)."""
        text = f"{self.where}: {self.message}" if self.where else self.message
        return text + (f"\n{self.hint}" if self.hint else "")


class ConfigError(CLIError):
    """A value in a config file or a ``--key value`` override is invalid (unknown key, wrong type, bad class)."""


class UsageError(CLIError):
    """The command line itself is malformed (no subcommand, a flag without its value, a missing file)."""


def suggest(name: str, candidates: Iterable[str]) -> Optional[str]:
    """The candidate closest to ``name`` (difflib ratio >= 0.6), or None."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None
