"""Speed on ordinary replies: clean and fenced, at 2 KB, 20 KB and 200 KB.

What it measures
    For the document of ``_data.py`` at about 2 KB, 20 KB and 200 KB (compact
    UTF-8 size) and two reply shapes, ``clean`` (the compact JSON text) and
    ``fenced`` (a sentence, a ```` ```json ```` fence holding the
    pretty-printed document, a sentence), it times ours
    (``extract_json(reply).value`` and ``JsonFenceOutputParser().parse``),
    langchain-core's ``JsonOutputParser().parse`` and ``json_repair``
    (optional), each checked against the document first. Under the table:
    linearity (our time at 200 KB over our time at 20 KB, about 10 when
    linear) and the first targets at 200 KB (clean within 1.5x of
    ``orjson.loads``, fenced within 2.5x). The method is in the README
    ("Benchmarks").

How to run
    python benchmarks/extraction.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Final

from _cases import (
    OURS,
    OURS_PARSER,
    Case,
    Row,
    Tool,
    extract_json_value,
    measure_case,
    peer_tools,
)
from _data import SHAPES, sized_documents
from _report import Section, run_sections, target_line

from langchain_jsonrecover import JsonFenceOutputParser

if TYPE_CHECKING:
    from collections.abc import Sequence

    from _timing import Budget


def extraction_tools() -> list[Tool]:
    """Ours (function and parser), langchain-core's parser, json_repair."""
    return [
        Tool(OURS, extract_json_value),
        Tool(OURS_PARSER, JsonFenceOutputParser().parse),
        *peer_tools(),
    ]


def extraction_rows(budget: Budget) -> list[Row]:
    """Clean and fenced replies at each size, every extraction tool."""
    tools = extraction_tools()
    rows: list[Row] = []
    for size, document, clean in sized_documents():
        for shape, render in SHAPES.items():
            case = Case(shape, size, render(document), clean, document)
            rows.append(measure_case(case, tools, budget))
    return rows


def linearity_lines(rows: Sequence[Row]) -> list[str]:
    """Our time at 200 KB over our time at 20 KB, per shape."""
    lines: list[str] = []
    for shape in SHAPES:
        by_size = {r.size: r for r in rows if r.shape == shape}
        small, large = by_size.get("20 KB"), by_size.get("200 KB")
        if small is None or large is None:
            continue
        parts = []
        for tool in (OURS, OURS_PARSER):
            growth = small.growth(large, tool)
            parts.append(f"{tool} -" if growth is None else f"{tool} {growth:.1f}")
        lines.append(
            f"Linearity, {shape}: time(200 KB) / time(20 KB) = {', '.join(parts)}"
            f" (reply bytes x{large.reply_bytes / small.reply_bytes:.1f};"
            f" orjson.loads x{large.baseline_seconds / small.baseline_seconds:.1f})"
        )
    return lines


TARGETS: Final = {"clean": 1.5, "fenced": 2.5}
"""The spec's first targets: at 200 KB, our ratio to ``orjson.loads`` on the clean document."""


def extraction_notes(rows: Sequence[Row]) -> list[str]:
    """Linearity and the targets, under the extraction table."""
    lines = linearity_lines(rows)
    for row in rows:
        limit = TARGETS.get(row.shape)
        if row.size == "200 KB" and limit is not None:
            label = f"{row.shape} 200 KB"
            lines.extend(target_line(label, row, t, limit) for t in (OURS, OURS_PARSER))
    return lines


SECTION: Final = Section(
    "Extraction (clean and fenced replies)",
    extraction_rows,
    extraction_notes,
    ours=(OURS, OURS_PARSER),
)


if __name__ == "__main__":
    sys.exit(run_sections([SECTION], script=__file__, doc=__doc__))
