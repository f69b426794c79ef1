"""``ember.nn``: the module system, layers, ``functional``, ``init`` and ``utils``."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .parameter import Buffer, Parameter, UninitializedParameter  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401  (torch.nn.DataParallel)
from . import attention  # noqa: F401  (torch.nn.attention: sdpa_kernel, SDPBackend)
