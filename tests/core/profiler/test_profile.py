"""ember.profiler: events for ops, backward nodes, module forwards and record_function ranges, nested correctly."""
import json
import warnings

import pytest

import ember as em
from ember.core.nn.modules import module as module_mod
from ember.profiler import ProfilerActivity, profile, record_function


def _chain(event):
    names = []
    while event is not None:
        names.append(event.name)
        event = event.cpu_parent
    return names


def _by_name(events, name):
    return [e for e in events if e.name == name]


def test_ops_nodes_modules_and_ranges_nest_as_they_ran():
    lin = em.nn.Linear(3, 2)
    x = em.randn(4, 3, requires_grad=True)
    with profile() as prof:
        with record_function("forward_pass"):
            y = (lin(x) * 2).sum()
        with record_function("backward_pass"):
            y.backward()
    events = prof.events()
    (linear,) = _by_name(events, "ember::linear")
    assert _chain(linear) == ["ember::linear", "nn.Module: Linear_0", "forward_pass"]
    assert _chain(_by_name(events, "ember::mul")[0]) == ["ember::mul", "forward_pass"]
    for node in ("SumBackward0", "MulBackward0", "AddmmBackward0"):
        (event,) = _by_name(events, node)
        assert event.cpu_parent.name == "backward_pass" or event.cpu_parent.cpu_parent.name == "backward_pass"
    assert [e.name for e in events if e.cpu_parent is None] == ["forward_pass", "backward_pass"]


def test_every_child_interval_lies_inside_its_parent_and_self_times_add_up():
    model = em.nn.Sequential(em.nn.Linear(8, 16), em.nn.ReLU(), em.nn.Linear(16, 4))
    x = em.randn(32, 8)
    with profile() as prof:
        for _ in range(3):
            with record_function("step"):
                model(x).sum().backward()
    events = prof.events()
    assert len(events) > 20
    for event in events:
        for child in event.cpu_children:
            assert event.time_range.start <= child.time_range.start <= child.time_range.end <= event.time_range.end
            assert child.cpu_parent is event
        assert event.self_cpu_time_total >= 0
    top = [e for e in events if e.cpu_parent is None]
    assert [e.name for e in top] == ["step"] * 3
    total_self = sum(e.self_cpu_time_total for e in events)
    assert total_self == pytest.approx(sum(e.cpu_time_total for e in top), rel=1e-9)
    averages = prof.key_averages()
    assert averages.self_cpu_time_total == pytest.approx(total_self, rel=1e-9)
    counts = {a.key: a.count for a in averages}
    assert counts["step"] == 3 and counts["nn.Module: Sequential_0"] == 3 and counts["nn.Module: Linear_0"] == 3
    assert counts["ember::linear"] == 6 and counts["ember::relu"] == 3 and counts["ReluBackward0"] == 3


def test_record_function_as_decorator_and_outside_a_profile():
    @record_function("helper")
    def helper(t):
        return t + 1

    helper(em.ones(2))  # no profiler: nothing to record, and no error
    with profile() as prof:
        helper(em.ones(2))
        helper(em.ones(2))
    helpers = _by_name(prof.events(), "helper")
    assert len(helpers) == 2
    assert all([c.name for c in h.cpu_children] == ["ember::add"] for h in helpers)
    with pytest.raises(TypeError, match="name must be a str"):
        record_function(3)


def test_idle_profiler_leaves_nothing_installed():
    add, linear = em.Tensor.__add__, em.nn.functional.linear
    with profile():
        assert em.Tensor.__add__ is not add
        assert module_mod._global_forward_pre_hooks and module_mod._global_forward_hooks
    assert em.Tensor.__add__ is add and em.nn.functional.linear is linear
    assert not module_mod._global_forward_pre_hooks and not module_mod._global_forward_hooks
    from ember.core.autograd import engine
    assert engine.NODE_OBSERVERS == []


def test_key_averages_table_has_pytorch_columns_and_footer():
    a, b = em.randn(10, 10), em.randn(10, 10)
    with profile() as prof:
        for _ in range(3):
            a @ b
        a + b
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=10)
    lines = table.splitlines()
    assert lines[0].strip().startswith("----") and lines[2] == lines[0] and lines[-2] == lines[0]
    assert lines[1].split() == ["Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
                                "CPU", "time", "avg", "#", "of", "Calls"]
    rows = {line.split()[0]: line.split() for line in lines[3:-2]}
    assert set(rows) == {"ember::matmul", "ember::add"}
    assert rows["ember::matmul"][-1] == "3" and rows["ember::add"][-1] == "1"
    total = prof.key_averages().self_cpu_time_total
    assert lines[-1] == f"Self CPU time total: {em.profiler.table.format_time(total)}"
    # widths as PyTorch: name column = longest name + 4, others 12, two spaces between
    assert len(lines[0]) == (len("ember::matmul") + 4) + 6 * (12 + 2) + 2
    with pytest.raises(ValueError, match="sort_by='cpu_time_totl'"):
        prof.key_averages().table(sort_by="cpu_time_totl")


