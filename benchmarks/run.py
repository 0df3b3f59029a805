"""Benchmark JSON extraction against ``orjson.loads`` and two other parsers.

What it measures
    For a realistic JSON document (customer records with strings, numbers,
    nested objects, arrays and non-ASCII text), generated deterministically at
    about 2 KB, 20 KB and 200 KB (compact UTF-8 size), and two reply shapes:

    * ``clean``: the compact JSON text itself;
    * ``fenced``: a sentence of prose, a ```` ```json ```` fence holding the
      pretty-printed document, then a sentence of prose after it;

    it times

    * ours: ``langchain_jsonrecover.extract_json(reply).value`` and
      ``JsonFenceOutputParser().parse(reply)``;
    * langchain-core's ``JsonOutputParser().parse(reply)``;
    * ``json_repair.repair_json(reply, return_objects=True)`` (optional).

    Every figure is a ratio to ``orjson.loads`` on the clean document of the
    same size, timed in the same process, interleaved with the others (round
    robin, so drift on a noisy machine hits every tool alike), as the median of
    repeated samples with the garbage collector paused during each sample (as
    ``timeit`` does). Samples are CPU time of this process (``time.process_time``)
    so that time lost to other processes on a busy machine is not counted;
    ``--wall`` uses ``time.perf_counter`` instead. Absolute times mean little
    across machines; ratios travel.
    Each tool's output is also compared with the expected document, and a wrong
    answer or an error is shown in its cell.

    After the table come a linearity check (our time at 200 KB over our time at
    20 KB, about 10 when linear) and the spec's targets at 200 KB: clean
    within 1.5x of ``orjson.loads``, fenced within 2.5x.

How to run
    pip install -e '.[bench]'            # json-repair is optional
    python benchmarks/run.py             # full run, about a minute
    python benchmarks/run.py --quick     # smoke run, a few seconds
    python benchmarks/run.py --markdown  # the table as markdown
    python benchmarks/run.py --wall      # wall-clock samples (idle machine)

Adding a section
    A :class:`Section` in ``SECTIONS`` is a title, a function
    ``(Budget) -> list[Row]`` that builds its replies and times its tools with
    :func:`measure_case` (or :func:`time_interleaved` directly), and a function
    for the lines printed under its table. Rendering, versions and the
    reproduce line are shared.

The exit status is 1 when our extractor returns a wrong value or raises on any
case (speed targets only print PASS/FAIL; timings are too noisy to gate on).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import importlib.metadata
import itertools
import math
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import orjson
from langchain_core.output_parsers import JsonOutputParser

from langchain_jsonrecover import JsonFenceOutputParser, extract_json

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# --------------------------------------------------------------------------
# Timing


@dataclass(frozen=True, slots=True)
class Budget:
    """How to time: clock, sample length, repeats and a cap per tool and case."""

    sample_seconds: float
    """Each sample loops a call until it lasts about this long."""
    repeats: int
    """Samples per tool and case (the median is kept)."""
    min_repeats: int
    """Fewest samples even for a slow tool."""
    tool_seconds: float
    """Slow tools get fewer samples, so one tool and case takes about this long."""
    clock: Callable[[], float] = time.process_time
    """CPU time of this process by default: time spent preempted by other
    processes on a shared machine is not counted (``--wall`` for wall time)."""


FULL: Final = Budget(sample_seconds=0.01, repeats=51, min_repeats=5, tool_seconds=2.0)
QUICK: Final = Budget(sample_seconds=0.003, repeats=9, min_repeats=3, tool_seconds=0.3)


def _sample(
    func: Callable[[], object], number: int, clock: Callable[[], float]
) -> float:
    """Seconds for ``number`` calls of ``func``, with the collector paused."""
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in itertools.repeat(None, number):
            func()
        return clock() - start
    finally:
        if gc_was_enabled:
            gc.enable()


def _calibrate(
    func: Callable[[], object], target: float, clock: Callable[[], float]
) -> tuple[int, float]:
    """Calls per sample so one sample lasts about ``target`` seconds.

    Returns:
        The number of calls per sample, and the seconds per call seen so far.
    """
    func()  # warm-up: imports, caches, first allocations
    number = 1
    while True:
        elapsed = _sample(func, number, clock)
        if elapsed >= target / 2 or number >= 10_000_000:
            return max(1, round(number * target / elapsed)), elapsed / number
        number = min(number * 100, math.ceil(number * target / max(elapsed, 1e-7)))


def time_interleaved(
    funcs: Sequence[Callable[[], object]], budget: Budget
) -> list[float]:
    """Median seconds per call of each function, timed round robin.

    Each function is calibrated to a sample length, then samples are taken in
    rounds, one sample of each function per round (the order rotates between
    rounds), so slow drift on the machine hits every function alike. A slow
    function gets fewer samples (at least ``budget.min_repeats``).

    Args:
        funcs: Zero-argument callables; their results are discarded.
        budget: Sample length and repeats.

    Returns:
        The median seconds per call, in the order of ``funcs``.
    """
    plans: list[tuple[int, int]] = []
    for func in funcs:
        number, per_call = _calibrate(func, budget.sample_seconds, budget.clock)
        affordable = int(budget.tool_seconds / max(number * per_call, 1e-9))
        plans.append((number, max(budget.min_repeats, min(budget.repeats, affordable))))
    samples: list[list[float]] = [[] for _ in funcs]
    rounds = max((repeats for _, repeats in plans), default=0)
    for round_index in range(rounds):
        gc.collect()
        for offset in range(len(funcs)):
            i = (round_index + offset) % len(funcs)
            number, repeats = plans[i]
            if round_index < repeats:
                samples[i].append(_sample(funcs[i], number, budget.clock) / number)
    return [statistics.median(s) for s in samples]


# --------------------------------------------------------------------------
# Fixtures

_FIRST_NAMES: Final = (
    "Ada", "José", "Zoë", "Łukasz", "Søren", "Chidi", "Mei", "Anaïs",
    "Dmitri", "Aoife", "Björk", "Nguyễn", "Yuki", "Fátima", "Ólafur",
)  # fmt: skip
_LAST_NAMES: Final = (
    "Lovelace", "Núñez", "Müller", "Kowalski", "Østergaard", "Okafor", "Wang",
    "Dubois", "Ivanov", "O'Brien", "Guðmundsdóttir", "Tanaka", "Al-Sayed",
)  # fmt: skip
_CITIES: Final = (
    ("Zürich", "CH"), ("São Paulo", "BR"), ("東京", "JP"), ("Kraków", "PL"),
    ("Reykjavík", "IS"), ("Москва", "RU"), ("Lagos", "NG"), ("Montréal", "CA"),
    ("München", "DE"), ("서울", "KR"), ("Zaragoza", "ES"), ("Cork", "IE"),
)  # fmt: skip
_STREETS: Final = (
    "Hauptstraße",
    "Rue de l'Église",
    "Main St",
    "Calle Mayor",
    "Ulica Długa",
)
_TAGS: Final = (
    "vip", "beta", "newsletter", "churn-risk", "enterprise", "trial",
    "partner", "überfällig", "nuevo", "優先",
)  # fmt: skip
_NOTES: Final = (
    'Prefers "express" shipping.',
    "Called twice about invoice #{n}; resolved.",
    "Line one\nLine two",
    "Pays in €, invoices in CHF — check the rate.",
    "Tab\tseparated\tvalues requested",
    "Files live under C:\\Users\\{n}",
    "☕ before 10:00, please 🚀",
    "",
)

_PROSE_BEFORE: Final = "Sure! Here is the customer export you asked for, as JSON:\n\n"
_PROSE_AFTER: Final = "\n\nLet me know if you need it in another format."


def _record(rng: random.Random, index: int) -> dict[str, Any]:
    first, last = rng.choice(_FIRST_NAMES), rng.choice(_LAST_NAMES)
    city, country = rng.choice(_CITIES)
    orders = [
        {
            "sku": f"SKU-{rng.randrange(100_000):05d}",
            "qty": rng.randint(1, 12),
            "price": round(rng.uniform(0.5, 499.0), 2),
            "shipped": rng.random() < 0.7,
            "discount": None if rng.random() < 0.6 else round(rng.random() / 2, 3),
        }
        for _ in range(rng.randint(0, 4))
    ]
    return {
        "id": 10_000 + index,
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{index}@example.com",
        "active": rng.random() < 0.8,
        "score": round(rng.uniform(0, 100), 3),
        "balance": rng.randint(-100_000, 10_000_000) / 100,
        "tags": rng.sample(_TAGS, rng.randint(0, 4)),
        "address": {
            "street": f"{rng.choice(_STREETS)} {rng.randint(1, 250)}",
            "city": city,
            "country": country,
            "geo": {
                "lat": round(rng.uniform(-90, 90), 6),
                "lon": round(rng.uniform(-180, 180), 6),
            },
        },
        "orders": orders,
        "note": rng.choice(_NOTES).format(n=index) if rng.random() < 0.5 else None,
    }


def make_document(target_bytes: int, seed: int = 20_240_601) -> dict[str, Any]:
    """A deterministic document whose compact UTF-8 JSON is about ``target_bytes``.

    Returns:
        ``{"version", "generated", "source", "count", "records"}``; records are
        added until the serialized size reaches the target.
    """
    rng = random.Random(seed)
    records: list[dict[str, Any]] = []
    size = 120  # the envelope, roughly
    while size < target_bytes:
        record = _record(rng, len(records))
        records.append(record)
        size += len(orjson.dumps(record)) + 1
    return {
        "version": 3,
        "generated": "2024-06-01T12:00:00Z",
        "source": {
            "system": "crm",
            "region": "eu-west",
            "filters": {"active_only": False},
        },
        "count": len(records),
        "records": records,
    }


def clean_reply(document: Any) -> str:
    """The document as compact JSON text."""
    return orjson.dumps(document).decode()


def fenced_reply(document: Any) -> str:
    """Prose, a json fence with the pretty-printed document, more prose."""
    body = orjson.dumps(document, option=orjson.OPT_INDENT_2).decode()
    return f"{_PROSE_BEFORE}```json\n{body}\n```{_PROSE_AFTER}"


SIZES: Final = (("2 KB", 2_000), ("20 KB", 20_000), ("200 KB", 200_000))
SHAPES: Final[dict[str, Callable[[Any], str]]] = {
    "clean": clean_reply,
    "fenced": fenced_reply,
}


# --------------------------------------------------------------------------
# Tools


OURS: Final = "extract_json"
OURS_PARSER: Final = "JsonFenceOutputParser"


@dataclass(frozen=True, slots=True)
class Tool:
    """A parser under test: a reply in, the decoded value out."""

    name: str
    parse: Callable[[str], Any] | None
    """``None`` when the tool is not installed."""


def _json_repair_module() -> Any:
    """``json_repair`` if importable (treated as untyped), else ``None``."""
    try:
        return importlib.import_module("json_repair")
    except ImportError:
        return None


def _extract_json_value(reply: str) -> Any:
    return extract_json(reply).value


def extraction_tools() -> list[Tool]:
    """Ours (function and parser), langchain-core's parser, json_repair."""
    fence_parser = JsonFenceOutputParser()
    core_parser = JsonOutputParser()
    json_repair = _json_repair_module()
    repair: Callable[[str], Any] | None = None
    if json_repair is not None:
        repair_json = json_repair.repair_json

        def repair(reply: str) -> Any:
            return repair_json(reply, return_objects=True)

    return [
        Tool(OURS, _extract_json_value),
        Tool(OURS_PARSER, fence_parser.parse),
        Tool("JsonOutputParser", core_parser.parse),
        Tool("json_repair", repair),
    ]


