"""Fine-tuning callbacks: ``BaseFinetuning`` (freeze, then unfreeze layers as training goes) and
``BackboneFinetuning`` (unfreeze ``pl_module.backbone`` at a given epoch with its own learning rate)."""
from __future__ import annotations

import logging
import warnings
from typing import Any, Callable, Dict, Iterable, List, Optional

from .callback import Callback
from .checkpoint import _misconfigured

__all__ = ["BaseFinetuning", "BackboneFinetuning"]

log = logging.getLogger("ember.trainer.callbacks")


def _batch_norm_cls():
    from ..core.nn.modules.normalization import _BatchNorm
    return _BatchNorm


def _module_cls():
    from ..core.nn import Module
    return Module


class BaseFinetuning(Callback):
    r"""Base class for fine-tuning callbacks (Lightning's ``BaseFinetuning``).

    Override :meth:`freeze_before_training` (called at setup) to freeze modules, and :meth:`finetune_function`
    (called at the start of every training epoch, for every optimizer) to unfreeze them with
    :meth:`unfreeze_and_add_param_group`. The parameter groups added this way are remembered by parameter name and
    saved in checkpoints, so a resumed run gets the same optimizer layout back before the optimizer state is loaded.

    Example::

        class MyFinetuning(BaseFinetuning):
            def __init__(self, unfreeze_at_epoch=10):
                super().__init__()
                self._unfreeze_at_epoch = unfreeze_at_epoch

            def freeze_before_training(self, pl_module):
                self.freeze(pl_module.feature_extractor)

            def finetune_function(self, pl_module, current_epoch, optimizer):
                if current_epoch == self._unfreeze_at_epoch:
                    self.unfreeze_and_add_param_group(pl_module.feature_extractor, optimizer)
    """

    def __init__(self) -> None:
        super().__init__()
        self._internal_optimizer_metadata: Dict[int, List[Dict[str, Any]]] = {}
        self._restarting = False
        self._module = None
        self._frozen_state: Optional[Dict[str, Dict[str, bool]]] = None

    def state_dict(self) -> Dict[str, Any]:
        """The optimizers' parameter groups (parameters by name) and which parameters and BatchNorm layers were
        frozen, so a resumed run continues with the same layers trainable."""
        state: Dict[str, Any] = {"internal_optimizer_metadata": self._internal_optimizer_metadata}
        if self._module is not None:
            bn = _batch_norm_cls()
            state["requires_grad"] = {n: bool(p.requires_grad) for n, p in self._module.named_parameters()}
            state["track_running_stats"] = {n: bool(m.track_running_stats) for n, m in self._module.named_modules()
                                            if isinstance(m, bn)}
        return state

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self._restarting = True
        metadata = state_dict.get("internal_optimizer_metadata", state_dict)
        self._internal_optimizer_metadata = {int(k): v for k, v in metadata.items()}
        if "requires_grad" in state_dict:
            self._frozen_state = {"requires_grad": dict(state_dict["requires_grad"]),
                                  "track_running_stats": dict(state_dict.get("track_running_stats", {}))}

    def on_fit_start(self, trainer, pl_module) -> None:
        # after a restart, rebuild the param groups the previous run had added, so the optimizer state fits them,
        # and unfreeze what the previous run had unfrozen (setup froze it again)
        if not self._restarting:
            return
        named = dict(pl_module.named_parameters())
        for index, optimizer in enumerate(trainer.optimizers):
            groups = self._internal_optimizer_metadata.get(index)
            if groups is not None:
                optimizer = getattr(optimizer, "optimizer", optimizer)
                optimizer.param_groups = self._apply_mapping_to_param_groups(groups, named)
        if self._frozen_state is not None:
            for name, flag in self._frozen_state["requires_grad"].items():
                if name in named:
                    named[name].requires_grad = flag
            modules = dict(pl_module.named_modules())
            for name, flag in self._frozen_state["track_running_stats"].items():
                if name in modules:
                    modules[name].track_running_stats = flag
            self._frozen_state = None
        self._restarting = False

    # ------------------------------------------------------------------------------------------ module tools
    @staticmethod
    def flatten_modules(modules) -> List[Any]:
        """The leaf modules (and parent modules holding parameters themselves) of a module or list of modules."""
        from ..core.nn import ModuleDict
        Module = _module_cls()
        if isinstance(modules, ModuleDict):
            modules = list(modules.values())
        if isinstance(modules, Iterable) and not isinstance(modules, Module):
            found: List[Any] = []
            for m in modules:
                found.extend(BaseFinetuning.flatten_modules(m))
            return found
        return [m for m in modules.modules() if not list(m.children()) or m._parameters]

    @staticmethod
    def filter_params(modules, train_bn: bool = True, requires_grad: bool = True):
        """Yield the parameters of ``modules`` whose ``requires_grad`` equals ``requires_grad`` (skipping
        BatchNorm layers when ``train_bn`` is False)."""
        bn = _batch_norm_cls()
        for mod in BaseFinetuning.flatten_modules(modules):
            if isinstance(mod, bn) and not train_bn:
                continue
            for param in mod.parameters(recurse=False):
                if param.requires_grad == requires_grad:
                    yield param

    @staticmethod
    def make_trainable(modules) -> None:
        """Unfreeze the parameters of ``modules`` (and let BatchNorm layers track statistics again)."""
        bn = _batch_norm_cls()
        for module in BaseFinetuning.flatten_modules(modules):
            if isinstance(module, bn):
                module.track_running_stats = True
            for param in module.parameters(recurse=False):
                param.requires_grad = True

    @staticmethod
    def freeze_module(module) -> None:
        """Freeze the parameters of one module (a BatchNorm layer also stops tracking statistics)."""
        if isinstance(module, _batch_norm_cls()):
            module.track_running_stats = False
        for param in module.parameters(recurse=False):
            param.requires_grad = False

    @staticmethod
    def freeze(modules, train_bn: bool = True) -> None:
        """Freeze ``modules``; with ``train_bn`` their BatchNorm layers stay trainable."""
        bn = _batch_norm_cls()
        for mod in BaseFinetuning.flatten_modules(modules):
            if isinstance(mod, bn) and train_bn:
                BaseFinetuning.make_trainable(mod)
            else:
                BaseFinetuning.freeze_module(mod)

    @staticmethod
    def filter_on_optimizer(optimizer, params) -> List[Any]:
        """The ``params`` not already in one of ``optimizer``'s parameter groups."""
        present = {id(p) for group in optimizer.param_groups for p in group["params"]}
        out, removed = [], []
        for param in params:
            (removed if id(param) in present else out).append(param)
        if removed:
            warnings.warn("The provided params to be frozen already exist within another group of this optimizer. "
                          "Those parameters will be skipped.\nHINT: Did you init your optimizer in "
                          f"`configure_optimizer` as such:\n {type(optimizer)}(filter(lambda p: p.requires_grad, "
                          "self.parameters()), ...) ", UserWarning)
        return out

    @staticmethod
    def unfreeze_and_add_param_group(modules, optimizer, lr: Optional[float] = None, initial_denom_lr: float = 10.0,
                                     train_bn: bool = True) -> None:
        """Unfreeze ``modules`` and add their parameters to ``optimizer`` as a new group.

        The group's learning rate is ``lr``, or the first group's rate divided by ``initial_denom_lr``.
        """
        optimizer = getattr(optimizer, "optimizer", optimizer)
        BaseFinetuning.make_trainable(modules)
        params_lr = optimizer.param_groups[0]["lr"] if lr is None else float(lr)
        denom = initial_denom_lr if lr is None else 1.0
        params = BaseFinetuning.filter_params(modules, train_bn=train_bn, requires_grad=True)
        params = BaseFinetuning.filter_on_optimizer(optimizer, params)
        if params:
            optimizer.add_param_group({"params": params, "lr": params_lr / denom})

    # ------------------------------------------------------------------------------------------------ hooks
    def setup(self, trainer, pl_module, stage: str) -> None:
        self._module = pl_module
        self.freeze_before_training(pl_module)

    @staticmethod
    def _apply_mapping_to_param_groups(groups: List[Dict[str, Any]], mapping: Dict[Any, Any]) -> List[Dict[str, Any]]:
        out = []
        for group in groups:
            entry = {k: v for k, v in group.items() if k != "params"}
            entry["params"] = [mapping[p] for p in group["params"]]
            out.append(entry)
        return out

    def _store(self, pl_module, index: int, num_groups_before: int, groups: List[Dict[str, Any]]) -> None:
        names = {id(p): n for n, p in pl_module.named_parameters()}

        def named(gs):
            out = []
            for group in gs:
                entry = {k: v for k, v in group.items() if k != "params"}
                entry["params"] = [names[id(p)] for p in group["params"]]
                out.append(entry)
            return out

        if index not in self._internal_optimizer_metadata:
            self._internal_optimizer_metadata[index] = named(groups)
        elif num_groups_before != len(groups):
            self._internal_optimizer_metadata[index].extend(named(groups[num_groups_before:]))

    def on_train_epoch_start(self, trainer, pl_module) -> None:
        for index, optimizer in enumerate(trainer.optimizers):
            optimizer = getattr(optimizer, "optimizer", optimizer)
            before = len(optimizer.param_groups)
            self.finetune_function(pl_module, trainer.current_epoch, optimizer)
            self._store(pl_module, index, before, optimizer.param_groups)

    def finetune_function(self, pl_module, epoch: int, optimizer) -> None:
        """Unfreeze layers (called at the start of every training epoch, for every optimizer)."""
        raise NotImplementedError

    def freeze_before_training(self, pl_module) -> None:
        """Freeze layers before training starts."""
        raise NotImplementedError


