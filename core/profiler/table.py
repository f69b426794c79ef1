"""PyTorch's profiler table: the same columns, widths, units and footer, so a printed ember profile reads like one
from ``torch.profiler``.
"""
from __future__ import annotations

__all__ = ["build_table", "format_time", "format_memory"]

_COLUMN_WIDTH = 12
_SPACING = 2


def format_time(time_us: float, unit=None) -> str:
    """``1234.5`` -> ``"1.234ms"``: seconds, milliseconds or microseconds with 3 decimals (or the unit given)."""
    if unit == "s" or (unit is None and time_us >= 1e6):
        return f"{time_us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and time_us >= 1e3):
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def format_memory(nbytes: int) -> str:
    """``2048`` -> ``"2.00 KB"``, in powers of 1024 as PyTorch prints them."""
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(nbytes) >= size:
            return f"{nbytes / size:.2f} {unit}"
    return f"{nbytes} B"


def _share(part: float, total: float) -> str:
    return "NaN" if total == 0 else f"{part * 100.0 / total:.2f}%"


def build_table(events, sort_by=None, row_limit=100, header=None, max_name_column_width=55,
                max_shapes_column_width=80, max_src_column_width=75, profile_memory=False,
                top_level_events_only=False, time_unit=None) -> str:
    """Format ``events`` (FunctionEvent or FunctionEventAvg) as rows under a header, with the self-time footer."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda event: getattr(event, sort_by.replace("cuda", "device")), reverse=True)
    has_shapes = any(len(event.input_shapes) > 0 for event in events)
    stacks = [event.stack for event in events if event.stack]

    name_width = max(len(event.key) for event in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
    headers.append("# of Calls")
    widths = [name_width] + [_COLUMN_WIDTH] * (len(headers) - 1)
    aligns = [">"] * len(headers)
    if has_shapes:
        shapes_width = max(len(str(event.input_shapes)) for event in events) + 4
        if max_shapes_column_width is not None:
            shapes_width = min(shapes_width, max_shapes_column_width)
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        src_width = max(len(entry) for stack in stacks for entry in stack) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    row_format = "".join("{: " + align + str(width) + "}" + " " * _SPACING for align, width in zip(aligns, widths))
    separator = "".join("-" * width + " " * _SPACING for width in widths)
    line_length = sum(widths) + _SPACING * (len(widths) - 1)

    total_self = sum(event.self_cpu_time_total for event in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    shown = 0
    for event in events:
        if shown == row_limit:
            break
        if top_level_events_only and event.cpu_parent is not None:
            continue
        shown += 1
        name = event.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _share(event.self_cpu_time_total, total_self), format_time(event.self_cpu_time_total, time_unit),
               _share(event.cpu_time_total, total_self), format_time(event.cpu_time_total, time_unit),
               format_time(event.cpu_time, time_unit)]
        if profile_memory:
            row += [format_memory(event.cpu_memory_usage), format_memory(event.self_cpu_memory_usage)]
        row.append(event.count)
        if has_shapes:
            row.append(str(event.input_shapes)[:shapes_width])
        if stacks:
            row.append(_trim_path(event.stack[0], src_width) if event.stack else "")
        lines.append(row_format.format(*row))
        if stacks:
            blanks = [""] * (len(headers) - 1)
            for entry in event.stack[1:]:
                lines.append(row_format.format(*blanks, _trim_path(entry, src_width)))
            lines.append(row_format.format(*blanks, ""))
    lines.append(separator)
    lines.append(f"Self CPU time total: {format_time(total_self, time_unit)}")
    return "\n".join(lines) + "\n"


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path
