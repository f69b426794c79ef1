"""Hook dispatch works out per run what cannot change, and still calls every hook Lightning would call: hooks
assigned on an instance at any time (even mid-fit), overridden defaults, and every hook a profiler times."""
import numpy as np

import ember as em
from ember.trainer.profilers import SimpleProfiler

from trainer_testing import Classifier, quiet_trainer


def test_hooks_assigned_on_instances_mid_fit_are_called_from_the_next_call_on(loader):
    seen = []
    model = Classifier()
    callback = em.Callback()

    def arm(trainer, pl_module, outputs, batch, batch_idx):
        if batch_idx == 1:  # from batch 2 on, both instances have hooks they did not have when the fit started
            model.on_before_backward = lambda loss: seen.append(("module.on_before_backward", trainer.global_step))
            callback.on_before_zero_grad = lambda trainer, pl_module, optimizer: seen.append(
                ("cb.on_before_zero_grad", trainer.global_step))
            callback.on_train_epoch_end = lambda trainer, pl_module: seen.append(("cb.on_train_epoch_end", -1))
        if batch_idx == 2:  # and a hook removed from the instance is no longer called
            del model.on_before_backward

    arming = em.Callback()
    arming.on_train_batch_end = arm
    quiet_trainer(max_epochs=1, callbacks=[callback, arming], limit_val_batches=0).fit(model, loader(32))
    assert seen == [("cb.on_before_zero_grad", 2), ("module.on_before_backward", 2), ("cb.on_before_zero_grad", 3),
                    ("cb.on_train_epoch_end", -1)]


def test_a_hook_set_to_none_on_the_instance_mid_fit_is_not_called(loader):
    seen = []

    class Model(Classifier):
        def on_train_batch_start(self, batch, batch_idx):
            seen.append(batch_idx)
            if batch_idx == 1:
                self.on_train_batch_start = None

    quiet_trainer(max_epochs=1, limit_val_batches=0).fit(Model(), loader(32))
    assert seen == [0, 1]


def test_an_overridden_clip_gradients_is_called_by_the_default_configure_gradient_clipping(loader):
    calls = []

    class Model(Classifier):
        def clip_gradients(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
            calls.append((gradient_clip_val, gradient_clip_algorithm))

    quiet_trainer(max_epochs=1, limit_val_batches=0).fit(Model(), loader(32))
    assert calls == [(None, None)] * 4


def _norm(module):
    return float(np.sqrt(sum((p.grad.numpy().astype(np.float64) ** 2).sum() for p in module.parameters())))


def test_trainer_gradient_clipping_clips_every_step(loader):
    before, after = [], []

    class Model(Classifier):
        def on_before_optimizer_step(self, optimizer):
            before.append(_norm(self))

        def configure_optimizers(self):
            optimizer = em.optim.SGD(self.parameters(), lr=0.5)
            optimizer.register_step_post_hook(lambda opt, args, kwargs: after.append(_norm(self)))
            return optimizer

    quiet_trainer(max_epochs=1, limit_val_batches=0, gradient_clip_val=1e-3).fit(Model(), loader(32))
    assert len(before) == 4 and all(n > 1e-3 for n in before)
    assert len(after) == 4 and all(abs(n - 1e-3) < 1e-6 for n in after)


def test_a_recording_profiler_times_the_default_configure_gradient_clipping(tmp_path, loader):
    profiler = SimpleProfiler(dirpath=tmp_path, filename="perf")
    quiet_trainer(max_epochs=1, limit_val_batches=0, profiler=profiler).fit(Classifier(), loader(32))
    report = (tmp_path / "fit-perf.txt").read_text()
    row = [line for line in report.splitlines() if "[LightningModule]Classifier.configure_gradient_clipping" in line]
    assert len(row) == 1 and [c.strip() for c in row[0].split("|")[1:-1]][2] == "4"
