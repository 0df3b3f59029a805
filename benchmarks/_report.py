"""Report helpers: versions and machine, cells, markdown or plain tables, sections.

A :class:`Section` is one table of the report: a title, a function that builds
its rows with a :class:`~_timing.Budget`, and the lines printed under it.
:func:`run_sections` is the ``main`` of every script: it parses the shared
options (``--quick``, ``--markdown``, ``--wall``), prints the versions and the
command that reproduces the output, then each section's table and notes.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from _timing import FULL, Budget, choose_budget

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from _cases import Row


def version(dist: str) -> str:
    """The installed version of a distribution, or ``not installed``."""
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
        f"orjson {version('orjson')}",
        f"langchain-core {version('langchain-core')}",
        f"json_repair {version('json-repair')}",
        f"fast-json-repair {version('fast-json-repair')}",
        f"langchain-jsonrecover {version('langchain-jsonrecover')}",
        f"{platform.machine()} ({_processor()}, {os.cpu_count()} CPUs, {platform.system()})",
    ]
    return " | ".join(parts)


def milliseconds(seconds: float) -> str:
    """``12.3 ms``, or ``1,234 ms`` from 100 ms on."""
    ms = seconds * 1e3
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:,.0f} ms"


def number(value: float) -> str:
    """Two decimals under 10, one under 100, none above."""
    if value < 10:
        return f"{value:.2f}"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def render(
    header: Sequence[str],
    body: Sequence[Sequence[str]],
    right: Sequence[bool],
    *,
    markdown: bool,
) -> list[str]:
    """A table as lines: a markdown table, or columns aligned with spaces.

    Args:
        header: The column titles.
        body: The rows, one cell per column.
        right: Per column, whether it is aligned right (numbers).
        markdown: A markdown table instead of aligned columns.

    Returns:
        The lines.
    """
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


def cell(row: Row, tool: str, mismatch: str, *, absolute: bool = False) -> str:
    """A tool's cell: its ratio (or its time and ratio), or why it has none.

    A tool the row does not carry (timed on other rows of the table) is "-".
    """
    result = row.results.get(tool)
    if result is None:
        return "-"
    if result.status == "not installed":
        return "not installed"
    if result.status == "error":
        return f"error ({result.detail})"
    if result.status == "skipped":
        return f"skipped ({result.detail})"
    ratio = row.ratio(tool)
    if ratio is None or result.seconds is None:
        text = "-"
    elif absolute:
        text = f"{milliseconds(result.seconds)} ({number(ratio)}x)"
    else:
        text = f"{ratio:.2f}x"
    if result.status == "stopped":
        return f"> {text.replace('(', '(> ')} stopped after {result.detail}"
    return text if result.status == "ok" else f"{text} {mismatch}"


def _matching(row: Row) -> str:
    """Which installed tools gave the expected value: ``all``, ``all but …``."""
    installed = [
        t
        for t, r in row.results.items()
        if r.status not in {"not installed", "skipped"}
    ]
    others = [t for t in installed if row.results[t].status != "ok"]
    if not others:
        return "all"
    if len(others) == len(installed):
        return "none"
    return "all but " + ", ".join(others)


def table(
    rows: Sequence[Row],
    *,
    markdown: bool,
    mismatch: str = "WRONG",
    check_column: str | None = None,
    absolute: bool = False,
) -> list[str]:
    """The rows as text lines (aligned columns, or a markdown table).

    Args:
        rows: One per case.
        markdown: A markdown table instead of aligned columns.
        mismatch: Appended to the cell of a tool whose value is not the
            expected one.
        check_column: When given, the title of a last column saying which
            tools gave the expected value.
        absolute: Cells give the time in ms, then the ratio in parentheses.

    Returns:
        The lines.
    """
    # Every tool of any row, in the order first seen: rows may time fewer.
    tools = list(dict.fromkeys(tool for row in rows for tool in row.results))
    extra = [title for title, _ in rows[0].extra] if rows else []
    header = ["shape", "size", "reply", *extra, "orjson.loads", *tools]
    body = [
        [
            row.shape,
            row.size,
            f"{row.reply_bytes / 1000:.1f} KB",
            *(text for _, text in row.extra),
            f"{row.baseline_seconds * 1e6:.0f} us",
            *(cell(row, tool, mismatch, absolute=absolute) for tool in tools),
            *([_matching(row)] if check_column is not None else []),
        ]
        for row in rows
    ]
    right = [False, False, True, *(True for _ in extra), True, *(True for _ in tools)]
    if check_column is not None:
        header.append(check_column)
        right.append(False)
    return render(header, body, right, markdown=markdown)


def target_line(label: str, row: Row, tool: str, limit: float) -> str:
    """``Target …: <= 1.5x orjson.loads, measured 1.39x: PASS`` for one tool."""
    ratio = row.ratio(tool)
    ok = ratio is not None and ratio <= limit and row.results[tool].status == "ok"
    shown = "-" if ratio is None else f"{ratio:.2f}x"
    return (
        f"Target {label}, {tool}: <= {limit:g}x orjson.loads,"
        f" measured {shown}: {'PASS' if ok else 'FAIL'}"
    )


def differences(value: Any, expected: Any, path: str = "") -> Iterator[str]:
    """Where ``value`` differs from ``expected``: a path and both values each."""
    if isinstance(value, dict) and isinstance(expected, dict):
        for key in [*expected, *(k for k in value if k not in expected)]:
            where = f"{path}.{key}"
            if key not in value:
                yield f"{where} missing"
            elif key not in expected:
                yield f"{where} not expected"
            else:
                yield from differences(value[key], expected[key], where)
    elif isinstance(value, list) and isinstance(expected, list):
        for index, (got, want) in enumerate(zip(value, expected, strict=False)):
            yield from differences(got, want, f"{path}[{index}]")
        if len(value) != len(expected):
            yield f"{path or 'value'}: {len(value)} items, expected {len(expected)}"
    elif type(value) is not type(expected) or value != expected:
        yield f"{path or 'value'} = {value!r:.60} (expected {expected!r:.60})"


@dataclass(frozen=True, slots=True)
class Section:
    """A table of the report: rows to time, and lines to print under them."""

    title: str
    run: Callable[[Budget], list[Row]]
    notes: Callable[[Sequence[Row]], list[str]]
    ours: tuple[str, ...]
    """Our tools: a value other than the expected one, or an error, fails the run."""
    mismatch: str = "WRONG"
    """The mark beside a value other than the expected one."""
    check_column: str | None = None
    """The title of a column saying which tools gave the expected value."""
    absolute: bool = False
    """Cells give the time in ms, then the ratio to ``orjson.loads``."""
    budget: Budget = FULL
    """The budget of a full run (``--quick`` replaces it)."""


CELLS: Final = (
    "Cells: median {clock} per call over that of orjson.loads on the clean"
    " document of the same size (for a truncated reply: the whole document"
    " before the cut; same process, interleaved); WRONG marks a value that"
    " differs from the document, and in the truncated section 'differs'"
    " marks a value other than pydantic-core's partial parse of the cut"
    " (our semantics; others may legitimately differ). In the streaming"
    " section a cell is the total time of one streamed reply, then that"
    " ratio; '>' marks a run stopped at its time budget (a lower bound)."
)


def print_section(section: Section, rows: Sequence[Row], *, markdown: bool) -> bool:
    """Print a section's title, table and notes.

    Returns:
        Whether one of our tools gave another value or raised on some row.
    """
    print()
    print(f"## {section.title}" if markdown else section.title)
    print()
    lines = table(
        rows,
        markdown=markdown,
        mismatch=section.mismatch,
        check_column=section.check_column,
        absolute=section.absolute,
    )
    for line in lines:
        print(line)
    print()
    for line in section.notes(rows):
        print(f"- {line}" if markdown else line)
    return any(
        row.results[tool].status != "ok"
        for row in rows
        for tool in section.ours
        if tool in row.results
    )


def run_sections(
    sections: Sequence[Section],
    argv: Sequence[str] | None = None,
    *,
    script: str,
    doc: str | None,
) -> int:
    """The ``main`` of a benchmark script: time and print each section.

    Args:
        sections: The tables to print, in order.
        argv: The command-line arguments (``None``: ``sys.argv``).
        script: The script's path (its ``__file__``), for the reproduce line.
        doc: The script's docstring; its first line is the ``--help`` text.

    Returns:
        0, or 1 when one of our tools was wrong or raised on some case.
    """
    description = (doc or "").partition("\n")[0] or None
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter samples")
    parser.add_argument(
        "--markdown", action="store_true", help="print tables as markdown"
    )
    parser.add_argument(
        "--wall", action="store_true", help="time wall clock (perf_counter), not CPU"
    )
    args = parser.parse_args(argv)
    flags = "".join(
        f" --{name}" for name in ("quick", "markdown", "wall") if getattr(args, name)
    )
    code = "`" if args.markdown else ""
    started = time.perf_counter()
    print(f"Versions: {environment_line()}")
    print(
        f"Reproduce: {code}pip install -e '.[bench]' &&"
        f" python benchmarks/{Path(script).name}{flags}{code}"
    )
    clock = "wall time (perf_counter)" if args.wall else "CPU time (process_time)"
    print(CELLS.format(clock=clock))
    failed = False
    for section in sections:
        budget = choose_budget(quick=args.quick, wall=args.wall, base=section.budget)
        rows = section.run(budget)
        failed = print_section(section, rows, markdown=args.markdown) or failed
    run = "quick" if args.quick else "full"
    print()
    print(f"Done in {time.perf_counter() - started:.1f} s ({run} run).")
    return 1 if failed else 0
