"""DDP training under ``ember-run --max-restarts``; run by tests/faults/test_restarts.py.

    ember-run --nproc-per-node 2 [--max-restarts 1] restart.py OUT_DIR CRASH_STEP

Rank 1 dies (``os._exit``) during step CRASH_STEP of the first attempt (-1: never). last.ckpt is written after every
step; rank 0 saves the final weights to OUT_DIR/final.npy.
"""
import os
import sys

import numpy as np

import ember as em
from ember.callbacks import ModelCheckpoint
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset

out, crash_step = sys.argv[1], int(sys.argv[2])
first_attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") == "0"


class Net(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.25), nn.Linear(8, 1))

    def training_step(self, batch, batch_idx):
        if first_attempt and self.global_step == crash_step and self.global_rank == 1:
            os._exit(3)  # the rank dies abruptly, as on a node failure
        x, y = batch
        return ((self.net(x) - y) ** 2).mean()

    def configure_optimizers(self):
        return em.optim.Adam(self.parameters(), lr=0.01)


em.seed_everything(11)
data = TensorDataset(em.randn(64, 4), em.randn(64, 1))
trainer = em.Trainer(strategy="ddp", max_epochs=3, logger=False, enable_progress_bar=False,
                     enable_model_summary=False, default_root_dir=out,
                     callbacks=[ModelCheckpoint(dirpath=os.path.join(out, "ckpts"), save_last=True, save_top_k=0,
                                                every_n_train_steps=1)])
trainer.fit(Net(), DataLoader(data, batch_size=4, shuffle=True))
if trainer.is_global_zero:
    np.save(os.path.join(out, "final.npy"), np.concatenate([p.detach().numpy().ravel() for p in trainer.lightning_module.parameters()]))
    print(f"restart {os.environ.get('TORCHELASTIC_RESTART_COUNT')} finished at step {trainer.global_step}", flush=True)
