"""``ember.data``: datasets, samplers and the DataLoader, with PyTorch's ``torch.utils.data`` API.

Everything here is plain Python and NumPy. ``DataLoader`` loads in the main process or in worker processes (fork or
spawn), fetches whole batches from datasets that implement ``__getitems__`` (``TensorDataset`` does), and is
resumable mid-epoch through ``state_dict``/``load_state_dict``.
"""
from ._worker import get_worker_info
from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
                      random_split)
from .distributed_sampler import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from ..seed import seed_everything

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset", "StackDataset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedSampler", "DataLoader", "default_collate",
           "default_convert", "get_worker_info", "seed_everything"]
