"""Speed at 200 KB against issue 13's targets, beside a floor of unavoidable work.

What it measures
    Four 200 KB replies of the document of ``_data.py``: ``clean`` (compact
    JSON), ``fenced`` (a sentence, a pretty-printed ```` ```json ```` fence, a
    sentence), ``cut`` (the compact document cut at 70 %) and ``dense
    repair`` (every key of every record in single quotes and every ``true``
    written ``True``, ``_faults.py``). Each goes to ``extract_json`` and to
    our parser for that reply (``JsonFenceOutputParser().parse``; on the cut,
    ``TruncationRecoveringOutputParser().parse``; on the dense reply,
    ``JsonFenceOutputParser(repair=True).parse``), beside ``json_repair`` and
    langchain-core's ``JsonOutputParser``, and beside a **floor**: what no
    parser of that reply can skip, namely ``str()`` of the reply, the
    ``max_depth`` check of the payload (its bracket skeleton taken in C and
    peeled one level per round, as the package does) and decoding the
    payload (``orjson.loads``; on the cut, pydantic-core's partial parser).
    The payload is the reply itself (clean), the fence's text (fenced, sliced
    at known offsets), the cut (cut) or the repaired compact JSON (dense).
    Median of 5 samples, ratios to ``orjson.loads`` on the clean document
    (the method is in the README, "Benchmarks"). Targets (issue 13): clean
    1.15x, fenced 1.3x, cut 1.3x, dense repair 10x; where one is missed, the
    floor shows how much of it no parser can avoid.

How to run
    python benchmarks/targets.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson
import pydantic_core
from _cases import OURS, Case, Row, Tool, extract_json_value, measure_case, peer_tools
from _data import (
    FENCE_CLOSER,
    FENCE_OPENER,
    check_fixture,
    clean_reply,
    fenced_reply,
    make_document,
    size_bytes,
    truncated_reply,
)
from _faults import dense_reply
from _report import Section, run_sections
from _timing import MEDIAN_OF_5

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from _timing import Budget

PARSER: Final = "our parser"
"""The column of our parser for the row (see :func:`targets`)."""
FLOOR: Final = "floor"
MAX_DEPTH: Final = 200
"""The package's default ``max_depth``."""
_NOT_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")


def within_depth(payload: str, max_depth: int = MAX_DEPTH) -> bool:
    """The floor's depth check: the bracket skeleton, peeled one level per round.

    The skeleton is taken in C from the UTF-8 form; each round turns the
    innermost pairs into a mark, then drops the marks (so ``[{}]`` takes two
    rounds), as the package's check does on a reply without brackets in
    strings.
    """
    skeleton = payload.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    for _ in range(max_depth):
        if not skeleton:
            return True
        skeleton = skeleton.replace(b"{}", b"x").replace(b"[]", b"x").replace(b"x", b"")
    return not skeleton


def _partial(text: str) -> Any:
    return pydantic_core.from_json(text, allow_partial="trailing-strings")


def floor_tool(payload: slice | str, decode: Callable[[str], Any]) -> Tool:
    """The floor of a reply: ``str()`` of it, the depth check, the decoder.

    Args:
        payload: Where the payload is in the reply (a slice, taken in the
            timing), or the payload itself when no parser finds it verbatim
            in the reply (the repaired text of the dense reply).
        decode: ``orjson.loads``, or pydantic-core's partial parser for a cut.
    """

    def floor(reply: str) -> Any:
        text = str(reply)
        body = text[payload] if isinstance(payload, slice) else payload
        value = decode(body)
        within_depth(body)  # after decoding, as the package: the UTF-8 is cached
        return value

    return Tool(FLOOR, floor)


@dataclass(frozen=True, slots=True)
class Target:
    """A row of the table: the reply as a case, our parser for it, the floor."""

    case: Case
    parser: Callable[[str], Any]
    """Our parser for this reply."""
    parser_name: str
    floor: Tool


SIZE: Final = "200 KB"
TARGETS: Final = {
    "clean": 1.15,
    "fenced": 1.3,
    "cut at 70 %": 1.3,
    "dense repair": 10.0,
}
"""Issue 13's targets at 200 KB for ``extract_json`` and our parser."""


