"""A DDP training job for the tests: ``python trainer_ddp.py OUT_DIR [--devices N] [--epochs E] [--resume CKPT]
[--fail-at STEP --fail-rank R]``.

Trains a small MLP with ``Trainer(strategy="ddp")`` (batch 16 per rank), logs a sync_dist loss and an Accuracy
metric, checkpoints every epoch, and writes ``OUT_DIR/rank{r}.json`` with the callback metrics and the weights.
"""
import argparse
import json
import os

import numpy as np

import ember as em
from ember.core import nn
from ember.core.data import DataLoader, TensorDataset
from ember.loggers import CSVLogger
from ember.callbacks import ModelCheckpoint
from ember.core.distributed.threads import get_blas_threads

try:
    from ember.metrics import Accuracy
except ImportError:  # pragma: no cover - metrics not built yet
    Accuracy = None


def dataset(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x[:, 0] - 0.7 * x[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(np.int64)
    return TensorDataset(em.tensor(x), em.tensor(y))


class Net(em.LightningModule):
    def __init__(self, fail_at=-1, fail_rank=-1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
        self.fail_at, self.fail_rank = fail_at, fail_rank
        self.val_acc = Accuracy(task="multiclass", num_classes=2) if Accuracy is not None else None

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        if self.global_step == self.fail_at and self.global_rank == self.fail_rank:
            raise ValueError(f"deliberate failure on rank {self.global_rank} at step {self.global_step}")
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train_loss", loss, on_step=False, on_epoch=True, sync_dist=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", nn.functional.cross_entropy(logits, y), sync_dist=True)
        self.log("val_max", logits.max(), reduce_fx="max", sync_dist=True)
        if self.val_acc is not None:
            self.val_acc(logits.argmax(-1), y)
            self.log("val_acc", self.val_acc)
        else:
            correct = (logits.argmax(-1) == y).float().sum()
            self.log("val_acc", correct / len(y), sync_dist=True)

    def configure_optimizers(self):
        return em.optim.SGD(self.parameters(), lr=0.3, momentum=0.5)

    def on_fit_end(self):
        s, r = self.trainer.strategy, self.global_rank
        x = em.tensor([1.0, 2.0], requires_grad=True)
        self.all_gather(x * (r + 1), sync_grads=True).sum().backward()
        self.extras = {"all_gather": self.all_gather({"r": em.tensor(float(r))})["r"].tolist(),
                       "all_gather_grad": x.grad.tolist(),
                       "reduce_mean": float(s.reduce(em.tensor(float(r)), reduce_op="mean")),
                       "reduce_sum": float(s.reduce(em.tensor(float(r + 1)), reduce_op="sum")),
                       "broadcast": s.broadcast(f"from {r}"),
                       "any": s.reduce_boolean_decision(r == 1, all=False),
                       "all": s.reduce_boolean_decision(r == 1, all=True)}


def run(out, devices, epochs, batch_size, resume=None, fail_at=-1, fail_rank=-1, strategy="ddp"):
    em.seed_everything(7, verbose=False)
    model = Net(fail_at, fail_rank)
    train = DataLoader(dataset(128, 0), batch_size=batch_size, shuffle=False)
    val = DataLoader(dataset(64, 1), batch_size=batch_size, shuffle=False)
    trainer = em.Trainer(strategy=strategy, devices=devices, max_epochs=epochs, default_root_dir=out,
                         logger=CSVLogger(out), enable_progress_bar=False, enable_model_summary=False,
                         num_sanity_val_steps=0, log_every_n_steps=1,
                         callbacks=[ModelCheckpoint(save_last=True, save_top_k=-1)])
    trainer.fit(model, train, val, ckpt_path=resume)
    return trainer, model


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--resume-epochs", type=int, default=0)
    parser.add_argument("--fail-at", type=int, default=-1)
    parser.add_argument("--fail-rank", type=int, default=-1)
    args = parser.parse_args()
    trainer, model = run(args.out, args.devices, args.epochs, 16, fail_at=args.fail_at, fail_rank=args.fail_rank)
    result = {"metrics": {k: float(v) for k, v in trainer.callback_metrics.items()},
              "weights": [p.detach()._data.tolist() for p in model.parameters()],
              "world_size": trainer.world_size, "rank": trainer.global_rank,
              "backend": __import__("ember").distributed.get_backend(),
              "log_dir": trainer.log_dir, "best": trainer.checkpoint_callback.best_model_path,
              "extras": model.extras, "blas_threads": get_blas_threads(),
              "num_threads": em.get_num_threads()}
    sampler = trainer.train_dataloader.sampler
    result["sampler"] = [type(sampler).__name__, getattr(sampler, "epoch", None),
                         getattr(sampler, "num_replicas", None), getattr(sampler, "rank", None)]
    if args.resume_epochs:
        last = trainer.strategy.broadcast(trainer.checkpoint_callback.last_model_path)
        trainer2, model2 = run(args.out, args.devices, args.resume_epochs, 16, resume=last)
        result["resumed"] = {"metrics": {k: float(v) for k, v in trainer2.callback_metrics.items()},
                             "weights": [p.detach()._data.tolist() for p in model2.parameters()],
                             "global_step": trainer2.global_step}
    with open(os.path.join(args.out, f"rank{trainer.global_rank}.json"), "w") as fh:
        json.dump(result, fh)


if __name__ == "__main__":
    main()
