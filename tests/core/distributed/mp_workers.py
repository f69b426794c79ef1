"""Functions the multiprocessing tests run in child processes (importable there: spawn gives children the parent's
sys.path, where conftest.py put this folder)."""
import os
import sys


def write_index(i, out_dir, tag):
    with open(os.path.join(out_dir, f"{tag}{i}"), "w") as f:
        f.write(str(i))


def fail_on_one(i, out_dir):
    if i == 1:
        raise ValueError(f"bad value in process {i}")
    with open(os.path.join(out_dir, f"ok{i}"), "w") as f:
        f.write("ok")


def exit_with_code(i):
    if i == 0:
        sys.exit(3)


def echo_tensors(inbox, outbox):
    """Send back what arrives, plus a tensor made here."""
    import ember as em
    received = inbox.get()
    outbox.put(received)
    outbox.put(em.arange(6, dtype=em.int32).reshape(2, 3))


def gpu_demo(rank, world_size):
    """The GPU lines of the DDP tutorial: ``ToyModel().to(rank)``."""
    import ember as em
    em.nn.Linear(10, 5).to(rank)
