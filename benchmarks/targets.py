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
    The cut's expected value is the package's documented partial (a scalar
    at the cut dropped, a member whose value the cut removed not filled),
    computed from the text; pydantic-core's reading is shown as information.
    Median of 5 samples, ratios to ``orjson.loads`` on the clean document
    (the method is in the README, "Benchmarks"). Targets (issue 13): clean
    1.15x, fenced 1.3x, cut 1.3x, dense repair 10x; where one is missed, the
    floor shows how much of it no parser can avoid.

    Those 200 KB rows are kept as information. The targets now are where
    replies live (``_live.py``): the pretty-printed document of 300 B, 3 KB
    and 30 KB, clean, fenced in prose, after a ``<think>`` block with
    ``repair=True``, with one slip (the error without repair, then the
    repair; each slip where it has one reading, named in the row), cut at
    60 random positions (median and max, compact and
    fenced), and a megabyte of JSON-like prose; each beside fast-json-repair,
    json_repair and langchain-core's ``JsonOutputParser``, every cell a
    median of 7 rounds, each paired with ``orjson.loads`` on the clean
    payload, a fresh copy of the text for every call.

    The script exits 1 only when our parser gives a wrong value or an
    unexpected error; a missed target is printed below its table, and a
    slip that ``repair=True`` refuses for a known reason
    (``EXPECTED_REFUSALS``) is timed as that refusal.

How to run
    python benchmarks/targets.py [--quick] [--markdown] [--wall]
