"""``MetricCollection``: several metrics called, computed and reset as one, with shared state where possible."""
from __future__ import annotations

import copy
import warnings
from collections import OrderedDict
from collections.abc import Sequence

from ..core.nn.modules.container import ModuleDict
from ..core.tensor import Tensor

from .metric import Metric

__all__ = ["MetricCollection"]


class MetricCollection(ModuleDict):
    """A dict of metrics that share the same call signature.

    ``collection(preds, target)``, ``update``, ``compute`` and ``reset`` act on every metric; ``compute`` (and
    ``forward``) return a dict keyed by the metric names with ``prefix``/``postfix`` applied. ``items()``/``keys()``
    also give the prefixed names, so ``self.log_dict(collection)`` logs every metric under its full name.

    With ``compute_groups``, metrics whose states are identical after the first ``update`` (``Accuracy``,
    ``Precision`` and ``Recall`` all keep the same stat scores, for example) share one state, so each batch is
    processed once per group instead of once per metric. Groups apply to ``update``; ``forward`` always updates every
    metric.

    Args:
        metrics (Metric or sequence or dict): the metrics. A sequence names each metric by its class name; a dict
            names them by its keys (inserted in sorted order). Nested collections are flattened.
        *additional_metrics (Metric): more metrics, when ``metrics`` is a metric or a sequence.
        prefix (str): prepended to every output name.
        postfix (str): appended to every output name.
        compute_groups (bool or list of list of str): ``True`` finds the groups automatically after the first
            update, ``False`` disables sharing, a list gives the groups by metric name.

    Example::

        metrics = MetricCollection([MulticlassAccuracy(3), MulticlassPrecision(3)], prefix="train_")
        val_metrics = metrics.clone(prefix="val_")
    """

    def __init__(self, metrics, *additional_metrics, prefix=None, postfix=None, compute_groups=True):
        super().__init__()
        self.prefix = self._check_arg(prefix, "prefix")
        self.postfix = self._check_arg(postfix, "postfix")
        self._enable_compute_groups = compute_groups
        self._groups_checked = False
        self._state_is_copy = False
        self._groups = {}
        self.add_metrics(metrics, *additional_metrics)

    # ------------------------------------------------------------------------------------------------ running
    def forward(self, *args, **kwargs) -> dict:
        """Call every metric's ``forward`` and return the batch values by (prefixed) name."""
        return self._compute_and_reduce("forward", *args, **kwargs)

    def update(self, *args, **kwargs) -> None:
        """Update every metric (only the first metric of each compute group once the groups are known)."""
        if self._groups_checked:
            for metric in self._modules.values():
                metric.__dict__["_computed"] = None
            for group in self._groups.values():
                first = self._modules[group[0]]
                first.update(*args, **first._filter_kwargs(**kwargs))
            self._compute_groups_create_state_ref()
        else:
            for metric in self._modules.values():
                metric.update(*args, **metric._filter_kwargs(**kwargs))
            if self._enable_compute_groups:
                self._merge_compute_groups()
                self._groups_checked = True
                self._compute_groups_create_state_ref()

    def compute(self) -> dict:
        """Compute every metric and return the values by (prefixed) name."""
        return self._compute_and_reduce("compute")

    def _compute_and_reduce(self, method_name, *args, **kwargs) -> dict:
        # forward updates every metric on its own: members of a group must not share (and double-update) one state
        self._compute_groups_create_state_ref(copy_state=method_name == "forward")
        result = {}
        for name, metric in self._modules.items():
            if method_name == "compute":
                result[name] = metric.compute()
            else:
                result[name] = metric(*args, **metric._filter_kwargs(**kwargs))
        keys = [k for value in result.values() if isinstance(value, dict) for k in value]
        duplicates = len(keys) != len(set(keys))
        flattened = {}
        for name, metric in self._modules.items():
            value = result[name]
            if isinstance(value, dict):
                for key, v in value.items():
                    if duplicates:
                        key = f"{name}_{key}"
                    flattened[key] = v
            else:
                flattened[name] = value
        return {self._set_name(k): v for k, v in flattened.items()}

    def reset(self) -> None:
        """Reset every metric."""
        for metric in self._modules.values():
            metric.reset()
        if self._enable_compute_groups and self._groups_checked:
            self._compute_groups_create_state_ref()

    def clone(self, prefix=None, postfix=None) -> "MetricCollection":
        """A deep copy, optionally with a new prefix/postfix (the usual way to make train/val/test copies)."""
        mc = copy.deepcopy(self)
        if prefix:
            mc.prefix = self._check_arg(prefix, "prefix")
        if postfix:
            mc.postfix = self._check_arg(postfix, "postfix")
        return mc

    def persistent(self, mode: bool = True) -> None:
        """Set whether every metric's states are saved by ``state_dict``."""
        for metric in self._modules.values():
            metric.persistent(mode)

    # --------------------------------------------------------------------------------------------- building
    def add_metrics(self, metrics, *additional_metrics) -> None:
        """Add metrics (same forms as the constructor)."""
        if isinstance(metrics, Metric):
            metrics = [metrics]
        if isinstance(metrics, Sequence) and not isinstance(metrics, str):
            metrics = list(metrics)
            ignored = []
            for m in additional_metrics:
                (metrics if isinstance(m, Metric) else ignored).append(m)
            if ignored:
                warnings.warn(f"You have passed extra arguments {ignored} which are not `Metric` so they will be "
                              "ignored.", UserWarning, stacklevel=2)
        elif additional_metrics:
            raise ValueError(f"You have passed extra arguments {additional_metrics} which are not compatible with "
                             f"the first passed dictionary {metrics}.")

        if isinstance(metrics, dict):
            for name in sorted(metrics):
                metric = metrics[name]
                if not isinstance(metric, (Metric, MetricCollection)):
                    raise ValueError(f"Value {metric!r} belonging to key {name} is not an instance of "
                                     "`ember.metrics.Metric` or `ember.metrics.MetricCollection`")
                if isinstance(metric, Metric):
                    self[name] = metric
                else:
                    for key, inner in metric.items():
                        self[f"{name}_{key}"] = inner
        elif isinstance(metrics, list):
            for metric in metrics:
                if not isinstance(metric, (Metric, MetricCollection)):
                    raise ValueError(f"Input {metric!r} to `MetricCollection` is not an instance of "
                                     "`ember.metrics.Metric` or `ember.metrics.MetricCollection`")
                if isinstance(metric, Metric):
                    name = type(metric).__name__
                    if name in self._modules:
                        raise ValueError(f"Encountered two metrics both named {name}")
                    self[name] = metric
                else:
                    for key, inner in metric.items():
                        if key in self._modules:
                            raise ValueError(f"Encountered two metrics both named {key}")
                        self[key] = inner
        else:
            raise ValueError("Unknown input to MetricCollection. Expected, `Metric`, `MetricCollection` or "
                             f"`dict`/`sequence` of the previous, but got {metrics!r}")
        self._groups_checked = False
        if self._enable_compute_groups:
            self._init_compute_groups()
        else:
            self._groups = {}

    def _init_compute_groups(self) -> None:
        if isinstance(self._enable_compute_groups, list):
            self._groups = dict(enumerate(self._enable_compute_groups))
            for group in self._groups.values():
                for name in group:
                    if name not in self._modules:
                        raise ValueError(f"Input {name} in `compute_groups` argument does not match a metric in the "
                                         f"collection. Please make sure that {self._enable_compute_groups} matches "
                                         f"{list(self._modules)}")
            grouped = {name for group in self._groups.values() for name in group}
            for name in self._modules:  # a metric left out of every group is its own group
                if name not in grouped:
                    self._groups[len(self._groups)] = [name]
            self._groups_checked = True
        else:
            self._groups = {i: [name] for i, name in enumerate(self._modules)}

    @property
    def compute_groups(self) -> dict:
        """The compute groups: ``{group index: [metric names]}``."""
        return self._groups

    def _merge_compute_groups(self) -> None:
        """Merge the groups whose first metrics hold identical states (checked once, after the first update)."""
        groups = [list(g) for g in self._groups.values()]
        merged = []
        for group in groups:
            for target in merged:
                if self._equal_metric_states(self._modules[target[0]], self._modules[group[0]]):
                    target.extend(group)
                    break
            else:
                merged.append(group)
        self._groups = dict(enumerate(merged))

    @staticmethod
    def _equal_metric_states(metric1, metric2) -> bool:
        if not metric1._defaults or not metric2._defaults:
            return False
        if metric1._defaults.keys() != metric2._defaults.keys():
            return False
        if type(metric1).update is not type(metric2).update and \
                _update_source(metric1) != _update_source(metric2):
            return False
        for key in metric1._defaults:
            s1, s2 = getattr(metric1, key), getattr(metric2, key)
            if type(s1) is not type(s2):
                return False
            pairs = [(s1, s2)] if isinstance(s1, Tensor) else (list(zip(s1, s2)) if len(s1) == len(s2) else None)
            if pairs is None:
                return False
            for a, b in pairs:
                if a.shape != b.shape or a.dtype != b.dtype:
                    return False
                if not bool((a._data == b._data).all()):
                    return False
        return True

    def _compute_groups_create_state_ref(self, copy_state: bool = False) -> None:
        """Point every group member's states at the first member's (or give them deep copies)."""
        if not self._groups_checked:
            return
        for group in self._groups.values():
            first = self._modules[group[0]]
            for name in group[1:]:
                member = self._modules[name]
                for state in first._defaults:
                    value = first.__dict__[state]
                    member.__dict__[state] = copy.deepcopy(value) if copy_state else value
                member.__dict__["_update_count"] = first._update_count
        self._state_is_copy = copy_state

    # ----------------------------------------------------------------------------------------------- naming
    def _set_name(self, base: str) -> str:
        name = base if self.prefix is None else self.prefix + base
        return name if self.postfix is None else name + self.postfix

    def _to_renamed_ordered_dict(self) -> OrderedDict:
        return OrderedDict((self._set_name(k), v) for k, v in self._modules.items())

    def __iter__(self):
        return iter(self.keys())

    def keys(self, keep_base: bool = False):
        """The metric names, with prefix/postfix unless ``keep_base``."""
        if keep_base:
            return self._modules.keys()
        return self._to_renamed_ordered_dict().keys()

    def items(self, keep_base: bool = False, copy_state: bool = True):
        """``(name, metric)`` pairs, names with prefix/postfix unless ``keep_base``.

        With ``copy_state`` (the default) the members of a compute group get their own copies of the shared state,
        so each can be computed and reset independently (as a logger does).
        """
        self._compute_groups_create_state_ref(copy_state)
        if keep_base:
            return self._modules.items()
        return self._to_renamed_ordered_dict().items()

    def values(self, copy_state: bool = True):
        """The metrics (see :meth:`items` for ``copy_state``)."""
        self._compute_groups_create_state_ref(copy_state)
        return self._modules.values()

    def __getitem__(self, key: str, copy_state: bool = True) -> Metric:
        self._compute_groups_create_state_ref(copy_state)
        if key not in self._modules:
            if self.prefix and key.startswith(self.prefix):
                key = key[len(self.prefix):]
            if self.postfix and key.endswith(self.postfix):
                key = key[:-len(self.postfix)]
        return self._modules[key]

    @staticmethod
    def _check_arg(arg, name: str):
        if arg is None or isinstance(arg, str):
            return arg
        raise ValueError(f"Expected input `{name}` to be a string, but got {type(arg).__name__}")

    def __repr__(self) -> str:
        text = super().__repr__()[:-2]
        if self.prefix:
            text += f",\n  prefix={self.prefix}{',' if self.postfix else ''}"
        if self.postfix:
            text += f"{',' if not self.prefix else ''}\n  postfix={self.postfix}"
        return text + "\n)"

    def set_dtype(self, dst_type) -> "MetricCollection":
        """Cast the floating states of every metric to ``dst_type``."""
        for metric in self._modules.values():
            metric.set_dtype(dst_type)
        return self


def _update_source(metric):
    fn = type(metric).update
    return getattr(fn, "__wrapped__", fn)
