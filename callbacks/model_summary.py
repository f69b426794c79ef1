"""``ModelSummary``: prints a table of the module's layers, parameter counts and shapes when fit starts."""
from __future__ import annotations

import math
from typing import Any, List, Tuple

from .callback import Callback

__all__ = ["ModelSummary", "ModelSummaryTable", "get_human_readable_count"]

_UNITS = [" ", "K", "M", "B", "T"]


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


class ModelSummaryTable:
    """Builds the summary of a module down to ``max_depth`` levels of submodules."""

    def __init__(self, model, max_depth: int = 1):
        if not isinstance(max_depth, int) or max_depth < -1:
            raise ValueError(f"`max_depth` can be -1, 0 or > 0, got {max_depth}.")
        self.model = model
        self.max_depth = max_depth
        self.layers: List[Tuple[str, Any]] = [
            (name, mod) for name, mod in model.named_modules()
            if name and (max_depth == -1 or name.count(".") < max_depth)]
        self.in_sizes = {}
        self.out_sizes = {}
        if max_depth != 0 and getattr(model, "example_input_array", None) is not None:
            self._trace_shapes()

    def _trace_shapes(self) -> None:
        from ..core.autograd.grad_mode import no_grad
        handles = []
        for name, mod in self.layers:
            def hook(module, args, output, _name=name):
                self.in_sizes[_name] = _shape_of(args[0] if len(args) == 1 else list(args))
                self.out_sizes[_name] = _shape_of(output)
            handles.append(mod.register_forward_hook(hook))
        x = self.model.example_input_array
        mode = self.model.training
        self.model.eval()
        try:
            with no_grad():
                if isinstance(x, (list, tuple)):
                    self.model(*x)
                elif isinstance(x, dict):
                    self.model(**x)
                else:
                    self.model(x)
        finally:
            self.model.train(mode)
            for h in handles:
                h.remove()

    @property
    def total_parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters())

    @property
    def trainable_parameters(self) -> int:
        return sum(p.numel() for p in self.model.parameters() if p.requires_grad)

    @property
    def model_size(self) -> float:
        """Estimated size of the parameters in MB."""
        return sum(p.numel() * p.element_size() for p in self.model.parameters()) * 1e-6

    def __str__(self) -> str:
        rows = []
        for i, (name, mod) in enumerate(self.layers):
            params = sum(p.numel() for p in mod.parameters())
            row = [str(i), name, type(mod).__name__, get_human_readable_count(params),
                   "train" if mod.training else "eval"]
            if self.in_sizes:
                row += [str(self.in_sizes.get(name, "?")), str(self.out_sizes.get(name, "?"))]
            rows.append(row)
        header = ["", "Name", "Type", "Params", "Mode"] + (["In sizes", "Out sizes"] if self.in_sizes else [])
        widths = [max([len(header[c])] + [len(r[c]) for r in rows]) for c in range(len(header))]
        fmt = " | ".join("{:<%d}" % w for w in widths)
        lines = [fmt.format(*header)]
        total_width = len(lines[0])
        lines.append("-" * total_width)
        lines += [fmt.format(*r) for r in rows]
        lines.append("-" * total_width)
        trainable = self.trainable_parameters
        total = self.total_parameters
        lines.append(f"{get_human_readable_count(trainable):<10}Trainable params")
        lines.append(f"{get_human_readable_count(total - trainable):<10}Non-trainable params")
        lines.append(f"{get_human_readable_count(total):<10}Total params")
        lines.append(f"{self.model_size:<10.3f}Total estimated model params size (MB)")
        return "\n".join(lines)


class ModelSummary(Callback):
    """Print a summary of the LightningModule at the start of fit (rank zero only).

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
        print(ModelSummaryTable(pl_module, max_depth=self._max_depth))
