"""``ember.backends.cudnn``: cuDNN is a GPU library ember does not use; the flags are kept for code that sets them.
"""

__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
"""Whether cuDNN may be used (no effect: ember has no cuDNN)."""
benchmark = False
"""Let cuDNN pick the fastest convolution algorithm (no effect)."""
deterministic = False
"""Ask cuDNN for deterministic algorithms (no effect: ember's CPU kernels are deterministic)."""
allow_tf32 = True
"""Allow TF32 in cuDNN convolutions (no effect)."""


def is_available() -> bool:
    """False: ember has no cuDNN."""
    return False


def version():
    """None: there is no cuDNN."""
    return None
