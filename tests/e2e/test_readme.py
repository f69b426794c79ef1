"""The README says what works: its quick start is what CI runs, its code runs, its error messages are real."""
import os
import re

import ember as em
from ember.trainer.cli import main

ROOT = os.path.dirname(os.path.abspath(em.__file__))


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def section(text, title):
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def code_blocks(text, lang):
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_quick_start_is_three_commands_and_ci_runs_them():
    (block,) = code_blocks(section(read("README.md"), "Quick start"), "bash")
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ['pip install -e ".[dev]"', "trainer fit examples/digits/config.yaml", "pytest"]
    ci = [line.strip() for line in read(".ci", "run").splitlines()]
    assert 'pip install -e ".[dev]"' in ci and "pytest" in ci
    assert '(cd "$scratch" && trainer fit examples/digits/config.yaml)' in ci
    assert ci.index("pytest") > ci.index('pip install -e ".[dev]"')


def test_python_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    blocks = code_blocks(section(read("README.md"), "A short example"), "python")
    assert len(blocks) == 2
    for block in blocks:
        source = block.replace("trainer = em.Trainer(max_epochs=5)",
                               "trainer = em.Trainer(max_epochs=5, enable_progress_bar=False, logger=False, "
                               "enable_checkpointing=False)")
        namespace = {}
        exec(compile(source, "README.md", "exec"), namespace)  # noqa: S102 - our own README
    assert namespace["trainer"].global_step == 40  # 256 samples / 32 per batch x 5 epochs
    capsys.readouterr()


def test_readme_error_messages_are_the_real_ones(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    shown = [line.strip()[len("error: "):] for line in section(read("README.md"), "The `trainer` command").splitlines()
             if line.strip().startswith("error: ")]
    assert len(shown) == 5
    original = read("examples", "digits", "config.yaml")
    (tmp_path / "model.py").write_text(read("examples", "digits", "model.py"))
    edits = [("  max_epochs: 12", "  max_epoch: 12"), ("  max_epochs: 12", "  max_epochs: ten"),
             ("        monitor: val_acc\n        mode: max\n        patience: 4", "        mode: max\n        patience: 4"),
             ("model.DigitsClassifier", "model.DigitClassifier"), ("    hidden: 64", "    hidden: 64: 3")]
    for (old, new), expected in zip(edits, shown):
        assert old in original
        (tmp_path / "config.yaml").write_text(original.replace(old, new))
        assert main(["fit", "config.yaml"]) == 2
        assert capsys.readouterr().err == f"error: {expected}\n"


def test_examples_readme_lists_every_example():
    text = read("examples", "README.md")
    examples = sorted(d for d in os.listdir(os.path.join(ROOT, "examples"))
                      if os.path.isfile(os.path.join(ROOT, "examples", d, "config.yaml")))
    assert examples == ["autoencoder", "char_transformer", "digits", "distillation", "gan"]
    for name in examples:
        assert f"## {name}" in text, name
        assert os.path.isfile(os.path.join(ROOT, "examples", name, "model.py"))
    assert "CC BY 4.0" in read("examples", "digits", "data", "README.md")
    assert "Alpaydin" in read("examples", "digits", "data", "README.md")


def test_inline_commands_name_files_that_exist():
    """The README's inline commands that are not placeholders name real scripts and examples."""
    text = read("README.md") + read("examples", "README.md")
    scripts = set(re.findall(r"`python (benchmarks/\w+\.py)`", text))
    configs = set(re.findall(r"(examples/\w+/config\.yaml)", text))
    assert scripts >= {"benchmarks/core_ops.py", "benchmarks/cli.py"}
    for path in scripts | configs:
        assert os.path.isfile(os.path.join(ROOT, path)), path


def test_inline_overrides_and_help_commands_work(capsys, monkeypatch):
    """The overrides the READMEs show inline are accepted (checked with --print_config, which runs nothing)."""
    monkeypatch.chdir(ROOT)
    readme = read("README.md")
    assert "`--trainer.max_epochs 3`, `--data.batch_size 64`" in read("examples", "README.md")
    for name in ("autoencoder", "char_transformer", "digits", "distillation", "gan"):
        assert main(["fit", f"examples/{name}/config.yaml", "--trainer.max_epochs", "3", "--data.batch_size", "64",
                     "--print_config"]) == 0, capsys.readouterr().err
    overrides = ["--trainer.max_epochs=3", "--model.init_args.channels", "8", "--model.channels", "8",
                 "--trainer.callbacks.1.init_args.patience", "2", "--optimizer", "SGD", "--optimizer.lr", "0.1"]
    for option in ("`--trainer.max_epochs=3`", "`--model.init_args.channels 8`", "`--model.channels 8`",
                   "`--trainer.callbacks.1.init_args.patience 2`", "`--optimizer SGD --optimizer.lr 0.1`"):
        assert option in readme, option
    assert main(["fit", "examples/digits/config.yaml", *overrides, "--print_config"]) == 0, capsys.readouterr().err
    assert "`trainer fit examples/digits/config.yaml --model.help DigitsClassifier`" in readme
    assert main(["fit", "examples/digits/config.yaml", "--model.help", "DigitsClassifier"]) == 0
    assert main(["fit", "--trainer.callbacks.help", "EarlyStopping"]) == 0
    out = capsys.readouterr().out
    assert "--model.init_args.channels  (int; default: 16)" in out and "--trainer.callbacks.init_args.patience" in out