def test_table_sorts_and_limits_rows():
    a = em.randn(50, 50)
    with profile() as prof:
        a.exp()
        a.exp()
        a.sum()
    by_count = prof.key_averages().table(sort_by="count", row_limit=1)
    body = by_count.splitlines()[3:-2]
    assert len(body) == 1 and body[0].split()[0] == "ember::exp"
    by_total = prof.key_averages().table(sort_by="cpu_time_total").splitlines()[3:-2]
    totals = [a.cpu_time_total for a in sorted(prof.key_averages(), key=lambda a: -a.cpu_time_total)]
    assert [line.split()[0] for line in by_total] == [
        a.key for a in sorted(prof.key_averages(), key=lambda a: -a.cpu_time_total)]
    assert totals == sorted(totals, reverse=True)


def test_group_by_input_shape_splits_rows_and_shows_shapes():
    with profile(record_shapes=True) as prof:
        em.randn(2, 3) + em.randn(2, 3)
        em.randn(4, 5) + em.randn(4, 5)
        em.randn(4, 5) + 1
    grouped = {(a.key, str(a.input_shapes)): a.count for a in prof.key_averages(group_by_input_shape=True)
               if a.key == "ember::add"}
    assert grouped == {("ember::add", "[[2, 3], [2, 3]]"): 1, ("ember::add", "[[4, 5], [4, 5]]"): 1,
                       ("ember::add", "[[4, 5], []]"): 1}
    table = prof.key_averages(group_by_input_shape=True).table()
    assert table.splitlines()[1].rstrip().endswith("Input Shapes")
    assert "[[4, 5], [4, 5]]" in table
    assert "Input Shapes" not in prof.key_averages().table()  # not grouped: no shapes, as PyTorch


def test_profile_memory_counts_the_bytes_each_op_created():
    a = em.ones(100, 100)  # float32: 40000 bytes per result
    with profile(profile_memory=True) as prof:
        em.zeros(1000, dtype=em.float64)
        b = a + a
        b.view(10000)
        b.add_(1)
    events = {e.name: e for e in prof.events()}
    assert events["ember::zeros"].self_cpu_memory_usage == 8000
    assert events["ember::add"].self_cpu_memory_usage == 40000
    assert events["ember::view"].self_cpu_memory_usage == 0   # a view allocates nothing
    assert events["ember::add_"].self_cpu_memory_usage == 0   # in place
    table = prof.key_averages().table(sort_by="self_cpu_memory_usage")
    header = table.splitlines()[1]
    assert "CPU Mem" in header and "Self CPU Mem" in header
    first = table.splitlines()[3].split()
    assert first[0] == "ember::add" and first[-5:-1] == ["39.06", "KB", "39.06", "KB"]


def test_memory_of_nested_ops_counts_once_and_includes_children():
    lin = em.nn.Linear(16, 8)
    x = em.randn(4, 16, requires_grad=True)
    with profile(profile_memory=True) as prof:
        with record_function("fwd"):
            y = lin(x).relu()
        y.sum().backward()
    events = prof.events()
    (fwd,) = _by_name(events, "fwd")
    assert fwd.self_cpu_memory_usage == 0
    assert fwd.cpu_memory_usage == 2 * 4 * 8 * 4  # linear's output and relu's output
    (relu_bw,) = _by_name(events, "ReluBackward0")
    assert relu_bw.self_cpu_memory_usage == 4 * 8 * 4
    for event in events:
        assert event.cpu_memory_usage == event.self_cpu_memory_usage + sum(
            c.cpu_memory_usage for c in event.cpu_children)


def test_export_chrome_trace_is_valid_and_nested(tmp_path):
    lin = em.nn.Linear(4, 4)
    with profile(record_shapes=True) as prof:
        with record_function("outer"):
            lin(em.randn(2, 4)).sum()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    doc = json.loads(path.read_text())
    spans = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(prof.events())
    for event in spans:
        assert {"ph", "ts", "dur", "name", "pid", "tid"} <= set(event)
        assert isinstance(event["ts"], (int, float)) and event["dur"] >= 0
    meta = [e for e in doc["traceEvents"] if e["ph"] == "M"]
    assert {e["name"] for e in meta} == {"process_name", "thread_name"}
    (outer,) = [e for e in spans if e["name"] == "outer"]
    (module,) = [e for e in spans if e["name"] == "nn.Module: Linear_0"]
    (linear,) = [e for e in spans if e["name"] == "ember::linear"]
    eps = 1e-3  # rounding to nanoseconds in the file

    def inside(child, parent):
        return parent["ts"] - eps <= child["ts"] and child["ts"] + child["dur"] <= parent["ts"] + parent["dur"] + eps
    assert inside(module, outer) and inside(linear, module)
    assert all(inside(e, outer) for e in spans if e is not outer)
    assert linear["args"]["Input Dims"] == [[2, 4], [4, 4], [4]]
    gz = tmp_path / "trace.json.gz"
    prof.export_chrome_trace(str(gz))
    import gzip
    assert json.loads(gzip.decompress(gz.read_bytes()))["traceEvents"] == doc["traceEvents"]


