"""``ember.data.distributed`` (``torch.utils.data.distributed``): the :class:`DistributedSampler`."""
from .distributed_sampler import DistributedSampler

__all__ = ["DistributedSampler"]
