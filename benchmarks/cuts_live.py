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
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

# This working tree's package, not an installed one.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson
from _live import LIVE_SIZES, clean_payload, cuts, live_document
from langchain_core.exceptions import OutputParserException

from langchain_jsonrecover import TruncationRecoveringOutputParser

if TYPE_CHECKING:
    from collections.abc import Callable

CALLS: Final = 5
"""Calls per cut; the median is kept."""


def cpu_time(call: Callable[[str], object], text: str, calls: int) -> float:
    """The median CPU seconds of ``call`` on a fresh copy of ``text``."""
    times = []
    for _ in range(calls):
        fresh = "".join([text[:1], text[1:]])  # no cached UTF-8 form
        start = time.process_time()
        # A cut that cannot be closed: its error is the result.
        with contextlib.suppress(OutputParserException):
            call(fresh)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> int:
    """Print one line per size and kind of cut."""
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    names = [name for name, _ in LIVE_SIZES]
    parser.add_argument("--size", choices=names, action="append")
    wanted = parser.parse_args().size or ["300 B", "30 KB"]
    parse = TruncationRecoveringOutputParser().parse
    for name, size in LIVE_SIZES:
        if name not in wanted:
            continue
        document = live_document(size)
        base = cpu_time(orjson.loads, clean_payload(document), 41)
        for fenced in (False, True):
            ratios = [
                cpu_time(parse, cut, CALLS) / base
                for cut in cuts(document, in_fence=fenced)
            ]
            slowest = sorted(range(len(ratios)), key=lambda i: -ratios[i])[:3]
            print(
                f"{name} {'fenced' if fenced else 'compact'}:"
                f" median {statistics.median(ratios):.1f}x,"
                f" max {max(ratios):.1f}x;"
                f" slowest cuts {[(i, round(ratios[i], 1)) for i in slowest]}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
