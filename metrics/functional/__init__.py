"""``ember.metrics.functional``: every metric as a plain function of ``(preds, target)``, with no state."""
from .classification import *  # noqa: F401,F403
from .classification import __all__ as _classification_all
from .regression import *  # noqa: F401,F403
from .regression import __all__ as _regression_all

__all__ = list(_classification_all) + list(_regression_all)
