"""The logger connector: validates ``self.log`` calls and fans logged values out.

Values go to ``trainer.callback_metrics`` (what callbacks and schedulers monitor), ``trainer.progress_bar_metrics``
(``prog_bar=True``) and ``trainer.logged_metrics``/the loggers. Training step values reach the loggers every
``log_every_n_steps`` optimizer-stepping batches, at step ``_batches_that_stepped``, with an ``epoch`` key added;
epoch values at the end of each epoch. Values logged during the sanity check are discarded.
"""
from __future__ import annotations

import numbers
from typing import Any, Dict, List, Optional


from ...core.tensor import Tensor
from ..exceptions import MisconfigurationException
from .fx_validator import _RULES, check_logging, defaults_for
from .result import LogMeta, ResultCollection, _normalize_reduce_fx, is_metric

__all__ = ["LoggerConnector"]

# what a ``self.log`` call site holds, in the order ``LightningModule.log`` packs it (a plain tuple: it is built on
# every call)
CALL_SITE_FIELDS = ("fx", "name", "prog_bar", "logger", "on_step", "on_epoch", "reduce_fx", "enable_graph",
                    "sync_dist", "add_dataloader_idx", "rank_zero_only")
_NAME, _ENABLE_GRAPH = CALL_SITE_FIELDS.index("name"), CALL_SITE_FIELDS.index("enable_graph")


def _to_float_dict(metrics: Dict[str, Any]) -> Dict[str, float]:
    return {k: (v.item() if isinstance(v, Tensor) else float(v)) for k, v in metrics.items()}


