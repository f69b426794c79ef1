"""Elementwise math, the ``ember.core.ops.math`` namespace: the ops of the per-family modules gathered in one place.

* :mod:`.exp_log`: exponentials, logarithms, powers, ``sigmoid``/``logit``, ``xlogy``, ``logaddexp``;
* :mod:`.trig`: trigonometric and hyperbolic functions, ``atan2``, ``hypot``;
* :mod:`.rounding`: ``floor``, ``ceil``, ``round``, ``trunc``, ``frac``, ``sign``, ``sgn``;
* :mod:`.clamp_where`: ``clamp``, ``maximum``/``minimum``, ``fmax``/``fmin``, ``where``, ``lerp``, ``relu``,
  ``nan_to_num``;
* :mod:`.special`: ``erf``, ``erfc``, ``erfinv``.

Their shared helpers live in :mod:`._elementwise`.
"""
from . import clamp_where, exp_log, rounding, special, trig
from .clamp_where import *  # noqa: F401,F403
from .exp_log import *  # noqa: F401,F403
from .rounding import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .trig import *  # noqa: F401,F403

__all__ = exp_log.__all__ + trig.__all__ + rounding.__all__ + clamp_where.__all__ + special.__all__
