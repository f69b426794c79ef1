"""What a person sees in a real terminal: ``trainer fit`` run inside tmux (a pseudo-terminal with a fixed size),
its screen captured while it trains and when it has finished."""
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

import ember as em

ROOT = os.path.dirname(os.path.abspath(em.__file__))
TMUX = shutil.which("tmux")

pytestmark = [pytest.mark.slow, pytest.mark.skipif(TMUX is None, reason="needs tmux for a real pseudo-terminal")]

EPOCH_LINE = re.compile(r"^Epoch (\d+): +(\d+)%\|.*\| (\d+)/(\d+) \[")  # the postfix may be cut at the edge


def _tmux(socket, *args):
    return subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True, check=False)


def run_in_terminal(tmp_path, columns, *argv):
    """Run ``trainer`` with ``argv`` in a ``columns`` x 50 tmux window; return (captures taken while it ran, the
    final screen)."""
    socket = f"ember-test-{os.getpid()}-{columns}"
    script = tmp_path / "run.sh"
    env = {"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "PATH": os.environ["PATH"], "TERM": "xterm-256color",
           "HOME": str(tmp_path), "LANG": "C.UTF-8"}  # the tmux server's environment is not pytest's
    exports = "".join(f"export {k}='{v}'\n" for k, v in env.items())
    command = " ".join([sys.executable, "-m", "ember", *argv])
    # COLUMNS/LINES can reach the pane from the process that started the tmux server (they do under pytest) and
    # would pin the size Python reads; a person's terminal reports its real size
    script.write_text(f"#!/bin/sh\nunset COLUMNS LINES\n{exports}cd '{ROOT}'\n{command}\necho EXIT-CODE-$?\n")
    script.chmod(0o755)
    _tmux(socket, "new-session", "-d", "-s", "t", "-x", str(columns), "-y", "50", str(script))
    _tmux(socket, "set-option", "-t", "t", "remain-on-exit", "on")
    captures, deadline = [], time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            screen = _tmux(socket, "capture-pane", "-p", "-t", "t").stdout
            if "EXIT-CODE-" in screen:
                return captures, screen
            captures.append(screen)
            time.sleep(0.02)  # pace the captures: a busy loop would slow the run it watches
        raise AssertionError("trainer fit did not finish within 240 s:\n" + (captures[-1] if captures else ""))
    finally:
        _tmux(socket, "kill-server")


@pytest.mark.parametrize("columns", [80, 200])
def test_trainer_fit_in_a_terminal_shows_live_metrics_and_a_clean_final_screen(tmp_path, columns):
    captures, final = run_in_terminal(
        tmp_path, columns, "fit", "examples/digits/config.yaml", "--trainer.max_epochs", "2",
        "--data.init_args.batch_size", "8", "--trainer.default_root_dir", str(tmp_path / "runs"))
    assert "EXIT-CODE-0" in final, final
    # mid-run: a bar part-way through an epoch already shows the training loss (the postfix is live)
    live = [line for screen in captures for line in screen.splitlines()
            if EPOCH_LINE.match(line) and int(EPOCH_LINE.match(line).group(2)) < 100 and "train_loss=" in line]
    assert live, "no capture showed the loss during an epoch:\n" + (captures[len(captures) // 2] if captures else "")
    lines = final.splitlines()
    epochs = [EPOCH_LINE.match(line) for line in lines if line.startswith("Epoch ")]
    # one finished line per epoch, each once, none broken or duplicated; the transient bars are gone
    assert [m.group(1) for m in epochs if m] == ["0", "1"], final
    assert all(m.group(2) == "100" and m.group(3) == m.group(4) for m in epochs), final
    assert sum(line.startswith("Epoch ") for line in lines) == 2
    if columns >= 200:  # the whole postfix fits: the last epoch line ends with the validation accuracy
        assert re.search(r"train_loss=[0-9.e+-]+, val_loss=[0-9.e+-]+, val_acc=[0-9.]+\]$", lines[
            [i for i, line in enumerate(lines) if line.startswith("Epoch 1:")][0]]), final
    assert "Validation" not in final and "Sanity Checking" not in final
    # the results table is whole: a rule, the header, a rule, the two metrics, a rule, each on its own line
    top = [i for i, line in enumerate(lines) if "Test metric" in line]
    assert len(top) == 1, final
    i = top[0]
    rule = "─" * columns  # Lightning's rules: box-drawing characters as wide as the terminal
    assert lines[i - 1] == rule and lines[i + 1] == rule and lines[i + 4] == rule, final
    assert re.fullmatch(r" +test_acc +0\.\d+", lines[i + 2]) and re.fullmatch(r" +test_loss +\d\.\d+", lines[i + 3])
