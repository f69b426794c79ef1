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
    assert "4/4" in epoch_line and "it/s" in epoch_line and "v_num=0" in epoch_line and "acc=0.5" in epoch_line


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
    text = str(table)
    lines = text.splitlines()
    assert lines[0].split("|")[1:] == [" Name    ", " Type       ", " Params ", " Mode  ", " In sizes ", " Out sizes"]
    assert "0 | encoder | Sequential | 144    | train | [5, 8]   | [5, 16]  " == lines[2]
    assert "1 | head    | Linear     | 34     | train | [5, 16]  | [5, 2]   " == lines[3]
    assert table.trainable_parameters == 144 + 34 and table.total_parameters == 144 + 34 + 6
    assert lines[-4:] == ["178       Trainable params", "6         Non-trainable params", "184       Total params",
                          "0.001     Total estimated model params size (MB)"]
    assert len(ModelSummaryTable(Net(), max_depth=-1).layers) == 5


def test_model_summary_callback_prints_at_fit_start(capsys):
    class Model(Classifier):
        pass

    quiet_trainer(max_epochs=1, limit_train_batches=1, callbacks=[ModelSummary(max_depth=1)]).fit(
        Model(), DataLoader(make_dataset(8), batch_size=4))
    out = capsys.readouterr().out
    assert "| layer | Linear | 10     | train" in out and "10        Total params" in out


@pytest.mark.parametrize("n,text", [(0, "0  "), (999, "999  "), (7850, "7.9 K"), (123_456, "123 K"),
                                    (1_200_000, "1.2 M"), (3_000_000_000, "3.0 B")])
def test_human_readable_counts(n, text):
    assert get_human_readable_count(n) == text
