"""``ember.nn.utils``: gradient clipping, parameter/vector conversion, weight and spectral norm, rnn helpers."""