class LoggerConnector:
    """Owns the result collections and the three metric dicts of the Trainer."""

    def __init__(self, trainer):
        self.trainer = trainer
        self.callback_metrics: Dict[str, Tensor] = {}
        self.logged_metrics: Dict[str, Tensor] = {}
        self.progress_bar_metrics: Dict[str, Tensor] = {}
        self.train_results = ResultCollection(training=True)
        self.eval_results: Optional[ResultCollection] = None
        self.current: Optional[ResultCollection] = None
        self.num_eval_dataloaders = 1
        self.epoch_end_reached = False
        self.eval_epoch_end_reached = False

    def _epoch_end_results(self) -> Optional[ResultCollection]:
        if self.epoch_end_reached:
            return self.train_results
        if self.eval_epoch_end_reached and not self.trainer.sanity_checking:
            return self.eval_results
        return None

    def get_callback_metrics(self) -> Dict[str, Tensor]:
        """``trainer.callback_metrics``, computed on access as Lightning does: inside a training batch it holds the
        values logged so far in that batch; once a training or evaluation epoch ends it already holds the epoch
        values, so callbacks and hooks in ``on_*_epoch_end`` can read (and monitor) them."""
        results = self._epoch_end_results()
        if results is not None:
            results.collect(on_step=False, callback=self.callback_metrics)
        elif self.current is self.train_results and self.train_results.batch is not None:
            # inside a training batch: the values logged so far in this batch are visible right away
            self.train_results.collect(on_step=True, callback=self.callback_metrics)
        return self.callback_metrics

    def get_logged_metrics(self) -> Dict[str, Tensor]:
        """``trainer.logged_metrics``: what went to the loggers, plus, read while a loop runs (Lightning computes
        it on access), the step values logged so far in the current batch, or the epoch values once the epoch ended
        (so its ``on_*_epoch_end`` hooks see them)."""
        results = self._epoch_end_results()
        if results is not None:
            results.collect(on_step=False, log=self.logged_metrics)
        elif self.current is not None and self.current.batch is not None and not self.trainer.sanity_checking:
            self.current.collect(on_step=True, log=self.logged_metrics)
        return self.logged_metrics

    # ------------------------------------------------------------------------------------------- self.log entry
    def log(self, module, site: tuple, value, batch_size, metric_attribute) -> None:
        """Validate one ``self.log`` call and store it in the active result collection. ``site`` holds the hook and
        the call's options (:data:`CALL_SITE_FIELDS`)."""
        current = self.current
        result = current.call_sites.get(site) if current is not None else None
        if result is None:
            result, value = self._first_call(module, site, value, batch_size, metric_attribute)
        else:  # these options were validated at their first call (every step logs the same keys): only the value
            value = self._check_value(site[_NAME], value, site[_ENABLE_GRAPH])
            if batch_size is not None:
                self._check_batch_size(result.meta.name, batch_size)
        result.update(value, batch_size, current)

    def _first_call(self, module, site: tuple, value, batch_size, metric_attribute):
        """Validate the arguments of a ``self.log`` call not seen before in the active collection: the entry they
        log to (remembered for the next calls, unless the value is a Metric) and the value checked."""
        fx, name, prog_bar, logger, on_step, on_epoch, reduce_fx, enable_graph, sync_dist, add_dataloader_idx, \
            rank_zero_only = site
        if not isinstance(name, str):
            raise TypeError(f"`self.log()` expects the name to be a string, got {type(name).__name__}: {name!r}")
        if "/dataloader_idx_" in name:
            raise MisconfigurationException(f"You called `self.log` with the key `{name}` but it should not contain "
                                            "information about `dataloader_idx`")
        if fx not in _RULES:
            check_logging(fx, True, True)  # raises, naming the hook
        current = self.current
        if current is None:
            raise MisconfigurationException(f"You can't `self.log()` inside `{fx}`: no training or evaluation loop "
                                            "is running")
        default_step, default_epoch = defaults_for(fx)
        on_step = default_step if on_step is None else bool(on_step)
        on_epoch = default_epoch if on_epoch is None else bool(on_epoch)
        check_logging(fx, on_step, on_epoch)
        if not on_step and not on_epoch:
            raise MisconfigurationException(f"`self.log({name}, on_step=False, on_epoch=False)` is not useful. "
                                            "Set one of them to True.")
        metric = is_metric(value)
        if not metric:
            value = self._check_value(name, value, enable_graph)
        elif metric_attribute is None:
            metric_attribute = self._find_metric_attribute(module, value, name)
        reduce = _normalize_reduce_fx(reduce_fx)
        dl_idx = current.dataloader_idx
        if add_dataloader_idx and dl_idx is not None and self.num_eval_dataloaders > 1:
            name = f"{name}/dataloader_idx_{dl_idx}"
        meta = LogMeta(fx=fx, name=name, prog_bar=bool(prog_bar), logger=True if logger is None else bool(logger),
                       on_step=on_step, on_epoch=on_epoch, reduce_fx=reduce, enable_graph=enable_graph,
                       sync_dist=sync_dist, rank_zero_only=rank_zero_only, dataloader_idx=dl_idx, is_metric=metric)
        if batch_size is not None:
            self._check_batch_size(name, batch_size)
        result = current.entry(meta, value)
        if not metric:  # a Metric is looked up again at every call, as its value can't be checked like a number
            current.call_sites[site] = result
        return result, value

    @staticmethod
    def _check_value(name: str, value, enable_graph: bool):
        if isinstance(value, Tensor):  # first: the common case, and cheaper than the abstract Number check
            if value._data.size != 1:  # numel() read directly: this runs for every logged value
                raise ValueError(f"`self.log({name}, {value})` was called, but the tensor must have a single element "
                                 f"(shape {list(value.shape)}). You can try doing `self.log({name}, value.mean())`")
            return value if enable_graph else value.detach()
        if isinstance(value, bool):
            value = float(value)
        if isinstance(value, numbers.Number):
            return value
        if isinstance(value, dict):
            raise ValueError(f"`self.log({name}, {value})` was called, but nested dicts are not supported; use "
                             "`self.log_dict` for a flat dict of values")
        raise ValueError(f"`self.log({name}, {value})` was called, but `{type(value).__name__}` values cannot be "
                         "logged. Log a number, a one-element tensor or a Metric.")

    @staticmethod
    def _check_batch_size(name: str, batch_size) -> None:
        if not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise MisconfigurationException(f"`self.log({name}, batch_size={batch_size!r})`: batch_size must be a "
                                            "positive int")

    @staticmethod
    def _find_metric_attribute(module, metric, name: str) -> str:
        for attr, sub in module.named_modules():
            if sub is metric:
                return attr
        for attr, val in vars(module).items():
            if val is metric:
                return attr
        return name

    # ------------------------------------------------------------------------------------------------ training
    def on_train_batch_start(self, batch) -> None:
        # (the training collection's dataloader_idx is always None: only evaluation has several loaders)
        results = self.current = self.train_results
        results.batch = batch
        results.batch_size = None

    def on_train_batch_end(self, should_log: bool, step: int) -> None:
        """Publish the batch's step values (to the loggers too when ``should_log``)."""
        results = self.train_results
        if results:  # (a run that logs nothing has nothing to publish)
            self._publish(results, True, step, to_loggers=should_log)
        results.clear_step()

    def on_train_epoch_end(self, step: int) -> None:
        """Publish the epoch values of training, then reset the epoch accumulators."""
        self.current = self.train_results
        self._publish(self.train_results, False, step, sync=self.trainer.strategy.reduce_number)
        self.train_results.reset_epoch()

    def _publish(self, results: ResultCollection, on_step: bool, step: int, to_loggers: bool = True,
                 sync=None) -> None:
        """Write ``results``' step or epoch values into the progress-bar and callback dicts and, when
        ``to_loggers``, send them to the loggers (the loggers' dict is only built then)."""
        log = {} if to_loggers else None
        results.collect(on_step=on_step, log=log, pbar=self.progress_bar_metrics, callback=self.callback_metrics,
                        sync=sync)
        if log:
            self.log_metrics(log, step)

    # ---------------------------------------------------------------------------------------------- evaluation
    def on_eval_start(self, num_dataloaders: int) -> None:
        self.eval_results = ResultCollection(training=False)
        self.current = self.eval_results
        self.num_eval_dataloaders = num_dataloaders

    def on_eval_batch_start(self, batch, dataloader_idx: int) -> None:
        results = self.current = self.eval_results
        results.batch = batch
        results.batch_size = None
        results.set_dataloader_idx(dataloader_idx if self.num_eval_dataloaders > 1 else None)

    def eval_epoch_end(self) -> None:
        """The loaders are done: epoch values become visible, and what the epoch-end hooks log belongs to no loader."""
        self.eval_epoch_end_reached = True
        self.eval_results.set_dataloader_idx(None)
        self.eval_results.batch = None

    def on_eval_batch_end(self, step: int, sanity: bool) -> None:
        if not sanity:  # the sanity check's values are discarded
            self._publish(self.eval_results, True, step)
        self.eval_results.clear_step()

    def on_eval_end(self, step: int, sanity: bool) -> List[Dict[str, float]]:
        """Publish the evaluation epoch values; return one dict of them per dataloader."""
        sync = self.trainer.strategy.reduce_number
        results = self.eval_results
        log, pbar, callback = {}, {}, {}
        results.collect(on_step=False, log=log, pbar=pbar, callback=callback, sync=sync)
        per_loader = [{} for _ in range(self.num_eval_dataloaders)] if self.num_eval_dataloaders > 1 else []
        for idx, own in enumerate(per_loader):
            results.collect(on_step=False, log=own, sync=sync, dataloader_idx=idx)
        results.reset_epoch()
        self.eval_epoch_end_reached = False
        self.current = self.train_results if self.trainer.training else None
        if sanity:
            return []
        self.callback_metrics.update(callback)
        self.progress_bar_metrics.update(pbar)
        if log:
            self.log_metrics(log, step)
        if self.num_eval_dataloaders == 1:
            return [_to_float_dict(log)]
        # one dict per loader: its own keys (suffixed or not) and those logged outside any loader
        return [_to_float_dict({k: v for k, v in log.items() if k in own}) for own in per_loader]

    def train_results_state(self) -> Dict[str, Any]:
        return self.train_results.state_dict()

    def load_train_results_state(self, state: Dict[str, Any]) -> None:
        self.train_results.load_state_dict(state)

    # ------------------------------------------------------------------------------------------------- loggers
    def log_metrics(self, metrics: Dict[str, Any], step: Optional[int] = None) -> None:
        """Send ``metrics`` to every logger (rank zero), adding ``epoch``; a logged ``step`` key sets the step."""
        trainer = self.trainer
        user_step = None
        if "step" in metrics:
            metrics = dict(metrics)
            user_step = metrics.pop("step")
        self.logged_metrics.update(metrics)  # the result collections publish tensors
        if not trainer.loggers or not trainer.is_global_zero:
            return
        scalars = _to_float_dict(metrics)
        if user_step is not None:  # a logged "step" key sets the x-axis
            step = int(user_step.item() if isinstance(user_step, Tensor) else user_step)
        else:
            scalars.setdefault("epoch", trainer.current_epoch)
        for logger in trainer.loggers:
            logger.log_metrics(scalars, step=step)

    def reset_for_run(self) -> None:
        """Fresh metric dicts at the start of fit/validate/test/predict."""
        self.callback_metrics = {}
        self.logged_metrics = {}
        self.progress_bar_metrics = {}
        self.train_results = ResultCollection(training=True)
        self.eval_results = None
        self.current = None
        self.epoch_end_reached = self.eval_epoch_end_reached = False

