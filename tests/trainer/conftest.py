"""Fixtures for trainer tests; the shared classes live in trainer_testing.py."""
import pytest

from ember.core.data import DataLoader

from trainer_testing import make_dataset


@pytest.fixture
def loader():
    def make(n=32, batch_size=8, shuffle=False, **kw):
        return DataLoader(make_dataset(n, **kw), batch_size=batch_size, shuffle=shuffle)
    return make
