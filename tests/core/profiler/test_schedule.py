"""profile(schedule=...): PyTorch's phases, ProfilerStep#N ranges, on_trace_ready and tensorboard_trace_handler."""
import json
import os
import re
import socket

import pytest

import ember as em
from ember.profiler import ProfilerAction, profile, schedule, tensorboard_trace_handler

N, W, R, S = ProfilerAction.NONE, ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE


def test_schedule_phases_follow_pytorch():
    fn = schedule(wait=1, warmup=1, active=2, repeat=2, skip_first=1)
    assert [fn(step) for step in range(11)] == [N, N, W, R, S, N, W, R, S, N, N]
    forever = schedule(wait=0, warmup=1, active=1)
    assert [forever(step) for step in range(6)] == [W, S, W, S, W, S]
    skip_wait = schedule(wait=2, warmup=1, active=1, skip_first_wait=1)
    assert [skip_wait(step) for step in range(6)] == [W, S, N, N, W, S]
    with pytest.warns(UserWarning, match="won't be using warmup"):
        no_warmup = schedule(wait=1, warmup=0, active=1)
    assert [no_warmup(step) for step in range(4)] == [N, S, N, S]
    with pytest.raises(ValueError, match=r"schedule\(active=0\): expected an int >= 1"):
        schedule(wait=1, warmup=1, active=0)
    with pytest.raises(ValueError, match=r"schedule\(wait=-1\)"):
        schedule(wait=-1, warmup=1, active=1)


def test_profile_records_only_active_steps_and_hands_over_each_cycle():
    ready = []

    def on_trace_ready(prof):
        ready.append({a.key: a.count for a in prof.key_averages()})

    x = em.ones(3)
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2), on_trace_ready=on_trace_ready) as prof:
        for step in range(10):
            for _ in range(step + 1):  # step k runs k+1 exps: the counts tell which steps were recorded
                x.exp()
            prof.step()
    assert ready == [{"ProfilerStep*": 2, "ember::exp": 3 + 4},     # steps 2 and 3
                     {"ProfilerStep*": 2, "ember::exp": 7 + 8}]     # steps 6 and 7
    names = [e.trace_name for e in prof.events() if e.name == "ProfilerStep*"]
    assert names == ["ProfilerStep#6", "ProfilerStep#7"]
    for event in prof.events():
        if event.name == "ember::exp":
            assert event.cpu_parent.name == "ProfilerStep*"


def test_stop_in_the_middle_of_an_active_cycle_hands_over_what_was_recorded():
    ready = []
    x = em.ones(3)
    with profile(schedule=schedule(wait=0, warmup=1, active=3), on_trace_ready=ready.append) as prof:
        for _ in range(3):
            x.exp()
            prof.step()
    assert ready == [prof]
    assert [a.count for a in prof.key_averages() if a.key == "ember::exp"] == [2]  # steps 1 and 2


def test_tensorboard_trace_handler_writes_named_chrome_traces(tmp_path):
    target = tmp_path / "tb"
    with profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2),
                 on_trace_ready=tensorboard_trace_handler(str(target))) as prof:
        for _ in range(4):
            em.ones(2).sum()
            prof.step()
    files = sorted(os.listdir(target))
    assert len(files) == 2
    worker = re.escape(f"{socket.gethostname()}_{os.getpid()}")
    assert all(re.fullmatch(worker + r"\.\d+\.pt\.trace\.json", f) for f in files)
    doc = json.loads((target / files[0]).read_text())
    assert {e["name"] for e in doc["traceEvents"] if e["ph"] == "X"} == {"ProfilerStep#1", "ember::ones", "ember::sum"}
    with profile(on_trace_ready=tensorboard_trace_handler(str(target), worker_name="w0", use_gzip=True)):
        em.ones(2)
    assert len([f for f in os.listdir(target) if re.fullmatch(r"w0\.\d+\.pt\.trace\.json\.gz", f)]) == 1
