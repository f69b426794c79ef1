"""``ModelSummary``: prints a table of the module's layers, parameter counts, modes, FLOPs and shapes when fit
starts."""
from __future__ import annotations

import logging
import math
from typing import Any, List, Tuple

from .callback import Callback

__all__ = ["ModelSummary", "ModelSummaryTable", "get_human_readable_count"]

_UNITS = [" ", "K", "M", "B", "T"]

# Lightning logs the summary at INFO level through its package logger, whose handler writes to stderr; so does ember
# (the "ember.trainer" logger, set up in ember/trainer/__init__.py), keeping stdout for the progress bar and results.
log = logging.getLogger("ember.trainer.callbacks")


def get_human_readable_count(number: int) -> str:
    """Abbreviate a count as Lightning does: 999 -> '999  ', 7_850 -> '7.9 K', 1_200_000 -> '1.2 M'."""
    if number < 0:
        raise ValueError(f"expected a non-negative count, got {number}")
    digits = int(math.floor(math.log10(number)) + 1) if number > 0 else 1
    groups = min(int(math.ceil(digits / 3)), len(_UNITS))
    value = number * 10 ** (-3 * (groups - 1))
    index = groups - 1
    if index < 1 or value >= 100:
        return f"{int(value):,d} {_UNITS[index]}"
    return f"{value:,.1f} {_UNITS[index]}"


def _shape_of(obj) -> Any:
    if hasattr(obj, "shape"):
        return list(obj.shape)
    if isinstance(obj, (list, tuple)):
        return [_shape_of(o) for o in obj]
    return "?"


_PRECISION_BITS = {"64": 64, "32": 32, "16": 16, "bf16": 16, "16-true": 16, "bf16-true": 16, "32-true": 32,
                   "64-true": 64, "16-mixed": 32, "bf16-mixed": 32}


