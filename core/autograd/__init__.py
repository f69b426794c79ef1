"""``ember.autograd``: the backward engine, grad modes, custom Functions and gradient checks.

``ember.autograd.functional`` (Jacobians, Hessians and their vector products) loads on first access.
"""
from .._lazy import lazy_attributes as _lazy_attributes
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from . import tensor_methods  # noqa: F401  (binds Tensor.backward and Tensor.register_hook)
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                        set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "gradcheck",
           "gradgradcheck", "GradcheckError", "Node", "Variable", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled"]

# torch.autograd.functional: loaded on first use, so `import ember` does not pay for it
__getattr__, __dir__ = _lazy_attributes(globals(), {"functional": ".functional"})
