"""``ember.backends.mps``: Apple's Metal GPUs, which ember does not use."""

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: ember has no MPS backend (``em.device("mps")`` is not a device)."""
    return False


def is_built() -> bool:
    """False: ember is not built with MPS."""
    return False
