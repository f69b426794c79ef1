"""``StochasticWeightAveraging``: average the weights of the last epochs (Izmailov et al., 2018) and train them with
a constant or annealed learning rate (``SWALR``)."""
from __future__ import annotations

import warnings
from typing import Any, Callable, Dict, List, Optional, Union

from ..core.optim.swa_utils import SWALR, get_swa_avg_fn
from .callback import Callback
from .checkpoint import _misconfigured

__all__ = ["StochasticWeightAveraging", "SWALR"]


class StochasticWeightAveraging(Callback):
    r"""Stochastic Weight Averaging (Lightning's ``StochasticWeightAveraging``).

    From epoch ``swa_epoch_start`` on, the optimizer's scheduler is replaced by :func:`SWALR` (annealing to
    ``swa_lrs``), and at the start of every following epoch the current weights are folded into a running average.
    When training reaches ``max_epochs``, the averaged weights are copied into the model.

    Args:
        swa_lrs: the SWA learning rate, or one per parameter group.
        swa_epoch_start: the epoch (1-based int) or the fraction of ``max_epochs`` (float in [0, 1]) to start at.
        annealing_epochs: the number of epochs of the annealing to ``swa_lrs``.
        annealing_strategy: ``"cos"`` or ``"linear"``.
        avg_fn: ``(averaged, current, num_averaged) -> new averaged`` for each parameter (a running mean by
            default).
        device: where the averaged copy lives (ember runs on the CPU).

    BatchNorm: Lightning runs one extra epoch without optimizer steps to recompute the BatchNorm statistics of the
    averaged weights. ember does the same work more simply: at the end of training it makes one forward pass over
    the training dataloader (the first element of each batch is the model input, as in PyTorch's ``update_bn``),
    in train mode and without gradients, with the running statistics reset to a cumulative average.

    Only one optimizer (and at most one scheduler) is supported. The averaged weights and the SWALR state are saved
    in checkpoints.

    Example::

        trainer = em.Trainer(max_epochs=20, callbacks=[StochasticWeightAveraging(swa_lrs=1e-2)])
    """

    def __init__(self, swa_lrs: Union[float, List[float]], swa_epoch_start: Union[int, float] = 0.8,
                 annealing_epochs: int = 10, annealing_strategy: str = "cos", avg_fn: Optional[Callable] = None,
                 device: Optional[str] = "cpu") -> None:
        super().__init__()
        message = "swa_epoch_start should be a >0 integer or a float between 0 and 1."
        if isinstance(swa_epoch_start, bool) or not isinstance(swa_epoch_start, (int, float)):
            raise _misconfigured(message)
        if isinstance(swa_epoch_start, int) and swa_epoch_start < 1:
            raise _misconfigured(message)
        if isinstance(swa_epoch_start, float) and not 0 <= swa_epoch_start <= 1:
            raise _misconfigured(message)
        wrong_type = not isinstance(swa_lrs, (float, list))
        wrong_float = isinstance(swa_lrs, float) and swa_lrs <= 0
        wrong_list = isinstance(swa_lrs, list) and not all(isinstance(lr, float) and lr > 0 for lr in swa_lrs)
        if wrong_type or wrong_float or wrong_list:
            raise _misconfigured("The `swa_lrs` should a positive float, or a list of positive floats")
        if avg_fn is not None and not callable(avg_fn):
            raise _misconfigured("The `avg_fn` should be callable.")
        if annealing_strategy not in ("cos", "linear"):
            raise _misconfigured(f"annealing_strategy must be 'cos' or 'linear', got {annealing_strategy!r}")
        if device is not None and str(device) != "cpu":
            raise _misconfigured(f"StochasticWeightAveraging(device={device!r}): ember keeps the averaged weights on "
                                 "the CPU; use device='cpu' or None")
        self._swa_epoch_start = swa_epoch_start
        self._swa_lrs = swa_lrs
        self._annealing_epochs = annealing_epochs
        self._annealing_strategy = annealing_strategy
        self._avg_fn = avg_fn or get_swa_avg_fn()
        self._device = device
        self._average: Optional[Dict[str, Any]] = None  # parameter name -> averaged tensor
        self.n_averaged: Optional[int] = None
        self._init_n_averaged = 0
        self._initialized = False
        self._swa_scheduler = None
        self._scheduler_state: Optional[Dict[str, Any]] = None
        self._latest_update_epoch = -1
        self._max_epochs: Optional[int] = None
        self._model_contains_batch_norm = False

    @property
    def swa_start(self) -> int:
        """The first SWA epoch (0-based)."""
        return max(self._swa_epoch_start - 1, 0)

    @property
    def swa_end(self) -> int:
        """The last SWA epoch (0-based)."""
        return self._max_epochs - 1

    @staticmethod
    def pl_module_contains_batch_norm(pl_module) -> bool:
        """Whether the module has BatchNorm layers (their statistics must be recomputed for the averaged weights)."""
        from ..core.nn.modules.normalization import _BatchNorm
        return any(isinstance(m, _BatchNorm) for m in pl_module.modules())

    # ---------------------------------------------------------------------------------------------- hooks
    def on_fit_start(self, trainer, pl_module) -> None:
        if len(trainer.optimizers) != 1:
            raise _misconfigured("SWA currently works with 1 `optimizer`.")
        if len(trainer.lr_scheduler_configs) > 1:
            raise _misconfigured("SWA currently not supported for more than 1 `lr_scheduler`.")
        max_epochs = trainer.max_epochs
        if max_epochs is None or max_epochs == -1:
            raise _misconfigured("StochasticWeightAveraging needs a finite `Trainer(max_epochs=...)`")
        if isinstance(self._swa_epoch_start, float):
            self._swa_epoch_start = int(max_epochs * self._swa_epoch_start)
        self._max_epochs = max_epochs
        self._model_contains_batch_norm = self.pl_module_contains_batch_norm(pl_module)
        if self._scheduler_state is not None and trainer.lr_scheduler_configs:
            # the saved scheduler state is SWALR's: drop the user's scheduler, SWALR is rebuilt at the epoch start
            trainer.lr_scheduler_configs.clear()

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        epoch = trainer.current_epoch
        if not self._initialized and self.swa_start <= epoch <= self.swa_end:
            self._initialized = True
            self._install_scheduler(trainer)
            if self.n_averaged is None:
                self.n_averaged = self._init_n_averaged
        if self.swa_start <= epoch <= self.swa_end and epoch > self._latest_update_epoch:
            self.update_parameters(pl_module)
            self._latest_update_epoch = epoch

    def on_train_end(self, trainer, pl_module) -> None:
        # current_epoch counts completed epochs: the last SWA epoch has just finished
        if self._average is None or trainer.current_epoch - 1 != self.swa_end:
            return
        self.transfer_weights(pl_module)
        if self._model_contains_batch_norm:
            self._update_batch_norm(trainer, pl_module)

    # ------------------------------------------------------------------------------------------------ state
    def state_dict(self) -> Dict[str, Any]:
        """The number of averaged models, the last averaged epoch, SWALR's state and the averaged weights."""
        return {"n_averaged": 0 if self.n_averaged is None else int(self.n_averaged),
                "latest_update_epoch": self._latest_update_epoch,
                "scheduler_state": None if self._swa_scheduler is None else self._swa_scheduler.state_dict(),
                "average_model_state": None if self._average is None else dict(self._average)}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self._init_n_averaged = int(state_dict["n_averaged"])
        self._latest_update_epoch = int(state_dict["latest_update_epoch"])
        self._scheduler_state = state_dict["scheduler_state"]
        average = state_dict.get("average_model_state")
        self._average = None if average is None else {k: v.detach() for k, v in average.items()}

    # ------------------------------------------------------------------------------------------- averaging
    def _install_scheduler(self, trainer) -> None:
        optimizer = trainer.optimizers[0]
        optimizer = getattr(optimizer, "optimizer", optimizer)
        swa_lrs = self._swa_lrs if isinstance(self._swa_lrs, list) else [self._swa_lrs] * len(optimizer.param_groups)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["initial_lr"] = lr
        self._swa_scheduler = SWALR(optimizer, swa_lr=swa_lrs, anneal_epochs=self._annealing_epochs,
                                    anneal_strategy=self._annealing_strategy,
                                    last_epoch=trainer.max_epochs if self._annealing_strategy == "cos" else -1)
        if self._scheduler_state is not None:
            self._swa_scheduler.load_state_dict(self._scheduler_state)
        elif trainer.current_epoch != self.swa_start:
            warnings.warn("SWA is initializing after swa_start without any checkpoint data. This may be caused by "
                          "loading a checkpoint from an older version of ember.", UserWarning)
        if trainer.lr_scheduler_configs:
            current = trainer.lr_scheduler_configs[0]
            if current.interval != "epoch" or current.frequency != 1:
                warnings.warn(f"SWA is currently only supported every epoch. Found {current}", UserWarning)
        trainer.strategy.set_lr_scheduler(0, self._swa_scheduler)

    def update_parameters(self, pl_module) -> None:
        """Fold the module's current weights into the average."""
        from ..core.autograd.grad_mode import no_grad
        n = self.n_averaged or 0
        with no_grad():
            if self._average is None or n == 0:
                self._average = {name: p.detach().clone() for name, p in pl_module.named_parameters()}
            else:
                self._average = {name: self._avg_fn(self._average[name], p.detach(), n).detach()
                                 for name, p in pl_module.named_parameters()}
        self.n_averaged = n + 1

    def transfer_weights(self, pl_module) -> None:
        """Copy the averaged weights into the module."""
        from ..core.autograd.grad_mode import no_grad
        with no_grad():
            for name, p in pl_module.named_parameters():
                p.copy_(self._average[name])

    def _update_batch_norm(self, trainer, pl_module) -> None:
        from ..core.autograd.grad_mode import no_grad
        from ..core.nn.modules.normalization import _BatchNorm
        from ..core.tensor import Tensor
        layers = [m for m in pl_module.modules() if isinstance(m, _BatchNorm) and m.track_running_stats]
        momenta = {}
        for bn in layers:
            bn.reset_running_stats()
            momenta[bn] = bn.momentum
            bn.momentum = None  # a cumulative average over the whole pass
        was_training = pl_module.training
        pl_module.train()
        limit = trainer.num_training_batches
        try:
            with no_grad():
                for index, batch in enumerate(trainer.train_dataloader):
                    if index >= limit:
                        break
                    inputs = batch[0] if isinstance(batch, (list, tuple)) else batch
                    if isinstance(inputs, Tensor) or isinstance(inputs, dict):
                        pl_module(inputs)
        finally:
            for bn, momentum in momenta.items():
                bn.momentum = momentum
            pl_module.train(was_training)
