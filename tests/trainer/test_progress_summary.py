"""The TQDM progress bar (clean output without a terminal) and the model summary table."""
import io

import pytest

import ember as em
from ember.callbacks import ModelSummary, TQDMProgressBar
from ember.core import nn
from ember.core.data import DataLoader
from ember.callbacks.model_summary import ModelSummaryTable, get_human_readable_count

from trainer_testing import Classifier, RecordingLogger, make_dataset, quiet_trainer


class _File(io.StringIO):
    """A redirected stdout: not a terminal."""

    def isatty(self):
        return False


def test_progress_bar_without_terminal_prints_one_clean_line_per_bar():
    out = _File()
    bar = TQDMProgressBar()
    bar._file = out

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            loss = super().training_step(batch, batch_idx)
            self.log("acc", 0.5, prog_bar=True)
            return loss

    trainer = quiet_trainer(max_epochs=2, callbacks=[bar], enable_progress_bar=None, logger=RecordingLogger(),
                            num_sanity_val_steps=0)
    data = DataLoader(make_dataset(16), batch_size=4)
    trainer.fit(Model(), data, data)
    text = out.getvalue()
    assert "\r" not in text
    lines = text.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["Validation", "Epoch 0", "Validation", "Epoch 1"]
    epoch_line = lines[1]
    assert "4/4" in epoch_line and "it/s" in epoch_line and epoch_line.endswith(", v_num=0, acc=0.5]")


def test_progress_bar_refresh_rate_zero_disables_it():
    out = _File()
    bar = TQDMProgressBar(refresh_rate=0)
    bar._file = out
    quiet_trainer(max_epochs=1, callbacks=[bar], enable_progress_bar=None).fit(
        Classifier(), DataLoader(make_dataset(8), batch_size=4))
    assert out.getvalue() == "" and not bar.is_enabled
    with pytest.raises(ValueError, match="refresh_rate"):
        TQDMProgressBar(refresh_rate=-1)


def test_progress_bar_metrics_property_holds_prog_bar_values():
    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("shown", 2.0, prog_bar=True)
            self.log("hidden", 3.0)
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=1)
    trainer.fit(Model(), DataLoader(make_dataset(8), batch_size=4))
    assert set(trainer.progress_bar_metrics) == {"shown"}
    assert bar_metrics(trainer) == {"shown": 2.0}


def bar_metrics(trainer):
    return TQDMProgressBar().get_metrics(trainer, trainer.lightning_module)


class Net(em.LightningModule):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.head = nn.Linear(16, 2)
        self.frozen = nn.Linear(2, 2)
        self.frozen.requires_grad_(False)
        self.example_input_array = em.zeros(5, 8)

    def forward(self, x):
        return self.frozen(self.head(self.encoder(x)))


def test_summary_table_counts_shapes_and_size():
    table = ModelSummaryTable(Net(), max_depth=1)
    lines = str(table).splitlines()
    assert lines[0] == "  | Name    | Type       | Params | Mode  | FLOPs | In sizes | Out sizes"
    assert lines[1] == "-" * 78  # Lightning: column widths + 3 per column, one column more than there are
    assert lines[2] == "0 | encoder | Sequential | 144    | train | 1.3 K | [5, 8]   | [5, 16]  "
    assert lines[3] == "1 | head    | Linear     | 34     | train | 320   | [5, 16]  | [5, 2]   "
    assert lines[4] == "2 | frozen  | Linear     | 6      | train | 40    | [5, 2]   | [5, 2]   "
    assert table.trainable_parameters == 144 + 34 and table.total_parameters == 144 + 34 + 6
    assert lines[-7:] == ["178       Trainable params", "6         Non-trainable params", "184       Total params",
                          "0.001     Total estimated model params size (MB)", "5         Modules in train mode",
                          "0         Modules in eval mode", "1.6 K     Total Flops"]  # 2 x 5 x (8x16 + 16x2 + 2x2)
    assert len(ModelSummaryTable(Net(), max_depth=-1).layers) == 5


