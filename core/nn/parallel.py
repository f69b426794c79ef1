"""``ember.nn.parallel``: DistributedDataParallel arrives with the distributed issue."""
__all__ = []
