"""``ember.nn.functional``: every layer and loss in functional form (``import ember.nn.functional as F``)."""
from ._activation import *  # noqa: F401,F403
from ._linear import *  # noqa: F401,F403
from ._dropout import *  # noqa: F401,F403
from ._loss import *  # noqa: F401,F403
from ._conv import *  # noqa: F401,F403
from ._pooling import *  # noqa: F401,F403
from ._norm import *  # noqa: F401,F403
from ._rms_norm import *  # noqa: F401,F403
from ._padding import *  # noqa: F401,F403
from ._vision import *  # noqa: F401,F403
from ._attention import *  # noqa: F401,F403
