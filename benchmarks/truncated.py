"""Speed on replies cut by the token limit: the compact document cut at 70 %.

What it measures
    The document of ``_data.py`` at about 2 KB, 20 KB and 200 KB, compact and
    cut at 70 % of its length, through ``TruncationRecoveringOutputParser``,
    pydantic-core's partial parser alone (``from_json(cut,
    allow_partial="trailing-strings")``: the closing semantics we follow, so
    the floor of our approach), langchain-core's ``JsonOutputParser`` (it
    parses partial JSON) and ``json_repair``; ratios to ``orjson.loads`` on
    the whole document before the cut. Each value is compared with
    pydantic-core's partial parse: "differs" marks another answer, which other
    tools may legitimately give. Target: ours within 3x at 200 KB. The method
    is in the README ("Benchmarks").

How to run
    python benchmarks/truncated.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Final

import pydantic_core
from _cases import (
    CORE,
    OURS_TRUNCATION,
    PEER,
    Case,
    Row,
    Tool,
    measure_case,
    peer_tools,
)
from _data import CUT_AT, make_document, size_bytes, sized_documents, truncated_reply
from _report import Section, run_sections, target_line

from langchain_jsonrecover import TruncationRecoveringOutputParser

if TYPE_CHECKING:
    from collections.abc import Sequence

    from _timing import Budget

PARTIAL_REFERENCE: Final = "pydantic-core partial"


def partial_reference(reply: str) -> Any:
    """Our closing semantics: pydantic-core's partial parse of the cut reply."""
    return pydantic_core.from_json(reply, allow_partial="trailing-strings")


def truncation_tools() -> list[Tool]:
    """Ours, pydantic-core's partial parser alone, langchain-core's, json_repair."""
    return [
        Tool(OURS_TRUNCATION, TruncationRecoveringOutputParser().parse),
        Tool(PARTIAL_REFERENCE, partial_reference),
        *peer_tools(),
    ]


def truncated_rows(budget: Budget) -> list[Row]:
    """Compact documents cut at 70 %, each size; expected: pydantic-core partial."""
    tools = truncation_tools()
    rows: list[Row] = []
    for size, document, clean in sized_documents():
        cut = truncated_reply(document)
        case = Case("truncated", size, cut, clean, partial_reference(cut))
        rows.append(measure_case(case, tools, budget))
    return rows


TRUNCATED_TARGET: Final = 3.0
"""Issue: at 200 KB, ours within 3x of ``orjson.loads`` on the clean document."""
ISSUE_FIGURES: Final = {CORE: 30.0, PEER: 190.0}
"""The issue's rough figures for the others at 200 KB (times ``orjson.loads``)."""


def _linearity_line(rows: Sequence[Row]) -> list[str]:
    by_size = {r.size: r for r in rows}
    parts = []
    for small, large in (("2 KB", "20 KB"), ("20 KB", "200 KB")):
        a, b = by_size.get(small), by_size.get(large)
        if a is None or b is None:
            continue
        growth = a.growth(b, OURS_TRUNCATION)
        shown = "-" if growth is None else f"{growth:.1f}"
        parts.append(
            f"time({large}) / time({small}) = {shown}"
            f" (reply bytes x{b.reply_bytes / a.reply_bytes:.1f},"
            f" orjson.loads x{b.baseline_seconds / a.baseline_seconds:.1f})"
        )
    if not parts:
        return []
    return [f"Linearity, truncated, {OURS_TRUNCATION}: {'; '.join(parts)}"]


def truncated_notes(rows: Sequence[Row]) -> list[str]:
    """Linearity, the issue's target and figures, and where each cut fell."""
    lines = _linearity_line(rows)
    for row in rows:
        if row.size != "200 KB":
            continue
        lines.append(
            target_line("truncated 200 KB", row, OURS_TRUNCATION, TRUNCATED_TARGET)
        )
        floor = row.ratio(PARTIAL_REFERENCE)
        if floor is not None:
            lines.append(
                f"Floor at 200 KB: {PARTIAL_REFERENCE} alone {floor:.2f}x orjson.loads"
            )
        figures = []
        for tool, said in ISSUE_FIGURES.items():
            measured = row.ratio(tool) if tool in row.results else None
            shown = "not timed" if measured is None else f"{measured:.0f}x"
            figures.append(f"{tool} about {said:g}x (measured {shown})")
        lines.append(f"Issue's figures at 200 KB: {', '.join(figures)}")
    cuts = ", ".join(f"{row.size} `...{_tail(row.size)}`" for row in rows)
    lines.append(
        f"Cut at {CUT_AT:.0%} of the compact document; the replies end: {cuts}"
    )
    return lines


def _tail(size: str, chars: int = 24) -> str:
    return truncated_reply(make_document(size_bytes(size)))[-chars:]


SECTION: Final = Section(
    "Truncated replies (compact document cut at 70 %)",
    truncated_rows,
    truncated_notes,
    ours=(OURS_TRUNCATION,),
    mismatch="differs",
    check_column="matches pydantic-core partial",
)


if __name__ == "__main__":
    sys.exit(run_sections([SECTION], script=__file__, doc=__doc__))
