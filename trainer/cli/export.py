"""``trainer export config.yaml --ckpt_path best --output model.onnx``: the config's model, with a checkpoint's
weights, written as ONNX (through ``LightningModule.to_onnx``).

A subcommand is a Trainer method everywhere else; ``export`` is this module's :func:`export`, registered in
:data:`RUN_FUNCTIONS`, and called like one: ``export(trainer, model, datamodule=..., ckpt_path=..., ...)``.
"""
from __future__ import annotations

import glob
import os
import sys
from typing import Optional

__all__ = ["export", "RUN_FUNCTIONS", "EXPORT_PARAM_DOCS"]

EXPORT_PARAM_DOCS = {
    "output": "path of the .onnx file to write",
    "opset_version": "ONNX opset to export to (17 or newer); null: the newest the installed onnx supports",
    "dynamic_batch": "make dimension 0 of every input and output a symbolic 'batch' dimension",
}


def _checkpoint_dirs(trainer):
    """Where this run's checkpoints live: the checkpoint callbacks' directories, every version directory of the
    logger, or ``default_root_dir/checkpoints`` without a logger."""
    dirs = [cb.dirpath for cb in trainer.checkpoint_callbacks if getattr(cb, "dirpath", None)]
    logger = trainer.logger
    root = (getattr(logger, "root_dir", None) or getattr(logger, "save_dir", None)) if logger is not None else None
    if root:
        dirs += glob.glob(os.path.join(root, "*", "checkpoints"))
    elif logger is None:
        dirs.append(os.path.join(trainer.default_root_dir, "checkpoints"))
    return dirs


def _resolve(trainer, ckpt_path):
    """``"best"``: the best checkpoint recorded by ``ModelCheckpoint`` in the newest checkpoint of the run;
    ``"last"``: the newest ``last*.ckpt``; anything else is a path."""
    from ..checkpoint_io import load_checkpoint
    if ckpt_path not in ("best", "last"):
        return ckpt_path
    files = [f for d in _checkpoint_dirs(trainer) for f in glob.glob(os.path.join(d, "*.ckpt")) if os.path.isfile(f)]
    if ckpt_path == "last":
        files = [f for f in files if os.path.basename(f).startswith("last")]
    if not files:
        where = sorted(set(_checkpoint_dirs(trainer)))
        raise FileNotFoundError(f"ckpt_path={ckpt_path!r}: no checkpoint found in {where}; "
                                "run 'trainer fit' with this config first, or pass a checkpoint path")
    newest = max(files, key=os.path.getmtime)
    if ckpt_path == "last":
        return newest
    states = load_checkpoint(newest).get("callbacks", {})
    best = [s["best_model_path"] for s in states.values() if isinstance(s, dict) and s.get("best_model_path")]
    best = [p for p in best if os.path.isfile(p)]
    if not best:
        raise FileNotFoundError(f"ckpt_path='best': {newest} records no existing best checkpoint (is ModelCheckpoint "
                                "configured with a monitor?); pass a checkpoint path instead")
    return best[0]


def export(self, model, datamodule=None, ckpt_path: Optional[str] = None, output: str = "model.onnx",
           opset_version: Optional[int] = None, dynamic_batch: bool = True) -> None:
    """Load ``ckpt_path`` into ``model`` (``self`` is the Trainer) and write it as ONNX to ``output``.

    The traced input is the model's ``example_input_array``. ``ckpt_path`` None exports the weights the config
    builds (untrained unless the model loads its own).
    """
    from ..checkpoint_io import load_checkpoint
    path = _resolve(self, ckpt_path)
    if path is not None:  # as a Trainer restores a module: its on_load_checkpoint hook, then the weights
        checkpoint = load_checkpoint(path)
        model.on_load_checkpoint(checkpoint)
        model.load_state_dict(checkpoint["state_dict"], strict=model.strict_loading)
    sample = model.example_input_array
    if sample is None:
        raise ValueError(f"{type(model).__name__} has no example_input_array: set self.example_input_array in its "
                         "__init__ to the input forward is traced with")
    count = len(sample) if isinstance(sample, (tuple, list)) else 1
    input_names = [f"input_{i}" for i in range(count)]
    kwargs = {"input_names": input_names, "opset_version": opset_version}
    if dynamic_batch:
        # outputs follow the batch through the probe trace; inputs are declared here
        kwargs["dynamic_axes"] = {name: {0: "batch"} for name in input_names}
    proto = model.to_onnx(output, sample, **kwargs)
    source = f"the weights of {path}" if path is not None else "the config's initial weights"
    sys.stdout.write(f"exported {type(model).__name__} ({source}) to {output} (ONNX opset "
                     f"{proto.opset_import[0].version})\n")


# subcommand -> the function that runs it, for subcommands that are not Trainer methods
RUN_FUNCTIONS = {"export": export}
