"""A 2-rank DDP fit with ``SimpleProfiler(dirpath=OUT, filename="perf")``: ``python profiler_ddp.py OUT``.

Each rank writes its own report, ``OUT/fit-perf-<local_rank>.txt``, as Lightning does.
"""
import sys

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.profilers import SimpleProfiler


class Net(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.layer(x), y)

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.1)


def main(out):
    rng = np.random.default_rng(0)
    data = TensorDataset(em.tensor(rng.standard_normal((64, 4)).astype(np.float32)),
                         em.tensor(rng.integers(0, 2, 64)))
    trainer = em.Trainer(strategy="ddp", devices=2, max_epochs=1, logger=False, enable_progress_bar=False,
                         enable_model_summary=False, enable_checkpointing=False,
                         profiler=SimpleProfiler(dirpath=out, filename="perf"))
    trainer.fit(Net(), DataLoader(data, batch_size=8))


if __name__ == "__main__":
    main(sys.argv[1])
