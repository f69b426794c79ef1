"""``LightningModule``: an ``nn.Module`` that holds the science (steps, optimizers, hooks) for the Trainer."""
from __future__ import annotations

import contextlib
import inspect
from typing import Any, Dict, Optional, Union

from ..core import nn
from ..core.tensor import Tensor
from .exceptions import MisconfigurationException
from .hooks import CheckpointHooks, DataHooks, ModelHooks
from .hparams import HyperparametersMixin

__all__ = ["LightningModule"]


class LightningModule(HyperparametersMixin, ModelHooks, DataHooks, CheckpointHooks, nn.Module):
    """Organise model code for the Trainer: ``training_step``, ``validation_step``, ``configure_optimizers`` and
    the hooks.

    Attributes a LightningModule adds to ``nn.Module``: ``trainer``, ``current_epoch``, ``global_step``,
    ``global_rank``, ``local_rank``, ``device``, ``automatic_optimization``, ``example_input_array`` and
    ``hparams``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._trainer = None
        self._current_fx_name: Optional[str] = None
        self._automatic_optimization = True
        self._example_input_array = None
        self._strict_loading = True
        self._param_requires_grad_state: Dict[int, bool] = {}

    # ------------------------------------------------------------------------------------------------ properties
    @property
    def trainer(self):
        """The Trainer this module is attached to."""
        if self._trainer is None:
            raise RuntimeError(f"{self.__class__.__qualname__} is not attached to a `Trainer`.")
        return self._trainer

    @trainer.setter
    def trainer(self, trainer) -> None:
        for module in self.modules():
            if isinstance(module, LightningModule):
                module._trainer = trainer

    @property
    def automatic_optimization(self) -> bool:
        """If False, the user steps optimizers in ``training_step`` (manual optimization)."""
        return self._automatic_optimization

    @automatic_optimization.setter
    def automatic_optimization(self, value: bool) -> None:
        self._automatic_optimization = bool(value)

    @property
    def example_input_array(self):
        """An example input for ``forward``, used for the model summary's shapes and for graph logging."""
        return self._example_input_array

    @example_input_array.setter
    def example_input_array(self, value) -> None:
        self._example_input_array = value

    @property
    def strict_loading(self) -> bool:
        """Whether checkpoints load with ``strict=True``."""
        return self._strict_loading

    @strict_loading.setter
    def strict_loading(self, value: bool) -> None:
        self._strict_loading = bool(value)

    @property
    def current_epoch(self) -> int:
        """The current epoch of the attached Trainer (0 without one)."""
        return self._trainer.current_epoch if self._trainer is not None else 0

    @property
    def global_step(self) -> int:
        """The number of optimizer steps taken (0 without a Trainer)."""
        return self._trainer.global_step if self._trainer is not None else 0

    @property
    def global_rank(self) -> int:
        """This process's rank among all processes."""
        return self._trainer.global_rank if self._trainer is not None else 0

    @property
    def local_rank(self) -> int:
        """This process's rank on its machine."""
        return self._trainer.local_rank if self._trainer is not None else 0

    @property
    def device(self):
        """The device the parameters live on."""
        for p in self.parameters():
            return p.device
        from ..core.device import CPU
        return CPU

    @property
    def dtype(self):
        """The dtype of the first floating-point parameter (the default dtype without parameters)."""
        for p in self.parameters():
            if p.is_floating_point():
                return p.dtype
        from ..core import get_default_dtype
        return get_default_dtype()

    @property
    def logger(self):
        """The first logger of the Trainer, or None."""
        return self._trainer.logger if self._trainer is not None else None

    @property
    def loggers(self) -> list:
        """All loggers of the Trainer."""
        return self._trainer.loggers if self._trainer is not None else []

    # ----------------------------------------------------------------------------------------------- the science
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Same as ``nn.Module.forward``; define the inference computation here."""
        return super().forward(*args, **kwargs)

    def training_step(self, *args: Any, **kwargs: Any):
        """Compute and return the training loss (a tensor, a dict with ``"loss"``, or None to skip the batch)."""
        raise MisconfigurationException(
            f"`training_step` must be implemented to be used with the ember Trainer: define "
            f"`def training_step(self, batch, batch_idx)` in {type(self).__name__} returning the loss")

    def validation_step(self, *args: Any, **kwargs: Any):
        """Operate on a validation batch: compute and ``self.log`` metrics."""

    def test_step(self, *args: Any, **kwargs: Any):
        """Operate on a test batch: compute and ``self.log`` metrics."""

    def predict_step(self, batch, batch_idx: int = 0, dataloader_idx: int = 0):
        """Return the prediction for a batch; by default ``self(batch)``."""
        return self(batch)

    def configure_optimizers(self):
        """Return the optimizer(s) and learning-rate scheduler(s) in any of Lightning's forms."""
        raise MisconfigurationException(
            f"`configure_optimizers` must be implemented to be used with the ember Trainer in automatic optimization: "
            f"define it in {type(self).__name__} (e.g. `return em.optim.SGD(self.parameters(), lr=0.1)`)")

    def configure_callbacks(self):
        """Return callbacks that are added to (and replace same-type) Trainer callbacks."""
        return []

    # Lightning 1.x data flow: called only when overridden.
    def training_step_end(self, step_output):
        """(1.x) Post-process what ``training_step`` returned."""
        return step_output

    def validation_step_end(self, step_output):
        """(1.x) Post-process what ``validation_step`` returned."""
        return step_output

    def test_step_end(self, step_output):
        """(1.x) Post-process what ``test_step`` returned."""
        return step_output

    def training_epoch_end(self, outputs) -> None:
        """(1.x) Receives the list of everything ``training_step`` returned this epoch."""

    def validation_epoch_end(self, outputs) -> None:
        """(1.x) Receives the list of ``validation_step`` outputs (a list per dataloader with several)."""

    def test_epoch_end(self, outputs) -> None:
        """(1.x) Receives the list of ``test_step`` outputs."""

    # ------------------------------------------------------------------------------------------------- logging
    def log(self, name: str, value, prog_bar: bool = False, logger: Optional[bool] = None,
            on_step: Optional[bool] = None, on_epoch: Optional[bool] = None, reduce_fx="mean",
            enable_graph: bool = False, sync_dist: bool = False, sync_dist_group=None,
            add_dataloader_idx: bool = True, batch_size: Optional[int] = None, metric_attribute: Optional[str] = None,
            rank_zero_only: bool = False) -> None:
        """Log a key/value pair.

        Args:
            name: the key.
            value: a Python number, a one-element tensor or a ``Metric`` (computed and reset at epoch end).
            prog_bar: also show it in the progress bar.
            logger: send it to the loggers (default True).
            on_step / on_epoch: log the per-step value and/or the epoch aggregate; defaults depend on the hook.
            reduce_fx: epoch reduction, ``"mean"`` (batch-size weighted), ``"sum"``, ``"max"`` or ``"min"``.
            enable_graph: keep the autograd graph of the value.
            sync_dist: reduce the value across processes.
            batch_size: the batch size for the weighted mean (inferred from the batch when not given).
            rank_zero_only: the value exists only on rank 0 (it then cannot be monitored).
        """
        trainer = self._trainer
        if trainer is None:
            import warnings
            warnings.warn("You are trying to `self.log()` but the `self.trainer` reference is not registered on the "
                          "model yet. This is most likely because the model hasn't been passed to the `Trainer`")
            return
        if trainer.barebones:
            import warnings
            warnings.warn("You are trying to `self.log()` but `Trainer(barebones=True)` is configured. Logging can "
                          "impact raw speed so it is disabled under this setting.")
            return
        # the hook and the options of this call, as one hashable record in the order of the connector's
        # CALL_SITE_FIELDS: the connector validates a record at its first call and then only looks it up (this runs
        # every step). ``sync_dist_group`` is not used: ember reduces over all processes
        site = (self._current_fx_name, name, prog_bar, logger, on_step, on_epoch, reduce_fx, enable_graph, sync_dist,
                add_dataloader_idx, rank_zero_only)
        trainer._logger_connector.log(self, site, value, batch_size, metric_attribute)

    def log_dict(self, dictionary, prog_bar: bool = False, logger: Optional[bool] = None,
                 on_step: Optional[bool] = None, on_epoch: Optional[bool] = None, reduce_fx="mean",
                 enable_graph: bool = False, sync_dist: bool = False, sync_dist_group=None,
                 add_dataloader_idx: bool = True, batch_size: Optional[int] = None,
                 rank_zero_only: bool = False) -> None:
        """Log each item of a dict (or a ``MetricCollection``) with the same options as :meth:`log`."""
        # a MetricCollection's items() already carry its prefix/postfix
        for key, value in dictionary.items():
            self.log(key, value, prog_bar=prog_bar, logger=logger, on_step=on_step, on_epoch=on_epoch,
                     reduce_fx=reduce_fx, enable_graph=enable_graph, sync_dist=sync_dist,
                     sync_dist_group=sync_dist_group, add_dataloader_idx=add_dataloader_idx, batch_size=batch_size,
                     rank_zero_only=rank_zero_only)

    def print(self, *args: Any, **kwargs: Any) -> None:
        """``print`` on the global-zero process only."""
        if self._trainer is None or self._trainer.is_global_zero:
            print(*args, **kwargs)

    # ---------------------------------------------------------------------------------------------- optimizers
    def optimizers(self, use_pl_optimizer: bool = True):
        """The optimizer(s) from ``configure_optimizers``: one, or a list when there are several."""
        opts = self.trainer.strategy._lightning_optimizers if use_pl_optimizer else self.trainer.optimizers
        if isinstance(opts, list) and len(opts) == 1:
            return opts[0]
        return opts

    def lr_schedulers(self):
        """The learning-rate scheduler(s): None, one, or a list."""
        configs = self.trainer.lr_scheduler_configs
        if not configs:
            return None
        schedulers = [c.scheduler for c in configs]
        return schedulers[0] if len(schedulers) == 1 else schedulers

    def manual_backward(self, loss: Tensor, *args: Any, **kwargs: Any) -> None:
        """Backward in manual optimization: fires the backward hooks; keyword arguments (``retain_graph``...) reach
        ``loss.backward``. An optimizer passed positionally (the Lightning 1.x signature) is accepted and ignored."""
        if self._trainer is not None and self.automatic_optimization:
            raise MisconfigurationException("`manual_backward` was called in automatic optimization: set "
                                            "`self.automatic_optimization = False` in your LightningModule to use it")
        from ..core.optim import Optimizer
        from .optimizer import LightningOptimizer
        while args and isinstance(args[0], (Optimizer, LightningOptimizer)):
            args = args[1:]
        self.trainer.strategy.backward(self, loss, *args, **kwargs)

    def backward(self, loss: Tensor, *args: Any, **kwargs: Any) -> None:
        """Run ``loss.backward``; override for custom behaviour."""
        if self._trainer is not None and self._trainer._detect_anomaly:
            import numpy as np
            if not np.all(np.isfinite(loss.detach().numpy())):
                raise RuntimeError(f"Function backward returned an invalid loss: {loss} is not finite "
                                   "(detect_anomaly=True)")
        loss.backward(*args, **kwargs)

    def toggle_optimizer(self, optimizer) -> None:
        """Make only ``optimizer``'s parameters require grad (others are frozen until :meth:`untoggle_optimizer`).

        Every parameter's ``requires_grad`` is recorded first, so a parameter frozen in ``configure_optimizers``
        stays frozen, and one shared with another optimizer gets its flag back on untoggle.
        """
        optimizer = getattr(optimizer, "optimizer", optimizer)
        state = {}
        for opt in self.trainer.optimizers:
            for group in opt.param_groups:
                for p in group["params"]:
                    if id(p) not in state:
                        state[id(p)] = p.requires_grad
                        p.requires_grad = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                p.requires_grad = state[id(p)]
        self._param_requires_grad_state = state

    def untoggle_optimizer(self, optimizer) -> None:
        """Restore the ``requires_grad`` flags that :meth:`toggle_optimizer` changed."""
        optimizer = getattr(optimizer, "optimizer", optimizer)
        for opt in self.trainer.optimizers:
            if opt is optimizer:
                continue
            for group in opt.param_groups:
                for p in group["params"]:
                    if id(p) in self._param_requires_grad_state:
                        p.requires_grad = self._param_requires_grad_state[id(p)]
        self._param_requires_grad_state = {}

    @contextlib.contextmanager
    def toggled_optimizer(self, optimizer):
        """Context manager form of :meth:`toggle_optimizer` / :meth:`untoggle_optimizer`."""
        self.toggle_optimizer(optimizer)
        try:
            yield
        finally:
            self.untoggle_optimizer(optimizer)

    def clip_gradients(self, optimizer, gradient_clip_val: Optional[Union[int, float]] = None,
                       gradient_clip_algorithm: Optional[str] = None) -> None:
        """Clip the gradients of ``optimizer``'s parameters by norm (default) or by value.

        Values not given come from the Trainer's ``gradient_clip_val``/``gradient_clip_algorithm``; giving a value
        that contradicts a Trainer flag is an error (use one or the other).
        """
        trainer = self._trainer
        trainer_val = getattr(trainer, "gradient_clip_val", None)
        trainer_algorithm = getattr(trainer, "gradient_clip_algorithm", None)
        if gradient_clip_val is None:
            gradient_clip_val = trainer_val or 0.0
        elif trainer_val is not None and trainer_val != gradient_clip_val:
            raise MisconfigurationException(
                f"You have set `Trainer(gradient_clip_val={trainer_val!r})` and have passed "
                f"`clip_gradients(gradient_clip_val={gradient_clip_val!r})`. Please use only one of them.")
        if gradient_clip_algorithm is None:
            gradient_clip_algorithm = trainer_algorithm or "norm"
        else:
            gradient_clip_algorithm = gradient_clip_algorithm.lower()
            if trainer_algorithm is not None and trainer_algorithm != gradient_clip_algorithm:
                raise MisconfigurationException(
                    f"You have set `Trainer(gradient_clip_algorithm={trainer_algorithm!r})` and have passed "
                    f"`clip_gradients(gradient_clip_algorithm={gradient_clip_algorithm!r}) Please use only one of "
                    "them.")
        if isinstance(gradient_clip_val, bool) or not isinstance(gradient_clip_val, (int, float)):
            raise TypeError(f"`gradient_clip_val` should be an int or a float. Got {gradient_clip_val}.")
        if gradient_clip_algorithm not in ("norm", "value"):
            raise MisconfigurationException(f"`gradient_clip_algorithm` {gradient_clip_algorithm!r} is invalid. "
                                            "Allowed algorithms: ['value', 'norm']")
        if gradient_clip_val <= 0:
            return
        optimizer = getattr(optimizer, "optimizer", optimizer)
        params = [p for g in optimizer.param_groups for p in g["params"]]
        from ..core.nn.utils import clip_grad_norm_, clip_grad_value_
        if gradient_clip_algorithm == "norm":
            clip_grad_norm_(params, gradient_clip_val)
        else:
            clip_grad_value_(params, gradient_clip_val)

    def configure_gradient_clipping(self, optimizer, gradient_clip_val: Optional[Union[int, float]] = None,
                                    gradient_clip_algorithm: Optional[str] = None) -> None:
        """Clip gradients before the optimizer step; by default with the Trainer's clipping flags."""
        self.clip_gradients(optimizer, gradient_clip_val=gradient_clip_val,
                            gradient_clip_algorithm=gradient_clip_algorithm)

    def lr_scheduler_step(self, scheduler, metric) -> None:
        """Step a learning-rate scheduler (with the monitored value for ReduceLROnPlateau)."""
        if metric is None:
            scheduler.step()
        else:
            scheduler.step(metric)

    def optimizer_step(self, epoch: int, batch_idx: int, optimizer, optimizer_closure=None) -> None:
        """Call ``optimizer.step(closure=optimizer_closure)``; override to change how or when it steps."""
        optimizer.step(closure=optimizer_closure)

    def optimizer_zero_grad(self, epoch: int, batch_idx: int, optimizer) -> None:
        """Call ``optimizer.zero_grad()``; override to change it."""
        optimizer.zero_grad()

    def freeze(self) -> None:
        """Make every parameter not require grad and switch to eval mode."""
        for p in self.parameters():
            p.requires_grad = False
        self.eval()

    def unfreeze(self) -> None:
        """Make every parameter require grad and switch to train mode."""
        for p in self.parameters():
            p.requires_grad = True
        self.train()

    def all_gather(self, data, group=None, sync_grads: bool = False):
        """Gather tensors (or collections of them) from all processes; each gets a leading world-size dim when
        distributed."""
        return self.trainer.strategy.all_gather(data, group=group, sync_grads=sync_grads)

    # ------------------------------------------------------------------------------------------------- export
    def to_onnx(self, file_path, input_sample=None, **kwargs: Any):
        """Save the model in ONNX format with :func:`ember.onnx.export`, as Lightning's ``to_onnx``.

        Args:
            file_path: the path (or binary file object) of the ``.onnx`` file to write.
            input_sample: the input(s) ``forward`` is traced with; defaults to ``example_input_array``. It goes
                through ``on_before_batch_transfer``, ``transfer_batch_to_device`` and ``on_after_batch_transfer``
                first, as a batch would.
            **kwargs: passed on to :func:`ember.onnx.export` (``input_names``, ``dynamic_axes``, ...).

        The module runs in eval mode during the export; its previous mode is restored afterwards.

        Example::

            model.to_onnx("model.onnx", em.randn(1, 64), export_params=True)
        """
        from ..core.autograd.grad_mode import no_grad
        from ..core.onnx import export
        mode = self.training
        if input_sample is None:
            if self.example_input_array is None:
                raise ValueError("Could not export to ONNX since neither `input_sample` nor "
                                 "`model.example_input_array` attribute is set.")
            input_sample = self.example_input_array
        with no_grad():
            input_sample = self.on_before_batch_transfer(input_sample, 0)
            input_sample = self.transfer_batch_to_device(input_sample, self.device, 0)
            input_sample = self.on_after_batch_transfer(input_sample, 0)
            self.eval()
            try:
                return export(self, input_sample, file_path, **kwargs)
            finally:
                self.train(mode)

    # ------------------------------------------------------------------------------------------- checkpointing
    @classmethod
    def load_from_checkpoint(cls, checkpoint_path, map_location=None, hparams_file=None, strict=None,
                             weights_only=None, **kwargs: Any):
        """Rebuild the module from a checkpoint's saved hyperparameters (``kwargs`` override them) and weights."""
        from .checkpoint_io import load_module_from_checkpoint
        return load_module_from_checkpoint(cls, checkpoint_path, strict=strict, overrides=kwargs)

    def __repr__(self) -> str:
        return super().__repr__()


def _step_takes_optimizer_idx(module) -> bool:
    """Lightning 1.x: a ``training_step(batch, batch_idx, optimizer_idx)`` signature."""
    try:
        params = list(inspect.signature(module.training_step).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3

