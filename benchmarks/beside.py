"""This working tree's package beside older revisions of it, in one process.

What it measures
    Each revision given (``git archive REV langchain_jsonrecover``) is copied
    into a temporary directory under another package name
    (``jsonrecover_<hash>``, its imports rewritten), so that it imports beside
    this working tree's ``langchain_jsonrecover``. Both are then timed in ONE
    process, interleaved with ``orjson.loads`` on the clean document, median of
    5 samples, on the replies of the speed tables (200 KB, or each ``--size``
    given: 300 B, 3 KB, 30 KB, 200 KB): ``clean``,
    ``fenced`` (prose and a pretty-printed fence), ``cut`` at 70 %, the
    eight-fault ``repair`` reply and the ``dense repair`` reply (``_faults.py``).
    On each, ``extract_json`` (clean and fenced only: it neither repairs nor
    closes a cut) and the parser for that reply (``JsonFenceOutputParser``;
    ``TruncationRecoveringOutputParser`` on the cut; ``repair=True`` on the
    faulty replies). A cell is the ratio to ``orjson.loads`` (the method is in
    the README, "Benchmarks"); ``new/REV`` is this tree's time over that
    revision's, the median of the ratios of samples taken side by side: under
    1 is faster now. Given ``HEAD`` (the same code as a clean working tree),
    ``new/HEAD`` shows how far the noise alone moves that figure. A value
    other than the expected one is marked WRONG, an exception shows its type.

How to run
    python benchmarks/beside.py 5b464de            # one old revision
    python benchmarks/beside.py 5b464de HEAD --markdown  # HEAD: the noise
    python benchmarks/beside.py 5b464de --quick    # three samples, shorter
    python benchmarks/beside.py 0f15d67 --size '300 B' --size '30 KB'
    python benchmarks/beside.py 0f15d67 --live --size '300 B' --size '30 KB'
    python benchmarks/beside.py 0f15d67 --live --quick --size '300 B' --prose

    ``--live`` times the replies of the live targets instead (``_live.py``:
    pretty-printed, clean, fenced, after a ``<think>`` block with repair, and
    each slip, without repair, where the typed error is the result, and with).
    ``--prose`` adds a megabyte of JSON-like prose (the targets' last row: the
    typed error is the result; ``orjson.loads`` on the pretty-printed 1 MB
    document is the baseline).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

# This working tree's package, not an installed one.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from _data import (
    canonical,
    clean_reply,
    fenced_reply,
    make_document,
    truncated_reply,
)
from _faults import dense_reply, faulty_reply
from _live import (
    SLIPS,
    clean_payload,
    fenced,
    json_like_prose,
    live_document,
    slipped,
    think,
)
from _report import environment_line, render
from _timing import MEDIAN_OF_5, QUICK, Budget, FreshCall, sample_interleaved
from langchain_core.exceptions import OutputParserException

import langchain_jsonrecover

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType

REPO: Final = Path(__file__).resolve().parents[1]
PACKAGE: Final = "langchain_jsonrecover"
SIZES: Final = {"300 B": 300, "3 KB": 3_000, "30 KB": 30_000, "200 KB": 200_000}
"""The sizes ``--size`` takes: the compact document's bytes (a reply has 300 B to
30 KB; 200 KB is the large row of the speed tables)."""


def _git(*args: str) -> bytes:
    done = subprocess.run(  # noqa: S603 - git with our own arguments
        ["git", "-C", str(REPO), *args],  # noqa: S607 - git from PATH
        check=True,
        capture_output=True,
    )
    return done.stdout


def import_revision(revision: str, into: Path) -> tuple[str, ModuleType]:
    """The package at ``revision``, imported as ``jsonrecover_<hash>``.

    Args:
        revision: Anything ``git rev-parse`` takes.
        into: A directory on ``sys.path`` to copy the package into.

    Returns:
        The revision's short hash, and the imported package.
    """
    short = _git("rev-parse", "--short", f"{revision}^{{commit}}").decode().strip()
    name = f"jsonrecover_{short}"
    archive = _git("archive", "--format=tar", short, PACKAGE)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into / short, filter="data")
    target = into / name
    (into / short / PACKAGE).rename(target)
    pattern = re.compile(rf"\b{PACKAGE}\b")
    for source in target.rglob("*.py"):
        source.write_text(pattern.sub(name, source.read_text("utf-8")), "utf-8")
    return short, importlib.import_module(name)


@dataclass(frozen=True, slots=True)
class Reply:
    """A 200 KB reply, its expected value, and which parser reads it."""

    name: str
    text: str
    clean: str
    """The compact JSON of the document the reply writes (before any cut):
    ``orjson.loads`` on it is the baseline."""
    expected: bytes
    parser: str
    """A parser class of the package."""
    options: dict[str, Any]
    """Its constructor's arguments."""
    extract: bool
    """Whether ``extract_json`` reads it too."""
    raises: bool = False
    """The reply has no answer: the parser's typed error is the result timed."""