def targets(document: dict[str, Any]) -> list[Target]:
    """Clean, fenced, cut and dense repair, with our parser and floor for each."""
    clean = clean_reply(document)
    fenced = fenced_reply(document)
    start = fenced.index(FENCE_OPENER) + len(FENCE_OPENER)
    body = slice(start, fenced.rindex(FENCE_CLOSER))
    cut = truncated_reply(document)
    dense, _ = dense_reply(document)
    fence = JsonFenceOutputParser().parse
    truncation = TruncationRecoveringOutputParser().parse
    repair = JsonFenceOutputParser(repair=True).parse
    whole = slice(None)
    return [
        Target(
            Case("clean", SIZE, clean, clean, document),
            fence, "JsonFenceOutputParser().parse", floor_tool(whole, orjson.loads),
        ),
        Target(
            Case("fenced", SIZE, fenced, clean, document),
            fence, "JsonFenceOutputParser().parse", floor_tool(body, orjson.loads),
        ),
        Target(
            Case("cut at 70 %", SIZE, cut, clean, _partial(cut)),
            truncation, "TruncationRecoveringOutputParser().parse",
            floor_tool(whole, _partial),
        ),
        Target(
            Case("dense repair", SIZE, dense, clean, document),
            repair, "JsonFenceOutputParser(repair=True).parse",
            floor_tool(clean, orjson.loads),
        ),
    ]  # fmt: skip


def target_rows(budget: Budget) -> list[Row]:
    """Each 200 KB reply: extract_json, our parser, the floor and the peers."""
    document = make_document(size_bytes(SIZE))
    check_fixture(document, clean_reply(document))
    peers = peer_tools()
    rows = []
    for target in targets(document):
        tools = [Tool(OURS, extract_json_value), Tool(PARSER, target.parser)]
        timed = [*tools, target.floor, *peers]
        row = measure_case(target.case, timed, budget, paired=True)
        limit = TARGETS[row.shape]
        extra = (("our parser is", target.parser_name), ("target", f"{limit:g}x"))
        rows.append(dataclasses.replace(row, extra=extra))
    return rows


def _verdict(row: Row, tool: str, limit: float) -> str:
    ratio, floor = row.ratio(tool), row.ratio(FLOOR)
    result = row.results[tool]
    if ratio is None or result.status != "ok":
        return f"{tool} {result.status}"
    above = "" if not floor else f", {ratio / floor:.2f}x the floor"
    verdict = "PASS" if ratio <= limit else f"FAIL by {ratio - limit:.2f}x"
    return f"{tool} {ratio:.2f}x{above}: {verdict}"


def target_notes(rows: Sequence[Row]) -> list[str]:
    """Per row: each of ours against its target and its floor."""
    lines = []
    for row in rows:
        limit = TARGETS[row.shape]
        floor = row.ratio(FLOOR)
        shown = "-" if floor is None else f"{floor:.2f}x"
        verdicts = [_verdict(row, t, limit) for t in (OURS, PARSER)]
        lines.append(
            f"{row.shape}: target {limit:g}x, floor {shown}; {'; '.join(verdicts)}"
        )
    lines.append(
        "Floor: str() of the reply, the max_depth check of the payload (its"
        " bracket skeleton taken with bytes.translate, peeled one level per"
        " round) and its decoding (orjson.loads; pydantic-core's partial parser"
        " on the cut); the payload is the reply (clean, cut), the fence's text"
        " sliced at known offsets (fenced) or the repaired compact JSON"
        " (dense repair). extract_json has no repair and no truncation: on the"
        " cut and the dense reply its cell is the typed error it raises"
    )
    return lines


SECTION: Final = Section(
    f"Speed at {SIZE} against the targets, with the floor",
    target_rows,
    target_notes,
    ours=(PARSER,),
    check_column="gives the expected value",
    budget=MEDIAN_OF_5,
)


if __name__ == "__main__":
    sys.exit(run_sections([SECTION], script=__file__, doc=__doc__))
