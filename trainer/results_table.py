"""The table ``validate``/``test`` print: Lightning's plain-text layout (without ``rich``).

One column per dataloader, one row per metric (sorted, the ``/dataloader_idx_N`` suffix removed), columns as wide
as the longest name (at least 25, at most half the terminal), rules of box-drawing characters as wide as the
terminal, values in full precision.
"""
from __future__ import annotations

import os
import shutil
import sys
from typing import Any, Dict, List

__all__ = ["format_results", "print_results"]


def _bar_character() -> str:
    encoding = getattr(sys.stdout, "encoding", None)
    try:
        if encoding is not None:
            "─".encode(encoding)  # some terminals cannot show it
    except UnicodeEncodeError:
        return "-"
    return "─"


def format_results(results: List[Dict[str, Any]], stage: str, term_size: int) -> str:
    """The table for ``results`` (one dict per dataloader) as one string; empty when nothing was logged."""
    results = [{k.split("/dataloader_idx_")[0]: v for k, v in result.items()} for result in results]
    names = sorted({k for result in results for k in result})
    if not names:
        return ""
    headers = [f"DataLoader {i}" for i in range(len(results))]
    width = int(min(max(len(max(names, key=len)), len(max(headers, key=len)), 25), term_size / 2))
    rows = [[f"{_plain(result[name])}" if name in result else " " for result in results] for name in names]
    per_table = max(1, int((term_size - width) / width))  # the metric column, then as many loaders as fit
    bar = _bar_character() * term_size
    half = int(term_size / 2)
    lines: List[str] = []
    for start in range(0, len(headers), per_table):
        table_headers = [f"{stage} Metric".capitalize()] + headers[start:start + per_table]
        row_format = f"{{:^{width}}}" * len(table_headers)
        lines += [bar, row_format.format(*table_headers).rstrip(), bar]
        for name, row in zip(names, rows):
            cells = row[start:start + per_table]
            while len(name) > half:  # a name wider than half the terminal continues on the next line
                lines.append(row_format.format(name[:half], *cells).rstrip())
                name, cells = name[half:], [" "] * len(cells)
            lines.append(row_format.format(name, *cells).rstrip())
        lines.append(bar)
    return os.linesep.join(lines)


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def print_results(results: List[Dict[str, Any]], stage: str) -> None:
    """Print the results table of ``stage`` (``"validate"`` or ``"test"``) at the terminal's width."""
    text = format_results(results, stage, shutil.get_terminal_size(fallback=(120, 30)).columns or 120)
    if text:
        print(text)
