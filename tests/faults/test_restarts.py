"""``ember-run --max-restarts``: a rank that dies makes the launcher restart the whole group, which resumes from the
newest last.ckpt and ends bit-identical to an uninterrupted run; past the limit the job fails."""
import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts", "restart.py")


def _job(out, crash_step, *flags):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "EMBER_RUN_ID",
                "TORCHELASTIC_RESTART_COUNT"):
        env.pop(key, None)
    os.makedirs(out, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "ember.core.distributed.run", "--nproc-per-node", "2", *flags,
                           SCRIPT, str(out), str(crash_step)], env=env, cwd=out, capture_output=True, text=True,
                          timeout=180)


@pytest.mark.slow
def test_max_restarts_resumes_from_last_ckpt_bit_identically(tmp_path):
    reference = _job(tmp_path / "ref", -1)
    assert reference.returncode == 0, reference.stderr[-3000:]
    assert reference.stdout.splitlines() == ["restart 0 finished at step 24"]

    restarted = _job(tmp_path / "run", 13, "--max_restarts", "1")
    assert restarted.returncode == 0, restarted.stderr[-3000:]
    assert "ember-run: rank 1 failed with exit code 3; restarting the group (1 of 1 restarts)" in restarted.stderr
    lines = restarted.stdout.splitlines()  # the restarted fit says where it resumes from, as Lightning does
    assert lines[0].startswith("Restoring states from the checkpoint path at ") and lines[0].endswith("last.ckpt")
    assert lines[1:] == ["restart 1 finished at step 24"]
    np.testing.assert_array_equal(np.load(tmp_path / "run" / "final.npy"), np.load(tmp_path / "ref" / "final.npy"))


@pytest.mark.slow
def test_without_restarts_left_the_job_fails_with_the_rank_exit_code(tmp_path):
    proc = _job(tmp_path / "run", 2)
    assert proc.returncode == 3
    assert "restarting" not in proc.stderr and "rank 1 (pid" in proc.stderr
