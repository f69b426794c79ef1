"""``ember.core``: the tensor and autograd engine with PyTorch's API. It imports nothing else of ember.

The heavy namespaces (``nn``, ``optim``, ``data``, ``distributed``, ``fft``, ``linalg``, ``special``) load on first
access.
"""
import math as _math

from . import autograd, random, return_types
from .allocator import tune_allocator as _tune_allocator
from ._formatting import get_printoptions, set_printoptions
from ._lazy import lazy_attributes as _lazy_attributes
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                       set_grad_enabled)
from .device import device, get_default_device, set_default_device
from .layout import layout, strided
from .flags import (are_deterministic_algorithms_enabled, compile, get_float32_matmul_precision,
                    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
                    use_deterministic_algorithms)
from .legacy import set_default_tensor_type, typename
from .dtypes import (bool_ as bool, complex64, complex128, dtype, float16, float32, float64, get_default_dtype,
                     int8, int16, int32, int64, can_cast, promote_types, result_type, set_default_dtype, uint8)
from .ops import *  # noqa: F401,F403  (the functional tensor API)
from .ops import __all__ as _ops_all
from .random import Generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .tensor import Size, Tensor
from .type_info import finfo, iinfo
from . import threads as _threads
from .threads import get_num_threads, set_num_threads

_tune_allocator()  # keep freed blocks for reuse (EMBER_MALLOC_TUNE=0 turns it off; see core/allocator.py)
_threads.pin_blas()  # one BLAS thread, no spinning workers (EMBER_BLAS_THREADS=keep turns it off; core/threads.py)

half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128

# PyTorch's module-level constants (plain Python floats, as ``torch.pi`` is; ``newaxis`` indexes like ``None``)
nan, inf, pi, e = _math.nan, _math.inf, _math.pi, _math.e
newaxis = None

_LAZY = ("nn", "optim", "data", "distributed", "fft", "linalg", "special", "serialization", "cuda",
         "multiprocessing", "backends", "profiler", "onnx", "amp", "accelerator", "version", "testing",
         "distributions", "func")


# torch.autocast and torch.is_autocast_enabled are the amp package's, loaded with it
__getattr__, __dir__ = _lazy_attributes(globals(), {**{name: f".{name}" for name in _LAZY},
                                                    "autocast": (".amp.autocast_mode", "autocast"),
                                                    "is_autocast_enabled": (".amp.autocast_mode",
                                                                            "is_autocast_enabled")})


def is_tensor(obj) -> "bool":
    """True if ``obj`` is an ember Tensor."""
    return isinstance(obj, Tensor)


def numel(input) -> "int":
    """The number of elements of ``input``."""
    return input.numel()


def is_floating_point(input) -> "bool":
    """True if ``input`` has a floating-point dtype."""
    return input.is_floating_point()


def is_complex(input) -> "bool":
    """True if ``input`` has a complex dtype."""
    return input.is_complex()


__all__ = list(_ops_all) + [
    "Tensor", "Size", "dtype", "device", "Generator", "autograd", "random", "return_types", "no_grad", "enable_grad",
    "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "manual_seed", "seed",
    "initial_seed",
    "get_rng_state", "set_rng_state", "get_default_dtype", "set_default_dtype", "promote_types", "result_type",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool", "complex64", "complex128",
    "half", "float", "double", "short", "int", "long", "cfloat", "cdouble", "is_tensor", "numel",
    "is_floating_point", "is_complex", "set_printoptions", "get_printoptions", "set_default_tensor_type",
    "nan", "inf", "pi", "e", "newaxis", "set_num_threads", "get_num_threads", "finfo", "iinfo",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled", "compile",
    "get_default_device", "set_default_device", "layout", "strided", "can_cast", "typename",
]
