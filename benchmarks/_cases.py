"""Tools and cases: the parsers under test, and a checked, timed row per reply.

A :class:`Tool` is a parser (a reply in, a value out); a :class:`Case` is one
reply with its clean counterpart (``orjson.loads`` on it is the baseline) and
the value expected. :func:`measure_case` checks each tool's value once, then
times the tools that gave one beside the baseline (``_timing.py``).
"""

from __future__ import annotations

import importlib
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from _data import canonical
from _timing import Budget, FreshCall, sample_paired, time_interleaved
from langchain_core.output_parsers import JsonOutputParser

from langchain_jsonrecover import extract_json

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

OURS: Final = "extract_json"
OURS_PARSER: Final = "JsonFenceOutputParser"
OURS_TRUNCATION: Final = "TruncationRecoveringOutputParser"
OURS_REPAIR: Final = "JsonFenceOutputParser(repair=True)"
CORE: Final = "JsonOutputParser"
"""langchain-core's parser."""
PEER: Final = "json_repair"


@dataclass(frozen=True, slots=True)
class Tool:
    """A parser under test: a reply in, the decoded value out."""

    name: str
    parse: Callable[[str], Any] | None
    """``None`` when the tool is not installed."""


def extract_json_value(reply: str) -> Any:
    """``extract_json(reply).value``: the function, as a tool."""
    return extract_json(reply).value


def json_repair_tool() -> Tool:
    """``json_repair.repair_json(reply, return_objects=True)``, if installed."""
    try:
        json_repair: Any = importlib.import_module("json_repair")
    except ImportError:
        return Tool(PEER, None)
    repair_json = json_repair.repair_json

    def repair(reply: str) -> Any:
        return repair_json(reply, return_objects=True)

    return Tool(PEER, repair)


def peer_tools() -> list[Tool]:
    """The others beside ours: langchain-core's ``JsonOutputParser``, json_repair."""
    return [Tool(CORE, JsonOutputParser().parse), json_repair_tool()]


Status = Literal["ok", "wrong", "error", "not installed", "stopped", "skipped"]


@dataclass(frozen=True, slots=True)
class Measurement:
    """One tool on one case: median seconds per call, and whether it was right."""

    status: Status
    seconds: float | None = None
    """``None`` when the tool raised or is not installed."""
    detail: str = ""
    """The exception's type, for an error; how far a stopped run got; why a
    tool was skipped."""
    estimated_seconds: float | None = None
    """For a run stopped at its deadline (``seconds`` is then a lower bound):
    the whole run's time, extrapolated from its progress."""
    paired_ratio: float | None = None
    """When each sample was taken beside one of the baseline: the median of
    those ratios (else the ratio is of the medians)."""


@dataclass(frozen=True, slots=True)
class Row:
    """One case of a table: its reply, the baseline, and each tool's result."""

    shape: str
    size: str
    reply_bytes: int
    baseline_seconds: float
    """``orjson.loads`` on the clean document of the same size."""
    results: dict[str, Measurement]
    extra: tuple[tuple[str, str], ...] = ()
    """More columns, ``(title, cell)``, shown after the reply's size."""

    def ratio(self, tool: str) -> float | None:
        """The tool's time over the baseline's, or ``None`` if it was not timed."""
        result = self.results[tool]
        if result.paired_ratio is not None:
            return result.paired_ratio
        seconds = result.seconds
        return None if seconds is None else seconds / self.baseline_seconds

    def growth(self, other: Row, tool: str) -> float | None:
        """The tool's time on ``other`` over its time on this row, if both timed."""
        a, b = self.results[tool].seconds, other.results[tool].seconds
        return b / a if a and b else None


def check_value(value: Any, expected: bytes) -> Measurement:
    """``ok`` when ``value`` is the expected one (canonical JSON bytes), else ``wrong``."""
    return Measurement("ok" if canonical(value) == expected else "wrong")


def check(tool: Tool, reply: str, expected: bytes) -> Measurement:
    """Run the tool once and compare its value with the expected one.

    Args:
        tool: The parser.
        reply: The reply to parse.
        expected: The expected value, as canonical (sorted-key) JSON bytes.

    Returns:
        A measurement without a time: ``ok``, ``wrong``, ``error`` or
        ``not installed``.
    """
    if tool.parse is None:
        return Measurement("not installed")
    try:
        value = tool.parse(reply)
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report
        return Measurement("error", detail=type(exc).__name__)
    return check_value(value, expected)


@dataclass(frozen=True, slots=True)
class Case:
    """One reply to parse, its clean counterpart (the baseline) and the answer."""

    shape: str
    size: str
    reply: str
    clean: str
    """The whole document as compact JSON: ``orjson.loads(clean)`` is the baseline."""
    expected: Any
    """The value a tool should return (the document, unless the reply is cut)."""


def measure_case(
    case: Case, tools: Sequence[Tool], budget: Budget, *, paired: bool = False
) -> Row:
    """Check each tool on the reply, then time it against ``orjson.loads(clean)``.

    Tools that raise or are missing are not timed; a wrong answer is timed and
    marked.

    Args:
        case: The reply, its clean counterpart and the expected value.
        tools: The parsers.
        budget: Sample length and repeats.
        paired: Sample ``orjson.loads`` beside each sample of a tool, and give
            the median of those ratios (:func:`_timing.sample_paired`), for
            few samples on a busy machine; else the tools and the baseline
            are sampled round robin and the medians divided.

    Returns:
        The case's row.

    Raises:
        ValueError: The expected value is not JSON.
    """
    reply, clean = case.reply, case.clean
    expected = canonical(case.expected)
    if expected is None:
        raise ValueError(f"{case.size} expected value is not JSON")
    checked = {tool.name: check(tool, reply, expected) for tool in tools}
    # Each call gets a fresh copy of its text, the baseline's too: a text
    # timed again would keep its UTF-8 form cached, which favours orjson.
    timed = [
        (t.name, FreshCall(t.parse, reply))
        for t in tools
        if t.parse is not None and checked[t.name].status in {"ok", "wrong"}
    ]
    funcs = [func for _, func in timed]
    baseline = FreshCall(orjson.loads, clean)
    results = dict(checked)
    if paired:
        bases, samples, ratios = sample_paired(baseline, funcs, budget)
        base = statistics.median(bases)
        for (name, _), own, ratio in zip(timed, samples, ratios, strict=True):
            results[name] = Measurement(
                checked[name].status,
                statistics.median(own),
                paired_ratio=statistics.median(ratio),
            )
    else:
        base, *times = time_interleaved([baseline, *funcs], budget)
        for (name, _), seconds in zip(timed, times, strict=True):
            results[name] = Measurement(checked[name].status, seconds)
    return Row(case.shape, case.size, len(reply.encode()), base, results)
