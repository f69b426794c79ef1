"""Import every mapping family, so their ``@op``/``@module`` registrations run (once, on the first export)."""
from . import (_ops_activation, _ops_attention, _ops_conv, _ops_creation, _ops_elementwise, _ops_index,  # noqa: F401
               _ops_linear, _ops_norm, _ops_reduce, _ops_rnn, _ops_shape, _ops_sorting, _ops_vision)
