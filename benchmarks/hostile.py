"""Time every parser on hostile replies of about 1 MB (issue 13).

What it measures
    Each class of hostile input from the issue's hardening list, built at
    about 1 MB (characters), is handed to ``extract_json`` and to every
    parser (``JsonFenceOutputParser``, ``TruncationRecoveringOutputParser``,
    ``RegexJsonOutputParser`` with a capture of the whole reply), each with and
    without ``repair``. A cell is the CPU time of one parse (median of
    ``--repeats`` runs, collector paused) divided by the time of
    ``orjson.loads`` on a realistic valid 1 MB document (the records of
    ``benchmarks/_data.py``: ids, names, tags, scores, booleans and short text,
    fixed seed), timed in the same process. The issue's target: every cell
    within 40x. A parse must end in a value or in a LangChain
    ``OutputParserException``; anything else (``RecursionError``, a crash) is
    shown as ``CRASH`` and makes the exit status 1.

How to run
    python benchmarks/hostile.py             # the table, about a minute
    python benchmarks/hostile.py --markdown  # the same, as a markdown table
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson
from langchain_core.exceptions import OutputParserException

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _data import clean_reply, make_document
from _report import render as render_table

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    extract_json,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SIZE: Final = 1_000_000
TARGET: Final = 40.0


def _repeat(unit: str, size: int = SIZE) -> str:
    return unit * (size // len(unit))


def _nested_blocks(size: int = SIZE) -> str:
    block = "[" * 5000 + "]" * 5000
    return '{"deep": ' + block + ', "pad": "' + "x" * (size - len(block) - 30) + '"}'


def _keys(count: int = 100_000) -> str:
    body = ", ".join(f'"key{i}": {i}' for i in range(count))
    return "{" + body + "}"


def hostile_cases() -> dict[str, str]:
    """The issue's hostile classes, each about 1 MB of text."""
    return {
        "run of {": _repeat("{"),
        "run of [": _repeat("["),
        "run of }": _repeat("}"),
        "run of ]": _repeat("]"),
        'run of "': _repeat('"'),
        "run of \\": _repeat("\\"),
        "run of `": _repeat("`"),
        "x then [{ run": "x " + _repeat("[{"),
        "fence openers": _repeat("```json\n"),
        "{x} candidates": _repeat("{x} "),
        '{"a": " then {[': '{"a": "' + _repeat("{["),
        "open <think> then {": "<think>" + _repeat("{"),
        "5000 levels": _nested_blocks(),
        "1 MB string": '{"a": "' + "x" * SIZE + '"}',
        "100,000 keys": _keys(),
        "NUL bytes": _repeat("\x00"),
        "lone surrogates": '{"a": "' + _repeat("\ud800") + '"}',
        "prose then cut": _repeat("word ") + '{"a": [1, 2, {"b": "cut',
        "label, blanks, value": "Answer:" + " " * (SIZE - 30) + '{"a": 1} ok {b}',
        "one-line <think>, value": (
            "<think>" + _repeat("word ", SIZE - 40) + '</think>\n{"a": 1} and {"b": 2}'
        ),
    }


@dataclass(frozen=True, slots=True)
class Parser:
    """One parser configuration: a name and a call on a reply."""

    name: str
    call: Callable[[str], Any]


def parsers() -> list[Parser]:
    """Every parser, without and with ``repair``."""
    result: list[Parser] = []
    for repair in (False, True):
        suffix = " +repair" if repair else ""
        fence = JsonFenceOutputParser(repair=repair)
        cut = TruncationRecoveringOutputParser(repair=repair)
        regex = RegexJsonOutputParser(r"(.*)", repair=repair)
        if not repair:
            result.append(Parser("extract_json", lambda r: extract_json(r).value))
        result.extend(
            [
                Parser("Fence" + suffix, fence.parse),
                Parser("Truncation" + suffix, cut.parse),
                Parser("Regex" + suffix, regex.parse),
            ]
        )
    return result


def _once(call: Callable[[str], Any], reply: str) -> tuple[float, str]:
    gc.disable()
    try:
        start = time.process_time()
        try:
            call(reply)
            outcome = "value"
        except OutputParserException:
            outcome = "error"
        except Exception as exc:  # noqa: BLE001 - shown in the table
            outcome = f"CRASH {type(exc).__name__}"
        return time.process_time() - start, outcome
    finally:
        gc.enable()


def unit_seconds(repeats: int) -> float:
    """Median seconds of ``orjson.loads`` on a realistic valid 1 MB document."""
    text = clean_reply(make_document(SIZE))
    samples = []
    for _ in range(max(repeats, 5) * 4):
        gc.disable()
        start = time.process_time()
        for _ in range(5):
            orjson.loads(text)
        samples.append((time.process_time() - start) / 5)
        gc.enable()
    return statistics.median(samples)


def measure(
    cases: dict[str, str], tools: Sequence[Parser], repeats: int
) -> dict[str, list[tuple[float, str]]]:
    """Median seconds and outcome per case and parser."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for name, reply in cases.items():
        row = []
        for tool in tools:
            runs = [_once(tool.call, reply) for _ in range(repeats)]
            row.append((statistics.median(t for t, _ in runs), runs[0][1]))
        rows[name] = row
    return rows


def render(
    rows: dict[str, list[tuple[float, str]]],
    tools: Sequence[Parser],
    unit: float,
    *,
    markdown: bool,
) -> list[str]:
    """The table: one row per hostile class, the ratio per parser."""
    header = ["input (1 MB)", *(t.name for t in tools)]
    body = []
    for name, row in rows.items():
        cells = [name]
        for seconds, outcome in row:
            cell = f"{seconds / unit:.1f}"
            if outcome.startswith("CRASH"):
                cell += f" {outcome}"
            cells.append(cell)
        body.append(cells)
    right = [False, *(True for _ in tools)]
    return render_table(header, body, right, markdown=markdown)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the hostile table; exit 1 on a crash."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="only the classes whose name contains this")
    args = parser.parse_args(argv)
    cases = hostile_cases()
    if args.only:
        cases = {k: v for k, v in cases.items() if args.only in k}
    tools = parsers()
    unit = unit_seconds(args.repeats)
    rows = measure(cases, tools, args.repeats)
    print(f"unit: orjson.loads on a valid 1 MB document = {unit * 1000:.2f} ms (CPU)")
    print(f"cells: one parse / unit, median of {args.repeats}; target <= {TARGET:.0f}")
    for line in render(rows, tools, unit, markdown=args.markdown):
        print(line)
    worst = max((s / unit for row in rows.values() for s, _ in row), default=0.0)
    crashes = sum(o.startswith("CRASH") for row in rows.values() for _, o in row)
    print(
        f"worst: {worst:.1f}x; over target: "
        f"{sum(s / unit > TARGET for row in rows.values() for s, _ in row)}; "
        f"crashes: {crashes}"
    )
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