def test_summary_matches_lightning_docstring_example():
    """Lightning 2.6's own example (ModelSummary's docstring), byte for byte."""
    class LitModel(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(256, 512), nn.BatchNorm1d(512))
            self.example_input_array = em.zeros(10, 256)

        def forward(self, x):
            return self.net(x)

    model = LitModel()
    model.net[1].eval()
    assert str(ModelSummaryTable(model, max_depth=-1)) == "\n".join([
        "  | Name  | Type        | Params | Mode  | FLOPs | In sizes  | Out sizes",
        "-" * 78,
        "0 | net   | Sequential  | 132 K  | train | 2.6 M | [10, 256] | [10, 512]",
        "1 | net.0 | Linear      | 131 K  | train | 2.6 M | [10, 256] | [10, 512]",
        "2 | net.1 | BatchNorm1d | 1.0 K  | eval  | 0     | [10, 512] | [10, 512]",
        "-" * 78,
        "132 K     Trainable params", "0         Non-trainable params", "132 K     Total params",
        "0.530     Total estimated model params size (MB)", "2         Modules in train mode",
        "1         Modules in eval mode", "2.6 M     Total Flops"])
    assert model.net[1].training is False and model.net[0].training is True  # the modes survive the example pass


def test_summary_flops_of_convolutions_and_leftover_parameters():
    class Conv(em.LightningModule):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)
            self.scale = nn.Parameter(em.ones(4))
            self.example_input_array = em.zeros(1, 3, 5, 5)

        def forward(self, x):
            return self.conv(x)

    table = ModelSummaryTable(Conv())
    lines = str(table).splitlines()
    # PyTorch's rule: 2 x batch x weight elements x output positions = 2 * 1 * 216 * 9
    assert lines[2].split(" | ")[5].strip() == "3.9 K" and table.total_flops == 3888
    assert [c.strip() for c in lines[3].split(" | ")] == ["", "other params", "n/a", "4", "n/a", "n/a", "n/a",
                                                           "n/a"]
    without_example = str(ModelSummaryTable(_no_example()))
    assert "In sizes" not in without_example and without_example.endswith("0         Total Flops")


def _no_example():
    net = Net()
    net.example_input_array = None
    return net


def test_model_summary_callback_logs_to_stderr_at_fit_start(capsys, monkeypatch):
    import logging
    import sys
    # the plain StreamHandler ember installs (pytest's logging plugin may add its own subclasses beside it)
    (handler,) = [h for h in logging.getLogger("ember.trainer").handlers if type(h) is logging.StreamHandler]
    monkeypatch.setattr(handler, "stream", sys.stderr)  # pytest's capture of stderr, replaced after import

    class Model(Classifier):
        pass

    quiet_trainer(max_epochs=1, limit_train_batches=1, callbacks=[ModelSummary(max_depth=1)]).fit(
        Model(), DataLoader(make_dataset(8), batch_size=4))
    captured = capsys.readouterr()
    assert "| layer | Linear | 10     | train | 0" in captured.err and "10        Total params" in captured.err
    assert "Total params" not in captured.out


@pytest.mark.parametrize("n,text", [(0, "0  "), (999, "999  "), (7850, "7.9 K"), (123_456, "123 K"),
                                    (1_200_000, "1.2 M"), (3_000_000_000, "3.0 B")])
def test_human_readable_counts(n, text):
    assert get_human_readable_count(n) == text


class _Terminal(io.StringIO):
    """A terminal: tqdm draws with carriage returns and cursor moves."""

    def isatty(self):
        return True


def _fit_on_terminal(bar, epochs=2, batches=4):
    out = _Terminal()
    bar._file = out

    class Model(Classifier):
        def training_step(self, batch, batch_idx):
            self.log("step_id", float(batch_idx), prog_bar=True)
            return super().training_step(batch, batch_idx)

    trainer = quiet_trainer(max_epochs=epochs, callbacks=[bar], enable_progress_bar=None, logger=RecordingLogger(),
                            num_sanity_val_steps=0)
    data = DataLoader(make_dataset(4 * batches), batch_size=4)
    trainer.fit(Model(), data, data)
    return out.getvalue()


