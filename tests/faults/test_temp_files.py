"""kill -9 during large saves: every checkpoint stays loadable, the temp files left behind are recognisable, and
the next save of the same file (or the next run's ModelCheckpoint) removes them and nothing else."""
import os
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember as em
from ember.callbacks import ModelCheckpoint
from ember.core.data import DataLoader
from ember.core.serialization import TEMP_SUFFIX

from trainer_testing import Classifier, make_dataset, quiet_trainer

# Saves a 4 MB checkpoint to argv[1] and SIGKILLs itself after writing argv[2] bytes of it.
_KILLED_SAVE = textwrap.dedent("""
    import os, signal, sys
    import ember as em
    from ember.core import serialization as S
    target, budget = sys.argv[1], int(sys.argv[2])

    class KillAfter:
        def __init__(self, fh):
            self.fh, self.written = fh, 0
        def write(self, data):
            if self.written + len(data) > budget:
                self.fh.write(bytes(memoryview(data).cast("B")[:budget - self.written]))
                self.fh.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            self.written += len(data)
            return self.fh.write(data)
        def __getattr__(self, name):
            return getattr(self.fh, name)

    write_archive = S._write_archive
    S._write_archive = lambda fh, obj: write_archive(KillAfter(fh), obj)
    em.save({"state_dict": {"w": em.arange(float(budget % 7), 500_000.0 + budget % 7, dtype=em.float64)}}, target)
    """)
_SIZE = 4_000_400  # about the size of the archive written above


def _temps(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(TEMP_SUFFIX) and n.startswith("."))


@pytest.mark.slow
def test_kill_9_during_saves_leaves_loadable_checkpoints_and_no_stale_temp_files(tmp_path):
    rng = random.Random(18)
    for name in ("last.ckpt", "epoch=0-step=4.ckpt"):
        em.save({"state_dict": {"w": em.zeros(3)}}, tmp_path / name)
    unrelated = [".notes.tmp", ".last.ckpt.abc.tmp", "last.ckpt.ember-tmp"]  # not ember temp files: kept
    for name in unrelated:
        (tmp_path / name).write_bytes(b"keep")
    live = f".last.ckpt.{os.uname().nodename.replace('.', '_')}.{os.getpid()}.x1y2.ember-tmp"
    (tmp_path / live).write_bytes(b"a live writer's file")  # this process is alive: kept

    killed = []
    for k in range(10):
        target = rng.choice(["last.ckpt", "epoch=0-step=4.ckpt", f"epoch={k}-step=9.ckpt"])
        budget = rng.randrange(0, _SIZE)
        proc = subprocess.run([sys.executable, "-c", _KILLED_SAVE, str(tmp_path / target), str(budget)],
                              capture_output=True)
        assert proc.returncode == -9, proc.stderr.decode()
        killed.append(target)
        for name in os.listdir(tmp_path):  # every checkpoint present is loadable after every kill
            if name.endswith(".ckpt"):
                assert em.load(tmp_path / name)["state_dict"]["w"].shape[0] in (3, 500_000)
    assert "last.ckpt" in killed and len(set(killed)) >= 3
    # each save removed the temp files its target's killed writers left, so one per target remains (the last)
    dead = [t for t in _temps(tmp_path) if t != live]
    assert sorted(t.split(".ckpt.")[0][1:] + ".ckpt" for t in dead) == sorted(set(killed))

    # the next save of last.ckpt removes the dead writers' temp files of last.ckpt only
    em.save({"state_dict": {"w": em.ones(2)}}, tmp_path / "last.ckpt")
    assert _temps(tmp_path) == sorted([live] + [t for t in dead if not t.startswith(".last.ckpt.")])

    # the next run's ModelCheckpoint removes the rest (only dead writers' ember temp files)
    model = Classifier()
    trainer = quiet_trainer(max_epochs=1, enable_checkpointing=True,
                            callbacks=[ModelCheckpoint(dirpath=tmp_path, save_last=True)])
    with pytest.warns(UserWarning, match="exists and is not empty"):
        trainer.fit(model, DataLoader(make_dataset(16), batch_size=8))
    assert _temps(tmp_path) == [live]
    for name in unrelated:
        assert (tmp_path / name).read_bytes() == b"keep"
    np.testing.assert_array_equal(em.load(tmp_path / "epoch=0-step=4.ckpt")["state_dict"]["w"].numpy(), 0.0)
