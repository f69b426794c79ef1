"""``ember.utils``: ``ember.utils.data`` is ``ember.data`` under torch's name, the submodules load lazily, and the
backcompat flags are settable."""
import subprocess
import sys

import numpy as np

import ember as em


def test_the_tutorial_imports_work_and_name_ember_data():
    import ember.utils.data
    from ember.utils.data import DataLoader, TensorDataset
    from ember.utils.data import ConcatDataset, Dataset, Subset, default_collate, get_worker_info, random_split
    from ember.utils.data.distributed import DistributedSampler
    assert ember.utils.data is em.data and em.utils.data is em.data
    assert (DataLoader, TensorDataset, Dataset, Subset, ConcatDataset) == \
        (em.data.DataLoader, em.data.TensorDataset, em.data.Dataset, em.data.Subset, em.data.ConcatDataset)
    assert (random_split, default_collate, get_worker_info) == \
        (em.data.random_split, em.data.default_collate, em.data.get_worker_info)
    assert DistributedSampler is em.data.DistributedSampler
    assert em.utils.data.distributed.DistributedSampler is DistributedSampler
    assert em.utils.data.dataloader.DataLoader is DataLoader  # torch.utils.data.dataloader exists too
    ds = TensorDataset(em.arange(10.0).reshape(5, 2), em.arange(5))
    batches = [(x.tolist(), y.tolist()) for x, y in DataLoader(ds, batch_size=2)]
    assert batches == [([[0.0, 1.0], [2.0, 3.0]], [0, 1]), ([[4.0, 5.0], [6.0, 7.0]], [2, 3]), ([[8.0, 9.0]], [4])]
    assert get_worker_info() is None
    np.testing.assert_array_equal(default_collate([em.ones(2), em.zeros(2)]).numpy(), [[1, 1], [0, 0]])


def test_importing_ember_utils_loads_none_of_its_submodules():
    code = ("import sys, ember, ember.utils; "
            "print(sorted(m for m in sys.modules if m.startswith(('ember.utils.', 'tensorboardX', 'ember.core.cuda',"
            " 'ember.core.multiprocessing', 'ember.core.backends'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_backcompat_flags_are_settable():
    from ember.utils.backcompat import broadcast_warning, keepdim_warning
    assert (broadcast_warning.enabled, keepdim_warning.enabled) == (False, False)
    broadcast_warning.enabled = True
    try:
        assert em.utils.backcompat.broadcast_warning.enabled is True
    finally:
        broadcast_warning.enabled = False
