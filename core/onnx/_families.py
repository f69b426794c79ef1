"""Import every mapping family, so their ``@op``/``@module`` registrations run (once, on the first export)."""
from . import (_ops_activation, _ops_attention, _ops_conv, _ops_elementwise, _ops_index, _ops_linear,  # noqa: F401
               _ops_norm, _ops_reduce, _ops_rnn, _ops_shape)
