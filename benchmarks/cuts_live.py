"""Cuts at 60 random positions, in one short run: median and the slowest.

What it measures
    ``TruncationRecoveringOutputParser().parse`` on the cuts of
    ``_live.cuts`` (60 random positions, fixed seed; the compact document, or
    the fenced reply cut inside its body) at 300 B and 30 KB: for each cut
    the median CPU time of five calls (a fresh copy of the text each) over
    that of ``orjson.loads`` on the clean payload, then the median and the
    maximum of those ratios, and which cuts were slowest. The cut rows of
    ``targets.py`` measure the same beside the peers; this one is quick, to
    follow a change to the cut path.

Run: ``python benchmarks/cuts_live.py`` (``--size '30 KB'`` for one size).

``--beside REV`` times an older revision too (imported beside this tree's
package, as ``beside.py`` does), its calls interleaved with this tree's
call by call, so that the machine's load moves both alike; each line then
gives the revision's figures and this tree's.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

# This working tree's package, not an installed one.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from _live import LIVE_SIZES, clean_payload, cuts, live_document
from beside import import_revision
from langchain_core.exceptions import OutputParserException

from langchain_jsonrecover import TruncationRecoveringOutputParser

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

CALLS: Final = 5
"""Calls per cut; the median is kept."""


def cpu_times(
    calls: Sequence[Callable[[str], object]], text: str, rounds: int
) -> list[float]:
    """The median CPU seconds of each call on a fresh copy of ``text``.

    The calls take turns, round by round.
    """
    times: list[list[float]] = [[] for _ in calls]
    for _ in range(rounds):
        for call, taken in zip(calls, times, strict=True):
            fresh = "".join([text[:1], text[1:]])  # no cached UTF-8 form
            start = time.process_time()
            # A cut that cannot be closed: its error is the result.
            with contextlib.suppress(OutputParserException):
                call(fresh)
            taken.append(time.process_time() - start)
    return [statistics.median(taken) for taken in times]


def cpu_time(call: Callable[[str], object], text: str, calls: int) -> float:
    """The median CPU seconds of ``call`` on a fresh copy of ``text``."""
    return cpu_times([call], text, calls)[0]


def _summary(ratios: list[float]) -> str:
    slowest = sorted(range(len(ratios)), key=lambda i: -ratios[i])[:3]
    return (
        f"median {statistics.median(ratios):.1f}x, max {max(ratios):.1f}x;"
        f" slowest cuts {[(i, round(ratios[i], 1)) for i in slowest]}"
    )


def report(parses: dict[str, Callable[[str], object]], wanted: Sequence[str]) -> None:
    """Print one line per size, kind of cut and parser (interleaved calls)."""
    for name, size in LIVE_SIZES:
        if name not in wanted:
            continue
        document = live_document(size)
        base = cpu_time(orjson.loads, clean_payload(document), 41)
        for fenced in (False, True):
            ratios: list[list[float]] = [[] for _ in parses]
            for cut in cuts(document, in_fence=fenced):
                for kept, taken in zip(
                    ratios, cpu_times(list(parses.values()), cut, CALLS), strict=True
                ):
                    kept.append(taken / base)
            kind = "fenced" if fenced else "compact"
            for label, kept in zip(parses, ratios, strict=True):
                print(f"{name} {kind}{label}: {_summary(kept)}")


def main() -> int:
    """Print one line per size and kind of cut (and revision, with ``--beside``)."""
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    names = [name for name, _ in LIVE_SIZES]
    parser.add_argument("--size", choices=names, action="append")
    parser.add_argument("--beside", metavar="REV", help="an older revision too")
    args = parser.parse_args()
    wanted = args.size or ["300 B", "30 KB"]
    parse = TruncationRecoveringOutputParser().parse
    if args.beside is None:
        report({"": parse}, wanted)
        return 0
    with tempfile.TemporaryDirectory(prefix="cuts-") as scratch:
        sys.path.insert(0, scratch)
        short, old = import_revision(args.beside, Path(scratch))
        old_parse = old.TruncationRecoveringOutputParser().parse
        report({f" ({short})": old_parse, " (this tree)": parse}, wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
