"""``ember.profiler``: where the time goes, with ``torch.profiler``'s API.

Every op is an event named like PyTorch's ``aten::`` ops (``ember::matmul``, ``ember::conv2d``), every backward node
one named after its class (``MulBackward0``), every module forward one named ``nn.Module: Linear_0``; they nest under
the ``record_function`` ranges the user opens. ``prof.key_averages().table(...)`` prints PyTorch's table and
``prof.export_chrome_trace(path)`` writes a trace for ``chrome://tracing`` or https://ui.perfetto.dev.

Nothing is wrapped while no profiler records (see :mod:`ember.core.observe`), so an idle profiler costs nothing.

Example::

    import ember as torch
    from ember.profiler import profile, record_function, ProfilerActivity

    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("model_inference"):
            model(inputs)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    prof.export_chrome_trace("trace.json")
"""
from .events import EventList, FunctionEvent, FunctionEventAvg, Interval
from .profiler import (ProfilerAction, ProfilerActivity, profile, schedule, supported_activities,
                       tensorboard_trace_handler)
from .record_function import record_function

__all__ = ["profile", "record_function", "schedule", "tensorboard_trace_handler", "ProfilerActivity",
           "ProfilerAction", "supported_activities", "EventList", "FunctionEvent", "FunctionEventAvg", "Interval"]