class ModelSummaryTable:
    """The summary of a module down to ``max_depth`` levels of submodules, in Lightning 2.6's layout.

    The columns are the index, ``Name``, ``Type``, ``Params``, ``Mode`` (train/eval), ``FLOPs`` and, when the module
    has an ``example_input_array``, ``In sizes`` and ``Out sizes``; FLOPs are counted during that example forward
    pass (zero without one). Parameters that belong to no listed layer get an ``other params`` row. The footer gives
    the parameter counts, the size in MB at the trainer's precision, the number of submodules in train and eval mode
    and the total FLOPs.
    """

    def __init__(self, model, max_depth: int = 1):
        if not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < -1:
            raise ValueError(f"`max_depth` can be -1, 0 or > 0, got {max_depth}.")
        self.model = model
        self.max_depth = max_depth
        self.layers: List[Tuple[str, Any]] = [
            (name, mod) for name, mod in model.named_modules()
            if name and (max_depth == -1 or name.count(".") < max_depth)] if max_depth != 0 else []
        self.in_sizes = {}
        self.out_sizes = {}
        self.flops = {name: 0 for name, _ in self.layers}
        self.total_flops = 0
        self.has_example = getattr(model, "example_input_array", None) is not None
        if self.has_example:
            self._forward_example()

    def _forward_example(self) -> None:
        from ..core.autograd.grad_mode import no_grad
        from .flop_counter import FlopCounter
        handles = []
        for name, mod in self.layers:
            def hook(module, args, output, _name=name):
                if _name not in self.in_sizes:  # the first call, as Lightning's one-shot hook
                    self.in_sizes[_name] = _shape_of(args[0] if len(args) == 1 else list(args))
                    self.out_sizes[_name] = _shape_of(output)
            handles.append(mod.register_forward_hook(hook))
        x = self.model.example_input_array
        modes = [(m, m.training) for m in self.model.modules()]
        self.model.eval()
        try:
            with no_grad(), FlopCounter(self.layers) as counter:
                if isinstance(x, (list, tuple)):
                    self.model(*x)
                elif isinstance(x, dict):
                    self.model(**x)
                else:
                    self.model(x)
        finally:
            for m, training in modes:
                m.training = training
            for h in handles:
                h.remove()
        self.flops = dict(counter.by_module)
        self.total_flops = counter.total

    @property
    def total_parameters(self) -> int:
        """All parameters of the model."""
        return sum(p.numel() for p in self.model.parameters())

    @property
    def trainable_parameters(self) -> int:
        """Parameters with ``requires_grad``."""
        return sum(p.numel() for p in self.model.parameters() if p.requires_grad)

    @property
    def total_training_modes(self) -> dict:
        """``{"train": n, "eval": m}``: the submodules (the root excluded) in each mode."""
        modes = [m.training for m in self.model.modules()][1:]
        return {"train": modes.count(True), "eval": modes.count(False)}

    @property
    def model_size(self) -> float:
        """Estimated size of the parameters in MB at the trainer's precision (32 bits without a trainer)."""
        trainer = getattr(self.model, "_trainer", None)
        bits = _PRECISION_BITS.get(str(trainer.precision), 32) if trainer is not None else 32
        return self.total_parameters * bits / 8 * 1e-6

    def _columns(self) -> List[Tuple[str, List[str]]]:
        params = [sum(p.numel() for p in mod.parameters()) for _, mod in self.layers]
        cols = [(" ", [str(i) for i in range(len(self.layers))]),
                ("Name", [name for name, _ in self.layers]),
                ("Type", [type(mod).__name__ for _, mod in self.layers]),
                ("Params", [get_human_readable_count(n) for n in params]),
                ("Mode", ["train" if mod.training else "eval" for _, mod in self.layers]),
                ("FLOPs", [get_human_readable_count(self.flops.get(name, 0)) for name, _ in self.layers])]
        if self.has_example:
            cols.append(("In sizes", [str(self.in_sizes.get(name, "?")) for name, _ in self.layers]))
            cols.append(("Out sizes", [str(self.out_sizes.get(name, "?")) for name, _ in self.layers]))
        # parameters no listed layer holds (the root's own); nested rows are summed as they are, as Lightning does
        leftover = self.total_parameters - sum(params)
        if leftover > 0:
            fill = {" ": " ", "Name": "other params", "Params": get_human_readable_count(leftover)}
            for header, values in cols:
                values.append(fill.get(header, "n/a"))
        return cols

    def __str__(self) -> str:
        cols = self._columns()
        n_rows = len(cols[0][1])
        widths = [max([len(h)] + [len(v) for v in values]) for h, values in cols]
        total_width = sum(widths) + 3 * (len(cols) + 1)
        lines = [" | ".join(f"{h:<{w}}" for (h, _), w in zip(cols, widths)), "-" * total_width]
        for i in range(n_rows):
            lines.append(" | ".join(f"{values[i]:<{w}}" for (_, values), w in zip(cols, widths)))
        lines.append("-" * total_width)
        trainable, total = self.trainable_parameters, self.total_parameters
        modes = self.total_training_modes
        lines.append(f"{get_human_readable_count(trainable):<10}Trainable params")
        lines.append(f"{get_human_readable_count(total - trainable):<10}Non-trainable params")
        lines.append(f"{get_human_readable_count(total):<10}Total params")
        lines.append(f"{self.model_size:<10,.3f}Total estimated model params size (MB)")
        lines.append(f"{modes['train']:<10}Modules in train mode")
        lines.append(f"{modes['eval']:<10}Modules in eval mode")
        lines.append(f"{get_human_readable_count(self.total_flops):<10}Total Flops")
        return "\n".join(lines)


class ModelSummary(Callback):
    """Log a summary of the LightningModule at the start of fit (rank zero only), to stderr as Lightning does.

    Args:
        max_depth: how many levels of submodules to list (-1 for all, 0 for none).
    """

    def __init__(self, max_depth: int = 1):
        if not isinstance(max_depth, int) or max_depth < -1:
            raise ValueError(f"ModelSummary(max_depth={max_depth!r}): expected -1, 0 or a positive int")
        self._max_depth = max_depth

    def on_fit_start(self, trainer, pl_module) -> None:
        if self._max_depth == 0 or not trainer.is_global_zero:
            return
        log.info("\n" + str(ModelSummaryTable(pl_module, max_depth=self._max_depth)))
