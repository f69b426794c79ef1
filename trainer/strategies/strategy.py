"""The Strategy owns processes, devices and precision: every process-related call of the Trainer goes through it.

``SingleDeviceStrategy`` is one process on the CPU. Its collectives are the identity, so code written against the
strategy (``barrier``, ``broadcast``, ``reduce``, ``all_gather``) runs unchanged when the distributed strategy arrives.
"""
from __future__ import annotations

from typing import Any, List, Optional

from ...core.tensor import Tensor
from ..call import call_hook, call_module_hook, module_overrides
from ..exceptions import MisconfigurationException
from ..utilities import apply_to_collection

__all__ = ["Strategy", "SingleDeviceStrategy", "PRECISIONS"]

PRECISIONS = {32: "32-true", "32": "32-true", "32-true": "32-true", 64: "64-true", "64": "64-true",
              "64-true": "64-true"}


class Strategy:
    """Base class: process topology, device placement, precision, backward and collectives."""

    def __init__(self, precision="32-true"):
        if precision not in PRECISIONS:
            raise MisconfigurationException(
                f"Precision {precision!r} is invalid. Allowed precision values: {sorted(map(str, PRECISIONS))}. "
                "(16-bit and bf16 mixed precision need a GPU backend, which ember does not have yet.)")
        self.precision = PRECISIONS[precision]
        self._lightning_optimizers: List[Any] = []
        self.trainer = None

    # topology
    global_rank = 0
    local_rank = 0
    node_rank = 0
    world_size = 1

    @property
    def is_global_zero(self) -> bool:
        """True on the process that writes logs and checkpoints."""
        return self.global_rank == 0

    @property
    def root_device(self):
        from ...core.device import CPU
        return CPU

    # model and data
    def connect(self, model) -> None:
        """Prepare the model for this strategy (precision casting)."""
        if self.precision == "64-true":
            model.double()

    def batch_to_device(self, batch: Any, device=None, dataloader_idx: int = 0) -> Any:
        """Run the batch-transfer hooks and the precision conversion of the batch."""
        trainer = self.trainer
        if self.precision == "32-true" and (device is None or str(device) == "cpu") and not (
                module_overrides(trainer, "on_before_batch_transfer", "transfer_batch_to_device",
                                 "on_after_batch_transfer")):
            return batch  # nothing would change: CPU data stays where it is and no hook alters it
        batch = call_module_hook(trainer, "on_before_batch_transfer", batch, dataloader_idx)
        batch = call_module_hook(trainer, "transfer_batch_to_device", batch, device or self.root_device,
                                 dataloader_idx)
        batch = call_module_hook(trainer, "on_after_batch_transfer", batch, dataloader_idx)
        if self.precision == "64-true":
            batch = apply_to_collection(batch, Tensor, lambda t: t.double() if t.is_floating_point() else t)
        return batch

    def process_dataloader(self, loader, shuffle: bool = False):
        """Hook for distributed strategies to wrap loaders (e.g. with a DistributedSampler)."""
        return loader

    def setup_optimizers(self, trainer) -> None:
        """Call ``configure_optimizers`` and wrap the optimizers for manual optimization."""
        from ..optimizer import LightningOptimizer, configure_optimizers, validate_scheduler_api
        module = trainer.lightning_module
        if not module.automatic_optimization and not _overrides_configure_optimizers(module):
            output = None
            optimizers, configs = [], []
        else:
            output = call_module_hook(trainer, "configure_optimizers")
            optimizers, configs = configure_optimizers(output, automatic=module.automatic_optimization)
            validate_scheduler_api(configs, module)
        trainer.optimizers = optimizers
        trainer.lr_scheduler_configs = configs
        self._lightning_optimizers = [LightningOptimizer(o, trainer) for o in optimizers]

    def set_lr_scheduler(self, index: int, scheduler) -> None:
        """Install ``scheduler`` (stepped every epoch) as scheduler ``index``; callbacks such as SWA use this."""
        from ..optimizer import LRSchedulerConfig
        configs = self.trainer.lr_scheduler_configs
        config = LRSchedulerConfig(scheduler)
        if index < len(configs):
            configs[index] = config
        else:
            configs.append(config)

    def backward(self, module, loss: Tensor, *args: Any, **kwargs: Any) -> None:
        """``on_before_backward`` -> ``module.backward`` -> ``on_after_backward``."""
        trainer = self.trainer
        call_hook(trainer, "on_before_backward", loss)
        call_module_hook(trainer, "backward", loss, *args, **kwargs)
        call_hook(trainer, "on_after_backward")

    # collectives (identity with one process)
    def barrier(self, name: Optional[str] = None) -> None:
        """Wait for all processes."""

    def broadcast(self, obj: Any, src: int = 0) -> Any:
        """Send ``obj`` from rank ``src`` to all processes."""
        return obj

    def reduce(self, tensor, group=None, reduce_op: str = "mean"):
        """Reduce a tensor across processes."""
        return tensor

    def reduce_number(self, value: float, op: str = "sum") -> float:
        """Reduce a Python number across processes (used by ``self.log(sync_dist=True)``)."""
        return value

    def all_gather(self, data, group=None, sync_grads: bool = False):
        """Gather from all processes (the data itself with one process)."""
        return data

    def reduce_boolean_decision(self, decision: bool, all: bool = True) -> bool:
        """Agree on a decision across processes (all must agree, or any)."""
        return decision

    def teardown(self) -> None:
        """Release resources at the end of a run."""


class SingleDeviceStrategy(Strategy):
    """One process on one device (the CPU)."""


def _overrides_configure_optimizers(module) -> bool:
    from ..call import is_overridden
    from ..module import LightningModule
    return is_overridden("configure_optimizers", module, LightningModule)