def replies(size: str = "200 KB") -> list[Reply]:
    """Clean, fenced, cut, eight-fault repair and dense repair, at ``size``."""
    document = make_document(SIZES[size])
    cut = truncated_reply(document)
    partial = importlib.import_module("pydantic_core").from_json(
        cut, allow_partial="trailing-strings"
    )
    fence, truncation = "JsonFenceOutputParser", "TruncationRecoveringOutputParser"
    clean, expected = clean_reply(document), _bytes(document)
    repair = {"repair": True}
    rows = [
        Reply("clean", clean, clean, expected, fence, {}, extract=True),
        Reply(
            "fenced", fenced_reply(document), clean, expected, fence, {}, extract=True
        ),
        Reply(
            "cut at 70 %", cut, clean, _bytes(partial), truncation, {}, extract=False
        ),
    ]
    try:
        faulty, fixed = faulty_reply(document)
        dense, _ = dense_reply(document)
    except ValueError:  # a document too small for the eight faults: no repair rows
        return rows
    return [
        *rows,
        Reply(
            "8-fault repair",
            faulty,
            clean_reply(fixed),
            _bytes(fixed),
            fence,
            repair,
            extract=False,
        ),
        Reply("dense repair", dense, clean, expected, fence, repair, extract=False),
    ]


def live_replies(size: str) -> list[Reply]:
    """The replies of ``_live.py`` at ``size``: clean, fenced, ``<think>`` with
    repair, and each slip without repair (the error) and with it."""
    document = live_document(SIZES[size])
    clean, expected = clean_payload(document), _bytes(document)
    fence, repair = "JsonFenceOutputParser", {"repair": True}
    rows = [
        Reply("clean", clean, clean, expected, fence, {}, extract=False),
        Reply("fenced", fenced(document), clean, expected, fence, {}, extract=False),
        Reply(
            "<think>", think(document), clean, expected, fence, repair, extract=False
        ),
    ]
    for slip in SLIPS:
        with contextlib.suppress(ValueError):  # a document too small for it
            text = slipped(document, slip)
            strict = {"repair": False}  # the error: the default would repair it
            error = Reply(
                f"{slip} (error)", text, clean, b"", fence, strict, extract=False
            )
            rows.append(dataclasses.replace(error, raises=True))
            rows.append(
                Reply(slip, text, clean, expected, fence, repair, extract=False)
            )
    return rows


def prose_reply() -> Reply:
    """A megabyte of JSON-like prose (``_live.py``): the error is the result.

    The baseline is the targets' (``targets.py``): ``orjson.loads`` on the
    pretty-printed 1 MB document.
    """
    clean = clean_payload(live_document(1_000_000))
    fence = "JsonFenceOutputParser"
    text = json_like_prose()
    return Reply(
        "JSON-like prose", text, clean, b"", fence, {}, extract=True, raises=True
    )


def _bytes(value: Any) -> bytes:
    found = canonical(value)
    if found is None:
        raise ValueError("expected value is not JSON")
    return found


def _calls(package: ModuleType, reply: Reply) -> dict[str, Callable[[str], Any]]:
    """``extract_json`` (where it applies) and the reply's parser, of a package.

    A package without one of them (an older revision) leaves it out.
    """
    calls: dict[str, Callable[[str], Any]] = {}
    if reply.extract and hasattr(package, "extract_json"):
        extract = package.extract_json
        calls["extract_json"] = lambda text: extract(text).value
        if reply.raises:
            calls["extract_json"] = _erring(calls["extract_json"])
    options = ", ".join(f"{k}={v}" for k, v in reply.options.items())
    with contextlib.suppress(AttributeError, TypeError, ValueError):
        parser = getattr(package, reply.parser)(**reply.options)
        name = f"{reply.parser}({options}).parse"
        calls[name] = _erring(parser.parse) if reply.raises else parser.parse
    return calls


