"""The old home of ``seed_everything`` (now ``ember.core.seed``, next to the generators); this path keeps working."""
from ..seed import pl_worker_init_function, reset_seed, seed_everything  # noqa: F401

__all__ = ["seed_everything", "reset_seed", "pl_worker_init_function"]
