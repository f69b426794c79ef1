"""``ember.optim``: optimizers and learning-rate schedulers with ``torch.optim``'s API.

Every optimizer updates its parameters in place with PyTorch's exact update formulas and keeps its state in
PyTorch's ``state_dict`` layout, so checkpoints and training curves carry over. Schedulers live in
``ember.optim.lr_scheduler``, weight averaging in ``ember.optim.swa_utils`` (loaded on first use).
"""
from .._lazy import lazy_attributes as _lazy_attributes
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adagrad", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
           "LBFGS", "lr_scheduler", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook",
           "swa_utils"]

__getattr__, __dir__ = _lazy_attributes(globals(), {"swa_utils": ".swa_utils"})
