"""``Trainer``: runs a LightningModule's fit, validate, test and predict.

The Trainer coordinates; the work lives in the loops (``loops/``), the strategy (processes, devices, precision), the
logger connector (``self.log``), the data connector (dataloaders and limits) and the checkpoint connector.
"""
from __future__ import annotations

import logging
import math
import numbers
import os
import signal
from typing import Any, Dict, List, Optional, Union

from .call import HookTable, call_callback_hooks, call_datamodule_hook, call_hook, call_module_hook
from .configuration_validator import verify_loop_configurations
from .data_connector import DataConnector, validate_limit
from .deprecation import check_1x_flow
from .results_table import print_results
from .flags import (ACCELERATORS, apply_barebones, set_determinism_flags, check_fast_dev_run, check_int as _check_int,
                    check_val_check_interval, parse_devices, select_strategy, val_check_time_interval)
from .exceptions import MisconfigurationException
from .logging.logger_connector import LoggerConnector
from .loops.evaluation_loop import EvaluationLoop
from .loops.fit_loop import FitLoop, resolve_max_epochs, validate_max_epochs
from .loops.prediction_loop import PredictionLoop
from .env_defaults import defaults_from_env_vars
from .states import RunningStage, TrainerFn, TrainerState, TrainerStatus
from .strategies import Strategy

__all__ = ["Trainer"]

log = logging.getLogger("ember.trainer")

