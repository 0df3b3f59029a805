"""Speed and result of syntax repair: eight faults of different kinds per reply.

What it measures
    The document of ``_data.py`` at about 2 KB, 20 KB and 200 KB, written
    compactly with eight faults an LLM makes, one of each in records spread
    evenly (``_faults.py``): a trailing comma, single quotes, a Python
    ``True``, a ``/* */`` comment, a bare key, a missing comma between two
    records, unescaped inner quotes and an invalid escape ``\\_``. The data
    some faults carry is set in the document first, so the expected value is
    that document, and the baseline is ``orjson.loads`` on its clean compact
    JSON. It times ``JsonFenceOutputParser(repair=True).parse``, our repair
    pass alone (``_repair.repair`` then ``orjson.loads``), ``json_repair`` and
    langchain-core's ``JsonOutputParser`` (which does not repair: an error or
    a wrong value is expected and shown). Where another tool's value differs
    at 200 KB, the notes say where. Target: ours within 20x of
    ``orjson.loads`` at 200 KB. The method is in the README ("Benchmarks").

How to run
    python benchmarks/syntax_repair.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import itertools
import sys
from typing import TYPE_CHECKING, Any, Final

import orjson
from _cases import OURS_REPAIR, PEER, Case, Row, Tool, measure_case, peer_tools
from _data import SIZES, check_fixture, clean_reply, make_document, size_bytes
from _faults import FAULTS, faulty_reply
from _report import Section, differences, run_sections, target_line

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.repair.syntax import repair as repair_syntax

if TYPE_CHECKING:
    from collections.abc import Sequence

    from _timing import Budget

REPAIR_ALONE: Final = "repair pass + orjson.loads"
REPAIR_SHAPE: Final = "compact, 8 faults"
REPAIR_TARGET: Final = 20.0
"""Issue: at 200 KB, ours within 20x of ``orjson.loads`` on the clean document."""
REPAIR_ISSUE_FIGURE: Final = "about 200x to 600x"
"""The issue's figure for ``json_repair`` at 200 KB."""


def repair_pass(reply: str) -> Any:
    """The repair pass alone on the whole reply, then ``orjson.loads``.

    Raises:
        ValueError: The pass refused the reply, or found nothing to repair.
    """
    fixed = repair_syntax(reply)
    if fixed is None:
        raise ValueError("repair refused the reply")
    return orjson.loads(fixed.text)


def repair_tools() -> list[Tool]:
    """Ours (parser, and the repair pass alone), json_repair, langchain-core's."""
    return [
        Tool(OURS_REPAIR, JsonFenceOutputParser(repair=True).parse),
        Tool(REPAIR_ALONE, repair_pass),
        *peer_tools(),
    ]


def repair_rows(budget: Budget) -> list[Row]:
    """Compact documents with the faults injected, each size; expected: the
    document with the same data."""
    tools = repair_tools()
    rows: list[Row] = []
    for size, target in SIZES:
        reply, expected = faulty_reply(make_document(target))
        clean = clean_reply(expected)
        check_fixture(expected, clean)
        case = Case(REPAIR_SHAPE, size, reply, clean, expected)
        rows.append(measure_case(case, tools, budget))
    return rows


def _wrong_value_lines(row: Row) -> list[str]:
    """For each tool that gave another value on the row's reply: where it differs."""
    wrong = [t for t, r in row.results.items() if r.status == "wrong"]
    if not wrong:
        return []
    reply, expected = faulty_reply(make_document(size_bytes(row.size)))
    lines: list[str] = []
    for tool in repair_tools():
        if tool.name not in wrong or tool.parse is None:
            continue
        found = list(itertools.islice(differences(tool.parse(reply), expected), 4))
        shown = "; ".join(f"`{d}`" for d in found[:3])
        more = ", and more" if len(found) > 3 else ""
        lines.append(f"{tool.name} at {row.size} differs: {shown}{more}")
    return lines


def _linearity_line(small: Row, large: Row) -> str:
    parts = []
    for tool in (OURS_REPAIR, REPAIR_ALONE):
        growth = small.growth(large, tool)
        parts.append(f"{tool} -" if growth is None else f"{tool} {growth:.1f}")
    return (
        f"Linearity, repair: time(200 KB) / time(20 KB) = {', '.join(parts)}"
        f" (reply bytes x{large.reply_bytes / small.reply_bytes:.1f};"
        f" orjson.loads x{large.baseline_seconds / small.baseline_seconds:.1f})"
    )


def _large_lines(large: Row) -> list[str]:
    """The target, the pass alone and json_repair's figure at 200 KB."""
    lines = [target_line("repair 200 KB", large, OURS_REPAIR, REPAIR_TARGET)]
    floor = large.ratio(REPAIR_ALONE)
    if floor is not None:
        lines.append(
            f"Repair pass alone at 200 KB: {floor:.2f}x orjson.loads (the"
            " parser's time beyond it goes to the strict attempt and the"
            " search for candidates around the repair)"
        )
    peer = large.results[PEER]
    measured = large.ratio(PEER)
    shown = (
        peer.status
        if measured is None
        else f"{measured:.0f}x" + ("" if peer.status == "ok" else ", WRONG")
    )
    lines.append(
        f"Issue's figure at 200 KB: {PEER} {REPAIR_ISSUE_FIGURE}"
        f" orjson.loads (measured {shown})"
    )
    return [*lines, *_wrong_value_lines(large)]


def repair_notes(rows: Sequence[Row]) -> list[str]:
    """Linearity, the issue's target and figure, the faults and their repairs."""
    lines: list[str] = []
    by_size = {r.size: r for r in rows}
    small, large = by_size.get("20 KB"), by_size.get("200 KB")
    if small is not None and large is not None:
        lines.append(_linearity_line(small, large))
    if large is not None:
        lines.extend(_large_lines(large))
    faults = "; ".join(f.shows for f in FAULTS)
    lines.append(
        f"Each reply: the compact document (so a `/* */` comment, not a `//`"
        f" line) with {len(FAULTS)} faults, one of each, in records spread"
        f" evenly (two per record at 2 KB, which has 4): {faults}. Expected:"
        " the document as written, with the data the faults carry (a note with"
        ' quotes, an email with "_", "active": true) set in it before it is'
        " serialized; orjson.loads times that document's clean compact JSON"
    )
    reply, _ = faulty_reply(make_document(size_bytes("200 KB")))
    fixed = repair_syntax(reply)
    named = () if fixed is None else fixed.repairs
    missing = [f.repair for f in FAULTS if f.repair not in named]
    lines.append(
        f"Repairs the pass names at 200 KB: {', '.join(named) or 'none'}"
        + (f" (missing: {', '.join(missing)})" if missing else "")
    )
    return lines


SECTION: Final = Section(
    "Syntax repair (repair=True)",
    repair_rows,
    repair_notes,
    ours=(OURS_REPAIR, REPAIR_ALONE),
    check_column="gives the expected document",
)


if __name__ == "__main__":
    sys.exit(run_sections([SECTION], script=__file__, doc=__doc__))
