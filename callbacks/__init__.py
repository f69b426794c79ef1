"""``ember.callbacks``: the Callback base and the standard callbacks (each loads on first use)."""
import importlib as _importlib

from .callback import Callback

_LAZY = {
    "Checkpoint": "checkpoint",
    "ModelCheckpoint": "model_checkpoint",
    "EarlyStopping": "early_stopping",
    "LearningRateMonitor": "lr_monitor",
    "Timer": "timer",
    "LambdaCallback": "lambda_function",
    "GradientAccumulationScheduler": "gradient_accumulation_scheduler",
    "StochasticWeightAveraging": "stochastic_weight_avg",
    "BaseFinetuning": "finetuning",
    "BackboneFinetuning": "finetuning",
    "OnExceptionCheckpoint": "on_exception_checkpoint",
    "HistogramLogger": "histogram",
    "ModelSummary": "model_summary",
    "ProgressBar": "progress",
    "TQDMProgressBar": "progress",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ember.callbacks' has no attribute '{name}'")
    value = getattr(_importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


__all__ = ["Callback"] + list(_LAZY)
