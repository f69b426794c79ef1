"""Design rules of the loops (DESIGN: "the Trainer is a coordinator"), turned into failures."""
import pathlib
import re

import ember as em
from ember.trainer.loops.loop import Loop

ROOT = pathlib.Path(em.__file__).parent


def test_no_private_trainer_calls_from_loops_callbacks_or_lightning_optimizer():
    files = sorted((ROOT / "trainer" / "loops").glob("*.py")) + sorted((ROOT / "callbacks").glob("*.py")) + \
        [ROOT / "trainer" / "optimizer.py"]
    offenders = []
    for path in files:
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"\btrainer\._[a-z]", line):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()}")
    assert offenders == []


def test_every_loop_builds_its_state_from_the_base():
    trainer = em.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                         enable_model_summary=False)
    epoch_loop = trainer.fit_loop.epoch_loop
    loops = [trainer.fit_loop, epoch_loop, epoch_loop.automatic_optimization, epoch_loop.manual_optimization,
             epoch_loop.val_loop, trainer.validate_loop, trainer.test_loop, trainer.predict_loop]
    assert all(isinstance(loop, Loop) for loop in loops)
    # a loop's state round-trips: set every counter, save, load into a fresh Trainer, compare
    epoch_loop.batch_progress.total.completed = 7
    epoch_loop._batches_that_stepped = 5
    epoch_loop.automatic_optimization.optimizer_steps = 3
    epoch_loop.automatic_optimization.zero_grad_calls = 4
    trainer.fit_loop.epoch_progress.current.completed = 2
    state = trainer.fit_loop.state_dict()
    other = em.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                       enable_model_summary=False)
    other.fit_loop.epoch_loop.load_state_dict(state["epoch_loop"])
    other.fit_loop.epoch_progress.load_state_dict(state["epoch_progress"])
    assert other.fit_loop.epoch_loop.batch_progress.total.completed == 7
    assert other.fit_loop.epoch_loop._batches_that_stepped == 5
    assert other.fit_loop.epoch_loop.automatic_optimization.optimizer_steps == 3
    assert other.fit_loop.epoch_loop.automatic_optimization.zero_grad_calls == 4
    assert other.fit_loop.current_epoch == 2
