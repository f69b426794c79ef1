"""The Trainer's profilers, as ``lightning.pytorch.profilers``: ``Trainer(profiler="simple"|"advanced"|"pytorch")``
or an instance. Also importable as ``ember.profilers``."""
from .advanced import AdvancedProfiler
from .passthrough import PassThroughProfiler
from .profiler import Profiler
from .pytorch import PyTorchProfiler
from .simple import SimpleProfiler

__all__ = ["AdvancedProfiler", "PassThroughProfiler", "Profiler", "PyTorchProfiler", "SimpleProfiler"]

# the short names Trainer(profiler="...") accepts
PROFILERS = {"simple": SimpleProfiler, "advanced": AdvancedProfiler, "pytorch": PyTorchProfiler}


def resolve_profiler(profiler) -> Profiler:
    """``Trainer(profiler=...)``: None -> PassThroughProfiler, a short name -> that profiler, an instance as is."""
    from ..exceptions import MisconfigurationException
    if profiler is None:
        return PassThroughProfiler()
    if isinstance(profiler, Profiler):
        return profiler
    if isinstance(profiler, str):
        cls = PROFILERS.get(profiler.lower())
        if cls is None:
            raise MisconfigurationException(
                f"`Trainer(profiler={profiler!r})`: when passing string value for the `profiler` parameter of "
                f"`Trainer`, it can only be one of {sorted(PROFILERS)}")
        return cls()
    raise MisconfigurationException(
        f"Only None, str and subclasses of `Profiler` are valid values for `Trainer`'s `profiler` parameter. "
        f"Received {profiler} which is of type {type(profiler)}.")
