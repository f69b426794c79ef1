"""Random number generation: ``Generator``, ``manual_seed`` and the global RNG state.

Every random op in ember draws from an ``ember.Generator`` (the default one unless ``generator=`` is passed), so a
seeded run repeats bit for bit. A generator wraps NumPy's PCG64; its state is exported as a uint8 tensor (the JSON of
the bit generator's state) like ``torch.get_rng_state`` returns a ByteTensor.
"""
from __future__ import annotations

import json

import numpy as np

from .device import device as _device
from .tensor import Tensor

__all__ = ["Generator", "state_tensor", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "fork_rng"]

_DEFAULT_SEED = 67280421310721  # PyTorch's default initial seed


class Generator:
    """A pseudo-random number generator; pass it as ``generator=`` to random ops for an independent stream."""

    def __init__(self, device="cpu"):
        self.device = _device(device)
        self._seed = _DEFAULT_SEED
        self._np_gen = None  # built on first draw: importing numpy.random costs ~10 ms of `import ember`

    @property
    def _np(self) -> np.random.Generator:
        if self._np_gen is None:
            self._np_gen = np.random.Generator(np.random.PCG64(self._seed))
        return self._np_gen

    @_np.setter
    def _np(self, gen) -> None:
        self._np_gen = gen

    def manual_seed(self, seed) -> "Generator":
        """Reseed; returns the generator."""
        seed = int(seed)
        if seed < -0x8000_0000_0000_0000 or seed > 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long: seed {seed} is outside the 64-bit range")
        self._seed = seed & 0xFFFF_FFFF_FFFF_FFFF
        self._np_gen = None
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the new seed."""
        s = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The generator state as a uint8 tensor."""
        return state_tensor(self.snapshot())

    def snapshot(self) -> tuple:
        """The state as plain Python values, cheap enough to take at every training batch;
        :func:`state_tensor` turns it into what :meth:`get_state` returns."""
        return self._seed, self._np.bit_generator.state

    def set_state(self, new_state) -> "Generator":
        """Restore a state returned by :meth:`get_state`."""
        raw = bytes(np.asarray(new_state, dtype=np.uint8).tobytes())
        try:
            payload = json.loads(raw.decode())
            bit = np.random.PCG64()
            bit.state = payload["state"]
        except (ValueError, KeyError, TypeError) as exc:
            raise RuntimeError(f"set_state: the given tensor is not a generator state ({exc})") from None
        self._seed = payload["seed"]
        self._np = np.random.Generator(bit)
        return self

    # numpy Generator used by the random ops
    @property
    def np(self) -> np.random.Generator:
        """The NumPy generator that the random ops draw from."""
        return self._np


default_generator = Generator()


def state_tensor(snapshot: tuple):
    """The uint8 state tensor (as :meth:`Generator.get_state` gives) of a :meth:`Generator.snapshot`."""
    seed, state = snapshot
    payload = json.dumps({"seed": seed, "state": state}).encode()
    return Tensor._make(np.frombuffer(payload, dtype=np.uint8).copy())


def _gen(generator):
    if generator is None:
        return default_generator._np
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be an ember.Generator, got {type(generator).__name__}")
    return generator._np


def manual_seed(seed) -> Generator:
    """Seed the default generator; returns it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator non-deterministically and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    """Restore the default generator's state."""
    default_generator.set_state(new_state)


class fork_rng:
    """Context manager that restores the default generator's state on exit (``devices`` is accepted for PyTorch
    compatibility; ember has one generator for every device)."""

    def __init__(self, devices=None, enabled: bool = True, **kwargs):
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self._state = get_rng_state()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            set_rng_state(self._state)
        return False