def _draws(text):
    """Every state the screen showed, in order (tqdm redraws a line after a carriage return). Trailing spaces are
    dropped: tqdm pads a redraw shorter than the line before it (e.g. a rate of ``994.68it/s`` after
    ``1.02kit/s``) to blank out the rest of that line."""
    import re
    return [d.rstrip() for d in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)) if d.strip()]


def test_terminal_bar_draws_every_refresh_rate_batches_with_the_metrics_live():
    draws = [d for d in _draws(_fit_on_terminal(TQDMProgressBar(refresh_rate=2))) if d.startswith("Epoch 0")]
    counts = [d.split("| ")[1].split(" ")[0] for d in draws]
    assert "1/4" not in counts and "3/4" not in counts and "2/4" in counts and "4/4" in counts
    # the postfix is there while the epoch runs; as in Lightning, the bar's metrics are refreshed after the batch-end
    # hooks, so the bar drawn at batch 2 shows batch 1's value (step_id 0), and the epoch's end shows the last one
    assert [d.split(", ")[-1] for d in draws if "/4 [" in d][1:3] == ["step_id=0.000]", "step_id=2.000]"]
    assert draws[-1].endswith("v_num=0, step_id=3.000]")


def test_terminal_bars_as_lightning_one_kept_bar_per_epoch_and_a_transient_validation_bar():
    class Recording(TQDMProgressBar):
        def _open(self, key, desc, total, leave, line=0):
            bar = super()._open(key, desc, total, leave, line)
            self.opened.append((desc, total, bar.bar.leave, -bar.bar.pos))  # tqdm keeps -position
            return bar

    bar = Recording()
    bar.opened = []
    _fit_on_terminal(bar)
    # each epoch gets a bar that stays (leave) on line 0; validation runs on the line below and disappears
    assert bar.opened == [("Epoch 0", 4, True, 0), ("Validation", 4, False, 1), ("Epoch 1", 4, True, 0),
                          ("Validation", 4, False, 1)]
    bar = Recording(leave=False, process_position=1)
    bar.opened = []
    _fit_on_terminal(bar)
    # leave=False is Lightning's default: one bar for the fit, reset every epoch; lines 2 and 3 (2 x position)
    assert bar.opened == [("Training", 4, True, 2), ("Validation", 4, False, 3), ("Validation", 4, False, 3)]


# ------------------------------------------------------------------------------------- the progress bar API
class _BarRecorder(em.Callback):
    """Records what Lightning's progress-bar API says at each batch (this callback runs before the bar's own
    hooks, so a bar's ``n`` is the batches it has counted before this one)."""

    def __init__(self):
        self.rows = []

    def on_train_epoch_start(self, trainer, pl_module):
        self.rows.append(("epoch", trainer.current_epoch, trainer.global_step,
                          trainer.progress_bar_callback.total_train_batches))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        bar = trainer.progress_bar_callback
        tb = bar.train_progress_bar
        self.rows.append(("train", trainer.current_epoch, batch_idx, bar.total_train_batches, bar.total_val_batches,
                          tb.desc, tb.n, tb.total))

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0):
        bar = trainer.progress_bar_callback
        vb = bar.val_progress_bar
        self.rows.append(("val", trainer.current_epoch, batch_idx, dataloader_idx,
                          bar.total_val_batches_current_dataloader, vb.desc, vb.n, vb.total))


class _TwoValLoaders(Classifier):
    def validation_step(self, batch, batch_idx, dataloader_idx=0):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self(x), y))

    def val_dataloader(self):
        return [DataLoader(make_dataset(4), batch_size=2), DataLoader(make_dataset(6), batch_size=2)]

    def predict_step(self, batch, batch_idx, dataloader_idx=0):
        return self(batch[0])