def multiplicative(epoch: int) -> float:
    """The default ``lambda_func`` of :class:`BackboneFinetuning`: double the backbone's rate every epoch."""
    return 2.0


class BackboneFinetuning(BaseFinetuning):
    r"""Fine-tune ``pl_module.backbone``: frozen until ``unfreeze_backbone_at_epoch``, then trained with a learning
    rate that grows by ``lambda_func`` each epoch up to the rest of the model's (Lightning's callback).

    Args:
        unfreeze_backbone_at_epoch: the (0-based) epoch at which the backbone is unfrozen.
        lambda_func: ``epoch -> factor`` applied to the backbone's rate at each later epoch.
        backbone_initial_ratio_lr: the backbone's first rate as a fraction of the current rate.
        backbone_initial_lr: the backbone's first rate (overrides the ratio).
        should_align: never let the backbone's rate exceed the rest of the model's.
        initial_denom_lr: the divisor used when no ``lr`` is given to :meth:`unfreeze_and_add_param_group`.
        train_bn: keep BatchNorm layers of the backbone trainable while it is frozen.
        verbose: log the rates at each epoch.
        rounding: decimals of the logged rates.

    Example::

        trainer = em.Trainer(callbacks=[BackboneFinetuning(unfreeze_backbone_at_epoch=5)])
    """

    def __init__(self, unfreeze_backbone_at_epoch: int = 10, lambda_func: Callable = multiplicative,
                 backbone_initial_ratio_lr: float = 10e-2, backbone_initial_lr: Optional[float] = None,
                 should_align: bool = True, initial_denom_lr: float = 10.0, train_bn: bool = True,
                 verbose: bool = False, rounding: int = 12) -> None:
        super().__init__()
        self.unfreeze_backbone_at_epoch = unfreeze_backbone_at_epoch
        self.lambda_func = lambda_func
        self.backbone_initial_ratio_lr = backbone_initial_ratio_lr
        self.backbone_initial_lr = backbone_initial_lr
        self.should_align = should_align
        self.initial_denom_lr = initial_denom_lr
        self.train_bn = train_bn
        self.verbose = verbose
        self.rounding = rounding
        self.previous_backbone_lr: Optional[float] = None

    def state_dict(self) -> Dict[str, Any]:
        return {**super().state_dict(), "previous_backbone_lr": self.previous_backbone_lr}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        self.previous_backbone_lr = state_dict["previous_backbone_lr"]
        super().load_state_dict(state_dict)

    def on_fit_start(self, trainer, pl_module) -> None:
        if not isinstance(getattr(pl_module, "backbone", None), _module_cls()):
            raise _misconfigured("The LightningModule should have a nn.Module `backbone` attribute")
        super().on_fit_start(trainer, pl_module)

    def freeze_before_training(self, pl_module) -> None:
        backbone = getattr(pl_module, "backbone", None)
        if not isinstance(backbone, _module_cls()):
            raise _misconfigured("The LightningModule should have a nn.Module `backbone` attribute")
        self.freeze(backbone)

    def finetune_function(self, pl_module, epoch: int, optimizer) -> None:
        if epoch == self.unfreeze_backbone_at_epoch:
            current_lr = optimizer.param_groups[0]["lr"]
            initial = self.backbone_initial_lr if self.backbone_initial_lr is not None else \
                current_lr * self.backbone_initial_ratio_lr
            self.previous_backbone_lr = initial
            self.unfreeze_and_add_param_group(pl_module.backbone, optimizer, initial, train_bn=self.train_bn,
                                              initial_denom_lr=self.initial_denom_lr)
            if self.verbose:
                log.info(f"Current lr: {round(current_lr, self.rounding)}, Backbone lr: "
                         f"{round(initial, self.rounding)}")
        elif epoch > self.unfreeze_backbone_at_epoch:
            current_lr = optimizer.param_groups[0]["lr"]
            next_lr = self.lambda_func(epoch + 1) * self.previous_backbone_lr
            if self.should_align and next_lr > current_lr:
                next_lr = current_lr
            optimizer.param_groups[-1]["lr"] = next_lr
            self.previous_backbone_lr = next_lr
            if self.verbose:
                log.info(f"Current lr: {round(current_lr, self.rounding)}, Backbone lr: "
                         f"{round(next_lr, self.rounding)}")
