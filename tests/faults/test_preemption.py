"""Preemption: SIGTERM stops training at the end of the batch, runs the exception hooks (both exception checkpoints
are written and loadable) and exits with 143; under DDP one rank's SIGTERM stops every rank; SLURM's requeue signal
saves an hpc checkpoint and calls ``scontrol requeue``; Ctrl-C mid-batch writes a checkpoint from which the run
resumes bit-identically."""
import os
import re
import signal
import stat
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from ember.callbacks import OnExceptionCheckpoint
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scripts", "preempt.py")


def _env(**extra):
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    for key in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "EMBER_RUN_ID",
                "SLURM_JOB_ID", "SLURM_NTASKS", "SLURM_PROCID"):
        env.pop(key, None)
    env.update(extra)
    return env


def _run(mode, out, **extra):
    return subprocess.run([sys.executable, SCRIPT, mode, str(out)], cwd=out, env=_env(**extra), capture_output=True,
                          text=True, timeout=120)


def test_sigterm_during_fit_saves_loadable_checkpoints_and_exits_143(tmp_path):
    proc = _run("sigterm", tmp_path)
    assert proc.returncode == 143, proc.stderr[-3000:]
    assert proc.stdout.splitlines() == ["on_exception SIGTERMException rank 0 step 4"]  # batch 3 finished, then stop
    for name in ("on_exception.ckpt", "epoch=0-step=4.ckpt"):
        ckpt = em.load(tmp_path / name)
        assert ckpt["global_step"] == 4 and ckpt["loops"]["fit_loop"]["epoch_loop"]["batch_progress"][
            "current"]["completed"] == 4
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # this process's handler untouched


@pytest.mark.slow
def test_sigterm_on_one_ddp_rank_stops_every_rank_at_the_same_batch(tmp_path):
    proc = _run("ddp", tmp_path)
    assert proc.returncode == 143, proc.stderr[-3000:]
    # both ranks print to one pipe, so their lines can run together: find the prints, not the lines
    lines = sorted(re.findall(r"on_exception \w+ rank \d+ step \d+", proc.stdout))
    assert lines == ["on_exception SIGTERMException rank 0 step 3", "on_exception SIGTERMException rank 1 step 3"]
    assert "fit returned" not in proc.stdout
    assert em.load(tmp_path / "on_exception.ckpt")["global_step"] == 3


@pytest.mark.slow
def test_sigterm_to_ember_run_stops_the_workers_gracefully(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "ember.core.distributed.run", "--nproc-per-node", "2", SCRIPT,
                             "ember-run", str(tmp_path)], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    seen = ""
    for line in proc.stdout:  # event-driven: the signal goes out once both ranks are inside step 2
        seen += line  # the two ranks share the pipe, so one line can hold both ranks' prints
        if "rank 0 step 2" in seen and "rank 1 step 2" in seen:
            break
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err[-3000:]
    assert sorted(re.findall(r"on_exception \w+ rank \d+ step \d+", seen + out)) == [
        "on_exception SIGTERMException rank 0 step 3", "on_exception SIGTERMException rank 1 step 3"]
    assert em.load(tmp_path / "on_exception.ckpt")["global_step"] == 3


def test_slurm_requeue_signal_saves_and_calls_scontrol(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "scontrol"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'scontrol.log'}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    proc = _run("requeue", tmp_path, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", SLURM_JOB_ID="4242")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "scontrol.log").read_text() == "requeue 4242\n"
    assert em.load(tmp_path / "hpc_ckpt_1.ckpt")["global_step"] == 4  # saved at the end of the signalled batch
    assert proc.stdout.splitlines() == ["fit returned at step 16"]  # the requeue itself does not stop training


class DropoutNet(em.LightningModule):
    """Dropout draws a mask from the default generator in every step; Ctrl-C can arrive right after it."""

    def __init__(self, interrupt_at=None):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.5), nn.Linear(16, 1))
        self.interrupt_at = interrupt_at

    def training_step(self, batch, batch_idx):
        x, y = batch
        hidden = self.net[1](self.net[0](x))  # the mask is drawn here
        if self.global_step == self.interrupt_at:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the batch
        return ((self.net[2](hidden) - y) ** 2).mean()

    def configure_optimizers(self):
        return em.optim.Adam(self.parameters(), lr=0.01)


def _fit(tmp_path, interrupt_at=None, ckpt_path=None):
    em.seed_everything(7)
    model = DropoutNet(interrupt_at)
    data = TensorDataset(em.randn(40, 4), em.randn(40, 1))
    loader = DataLoader(data, batch_size=8, shuffle=True)
    trainer = em.Trainer(max_epochs=3, logger=False, enable_progress_bar=False, enable_model_summary=False,
                         callbacks=[OnExceptionCheckpoint(dirpath=tmp_path)], default_root_dir=tmp_path)
    trainer.fit(model, loader, ckpt_path=ckpt_path)
    return model


@pytest.mark.parametrize("step", [2, 6])  # inside the first epoch, and inside the second
def test_ctrl_c_mid_batch_then_resume_is_bit_identical(tmp_path, step):
    reference = [p.detach().numpy().copy() for p in _fit(tmp_path).parameters()]
    with pytest.raises(SystemExit) as info:
        _fit(tmp_path, interrupt_at=step)
    assert info.value.code == 1
    ckpt = em.load(tmp_path / "on_exception.ckpt")
    assert ckpt["global_step"] == step
    resumed = _fit(tmp_path, ckpt_path=str(tmp_path / "on_exception.ckpt"))
    for ref, got in zip(reference, resumed.parameters()):
        np.testing.assert_array_equal(got.detach().numpy(), ref)
