"""The CLI's building blocks: YAML loading with line numbers, merging, type checks from hints, docstring help."""
import os
import typing
from datetime import timedelta
from typing import Dict, List, Literal, Optional, Tuple, Union

import pytest

from ember.trainer.cli.args import parse_argv
from ember.trainer.cli.config_files import dump_config, load_file, merge_into, origin_of, parse_value, set_path
from ember.trainer.cli.errors import ConfigError, UsageError
from ember.trainer.cli.signature import REQUIRED, class_params, param_docs
from ember.trainer.cli.typecheck import TypeMismatch, check, describe


# ------------------------------------------------------------------------------------------------ YAML files
def test_load_file_records_the_line_of_every_key(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("# comment\ntrainer:\n  max_epochs: 3\n  callbacks:\n    - class_path: A\n    - B\nmodel: {lr: 1e-3}\n")
    data, origins = load_file(str(path), "c.yaml")
    assert data == {"trainer": {"max_epochs": 3, "callbacks": [{"class_path": "A"}, "B"]}, "model": {"lr": 0.001}}
    assert origins[("trainer",)] == "c.yaml:2"
    assert origins[("trainer", "max_epochs")] == "c.yaml:3"
    assert origins[("trainer", "callbacks", 0)] == "c.yaml:5"
    assert origins[("trainer", "callbacks", 1)] == "c.yaml:6"
    assert origins[("model", "lr")] == "c.yaml:7"
    assert origin_of(origins, ("trainer", "callbacks", 1, "init_args", "x")) == "c.yaml:6"  # nearest parent
    assert origin_of(origins, ("data",)) is None


def test_floats_without_a_dot_are_floats():
    # YAML 1.1 (PyYAML) reads 1e-3 as a string; configs mean a number
    assert parse_value("1e-3") == 0.001 and parse_value("-2E+2") == -200.0 and parse_value("3.5e2") == 350.0
    assert parse_value("3") == 3 and parse_value("true") is True and parse_value("null") is None
    assert parse_value("[1, a]") == [1, "a"] and parse_value("{a: 1}") == {"a": 1}
    assert parse_value("model.Net") == "model.Net" and parse_value("a: b: c") == "a: b: c" and parse_value("") == ""


def test_empty_file_is_refused_naming_it(tmp_path):  # issue 18: an empty config is a mistake, said in one line
    (tmp_path / "e.yaml").write_text("# nothing\n")
    with pytest.raises(ConfigError, match=r"e\.yaml:1: the config file is empty"):
        load_file(str(tmp_path / "e.yaml"))


def test_merge_replaces_lists_and_changed_classes_and_keeps_origins():
    base = {"trainer": {"max_epochs": 1, "callbacks": [1, 2]}, "model": {"class_path": "A", "init_args": {"x": 1}}}
    origins = {("trainer", "max_epochs"): "a:2", ("trainer", "callbacks"): "a:3", ("model", "init_args", "x"): "a:5"}
    new = {"trainer": {"callbacks": [3]}, "model": {"class_path": "B", "init_args": {"y": 2}}}
    merge_into(base, origins, new, {("trainer", "callbacks"): "b:2", ("model", "init_args", "y"): "b:4"})
    assert base == {"trainer": {"max_epochs": 1, "callbacks": [3]}, "model": {"class_path": "B", "init_args": {"y": 2}}}
    assert origins[("trainer", "max_epochs")] == "a:2" and origins[("trainer", "callbacks")] == "b:2"
    assert ("model", "init_args", "x") not in origins
    merge_into(base, origins, {"model": {"init_args": {"z": 3}}}, {})
    assert base["model"] == {"class_path": "B", "init_args": {"y": 2, "z": 3}}


def test_set_path_creates_sections_and_expands_class_names():
    config, origins = {"model": "m.Net", "trainer": {"callbacks": [{"class_path": "A"}]}}, {}
    set_path(config, origins, ("model", "init_args", "lr"), 0.1, "command line")
    assert config["model"] == {"class_path": "m.Net", "init_args": {"lr": 0.1}}
    set_path(config, origins, ("trainer", "callbacks", "0", "init_args", "p"), 2, "command line")
    assert config["trainer"]["callbacks"] == [{"class_path": "A", "init_args": {"p": 2}}]
    set_path(config, origins, ("data", "batch_size"), 4, "command line")
    assert config["data"] == {"batch_size": 4} and origins[("data", "batch_size")] == "command line"


def test_dump_config_round_trips_through_the_loader(tmp_path):
    config = {"seed_everything": 3, "trainer": {"max_time": timedelta(hours=1, seconds=5), "devices": (1, 2)},
              "ckpt_path": None}
    text = dump_config(config, header="ember==x")
    assert text.splitlines()[0] == "# ember==x"
    (tmp_path / "d.yaml").write_text(text)
    data, _ = load_file(str(tmp_path / "d.yaml"))
    assert data == {"seed_everything": 3, "trainer": {"max_time": "00:01:00:05", "devices": [1, 2]}, "ckpt_path": None}
    assert check("00:01:00:05", timedelta) == timedelta(hours=1, seconds=5)


# ------------------------------------------------------------------------------------------------- types
def test_check_scalars_and_numeric_tower():
    assert check(3, int) == 3
    with pytest.raises(TypeMismatch, match=r"^expected int, got 3.0$"):
        check(3.0, int)
    with pytest.raises(TypeMismatch, match=r"^expected int, got true$"):
        check(True, int)
    assert check(3, float) == 3.0 and isinstance(check(3, float), float)
    assert check("1e-3", float) == 0.001
    with pytest.raises(TypeMismatch, match=r"^expected bool, got 1$"):
        check(1, bool)
    with pytest.raises(TypeMismatch, match=r"^expected str, got 5$"):
        check(5, str)
    assert check(None, Optional[int]) is None
    assert check(5, typing.Any) == 5 and check([1], object) == [1]


def test_check_unions_prefer_the_exact_type():
    assert type(check(1, Union[int, float, None])) is int      # limit_train_batches=1 is one batch, not 100%
    assert type(check(1, Union[float, int])) is int
    assert type(check(0.5, Union[int, float])) is float
    assert type(check(1, Optional[float])) is float
    with pytest.raises(TypeMismatch, match=r"^expected int, float or null, got 'x'$"):
        check("x", Optional[Union[int, float]])


def test_check_containers_literal_and_duration():
    assert check([1, 2], List[float]) == [1.0, 2.0]
    assert check([1, 2], Tuple[float, float]) == (1.0, 2.0)
    assert check([1, 2, 3], Tuple[int, ...]) == (1, 2, 3)
    with pytest.raises(TypeMismatch, match=r"^expected list of int, got a list \[1, 'a'\] \(the item 'a' is not int\)$"):
        check([1, "a"], List[int])
    with pytest.raises(TypeMismatch, match=r"^expected a list of 2 \(int, int\), got a list \[1\]$"):
        check([1], Tuple[int, int])
    assert check({"a": 1}, Dict[str, float]) == {"a": 1.0}
    assert check("max", Literal["min", "max"]) == "max"
    with pytest.raises(TypeMismatch, match=r"^expected one of 'min', 'max', got 'mx'$"):
        check("mx", Literal["min", "max"])
    assert check({"minutes": 2}, timedelta) == timedelta(minutes=2)
    assert check("01:02:03:04", timedelta) == timedelta(days=1, hours=2, minutes=3, seconds=4)
    assert check("logs", os.PathLike) == "logs"


def test_check_class_values_go_through_the_resolver():
    class Base:
        pass

    seen = []
    resolver = lambda value, base: seen.append((value, base)) or "spec"  # noqa: E731
    assert check({"class_path": "x.Y"}, Optional[Base], resolver) == "spec"
    assert check("Y", Base, resolver) == "spec"
    assert seen == [({"class_path": "x.Y"}, Base), ("Y", Base)]
    with pytest.raises(TypeMismatch, match=r"^expected Base \(class_path/init_args\), got 3$"):
        check(3, Base, resolver)


def test_describe():
    assert describe(Optional[int]) == "int or null"
    assert describe(Union[int, str, List[int]]) == "int, str or list of int"
    assert describe(Dict[str, int]) == "mapping of str to int"
    assert describe(typing.Any) == "any value"


# --------------------------------------------------------------------------------------------- signatures
class GoogleStyle:
    """A class.

    Args:
        width (int): the width of the
            layer, in units.
        depth: how many layers.
    """

    def __init__(self, width: int, depth: "int" = 2, *, act: Optional[str] = None):
        pass


class NumpyStyle:
    def __init__(self, alpha: float = 0.5, beta=1):
        """Numpy style.

        Parameters
        ----------
        alpha : float
            the first
            parameter.
        beta : int
            the second.
        """


class SphinxStyle:
    def __init__(self, gamma=3):
        """:param gamma: the third
            parameter.
        """


class Forwarding(GoogleStyle):
    def __init__(self, extra: bool = False, **kwargs):
        super().__init__(**kwargs)


class Swallowing(GoogleStyle):
    def __init__(self, extra: bool = False, **kwargs):
        super().__init__(width=3)
        self.options = kwargs


def test_class_params_types_defaults_and_docs():
    params, open_ended = class_params(GoogleStyle)
    assert list(params) == ["width", "depth", "act"] and not open_ended
    assert params["width"].default is REQUIRED and params["width"].annotation is int
    assert params["depth"].annotation is int and params["depth"].default == 2
    assert params["act"].annotation == Optional[str]
    assert params["width"].doc == "the width of the layer, in units."
    assert params["depth"].doc == "how many layers."
    assert param_docs(NumpyStyle) == {"alpha": "the first parameter.", "beta": "the second."}
    assert param_docs(SphinxStyle) == {"gamma": "the third parameter."}


def test_kwargs_forwarded_to_super_add_the_base_parameters():
    params, open_ended = class_params(Forwarding)
    assert list(params) == ["extra", "width", "depth", "act"] and not open_ended
    params, open_ended = class_params(Swallowing)
    assert list(params) == ["extra"] and open_ended


# ---------------------------------------------------------------------------------------------- argv
def test_parse_argv_order_and_forms(tmp_path):
    parsed = parse_argv(["--config", "a.yaml", "fit", "b.yml", "--trainer.max_epochs=3", "--model.lr", "1e-3",
                         "--trainer", "t.yaml", "--print_config", "--overwrite", "--debug"])
    assert parsed.subcommand == "fit"
    assert parsed.sources == [("file", "a.yaml"), ("file", "b.yml"), ("set", ("trainer", "max_epochs"), 3),
                              ("set", ("model", "lr"), 0.001), ("group_file", "trainer", "t.yaml")]
    assert parsed.print_config and parsed.overwrite and parsed.debug and not parsed.help
    assert parse_argv(["fit", "--trainer.max_epochs", "-1"]).sources == [("set", ("trainer", "max_epochs"), -1)]
    with pytest.raises(UsageError, match=r"malformed option '--trainer..x'"):
        parse_argv(["fit", "--trainer..x", "1"])
    with pytest.raises(UsageError, match=r"unexpected argument 'extra'"):
        parse_argv(["fit", "extra"])
    with pytest.raises(ConfigError):
        raise ConfigError("x")
