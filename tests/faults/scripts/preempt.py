"""Preemption scenarios, run in a subprocess by tests/faults/test_preemption.py.

    python preempt.py MODE OUT_DIR

MODE ``sigterm``: the process sends itself SIGTERM during training step 3 (as a scheduler would); ``ddp``: the same
at step 2 under ``Trainer(strategy="ddp", devices=2)``, on rank 1 only; ``requeue``: SIGUSR1 under a SLURM job with
``SLURMEnvironment(auto_requeue=True)``; ``ember-run``: DDP under ``ember-run``, which the test sends SIGTERM. Prints ``on_exception <name>`` from the hook and ``fit returned`` if fit
returned.
"""
import os
import signal
import sys
import time

import numpy as np

import ember as em
from ember.callbacks import ModelCheckpoint, OnExceptionCheckpoint
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.trainer.signal_connector import SLURMEnvironment

mode, out = sys.argv[1], sys.argv[2]


class Net(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 1)

    def training_step(self, batch, batch_idx):
        if mode == "ember-run":  # the test sends SIGTERM to ember-run once both ranks reached step 2
            print(f"rank {self.global_rank} step {self.global_step}", flush=True)
            if self.global_step >= 2:
                while not trainer.signal_connector.received_sigterm:
                    time.sleep(0.02)  # a long step: the signal arrives while it runs
        elif self.global_step == (2 if mode == "ddp" else 3) and (mode != "ddp" or self.global_rank == 1):
            os.kill(os.getpid(), signal.SIGUSR1 if mode == "requeue" else signal.SIGTERM)
        x, y = batch
        return ((self.layer(x) - y) ** 2).mean()

    def on_exception(self, exception):
        print(f"on_exception {type(exception).__name__} rank {self.global_rank} step {self.global_step}", flush=True)

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


em.seed_everything(0)
data = TensorDataset(em.randn(32, 3), em.randn(32, 1))
kwargs = dict(strategy="ddp", devices=2) if mode == "ddp" else dict(strategy="ddp") if mode == "ember-run" else {}
plugins = [SLURMEnvironment(auto_requeue=True, requeue_signal=signal.SIGUSR1)] if mode == "requeue" else None
trainer = em.Trainer(max_epochs=2, logger=False, enable_progress_bar=False, enable_model_summary=False,
                     default_root_dir=out, plugins=plugins,
                     callbacks=[OnExceptionCheckpoint(dirpath=out),
                                ModelCheckpoint(dirpath=out, save_on_exception=True, save_top_k=0)], **kwargs)
trainer.fit(Net(), DataLoader(data, batch_size=4))
print(f"fit returned at step {trainer.global_step}", flush=True)