def test_cuda_activity_is_accepted_and_ignored_with_a_warning():
    with pytest.warns(UserWarning, match="CPU activity only.*ProfilerActivity.CUDA"):
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    with prof:
        em.ones(3).sum()
    assert [e.name for e in prof.events()] == ["ember::ones", "ember::sum"]
    with pytest.raises(TypeError, match="ProfilerActivity"):
        profile(activities=["cpu"])


def test_errors_name_the_problem():
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with profile():
                pass
    with pytest.raises(RuntimeError, match="no trace has been recorded"):
        profile().key_averages()


def test_with_stack_records_the_user_source_line():
    with profile(with_stack=True) as prof:
        em.ones(3).exp()  # the line the stack names
    (event,) = _by_name(prof.events(), "ember::exp")
    assert event.stack[0].endswith(f"test_profile.py({_line_of('em.ones(3).exp()  # the line')}): "
                                   "test_with_stack_records_the_user_source_line")
    grouped = prof.key_averages(group_by_stack_n=1)
    assert [a.stack for a in grouped if a.key == "ember::exp"] == [event.stack[:1]]
    assert "Source Location" in grouped.table()


def _line_of(text):
    with open(__file__) as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line and "_line_of" not in line)


def test_profile_start_stop_without_context_manager():
    prof = profile()
    prof.start()
    em.ones(2) * 3
    prof.stop()
    prof.stop()  # a second stop is harmless
    assert [e.name for e in prof.events()] == ["ember::ones", "ember::mul"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert em.ones(2).sum().item() == 2.0


def test_layers_show_their_ops_as_pytorch_names_them():
    net = em.nn.Sequential(em.nn.Conv2d(1, 2, 3), em.nn.ConvTranspose2d(2, 1, 3), em.nn.Conv1d(1, 1, 1, bias=False))
    x = em.randn(1, 1, 5, 5, requires_grad=True)
    with profile(record_shapes=True) as prof:
        y = net[1](net[0](x))
        net[2](y.view(1, 1, 25)).sum().backward()
    events = prof.events()
    (conv,) = _by_name(events, "ember::conv2d")
    assert conv.cpu_parent.name == "nn.Module: Conv2d_0"
    assert conv.input_shapes == [[1, 1, 5, 5], [2, 1, 3, 3], [2], [], [], [], []]  # _who is not an input
    assert _by_name(events, "ember::conv_transpose2d")[0].cpu_parent.name == "nn.Module: ConvTranspose2d_0"
    assert _by_name(events, "ember::conv1d")[0].cpu_parent.name == "nn.Module: Conv1d_0"
    assert {e.name for e in events if e.name.endswith("Backward0")} >= {"SumBackward0", "ViewBackward0"}
    with pytest.raises(RuntimeError, match=r"^Conv2d\(1, 2, kernel_size=\(3, 3\)"):  # errors still name the layer
        net[0](em.randn(1, 3, 5, 5))


def test_cuda_only_records_nothing_and_says_why():
    with pytest.warns(UserWarning, match="ignoring ProfilerActivity.CUDA"):
        prof = profile(activities=[ProfilerActivity.CUDA])
    with prof:
        em.ones(3).sum()
    assert list(prof.events()) == [] and prof.key_averages().table() == ""


def test_table_options_and_trace_metadata(tmp_path):
    lin = em.nn.Linear(2, 2)
    with profile() as prof:
        with record_function("outer"):
            lin(em.ones(1, 2))
    averages = prof.key_averages()
    top = averages.table(top_level_events_only=True, time_unit="us", header="MY HEADER").splitlines()
    assert top[1] == "MY HEADER" and top[3] == "This report only display top-level ops statistics"
    rows = top[7:-2]
    assert [r.split()[0] for r in rows] == ["outer"]
    cells = rows[0].split()
    assert all(cells[i].endswith("us") for i in (2, 4, 5))  # Self CPU, CPU total, CPU time avg
    with pytest.raises(ValueError, match="time_unit='min'"):
        averages.table(time_unit="min")
    prof.add_metadata("Framework", "ember")
    prof.add_metadata_json("config", '{"lr": 0.1}')
    prof.export_chrome_trace(str(tmp_path / "t.json"))
    doc = json.loads((tmp_path / "t.json").read_text())
    assert doc["Framework"] == "ember" and doc["config"] == {"lr": 0.1}
    with pytest.warns(UserWarning, match="with_flops=True is ignored"):
        profile(with_flops=True)
