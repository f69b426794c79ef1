"""Rank argv[2] hangs in its second training step while the other waits for it in the gradient all-reduce; the
collective timeout is argv[1] seconds. Run as ``python hung_rank.py T R`` (the Trainer's launcher starts rank 1)."""
import sys
import time
from datetime import timedelta

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.trainer.strategies.ddp import DDPStrategy


class Net(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(3, 1)

    def training_step(self, batch, batch_idx):
        if batch_idx == 1 and self.global_rank == int(sys.argv[2]):
            print(f"hung at {time.time()}", flush=True)
            time.sleep(3600)  # hung: never reaches the all-reduce
        x, y = batch
        return ((self.layer(x) - y) ** 2).mean()

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


data = TensorDataset(em.tensor(np.ones((16, 3), np.float32)), em.tensor(np.ones((16, 1), np.float32)))
trainer = em.Trainer(strategy=DDPStrategy(timeout=timedelta(seconds=float(sys.argv[1]))), devices=2, max_epochs=1,
                     logger=False, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
trainer.fit(Net(), DataLoader(data, batch_size=4))