def _erring(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` that returns its typed error (a reply with no answer)."""

    def call(text: str) -> Any:
        try:
            return parse(text)
        except OutputParserException as exc:
            return exc

    return call


def _checked(call: Callable[[str], Any], reply: Reply) -> str:
    """``ok``, ``WRONG`` or the exception's type, from one call."""
    try:
        value = call(reply.text)
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report
        return type(exc).__name__
    if reply.raises:
        return "ok" if isinstance(value, OutputParserException) else "WRONG"
    return "ok" if canonical(value) == reply.expected else "WRONG"


def _cell(ratio: float, status: str) -> str:
    return f"{ratio:.2f}x" + ("" if status == "ok" else f" {status}")


def measure(
    reply: Reply, packages: Sequence[ModuleType], budget: Budget
) -> list[list[str]]:
    """One table row per call: each package's ratio, then new over each old.

    A ratio to ``orjson.loads`` is a median over the baseline's; new over old
    is the median of the ratios within each round (samples taken side by
    side), which drift on the machine moves less.
    """
    funcs: list[Callable[[], object]] = [FreshCall(orjson.loads, reply.clean)]
    slots: dict[tuple[int, str], int] = {}
    statuses: dict[tuple[int, str], str] = {}
    per_package = [_calls(package, reply) for package in packages]
    names = list(per_package[0])
    for name in names:  # one call's packages side by side in each round
        for index, calls in enumerate(per_package):
            call = calls.get(name)
            status = "missing" if call is None else _checked(call, reply)
            statuses[index, name] = status
            if call is not None and status in {"ok", "WRONG"}:
                slots[index, name] = len(funcs)
                funcs.append(FreshCall(call, reply.text))
    samples = sample_interleaved(funcs, budget)
    base = statistics.median(samples[0])
    rows = []
    for name in names:
        found = [
            samples[slots[i, name]] if (i, name) in slots else None
            for i in range(len(packages))
        ]
        cells = [
            statuses[i, name]
            if s is None
            else _cell(statistics.median(s) / base, statuses[i, name])
            for i, s in enumerate(found)
        ]
        new = found[0]
        versus = [
            "-" if new is None or old is None else f"{_paired(new, old):.2f}"
            for old in found[1:]
        ]
        rows.append([reply.name, name, f"{base * 1e6:.0f} us", *cells, *versus])
    return rows


def _paired(new: Sequence[float], old: Sequence[float]) -> float:
    """The median of ``new[i] / old[i]`` over the rounds both were sampled in."""
    return statistics.median(a / b for a, b in zip(new, old, strict=False))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table for the revisions given."""
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("revisions", nargs="+", metavar="REV")
    parser.add_argument("--quick", action="store_true", help="three shorter samples")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    parser.add_argument(
        "--size",
        action="append",
        choices=list(SIZES),
        help="a document size (repeat for several; default 200 KB)",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="the replies of the live targets (pretty-printed, with slips)",
    )
    parser.add_argument(
        "--prose",
        action="store_true",
        help="a megabyte of JSON-like prose too (the targets' last row; alone "
        "when no --size is given)",
    )
    args = parser.parse_args(argv)
    sizes: list[str] = args.size or ([] if args.prose else ["200 KB"])
    budget = QUICK if args.quick else MEDIAN_OF_5
    with tempfile.TemporaryDirectory(prefix="beside-") as scratch:
        sys.path.insert(0, scratch)
        olds = [import_revision(rev, Path(scratch)) for rev in args.revisions]
        packages = [langchain_jsonrecover, *(module for _, module in olds)]
        hashes = [short for short, _ in olds]
        header = ["size", "reply", "call", "orjson.loads", "new", *hashes]
        header += [f"new/{short}" for short in hashes]
        body = [
            [size, *row]
            for size in sizes
            for reply in (live_replies(size) if args.live else replies(size))
            for row in measure(reply, packages, budget)
        ]
        if args.prose:
            body += [["1 MB", *row] for row in measure(prose_reply(), packages, budget)]
    right = [False, False, False, *(True for _ in header[3:])]
    code = "`" if args.markdown else ""
    print(f"Versions: {environment_line()}")
    where = Path(langchain_jsonrecover.__file__).parent
    shown = where.relative_to(REPO) if where.is_relative_to(REPO) else where
    print(f"new: {shown}")
    flags = (" --quick" if args.quick else "") + (" --live" if args.live else "")
    flags += " --prose" if args.prose else ""
    revs = " ".join(args.revisions)
    if args.size:
        revs += "".join(f" --size '{size}'" for size in sizes)
    print(
        f"Reproduce: {code}python benchmarks/beside.py {revs}{flags}{' --markdown' if args.markdown else ''}{code}"
    )
    print()
    for line in render(header, body, right, markdown=args.markdown):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
