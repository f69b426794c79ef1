"""``ember.backends``: ``torch.backends``' switches and availability checks.

* ``ember.backends.cuda``: ``sdp_kernel`` and the ``enable_*_sdp`` switches that choose the attention
  implementation (see :mod:`ember.nn.attention`), ``is_built()``, ``matmul.allow_tf32``;
* ``ember.backends.cudnn`` and ``ember.backends.mps``: ``is_available()`` (False: ember has neither) and the flags
  code sets (``cudnn.benchmark``, ``cudnn.deterministic``, ...), which ember keeps and has no use for.
"""
from . import cuda, cudnn, mps  # noqa: F401

__all__ = ["cuda", "cudnn", "mps"]
