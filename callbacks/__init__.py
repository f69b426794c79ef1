"""``ember.callbacks``: the Callback base and the standard callbacks (each loads on first use)."""
from ..core._lazy import lazy_attributes as _lazy_attributes
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


__getattr__, __dir__ = _lazy_attributes(globals(), {name: (f".{module}", name) for name, module in _LAZY.items()})


__all__ = ["Callback"] + list(_LAZY)