# --------------------------------------------------------------------------
# Rows

Status = Literal["ok", "wrong", "error", "not installed"]


@dataclass(frozen=True, slots=True)
class Measurement:
    """One tool on one case: median seconds per call, and whether it was right."""

    status: Status
    seconds: float | None = None
    """``None`` when the tool raised or is not installed."""
    detail: str = ""
    """The exception's type, for an error."""


@dataclass(frozen=True, slots=True)
class Row:
    """One case of a section: its reply, the baseline, and each tool's result."""

    shape: str
    size: str
    reply_bytes: int
    baseline_seconds: float
    """``orjson.loads`` on the clean document of the same size."""
    results: dict[str, Measurement]

    def ratio(self, tool: str) -> float | None:
        """The tool's time over the baseline's, or ``None`` if it was not timed."""
        seconds = self.results[tool].seconds
        return None if seconds is None else seconds / self.baseline_seconds


def _canonical(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None


def check(tool: Tool, reply: str, expected: bytes) -> Measurement:
    """Run the tool once and compare its value with the expected document.

    Args:
        tool: The parser.
        reply: The reply to parse.
        expected: The expected document, as canonical (sorted-key) JSON bytes.

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
    return Measurement("ok" if _canonical(value) == expected else "wrong")


@dataclass(frozen=True, slots=True)
class Case:
    """One reply to parse, its clean counterpart (the baseline) and the answer."""

    shape: str
    size: str
    reply: str
    clean: str
    """The same document as compact JSON: ``orjson.loads(clean)`` is the baseline."""
    expected: Any


def measure_case(case: Case, tools: Sequence[Tool], budget: Budget) -> Row:
    """Check each tool on the reply, then time it against ``orjson.loads(clean)``.

    Tools that raise or are missing are not timed; a wrong answer is timed and
    marked.

    Returns:
        The case's row.

    Raises:
        ValueError: The fixture itself does not round-trip through JSON.
    """
    reply, clean, expected = case.reply, case.clean, case.expected
    canonical = _canonical(expected)
    if canonical is None or orjson.loads(clean) != expected:
        raise ValueError(f"{case.size} fixture does not round-trip through JSON")
    checked = {tool.name: check(tool, reply, canonical) for tool in tools}
    timed = [
        t
        for t in tools
        if t.parse is not None and checked[t.name].status in {"ok", "wrong"}
    ]

    def bind(parse: Callable[[str], Any]) -> Callable[[], object]:
        return lambda: parse(reply)

    funcs: list[Callable[[], object]] = [lambda: orjson.loads(clean)]
    funcs += [bind(t.parse) for t in timed if t.parse is not None]
    baseline, *times = time_interleaved(funcs, budget)
    results = dict(checked)
    for tool, seconds in zip(timed, times, strict=True):
        results[tool.name] = Measurement(checked[tool.name].status, seconds)
    return Row(case.shape, case.size, len(reply.encode()), baseline, results)


# --------------------------------------------------------------------------
# Sections


def extraction_section(budget: Budget) -> list[Row]:
    """Clean and fenced replies at each size, every extraction tool."""
    tools = extraction_tools()
    rows: list[Row] = []
    for size, target in SIZES:
        document = make_document(target)
        clean = clean_reply(document)
        for shape, render in SHAPES.items():
            case = Case(shape, size, render(document), clean, document)
            rows.append(measure_case(case, tools, budget))
    return rows


# --------------------------------------------------------------------------
# Report


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _processor() -> str:
    name = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if (not name or name == platform.machine()) and cpuinfo.is_file():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    return name or "unknown"


def environment_line() -> str:
    """Versions of everything timed, and the machine."""
    parts = [
        f"python {platform.python_version()}",
        f"orjson {_version('orjson')}",
        f"langchain-core {_version('langchain-core')}",
        f"json_repair {_version('json-repair')}",
        f"langchain-jsonrecover {_version('langchain-jsonrecover')}",
        f"{platform.machine()} ({_processor()}, {os.cpu_count()} CPUs, {platform.system()})",
    ]
    return " | ".join(parts)


def _cell(row: Row, tool: str) -> str:
    result = row.results[tool]
    if result.status == "not installed":
        return "not installed"
    if result.status == "error":
        return f"error ({result.detail})"
    ratio = row.ratio(tool)
    text = f"{ratio:.2f}x" if ratio is not None else "-"
    return text if result.status == "ok" else f"{text} WRONG"


def table(rows: Sequence[Row], *, markdown: bool) -> list[str]:
    """The rows as text lines (aligned columns, or a markdown table)."""
    tools = list(rows[0].results) if rows else []
    header = ["shape", "size", "reply", "orjson.loads", *tools]
    body = [
        [
            row.shape,
            row.size,
            f"{row.reply_bytes / 1000:.1f} KB",
            f"{row.baseline_seconds * 1e6:.0f} us",
            *(_cell(row, tool) for tool in tools),
        ]
        for row in rows
    ]
    right = [False, False, True, True, *(True for _ in tools)]
    if markdown:
        rule = ["---:" if r else "---" for r in right]
        return ["| " + " | ".join(cells) + " |" for cells in [header, rule, *body]]
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    return [
        "  ".join(
            c.rjust(w) if r else c.ljust(w)
            for c, w, r in zip(cells, widths, right, strict=True)
        ).rstrip()
        for cells in [header, *body]
    ]


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
            a, b = small.results[tool].seconds, large.results[tool].seconds
            parts.append(f"{tool} {b / a:.1f}" if a and b else f"{tool} -")
        lines.append(
            f"Linearity, {shape}: time(200 KB) / time(20 KB) = {', '.join(parts)}"
            f" (reply bytes x{large.reply_bytes / small.reply_bytes:.1f};"
            f" orjson.loads x{large.baseline_seconds / small.baseline_seconds:.1f})"
        )
    return lines


TARGETS: Final = {"clean": 1.5, "fenced": 2.5}
"""Spec: at 200 KB, our ratio to ``orjson.loads`` on the clean document."""


def target_lines(rows: Sequence[Row]) -> list[str]:
    """Each spec target beside the measured ratio, with PASS or FAIL."""
    lines: list[str] = []
    for row in rows:
        limit = TARGETS.get(row.shape)
        if row.size != "200 KB" or limit is None:
            continue
        for tool in (OURS, OURS_PARSER):
            ratio = row.ratio(tool)
            ok = (
                ratio is not None
                and ratio <= limit
                and row.results[tool].status == "ok"
            )
            shown = "-" if ratio is None else f"{ratio:.2f}x"
            lines.append(
                f"Target {row.shape} 200 KB, {tool}: <= {limit}x orjson.loads,"
                f" measured {shown}: {'PASS' if ok else 'FAIL'}"
            )
    return lines


def extraction_notes(rows: Sequence[Row]) -> list[str]:
    """Linearity and the spec's targets, under the extraction table."""
    return [*linearity_lines(rows), *target_lines(rows)]


@dataclass(frozen=True, slots=True)
class Section:
    """A table of the report: rows to time, and lines to print under them."""

    title: str
    run: Callable[[Budget], list[Row]]
    notes: Callable[[Sequence[Row]], list[str]]


# Later sections (truncated replies, streaming, repair) go here.
SECTIONS: Final = (
    Section(
        "Extraction (clean and fenced replies)", extraction_section, extraction_notes
    ),
)


def reproduce_line(args: argparse.Namespace) -> str:
    flags = "".join(
        f" --{name}" for name in ("quick", "markdown", "wall") if getattr(args, name)
    )
    return f"pip install -e '.[bench]' && python benchmarks/run.py{flags}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run every section and print the report.

    Returns:
        0, or 1 when our extractor was wrong or raised on some case.
    """
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    parser.add_argument(
        "--markdown", action="store_true", help="print tables as markdown"
    )
    parser.add_argument(
        "--wall",
        action="store_true",
        help="time wall clock (perf_counter), not CPU time",
    )
    args = parser.parse_args(argv)
    budget = QUICK if args.quick else FULL
    if args.wall:
        budget = dataclasses.replace(budget, clock=time.perf_counter)
    clock = "wall time (perf_counter)" if args.wall else "CPU time (process_time)"
    code = "`" if args.markdown else ""

    started = time.perf_counter()
    print(f"Versions: {environment_line()}")
    print(f"Reproduce: {code}{reproduce_line(args)}{code}")
    print(
        f"Cells: median {clock} per call over that of orjson.loads on the clean"
        " document of the same size (same process, interleaved); WRONG marks a"
        " value that differs from the document."
    )
    failed = False
    for section in SECTIONS:
        rows = section.run(budget)
        print()
        print(f"## {section.title}" if args.markdown else section.title)
        print()
        for line in table(rows, markdown=args.markdown):
            print(line)
        print()
        for line in section.notes(rows):
            print(f"- {line}" if args.markdown else line)
        failed = failed or any(
            row.results[tool].status != "ok"
            for row in rows
            for tool in (OURS, OURS_PARSER)
            if tool in row.results
        )
    print()
    print(
        f"Done in {time.perf_counter() - started:.1f} s ({'quick' if args.quick else 'full'} run)."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