def test_progress_bar_api_values_during_fit():
    out = _File()
    bar = TQDMProgressBar()
    bar._file = out
    with pytest.raises(TypeError, match="_trainer` reference has not been set"):
        bar.trainer
    with pytest.raises(TypeError, match="_train_progress_bar` reference has not been set"):
        bar.train_progress_bar
    rec = _BarRecorder()
    trainer = quiet_trainer(max_epochs=3, check_val_every_n_epoch=2, num_sanity_val_steps=1, callbacks=[rec, bar],
                            enable_progress_bar=None)
    assert trainer.progress_bar_callback is bar
    trainer.fit(_TwoValLoaders(), DataLoader(make_dataset(8), batch_size=4))
    assert bar.trainer is trainer
    # sanity check: one batch of each val loader, on the "Sanity Checking" bar (Lightning's val_progress_bar)
    sanity = [("val", 0, 0, 0, 1, "Sanity Checking", 0, 2), ("val", 0, 0, 1, 1, "Sanity Checking", 1, 2)]
    train = [("train", e, b, 2, 5 if e == 1 else 0, f"Epoch {e}", b, 2) for e in range(3) for b in range(2)]
    val = [("val", 1, b, i, n, "Validation", seen, 5)
           for seen, (i, b, n) in enumerate([(0, 0, 2), (0, 1, 2), (1, 0, 3), (1, 1, 3), (1, 2, 3)])]
    epochs = [("epoch", e, 2 * e, 2) for e in range(3)]
    assert rec.rows == sanity + epochs[:1] + train[:2] + epochs[1:2] + train[2:4] + val + epochs[2:] + train[4:]
    # after the run the bars are the last ones, closed, with their final counts
    assert (bar.train_progress_bar.desc, bar.train_progress_bar.n) == ("Epoch 2", 2)
    assert (bar.val_progress_bar.desc, bar.val_progress_bar.n) == ("Validation", 5)
    assert bar._current_eval_dataloader_idx is None  # reset at the end of each evaluation


def test_progress_bar_total_train_batches_capped_by_max_steps_without_max_epochs():
    rec = _BarRecorder()
    bar = TQDMProgressBar()
    bar._file = _File()
    trainer = quiet_trainer(max_epochs=-1, max_steps=5, callbacks=[rec, bar], enable_progress_bar=None,
                            limit_val_batches=0)
    trainer.fit(Classifier(), DataLoader(make_dataset(12), batch_size=4))  # 3 batches per epoch
    # Lightning's formula, live: min(batches per epoch, max_steps - global_step), global_step counting this batch
    assert [r[3] for r in rec.rows if r[0] == "epoch"] == [3, 2]
    assert [(r[1], r[3], r[4]) for r in rec.rows if r[0] == "train"] == [(0, 3, 0), (0, 3, 0), (0, 2, 0),
                                                                          (1, 1, 0), (1, 0, 0)]
    assert bar.train_progress_bar.total == 2  # the epoch bar's length is total_train_batches at epoch start


def test_progress_bar_test_and_predict_bars():
    bar = TQDMProgressBar()
    bar._file = _File()
    trainer = quiet_trainer(callbacks=[bar], enable_progress_bar=None)
    with pytest.raises(TypeError, match="_test_progress_bar` reference"):
        bar.test_progress_bar
    trainer.test(Classifier(), DataLoader(make_dataset(6), batch_size=2))
    trainer.predict(_TwoValLoaders(), DataLoader(make_dataset(4), batch_size=2))
    assert (bar.test_progress_bar.desc, bar.test_progress_bar.n, bar.test_progress_bar.total) == ("Testing", 3, 3)
    assert (bar.predict_progress_bar.desc, bar.predict_progress_bar.n) == ("Predicting", 2)


def test_progress_bar_api_on_a_terminal_gives_the_tqdm_bars():
    from tqdm import tqdm
    bar = TQDMProgressBar(leave=False)
    _fit_on_terminal(bar)
    train, val = bar.train_progress_bar, bar.val_progress_bar
    assert isinstance(train, tqdm) and isinstance(val, tqdm)
    # Lightning's default layout: one training bar for the fit, its description the last epoch's (tqdm's
    # set_description appends ": ")
    assert (train.desc, train.n, train.total) == ("Epoch 1: ", 4, 4)
    assert (val.desc, val.n, val.total) == ("Validation", 4, 4)
