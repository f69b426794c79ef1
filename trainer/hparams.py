"""``save_hyperparameters`` and the ``hparams`` attribute dict, shared by LightningModule and LightningDataModule."""
from __future__ import annotations

import copy
import inspect
from argparse import Namespace
from collections.abc import Mapping
from typing import Any, Iterable, Optional

from . import saving

__all__ = ["AttributeDict", "HyperparametersMixin"]


class AttributeDict(dict):
    """A dict whose keys are also attributes (``hparams.lr``), printed as an aligned table."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as exc:
            raise AttributeError(f"'AttributeDict' object has no attribute '{key}'") from exc

    def __setattr__(self, key, val):
        self[key] = val

    def __delattr__(self, key):
        del self[key]

    def __repr__(self):
        if not self:
            return ""
        width = max(len(str(k)) for k in self)
        return "\n".join(f'"{k}":'.ljust(width + 3) + f" {v!r}" for k, v in sorted(self.items(), key=lambda kv: str(kv[0])))


def _init_args_from_frame(frame) -> dict:
    """The arguments the ``__init__`` running in ``frame`` was called with (``*args``/``**kwargs`` flattened)."""
    code = frame.f_code
    local = frame.f_locals
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    args = {n: local[n] for n in names if n in local and n != "self"}
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kw_name = code.co_varnames[code.co_argcount + code.co_kwonlyargcount +
                                   (1 if code.co_flags & inspect.CO_VARARGS else 0)]
        args.update(local.get(kw_name, {}))
    return args


def _init_args_of(start, obj) -> Optional[dict]:
    """The arguments of every ``__init__`` of ``obj`` on the stack, merged (outer calls override inner ones), as
    Lightning collects them: a subclass calling ``super().__init__(...)`` keeps its parent's arguments too."""
    frame, merged, found = start, {}, False
    while frame is not None:
        if frame.f_code.co_name == "__init__" and frame.f_locals.get("self") is obj:
            merged.update(_init_args_from_frame(frame))
            found = True
        elif found:
            break
        frame = frame.f_back
    return merged if found else None


def _is_omegaconf(value) -> bool:
    return type(value).__module__.startswith("omegaconf")  # no import of omegaconf (optional) unless it is in use


def _plain_value(value):
    """An OmegaConf container as plain dicts and lists (interpolations resolved); anything else unchanged."""
    if _is_omegaconf(value):
        from omegaconf import OmegaConf
        return OmegaConf.to_container(value, resolve=True)
    return value


def plain_config(config) -> dict:
    """A dict-like config as a plain ``dict``: a mapping, an ``argparse.Namespace`` or another object's attributes
    (nested Namespaces stay Namespaces) or an OmegaConf ``DictConfig`` (resolved into plain dicts and lists, so it
    can be saved as JSON and YAML)."""
    if _is_omegaconf(config):
        return dict(_plain_value(config))
    if isinstance(config, Mapping):
        return {k: _plain_value(v) for k, v in config.items()}
    if isinstance(config, Namespace) or hasattr(config, "__dict__"):
        return {k: _plain_value(v) for k, v in vars(config).items()}
    raise TypeError(f"expected a dict, an argparse.Namespace or an OmegaConf DictConfig, got {type(config).__name__}")


class HyperparametersMixin:
    """Adds ``save_hyperparameters()``, ``hparams`` and ``hparams_initial``, and Lightning's checkpoint key names
    (``CHECKPOINT_HYPER_PARAMS_KEY``, ...)."""

    CHECKPOINT_HYPER_PARAMS_KEY = saving.CHECKPOINT_HYPER_PARAMS_KEY
    CHECKPOINT_HYPER_PARAMS_NAME = saving.CHECKPOINT_HYPER_PARAMS_NAME
    CHECKPOINT_HYPER_PARAMS_TYPE = saving.CHECKPOINT_HYPER_PARAMS_TYPE

    __jit_unused_properties__ = ["hparams", "hparams_initial"]

    def save_hyperparameters(self, *args: Any, ignore: Optional[Iterable[str]] = None, frame=None,
                             logger: bool = True) -> None:
        """Store the ``__init__`` arguments in ``self.hparams`` (and checkpoints).

        Args:
            *args: names of the arguments to keep, or one dict/Namespace of hyperparameters; all when empty.
            ignore: argument names to leave out (e.g. modules passed to ``__init__``).
            frame: the frame to read arguments from (defaults to the calling ``__init__``).
            logger: also send the hyperparameters to the loggers.
        """
        self._log_hyperparams = logger
        ignore = [ignore] if isinstance(ignore, str) else list(ignore or [])
        if len(args) == 1 and not isinstance(args[0], str):
            value = args[0]
            hp = plain_config(value)
            # the __init__ argument that holds this config: load_from_checkpoint passes the config back through it
            init_args = _init_args_of(frame or inspect.currentframe().f_back, self) or {}
            names = [k for k, v in init_args.items() if v is value]
            self._hparams_name = names[0] if names else None
        else:
            init_args = _init_args_of(frame or inspect.currentframe().f_back, self)
            if init_args is None:
                raise RuntimeError("save_hyperparameters() must be called from an __init__ method, or be given the "
                                   "hyperparameters (names, a dict or a Namespace)")
            if args:
                missing = [a for a in args if a not in init_args]
                if missing:
                    raise ValueError(f"save_hyperparameters(): {missing} are not arguments of "
                                     f"{type(self).__name__}.__init__ (arguments: {sorted(init_args)})")
                hp = {a: init_args[a] for a in args}
            else:
                hp = init_args
            self._hparams_name = "kwargs" if hp else None
        hp = {k: _plain_value(v) for k, v in hp.items() if k not in ignore and not k.startswith("__")}
        self._set_hparams(hp)
        self._hparams_initial = copy.deepcopy(self._hparams)

    def _set_hparams(self, hp) -> None:
        self._hparams = AttributeDict(hp) if not isinstance(hp, AttributeDict) else hp

    @property
    def hparams(self) -> AttributeDict:
        """The saved hyperparameters (mutable)."""
        if not hasattr(self, "_hparams"):
            self._hparams = AttributeDict()
        return self._hparams

    @property
    def hparams_initial(self) -> AttributeDict:
        """A copy of the hyperparameters as first saved (what loggers and checkpoints get)."""
        if not hasattr(self, "_hparams_initial"):
            return AttributeDict()
        return copy.deepcopy(self._hparams_initial)