"""

from __future__ import annotations

import dataclasses
import importlib
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
import pydantic_core
from _cases import (
    CORE,
    OURS,
    PEER,
    Case,
    Measurement,
    Row,
    Tool,
    extract_json_value,
    json_repair_tool,
    measure_case,
    peer_tools,
)
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
from _live import (
    LIVE_SIZES,
    SLIP_SITES,
    SLIPS,
    clean_payload,
    cuts,
    fenced,
    json_like_prose,
    live_document,
    slipped,
    think,
)
from _report import Section, run_sections
from _timing import MEDIAN_OF_5, Budget, FreshCall, sample_paired
from langchain_core.output_parsers import JsonOutputParser

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    TruncationRecoveringOutputParser,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle_cuts import truth

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

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


def documented_cut_value(cut: str) -> Any:
    """The value the package documents for a cut (issue 21, family 19).

    A scalar at the cut is dropped (``10`` of ``[101, 102, 10`` may have lost
    digits), a member whose value the cut removed is not filled, a string at
    the cut keeps its prefix: the cuts oracle's truth (``tests/_oracle_cuts.py``),
    computed from the text, not by running our parser.

    Raises:
        ValueError: The cut has no reading, or two.
    """
    readings = truth(cut).readings
    if len(readings) != 1:
        raise ValueError(f"the cut has {len(readings)} readings")
    return readings[0][0]


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
            Case("cut at 70 %", SIZE, cut, clean, documented_cut_value(cut)),
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
    lines.append(
        "Cut at 70 %: the expected value is the documented partial (a scalar at"
        " the cut dropped, a member whose value the cut removed not filled; the"
        " cuts oracle's truth). pydantic-core's partial parse alone (the floor's"
        f" decoder) {_pydantic_reading()}"
    )
    return lines


def _pydantic_reading() -> str:
    """How pydantic-core's reading of the 70 % cut compares with the documented one."""
    cut = truncated_reply(make_document(size_bytes(SIZE)))
    if _partial(cut) == documented_cut_value(cut):
        return "reads the same value."
    tail = cut[-30:]
    return (
        f"reads another value (information): the cut ends {tail!r}, whose scalar"
        " it keeps, so the floor's cell is marked as differing"
    )


SECTION: Final = Section(
    f"Speed at {SIZE} against issue 13's targets, with the floor (information)",
    target_rows,
    target_notes,
    ours=(PARSER,),
    check_column="gives the expected value",
    budget=MEDIAN_OF_5,
)


# ---- where replies live: 300 B to 30 KB ---------------------------------------

LIVE: Final = Budget(
    sample_seconds=0.02, repeats=7, min_repeats=7, tool_seconds=30.0, slow_seconds=45.0
)
"""Seven rounds, each sample paired with one of ``orjson.loads``."""
CUT_BUDGET: Final = Budget(
    sample_seconds=0.004, repeats=5, min_repeats=5, tool_seconds=5.0, slow_seconds=45.0
)
"""Per cut position: shorter, since each reply is cut at 60 places."""
FAST: Final = "fast-json-repair"
LIVE_TARGETS: Final[dict[tuple[str, str], float]] = {
    ("clean", "300 B"): 4,
    ("clean", "30 KB"): 1.3,
    ("fenced in prose", "300 B"): 6,
    ("fenced in prose", "30 KB"): 1.5,
    ("<think> block, repair=True", "300 B"): 10,
    ("<think> block, repair=True", "30 KB"): 3.5,
    ("trailing comma, no repair (the error)", "300 B"): 15,
    ("trailing comma, no repair (the error)", "30 KB"): 4,
    (f"trailing comma ({SLIP_SITES['trailing comma']}), repair=True", "300 B"): 12,
    (f"trailing comma ({SLIP_SITES['trailing comma']}), repair=True", "30 KB"): 4,
    (f"lost comma ({SLIP_SITES['lost comma']}), repair=True", "30 KB"): 6,
    (f"lost bracket ({SLIP_SITES['lost bracket']}), repair=True", "30 KB"): 15,
    (f"lost quote ({SLIP_SITES['lost quote']}), repair=True", "30 KB"): 30,
    ("cut, compact (max of 60)", "300 B"): 6,
    ("cut, compact (max of 60)", "30 KB"): 3,
    ("cut, fenced (max of 60)", "300 B"): 6,
    ("cut, fenced (max of 60)", "30 KB"): 3,
    ("JSON-like prose (the error)", "1 MB"): 10,
}
"""Issue 24's targets: ratio to ``orjson.loads`` on the clean payload."""
REFUSED: Final = ", refused: "
"""In a row's shape: the slip was refused, for the reason that follows."""


def live_target(shape: str, size: str) -> float | None:
    """The target of a row (a refusal row has its slip's target)."""
    return LIVE_TARGETS.get((shape.partition(REFUSED)[0], size))


RAISED: Final = {"raised": True}
"""The value of a tool that raised, where raising is the right answer."""
EXPECTED_REFUSALS: Final[dict[tuple[str, str], str]] = {}
"""Slips with one reading that ``repair=True`` refuses (a typed error, never a
guess), and why: timed as the refusal, the target shown as missed. None now:
the lost quote at 30 KB, refused while the single-edit search decoded the
text once per edit and ran out of budget, is read."""


def fast_json_repair_tool() -> Tool:
    """``fast_json_repair.repair_json(reply, return_objects=True)``, if installed."""
    try:
        module: Any = importlib.import_module("fast_json_repair")
    except ImportError:
        return Tool(FAST, None)
    repair_json = module.repair_json
    return Tool(FAST, lambda reply: repair_json(reply, return_objects=True))


def _raising(parse: Callable[[str], Any] | None) -> Callable[[str], Any] | None:
    """``parse``, with an exception turned into :data:`RAISED` (an error row)."""
    if parse is None:
        return None

    def run(reply: str) -> Any:
        try:
            return parse(reply)
        except Exception:  # noqa: BLE001 - raising is the answer timed here
            return RAISED

    return run


def _live_peers(*, error_row: bool = False, quadratic: bool = False) -> list[Tool]:
    """The peers; ``quadratic``: without json_repair, whose time on JSON-like
    prose grows with the square of its length (25 KB 0.4 s, 50 KB 1.6 s,
    100 KB 6.7 s here: about ten minutes a call at 1 MB)."""
    tools = [
        fast_json_repair_tool(),
        *(() if quadratic else (json_repair_tool(),)),
        Tool(CORE, JsonOutputParser().parse),
    ]
    if error_row:
        tools = [Tool(t.name, _raising(t.parse)) for t in tools]
    return tools


def _live_row(
    case: Case,
    ours: Callable[[str], Any],
    budget: Budget,
    *,
    error_row: bool = False,
    quadratic: bool = False,
) -> Row:
    parse = _raising(ours) if error_row else ours
    peers = _live_peers(error_row=error_row, quadratic=quadratic)
    tools = [Tool(PARSER, parse), *peers]
    row = measure_case(case, tools, budget, paired=True)
    if quadratic:
        row.results[PEER] = Measurement("skipped", detail="quadratic here")
    limit = live_target(case.shape, case.size)
    return dataclasses.replace(
        row, extra=(("target", "-" if limit is None else f"{limit:g}x"),)
    )


def _error_of(parse: Callable[[str], Any], reply: str) -> str:
    """The check of an error row: our parser raises InvalidJsonError at a place."""
    try:
        parse(reply)
    except InvalidJsonError as exc:
        if exc.line is None or exc.column is None:
            return "InvalidJsonError without a position"
        return "ok"
    except Exception as exc:  # noqa: BLE001 - any other outcome is reported
        return type(exc).__name__
    return "a value"


def _cut_rows(
    size: str, document: dict[str, Any], *, in_fence: bool, budget: Budget
) -> list[Row]:
    """Median and max over 60 cut positions, per tool (any value or error counts)."""
    clean = clean_payload(document) if in_fence else orjson.dumps(document).decode()
    replies = cuts(document, in_fence=in_fence)
    ours = TruncationRecoveringOutputParser().parse
    # langchain-core is left out here: on a cut it can take seconds a call
    # (its error rows show that), times 60 positions.
    peers = [t for t in _live_peers(error_row=True) if t.name != CORE]
    tools = [Tool(PARSER, _raising(ours)), *peers]
    ratios: dict[str, list[float]] = {t.name: [] for t in tools}
    seconds: dict[str, list[float]] = {t.name: [] for t in tools}
    bases: list[float] = []
    installed = [t for t in tools if t.parse is not None]
    for reply in replies:
        funcs = [FreshCall(t.parse, reply) for t in installed if t.parse]
        base, samples, paired = sample_paired(
            FreshCall(orjson.loads, clean), funcs, budget
        )
        bases.extend(base)
        for tool, own, ratio in zip(installed, samples, paired, strict=True):
            ratios[tool.name].append(statistics.median(ratio))
            seconds[tool.name].append(statistics.median(own))
    kind = "fenced" if in_fence else "compact"
    rows = []
    for label, pick in (("median", statistics.median), ("max", max)):
        results = {
            t.name: Measurement(
                "ok", pick(seconds[t.name]), paired_ratio=pick(ratios[t.name])
            )
            if ratios[t.name]
            else Measurement("not installed")
            for t in tools
        }
        results[CORE] = Measurement("skipped", detail="seconds a call")
        shape = f"cut, {kind} ({label} of {len(replies)})"
        limit = LIVE_TARGETS.get((shape, size))
        rows.append(
            Row(
                shape,
                size,
                max(len(r.encode()) for r in replies),
                statistics.median(bases),
                results,
                (("target", "-" if limit is None else f"{limit:g}x"),),
            )
        )
    return rows


def live_rows(budget: Budget) -> list[Row]:
    """Every case of issue 24's table, at 300 B, 3 KB and 30 KB, then 1 MB of prose."""
    fence = JsonFenceOutputParser().parse
    repair = JsonFenceOutputParser(repair=True).parse
    # The error rows: the default level ("safe") would repair a trailing comma.
    strict = JsonFenceOutputParser(repair=False).parse
    cut_budget = CUT_BUDGET if budget.repeats > 5 else budget
    rows: list[Row] = []
    for size, target in LIVE_SIZES:
        document = live_document(target)
        clean = clean_payload(document)
        check_fixture(document, clean)
        for shape, reply, parse in (
            ("clean", clean, fence),
            ("fenced in prose", fenced(document), fence),
            ("<think> block, repair=True", think(document), repair),
        ):
            rows.append(
                _live_row(Case(shape, size, reply, clean, document), parse, budget)
            )
        comma = slipped(document, "trailing comma")
        shape = "trailing comma, no repair (the error)"
        row = _live_row(
            Case(shape, size, comma, clean, RAISED), strict, budget, error_row=True
        )
        if _error_of(strict, comma) != "ok":
            wrong = dataclasses.replace(row.results[PARSER], status="wrong")
            row.results[PARSER] = wrong
        rows.append(row)
        for slip in SLIPS:
            try:
                reply = slipped(document, slip)
            except ValueError:  # a document too small for this slip
                continue
            shape = f"{slip} ({SLIP_SITES[slip]}), repair=True"
            refusal = EXPECTED_REFUSALS.get((slip, size))
            if refusal is not None and _error_of(repair, reply) == "ok":
                case = Case(f"{shape}{REFUSED}{refusal}", size, reply, clean, RAISED)
                rows.append(_live_row(case, repair, budget, error_row=True))
                continue
            case = Case(shape, size, reply, clean, document)
            rows.append(_live_row(case, repair, budget))
        for in_fence in (False, True):
            rows.extend(_cut_rows(size, document, in_fence=in_fence, budget=cut_budget))
    big = clean_payload(live_document(1_000_000))
    case = Case("JSON-like prose (the error)", "1 MB", json_like_prose(), big, RAISED)
    rows.append(
        _live_row(case, extract_json_value, budget, error_row=True, quadratic=True)
    )
    return rows


def live_notes(rows: Sequence[Row]) -> list[str]:
    """Each row with a target: met or missed, by how much."""
    lines = []
    for row in rows:
        limit = live_target(row.shape, row.size)
        ratio = row.ratio(PARSER)
        if limit is None or ratio is None:
            continue
        verdict = "met" if ratio <= limit else f"missed by {ratio - limit:.2f}x"
        if REFUSED in row.shape:
            verdict = "missed (a refusal, not a repair)"
        lines.append(
            f"{row.shape}, {row.size}: {ratio:.2f}x, target {limit:g}x: {verdict}"
        )
    lines.append(
        "Our parser: JsonFenceOutputParser() (clean, fenced, the error row),"
        " JsonFenceOutputParser(repair=True) (think, slips),"
        " TruncationRecoveringOutputParser() (cuts), extract_json (prose). On an"
        " error row and the cuts, raising counts as an answer (the error row's"
        " check: an InvalidJsonError with its line and column); a cut's cell is"
        " the median or the max over its 60 positions of each position's"
        " paired ratio (langchain-core is not timed on the cuts: seconds a call;"
        " json_repair is not timed on the prose: quadratic there, 100 KB 6.7 s)"
    )
    return lines


LIVE_SECTION: Final = Section(
    "Speed where replies live (300 B to 30 KB) against the targets",
    live_rows,
    live_notes,
    ours=(PARSER,),
    check_column="gives the expected value",
    budget=LIVE,
)


if __name__ == "__main__":
    sys.exit(run_sections([LIVE_SECTION, SECTION], script=__file__, doc=__doc__))