class Trainer:
    """Automates the training loop of a :class:`LightningModule` with Lightning's flags and defaults.

    Example::

        trainer = em.Trainer(max_epochs=3, limit_train_batches=100)
        trainer.fit(model, train_loader, val_loader)
        trainer.test(model, test_loader)
    """

    @defaults_from_env_vars
    def __init__(self, *, accelerator: str = "auto", strategy: Union[str, Strategy] = "auto",
                 devices: Union[int, str, List[int]] = "auto", num_nodes: int = 1, precision=None, logger=None,
                 callbacks=None, fast_dev_run: Union[bool, int] = False, max_epochs: Optional[int] = None,
                 min_epochs: Optional[int] = None, max_steps: int = -1, min_steps: Optional[int] = None,
                 max_time=None, limit_train_batches=None, limit_val_batches=None, limit_test_batches=None,
                 limit_predict_batches=None, overfit_batches: Union[int, float] = 0.0, val_check_interval=None,
                 check_val_every_n_epoch: Optional[int] = 1, num_sanity_val_steps: Optional[int] = None,
                 log_every_n_steps: Optional[int] = None, enable_checkpointing: Optional[bool] = None,
                 enable_progress_bar: Optional[bool] = None, enable_model_summary: Optional[bool] = None,
                 accumulate_grad_batches: int = 1, gradient_clip_val: Optional[Union[int, float]] = None,
                 gradient_clip_algorithm: Optional[str] = None, deterministic=None, benchmark: Optional[bool] = None,
                 inference_mode: bool = True, use_distributed_sampler: bool = True, profiler=None,
                 detect_anomaly: bool = False, barebones: bool = False, plugins=None, sync_batchnorm: bool = False,
                 reload_dataloaders_every_n_epochs: int = 0, default_root_dir: Optional[str] = None,
                 automatic_optimization: Optional[bool] = None, enable_autolog_hparams: bool = True) -> None:
        """Set up a run: every flag keeps Lightning's name, meaning and default.

        Args:
            accelerator: the hardware to run on: 'cpu' or 'auto' (NumPy on the CPU)
            strategy: how the work is spread over processes: 'auto', 'ddp', 'ddp_spawn' or a Strategy
            devices: how many processes (CPU devices) to use: an int, a list of ids, -1 for all cores, or 'auto'
            num_nodes: number of machines for distributed training
            precision: numeric precision: 64/'64-true', 32/'32-true', ...
            logger: true for the default TensorBoardLogger, false for none, or Logger class_path entries
            callbacks: Callback class_path/init_args entries (ModelCheckpoint, EarlyStopping, ...)
            fast_dev_run: run n (true: 1) batches of train, val and test to find bugs; no checkpoints or logs
            max_epochs: stop after this many epochs (1000 when neither max_epochs nor max_steps is set; -1: no limit)
            min_epochs: train at least this many epochs, even if early stopping asks to stop
            max_steps: stop after this many optimizer steps (-1: no limit)
            min_steps: train at least this many optimizer steps
            max_time: stop after this much time: 'DD:HH:MM:SS' or a mapping such as {hours: 1}
            limit_train_batches: train on this fraction (float) or number (int) of batches per epoch
            limit_val_batches: validate on this fraction (float) or number (int) of batches
            limit_test_batches: test on this fraction (float) or number (int) of batches
            limit_predict_batches: predict on this fraction (float) or number (int) of batches
            overfit_batches: train and validate on this fraction or number of the same training batches
            val_check_interval: validate every this fraction of an epoch (float) or number of batches (int)
            check_val_every_n_epoch: validate every n epochs (null: only by val_check_interval batches)
            num_sanity_val_steps: validation batches run before training to catch bugs (-1: all)
            log_every_n_steps: send step values to the loggers every n training steps
            enable_checkpointing: add a ModelCheckpoint when the callbacks have none
            enable_progress_bar: show the progress bar
            enable_model_summary: print the layer table when fit starts
            accumulate_grad_batches: sum the gradients of this many batches before each optimizer step
            gradient_clip_val: clip gradients at this value (null: no clipping)
            gradient_clip_algorithm: 'norm' (the default) or 'value'
            deterministic: ask for deterministic algorithms (true or 'warn')
            benchmark: let the backend pick the fastest algorithms
            inference_mode: evaluate under inference mode (no autograd)
            use_distributed_sampler: wrap the loaders' samplers in a DistributedSampler when several processes run
            profiler: profile the run: simple, advanced or pytorch (summary printed or written at the end)
            detect_anomaly: turn on autograd anomaly detection
            barebones: turn off everything that costs time besides the loops (logging, checkpoints, progress)
            plugins: precision or checkpoint IO plugins (not supported in ember)
            sync_batchnorm: synchronize batch norm statistics across processes
            reload_dataloaders_every_n_epochs: ask the dataloaders again every n epochs (0: never)
            default_root_dir: where logs and checkpoints go when no logger or callback says otherwise (the working
                directory)
            automatic_optimization: override the module's automatic_optimization
            enable_autolog_hparams: send the module's and the datamodule's hyperparameters to the loggers
        """
        if barebones:
            flags = apply_barebones(dict(
                enable_checkpointing=enable_checkpointing, logger=logger, enable_progress_bar=enable_progress_bar,
                log_every_n_steps=log_every_n_steps, enable_model_summary=enable_model_summary,
                num_sanity_val_steps=num_sanity_val_steps, profiler=profiler, detect_anomaly=detect_anomaly))
            enable_checkpointing, logger, enable_progress_bar = (flags["enable_checkpointing"], flags["logger"],
                                                                 flags["enable_progress_bar"])
            log_every_n_steps, enable_model_summary = flags["log_every_n_steps"], flags["enable_model_summary"]
            num_sanity_val_steps = flags["num_sanity_val_steps"]
        # -- processes and devices
        if accelerator not in ACCELERATORS:
            raise MisconfigurationException(
                f"`Trainer(accelerator={accelerator!r})` is not available: ember runs on the CPU (NumPy). Use "
                "accelerator='cpu' or 'auto' (a CuPy GPU backend is planned).")
        self.num_nodes = _check_int("num_nodes", num_nodes, 1)
        self.num_devices = parse_devices(devices)
        self.strategy = select_strategy(strategy, precision if precision is not None else "32-true",
                                        explicit_precision=precision is not None, devices=self.num_devices,
                                        num_nodes=self.num_nodes)
        self.strategy.trainer = self
        # -- run length
        self.max_steps = _check_int("max_steps", max_steps, -1)
        self.min_steps = _check_int("min_steps", min_steps, 0, allow_none=True)
        if min_epochs is not None:
            _check_int("min_epochs", min_epochs, 0)
        if max_epochs is not None and max_epochs != -1:
            _check_int("max_epochs", max_epochs, 0)
        if self.min_steps is not None and self.max_steps != -1 and self.min_steps > self.max_steps:
            raise MisconfigurationException(f"`max_steps` ({self.max_steps}) must be >= `min_steps` "
                                            f"({self.min_steps})")
        self.fit_loop = FitLoop(self, min_epochs=min_epochs, max_epochs=validate_max_epochs(max_epochs, min_epochs))
        self.max_time = max_time
        # -- data limits and validation
        self.limit_train_batches = validate_limit("limit_train_batches", limit_train_batches)
        self.limit_val_batches = validate_limit("limit_val_batches", limit_val_batches)
        self.limit_test_batches = validate_limit("limit_test_batches", limit_test_batches)
        self.limit_predict_batches = validate_limit("limit_predict_batches", limit_predict_batches)
        self.overfit_batches = validate_limit("overfit_batches", overfit_batches)
        if self.overfit_batches not in (0, 0.0):
            self.limit_train_batches = self.limit_val_batches = self.overfit_batches
        self.val_check_interval = check_val_check_interval(val_check_interval)
        if check_val_every_n_epoch is not None:
            _check_int("check_val_every_n_epoch", check_val_every_n_epoch, 1)
        elif not isinstance(self.val_check_interval, int) and val_check_time_interval(self.val_check_interval) is None:
            raise MisconfigurationException("`check_val_every_n_epoch=None` validates every `val_check_interval` "
                                            "training batches (or every period of time), so `val_check_interval` "
                                            "must be an int (or a time)")
        self.check_val_every_n_epoch = check_val_every_n_epoch
        self.num_sanity_val_steps = 2 if num_sanity_val_steps is None else \
            _check_int("num_sanity_val_steps", num_sanity_val_steps, -1)
        self.reload_dataloaders_every_n_epochs = _check_int("reload_dataloaders_every_n_epochs",
                                                            reload_dataloaders_every_n_epochs, 0)
        self.use_distributed_sampler = bool(use_distributed_sampler)
        # -- optimization
        self.accumulate_grad_batches = _check_int("accumulate_grad_batches", accumulate_grad_batches, 1)
        if gradient_clip_val is not None and (isinstance(gradient_clip_val, bool) or
                                              not isinstance(gradient_clip_val, numbers.Real) or gradient_clip_val < 0):
            raise MisconfigurationException(f"`Trainer(gradient_clip_val={gradient_clip_val!r})` is invalid: expected "
                                            "a non-negative number")
        if gradient_clip_algorithm is not None and gradient_clip_algorithm not in ("norm", "value"):
            raise MisconfigurationException(f"`gradient_clip_algorithm` {gradient_clip_algorithm!r} is invalid. "
                                            "Allowed algorithms: ['value', 'norm'].")
        self.gradient_clip_val = gradient_clip_val
        self.gradient_clip_algorithm = gradient_clip_algorithm  # None: clip_gradients uses "norm"
        self._automatic_optimization_flag = automatic_optimization
        self.deterministic = deterministic
        self.benchmark = benchmark
        set_determinism_flags(deterministic, benchmark)
        self._detect_anomaly = bool(detect_anomaly)
        self.inference_mode = inference_mode
        from .profilers import resolve_profiler
        self.profiler = resolve_profiler(profiler)
        from .signal_connector import SignalConnector, SLURMEnvironment
        plugins = list(plugins) if isinstance(plugins, (list, tuple)) else ([plugins] if plugins else [])
        unsupported = [p for p in plugins if not isinstance(p, SLURMEnvironment)]
        if unsupported:
            raise MisconfigurationException(f"`Trainer(plugins={unsupported!r})`: ember supports only the "
                                            "SLURMEnvironment plugin (for auto-requeue)")
        self.signal_connector = SignalConnector(self, slurm=plugins[0] if plugins else None)
        self.sync_batchnorm = sync_batchnorm
        self.barebones = bool(barebones)
        # -- debugging
        self.fast_dev_run = check_fast_dev_run(fast_dev_run)
        if self.fast_dev_run:
            n = int(self.fast_dev_run)
            self.limit_train_batches = self.limit_val_batches = n
            self.limit_test_batches = self.limit_predict_batches = n
            self.max_steps = n
            self.fit_loop.max_epochs = 1
            self.num_sanity_val_steps = 0
            self.val_check_interval = 1.0
            self.check_val_every_n_epoch = 1
        # -- output
        self.log_every_n_steps = 50 if log_every_n_steps is None else _check_int("log_every_n_steps",
                                                                                  log_every_n_steps, 0)
        self._default_root_dir = os.fspath(default_root_dir) if default_root_dir is not None else None
        self.enable_autolog_hparams = enable_autolog_hparams
        # -- state
        self.state = TrainerState()
        self.should_stop = False
        self.lightning_module = None
        self.datamodule = None
        self.optimizers: List[Any] = []
        self.lr_scheduler_configs: List[Any] = []
        self.ckpt_path: Optional[str] = None
        self._hook_table = HookTable([], None)  # hook dispatch (trainer/call.py): a new one per run
        self._logger_connector = LoggerConnector(self)
        self._data_connector = DataConnector(self)
        self.validate_loop = EvaluationLoop(self, RunningStage.VALIDATING)
        self.test_loop = EvaluationLoop(self, RunningStage.TESTING)
        self.predict_loop = PredictionLoop(self)
        from .checkpoint_connector import CheckpointConnector
        self._checkpoint_connector = CheckpointConnector(self)
        from .loggers.setup import configure_loggers
        self.loggers = configure_loggers(self, logger)
        if self.fast_dev_run:  # logging is suppressed, but code that calls the logger keeps working
            from .loggers import DummyLogger
            self.loggers = [DummyLogger()] if self.loggers else []
        from .callback_setup import configure_callbacks
        self.callbacks = configure_callbacks(self, callbacks, enable_checkpointing, enable_progress_bar,
                                             enable_model_summary, max_time)

    # --------------------------------------------------------------------------------------------- properties
    @property
    def current_epoch(self) -> int:
        """The number of completed training epochs (the index of the running one)."""
        return self.fit_loop.current_epoch

    @property
    def global_step(self) -> int:
        """The number of optimizer steps taken."""
        return self.fit_loop.epoch_loop.global_step

    @property
    def train_dataloader(self):
        """The train dataloader of the current fit (``None`` before the fit loop requested it); with several, the
        collection of them as given."""
        loader = self.fit_loop.train_dataloader
        return getattr(loader, "iterables", loader)

    @property
    def num_training_batches(self) -> float:
        """Batches per training epoch under ``limit_train_batches`` (``inf`` for an unsized loader)."""
        return self.fit_loop.num_training_batches

    @property
    def val_check_batch(self) -> float:
        """Validation runs after every ``val_check_batch`` training batches (``inf``: at epoch end only)."""
        return self.fit_loop.val_check_batch

    @property
    def enable_validation(self) -> bool:
        """True if fit validates: a val source, a ``validation_step`` and ``limit_val_batches > 0``."""
        return self.lightning_module is not None and self.fit_loop.epoch_loop.validation_enabled()

    @property
    def logger_connector(self) -> LoggerConnector:
        """Where ``self.log`` values are collected and fanned out (used by the loops)."""
        return self._logger_connector

    @property
    def data_connector(self) -> DataConnector:
        """Where each stage's dataloaders come from (used by the loops)."""
        return self._data_connector

    @property
    def callback_metrics(self) -> Dict[str, Any]:
        """The latest logged values, what callbacks and schedulers monitor."""
        return self._logger_connector.get_callback_metrics()

    @property
    def logged_metrics(self) -> Dict[str, Any]:
        """The values sent to the loggers (every logged key's latest value)."""
        return self._logger_connector.get_logged_metrics()

    @property
    def progress_bar_metrics(self) -> Dict[str, Any]:
        """The values shown in the progress bar."""
        return self._logger_connector.progress_bar_metrics

    @property
    def max_epochs(self) -> Optional[int]:
        """The maximum number of epochs (-1 for no limit)."""
        return self.fit_loop.max_epochs

    @property
    def min_epochs(self) -> Optional[int]:
        """The minimum number of epochs before early stopping may end the run."""
        return self.fit_loop.min_epochs

    @property
    def sanity_checking(self) -> bool:
        """True while the validation sanity check runs."""
        return self.state.stage == RunningStage.SANITY_CHECKING

    @property
    def training(self) -> bool:
        """True while the training loop runs (including the validation inside fit)."""
        return self.state.stage == RunningStage.TRAINING

    @property
    def validating(self) -> bool:
        """True while a validation loop runs."""
        return self.state.stage == RunningStage.VALIDATING

    @property
    def testing(self) -> bool:
        """True while the test loop runs."""
        return self.state.stage == RunningStage.TESTING

    @property
    def predicting(self) -> bool:
        """True while the predict loop runs."""
        return self.state.stage == RunningStage.PREDICTING

    @property
    def interrupted(self) -> bool:
        """True if the last run was interrupted (Ctrl-C or an exception)."""
        return self.state.status == TrainerStatus.INTERRUPTED

    @property
    def global_rank(self) -> int:
        """This process's rank among all processes."""
        return self.strategy.global_rank

    @property
    def local_rank(self) -> int:
        """This process's rank on its machine."""
        return self.strategy.local_rank

    @property
    def node_rank(self) -> int:
        """The index of this process's machine."""
        return self.strategy.node_rank

    @property
    def world_size(self) -> int:
        """The number of processes."""
        return self.strategy.world_size

    @property
    def is_global_zero(self) -> bool:
        """True on the process that writes logs, checkpoints and the progress bar."""
        return self.strategy.is_global_zero

    @property
    def model(self):
        """The LightningModule being run (same as ``lightning_module``)."""
        return self.lightning_module

    @property
    def precision(self) -> str:
        """The precision the strategy uses (``"32-true"`` or ``"64-true"``)."""
        return self.strategy.precision

    @property
    def default_root_dir(self) -> str:
        """Where logs and checkpoints go when no logger or callback says otherwise (the working directory)."""
        return self._default_root_dir if self._default_root_dir is not None else os.getcwd()

    @property
    def logger(self):
        """The first logger, or None."""
        return self.loggers[0] if self.loggers else None

    @logger.setter
    def logger(self, logger) -> None:
        self.loggers = [] if logger is None else [logger]

    @property
    def log_dir(self) -> str:
        """The directory of the first logger's run (``lightning_logs/version_N``), else ``default_root_dir``."""
        if self.logger is not None:
            d = getattr(self.logger, "log_dir", None) or self.logger.save_dir
        else:
            d = self.default_root_dir
        return self.strategy.broadcast(d)

    @property
    def callbacks(self) -> List[Any]:
        """The callbacks, in the order they are called (checkpointing last)."""
        return self._callbacks

    @callbacks.setter
    def callbacks(self, callbacks) -> None:
        self._callbacks = list(callbacks)
        self._hook_table = HookTable(self._callbacks, getattr(self, "lightning_module", None))

    def _callbacks_of(self, name: str) -> List[Any]:
        return [c for c in self.callbacks if any(k.__name__ == name for k in type(c).__mro__)]

    @property
    def checkpoint_callbacks(self) -> List[Any]:
        """All checkpoint callbacks (``ModelCheckpoint`` and subclasses)."""
        return self._callbacks_of("Checkpoint")

    @property
    def checkpoint_callback(self):
        """The first ModelCheckpoint, or None."""
        cbs = self.checkpoint_callbacks
        return cbs[0] if cbs else None

    @property
    def early_stopping_callbacks(self) -> List[Any]:
        """All ``EarlyStopping`` callbacks."""
        return self._callbacks_of("EarlyStopping")

    @property
    def early_stopping_callback(self):
        """The first ``EarlyStopping`` callback, or None."""
        cbs = self.early_stopping_callbacks
        return cbs[0] if cbs else None

    @property
    def progress_bar_callback(self):
        """The progress bar callback, or None."""
        cbs = self._callbacks_of("ProgressBar")
        return cbs[0] if cbs else None

    @property
    def lr_schedulers(self) -> List[Any]:
        """The learning-rate schedulers from ``configure_optimizers``."""
        return [c.scheduler for c in self.lr_scheduler_configs]

    @property
    def val_dataloaders(self):
        """The validation dataloader(s) of the current run."""
        loaders = self.validate_loop.loaders if self.state.fn != TrainerFn.FITTING else \
            self.fit_loop.epoch_loop.val_loop.loaders
        return loaders[0] if len(loaders) == 1 else loaders

    @property
    def test_dataloaders(self):
        """The test dataloader(s) of the current run."""
        loaders = self.test_loop.loaders
        return loaders[0] if len(loaders) == 1 else loaders

    @property
    def predict_dataloaders(self):
        """The predict dataloader(s) of the current run."""
        loaders = self.predict_loop.loaders
        return loaders[0] if len(loaders) == 1 else loaders

    @property
    def num_val_batches(self) -> List[float]:
        """Batches per validation loader under ``limit_val_batches``."""
        loop = self.fit_loop.epoch_loop.val_loop if self.state.fn == TrainerFn.FITTING else self.validate_loop
        return loop.batch_counts(RunningStage.VALIDATING)

    @property
    def num_sanity_val_batches(self) -> List[float]:
        """Batches per validation loader that the sanity check runs."""
        return self.fit_loop.epoch_loop.val_loop.batch_counts(RunningStage.SANITY_CHECKING)

    @property
    def num_test_batches(self) -> List[float]:
        """Batches per test loader under ``limit_test_batches``."""
        return self.test_loop.batch_counts(RunningStage.TESTING)

    @property
    def num_predict_batches(self) -> List[float]:
        """Batches per predict loader under ``limit_predict_batches``."""
        return self.predict_loop.batch_counts()

    @property
    def estimated_stepping_batches(self) -> Union[int, float]:
        """The total number of optimizer steps fit will take (for schedulers such as OneCycleLR)."""
        if self.train_dataloader is None and self.lightning_module is not None:
            self.fit_loop.setup_data()
        per_epoch = self.num_training_batches
        if per_epoch == math.inf:
            return self.max_steps if self.max_steps != -1 else math.inf
        per_epoch = math.ceil(per_epoch / self.accumulate_grad_batches)
        max_epochs = self.max_epochs
        total = math.inf if max_epochs in (-1, None) else per_epoch * max_epochs
        if self.max_steps != -1:
            total = min(total, self.max_steps)
        return total

    # --------------------------------------------------------------------------------------------- entry points
    def fit(self, model, train_dataloaders=None, val_dataloaders=None, datamodule=None, ckpt_path=None,
            weights_only=None) -> None:
        """Train ``model``; dataloaders (or a datamodule) override the module's ``*_dataloader`` hooks.

        ``ckpt_path`` resumes from a checkpoint: a path, ``"last"`` or ``"best"``.
        """
        from .datamodule import LightningDataModule
        model = self._check_model(model, "fit")
        if isinstance(train_dataloaders, LightningDataModule):
            datamodule, train_dataloaders = train_dataloaders, None
        if datamodule is not None and (train_dataloaders is not None or val_dataloaders is not None):
            raise MisconfigurationException("You cannot pass `train_dataloader` or `val_dataloaders` to "
                                            "`trainer.fit(datamodule=...)`")
        self._begin(TrainerFn.FITTING, model)
        self._data_connector.attach(model, datamodule, train=train_dataloaders, val=val_dataloaders)
        self.fit_loop.reset_data()
        self._call_and_handle_interrupt(self._run, model, ckpt_path)

    def validate(self, model=None, dataloaders=None, ckpt_path=None, verbose: bool = True, datamodule=None,
                 weights_only=None) -> List[Dict[str, float]]:
        """Run one validation epoch; returns a list of metric dicts, one per dataloader."""
        return self._evaluate(TrainerFn.VALIDATING, model, dataloaders, ckpt_path, verbose, datamodule)

    def test(self, model=None, dataloaders=None, ckpt_path=None, verbose: bool = True, datamodule=None,
             weights_only=None) -> List[Dict[str, float]]:
        """Run one test epoch; returns a list of metric dicts, one per dataloader."""
        return self._evaluate(TrainerFn.TESTING, model, dataloaders, ckpt_path, verbose, datamodule)

    def predict(self, model=None, dataloaders=None, datamodule=None, return_predictions: Optional[bool] = None,
                ckpt_path=None, weights_only=None):
        """Run ``predict_step`` over the predict loaders; returns the list of batch outputs."""
        from .datamodule import LightningDataModule
        if isinstance(dataloaders, LightningDataModule):
            datamodule, dataloaders = dataloaders, None
        model = self._check_model(model, "predict")
        self._begin(TrainerFn.PREDICTING, model)
        self._data_connector.attach(model, datamodule or self.datamodule, predict=dataloaders)
        self._return_predictions = True if return_predictions is None else return_predictions
        return self._call_and_handle_interrupt(self._run, model, ckpt_path)

    def _evaluate(self, fn: TrainerFn, model, dataloaders, ckpt_path, verbose, datamodule):
        from .datamodule import LightningDataModule
        if isinstance(dataloaders, LightningDataModule):
            datamodule, dataloaders = dataloaders, None
        name = fn.value
        if model is None and self.lightning_module is not None and ckpt_path is None and \
                self.state.fn == TrainerFn.FITTING and self.checkpoint_callback is not None and \
                getattr(self.checkpoint_callback, "best_model_path", ""):
            ckpt_path = "best"
        model = self._check_model(model, name)
        self._begin(fn, model)
        kwargs = {"val": dataloaders} if fn == TrainerFn.VALIDATING else {"test": dataloaders}
        self._data_connector.attach(model, datamodule or self.datamodule, **kwargs)
        self._verbose = verbose
        return self._call_and_handle_interrupt(self._run, model, ckpt_path)

    def _check_model(self, model, fn_name: str):
        from .module import LightningModule
        if model is None:
            if self.lightning_module is None:
                raise MisconfigurationException(f"`Trainer.{fn_name}()` requires a `LightningModule` when it hasn't "
                                                "been passed in a previous run")
            return self.lightning_module
        if not isinstance(model, LightningModule):
            raise TypeError(f"`Trainer.{fn_name}()` requires a `LightningModule`, got: {type(model).__qualname__}")
        return model

    def _begin(self, fn: TrainerFn, model) -> None:
        self.state.fn = fn
        self.state.status = TrainerStatus.RUNNING
        self.state.stage = None
        self.should_stop = False
        self.lightning_module = model
        model.trainer = self
        if self._automatic_optimization_flag is not None:
            model.automatic_optimization = self._automatic_optimization_flag
        self._logger_connector.reset_for_run()
        self._hook_table = HookTable(self.callbacks, model)  # hooks may have been defined since the last run

    def _call_and_handle_interrupt(self, fn, *args):
        from ..core.autograd import set_detect_anomaly
        self.signal_connector.register()
        try:
            with set_detect_anomaly(self._detect_anomaly):  # as Lightning: the flag covers the whole run
                result = fn(*args)
            self.state.status = TrainerStatus.FINISHED
            self.state.stage = None
            return result
        except KeyboardInterrupt as exc:
            if self.is_global_zero:
                log.info("Detected KeyboardInterrupt, attempting graceful shutdown ...")
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not break the shutdown
            try:
                self._interrupt(exc)
            finally:
                signal.signal(signal.SIGINT, previous)
            raise SystemExit(1)  # as Lightning 2.6: the checkpoint is written, and the script stops with status 1
        except BaseException as exc:  # SIGTERMException too: on_exception saves, then the process exits with 143
            self._interrupt(exc)
            raise
        finally:
            self.signal_connector.teardown()

    def _interrupt(self, exc: BaseException) -> None:
        self.state.status = TrainerStatus.INTERRUPTED
        call_callback_hooks(self, "on_exception", exc)
        if self.lightning_module is not None:
            call_module_hook(self, "on_exception", exc)
        for logger in self.loggers:
            logger.finalize("failed")
        self._teardown()
        self.profiler.teardown(stage=self.state.fn.value if self.state.fn is not None else None)  # stop recording
        self.state.stage = None

    # ------------------------------------------------------------------------------------------------- the run
    def _run(self, model, ckpt_path):
        fn = self.state.fn
        stage = fn  # a TrainerFn: equal to "fit", "validate", ... as Lightning passes it
        if self.profiler.records:  # Lightning's file names: <stage>-<filename>[-<local_rank>].txt in log_dir
            self.profiler.setup(stage=fn.value, local_rank=self.local_rank if self.world_size > 1 else None,
                                log_dir=self.log_dir)
        self._configure_module_callbacks(model)
        # prepare_data: once per node (the datamodule first)
        if self.local_rank == 0:
            call_datamodule_hook(self, "prepare_data")
            call_module_hook(self, "prepare_data")
        self.strategy.barrier("prepare_data")
        call_datamodule_hook(self, "setup", stage=stage)
        call_callback_hooks(self, "setup", stage=stage)
        call_module_hook(self, "setup", stage)  # positional for the module, by keyword for callbacks (Lightning)
        call_module_hook(self, "configure_model")
        verify_loop_configurations(self, model)
        check_1x_flow(model, self._automatic_optimization_flag)
        if fn == TrainerFn.FITTING:
            resolve_max_epochs(self)
        self.strategy.connect(model)
        self.ckpt_path = self._checkpoint_connector.resolve_ckpt_path(ckpt_path, fn)
        if self.ckpt_path is not None:
            self._checkpoint_connector.restore_module_and_callbacks(self.ckpt_path)
        if fn == TrainerFn.FITTING:
            self.strategy.setup_optimizers(self)
        if fn == TrainerFn.FITTING:
            call_hook(self, "on_fit_start")
        self._log_hyperparams(model)
        if fn == TrainerFn.FITTING and self.ckpt_path is not None:
            # after on_fit_start, as in Lightning: callbacks (finetuning, SWA) may rebuild param groups first
            self._checkpoint_connector.restore_training_state()
        self._checkpoint_connector.release()
        model.zero_grad()
        if fn == TrainerFn.FITTING:
            self.fit_loop.run_sanity_check()
            self.state.stage = RunningStage.TRAINING
            self.fit_loop.run()
            self.state.stage = None
            call_hook(self, "on_fit_end")
            result = None
        elif fn in (TrainerFn.VALIDATING, TrainerFn.TESTING):
            loop = self.validate_loop if fn == TrainerFn.VALIDATING else self.test_loop
            loop.reset_data()
            result = loop.run(loop.stage)
            if getattr(self, "_verbose", True) and self.is_global_zero and result:
                print_results(result, stage)
        else:
            self.predict_loop.setup_data()
            self.state.stage = RunningStage.PREDICTING
            result = self.predict_loop.run(self._return_predictions)
        self._teardown()
        for logger in self.loggers:
            logger.finalize("success")
        self.profiler.describe()
        return result

    def _configure_module_callbacks(self, model) -> None:
        extra = call_module_hook(self, "configure_callbacks") or []
        extra = list(extra) if isinstance(extra, (list, tuple)) else [extra]
        if extra:
            types = {type(c) for c in extra}
            kept = [c for c in self.callbacks if type(c) not in types]
            self.callbacks = kept + extra
        # checkpoint callbacks go last, as in Lightning, so they see everything the others did
        self.callbacks = [c for c in self.callbacks if not _is_checkpoint(c)] + \
            [c for c in self.callbacks if _is_checkpoint(c)]

    def _teardown(self) -> None:
        stage = self.state.fn
        call_datamodule_hook(self, "teardown", stage=stage)
        call_callback_hooks(self, "teardown", stage=stage)
        if self.lightning_module is not None:
            call_module_hook(self, "teardown", stage)
        self.strategy.teardown()

    def _log_hyperparams(self, model) -> None:
        if not self.loggers or not self.enable_autolog_hparams:
            return
        hparams = dict(model.hparams_initial) if getattr(model, "_log_hyperparams", True) else {}
        dm = self.datamodule
        if dm is not None and getattr(dm, "_log_hyperparams", True):
            for k, v in dm.hparams_initial.items():
                if k in hparams and hparams[k] != v:
                    raise MisconfigurationException(
                        f"Error while merging hparams: the keys {[k]} are present in both the LightningModule's and "
                        "LightningDataModule's hparams but have different values.")
                hparams[k] = v
        if self.is_global_zero:
            for logger in self.loggers:
                if hparams:
                    logger.log_hyperparams(hparams)
                if self.state.fn == TrainerFn.FITTING and getattr(logger, "_log_graph", False):
                    logger.log_graph(model)
                logger.save()

    # ------------------------------------------------------------------------------------------ checkpointing
    def save_checkpoint(self, filepath, weights_only: bool = False, storage_options=None) -> None:
        """Save the full training state (or only the weights) to ``filepath``, atomically."""
        if self.lightning_module is None:
            raise AttributeError("Saving a checkpoint is only possible if a model is attached to the Trainer. Did "
                                 "you call `Trainer.save_checkpoint()` before calling `Trainer.{fit,validate,test,"
                                 "predict}`?")
        checkpoint = self._checkpoint_connector.dump_checkpoint(weights_only)
        if self.is_global_zero:
            self._checkpoint_connector.save(checkpoint, filepath)
        self.strategy.barrier("Trainer.save_checkpoint")

    def print(self, *args, **kwargs) -> None:
        """``print`` on the global-zero process only."""
        if self.is_global_zero:
            print(*args, **kwargs)


def _is_checkpoint(callback) -> bool:
    return any(k.__name__ == "Checkpoint" for k in type(callback).__mro__)
