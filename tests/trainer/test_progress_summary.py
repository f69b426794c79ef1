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
    (handler,) = logging.getLogger("ember.trainer").handlers  # the StreamHandler ember installs: stderr
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
    """Every state the screen showed, in order (tqdm redraws a line after a carriage return)."""
    import re
    return [d for d in re.split(r"[\r\n]", re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)) if d.strip()]


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
