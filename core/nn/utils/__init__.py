"""``ember.nn.utils``: gradient clipping, parameter/vector conversion, weight and spectral norm, rnn helpers, and the
stateless (functional) call of a module."""
from . import rnn, stateless  # noqa: F401
from . import parametrizations, parametrize  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
           "parameters_to_vector", "vector_to_parameters", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "rnn", "stateless", "parametrize",
           "parametrizations"]
