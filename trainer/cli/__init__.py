"""``ember.trainer.cli``: the ``trainer`` command line and :class:`EmberCLI`, its Python API.

``trainer fit config.yaml --trainer.max_epochs 3`` builds the model, the datamodule and the Trainer from
LightningCLI-style YAML configs and runs ``Trainer.fit``; ``validate``, ``test`` and ``predict`` work the same way.
"""
from .app import EmberCLI, main
from .parser import CLIParser
from .save_config import SaveConfigCallback

__all__ = ["EmberCLI", "main", "SaveConfigCallback", "CLIParser"]
