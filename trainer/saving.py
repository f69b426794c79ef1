"""Lightning's ``core.saving`` names: the checkpoint keys of hyperparameters and the ``hparams.yaml`` helpers.

``load_hparams_from_yaml`` reads with ``yaml.safe_load``: a YAML file can never run code or build Python objects.
"""
from __future__ import annotations

import os
import warnings
from typing import Any, Dict, Union

__all__ = ["CHECKPOINT_HYPER_PARAMS_KEY", "CHECKPOINT_HYPER_PARAMS_NAME", "CHECKPOINT_HYPER_PARAMS_TYPE",
           "load_hparams_from_yaml", "save_hparams_to_yaml"]

CHECKPOINT_HYPER_PARAMS_KEY = "hyper_parameters"
CHECKPOINT_HYPER_PARAMS_NAME = "hparams_name"
CHECKPOINT_HYPER_PARAMS_TYPE = "hparams_type"


def _omegaconf():
    try:
        import omegaconf
    except ImportError:
        return None
    return omegaconf


def save_hparams_to_yaml(config_yaml: Union[str, "os.PathLike"], hparams: Any, use_omegaconf: bool = True) -> None:
    """Write ``hparams`` (a dict, a ``Namespace`` or an OmegaConf ``DictConfig``) to ``config_yaml``, atomically.

    Values YAML cannot represent safely are skipped with a warning naming them.
    """
    omegaconf = _omegaconf()
    if use_omegaconf and omegaconf is not None and isinstance(hparams, omegaconf.Container):
        hparams = omegaconf.OmegaConf.to_container(hparams, resolve=True)
    if not os.path.isdir(os.path.dirname(os.path.abspath(os.fspath(config_yaml)))):
        raise RuntimeError(f"Missing folder: {os.path.dirname(os.fspath(config_yaml))}.")
    from .loggers.csv_logs import save_hparams_to_yaml as write_yaml
    write_yaml(os.fspath(config_yaml), hparams)


def load_hparams_from_yaml(config_yaml: Union[str, "os.PathLike"], use_omegaconf: bool = True) -> Dict[str, Any]:
    """The hyperparameters in ``config_yaml`` (as an OmegaConf ``DictConfig`` when OmegaConf is installed and
    ``use_omegaconf``); ``{}`` with a warning when the file does not exist."""
    import yaml
    path = os.fspath(config_yaml)
    if not os.path.exists(path):
        warnings.warn(f"Missing Tags: {path}.", UserWarning)
        return {}
    with open(path, encoding="utf-8") as fh:
        hparams = yaml.safe_load(fh) or {}
    omegaconf = _omegaconf()
    if use_omegaconf and omegaconf is not None:
        try:
            return omegaconf.OmegaConf.create(hparams)
        except (omegaconf.errors.UnsupportedValueType, omegaconf.errors.ValidationError):
            pass
    return hparams
