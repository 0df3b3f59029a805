"""The path of one fenced parse through the package: modules, calls, calls back up.

What it measures
    One ``JsonFenceOutputParser(pydantic_object=Person, repair=True).parse``
    of a fenced reply, after a first parse has loaded and cached everything,
    under ``sys.setprofile``. It counts:

    * the package modules the parse runs code in (modules touched);
    * the calls from one package module into another (cross-module calls;
      a generator resumed by another module counts as a call, as the
      profiler sees it);
    * the calls back up: a call into a module that is already further down
      the stack (a callback, or a generator its caller's caller made).

    Two replies: a clean fence, and a fence whose JSON has a trailing comma
    (the repair path). ``-v`` prints each edge ``caller -> callee: count``.

Run: ``python benchmarks/parse_path.py [-v]``. Pure counts, no timing: the same
code gives the same figures on any machine.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser

if TYPE_CHECKING:
    from types import FrameType

REPLIES = {
    "clean fence": 'Here it is:\n```json\n{"name": "Ada", "age": 36}\n```',
    "trailing comma": 'Here it is:\n```json\n{"name": "Ada", "age": 36,}\n```',
}
PACKAGE = "langchain_jsonrecover"


class Person(BaseModel):
    """The schema of the parse."""

    name: str
    age: int


def _module(frame: FrameType | None) -> str:
    return "" if frame is None else str(frame.f_globals.get("__name__", ""))


def measure(reply: str) -> tuple[set[str], Counter[tuple[str, str]], int]:
    """The modules one parse touches, its cross-module calls, its calls back up."""
    parser = JsonFenceOutputParser(pydantic_object=Person, repair=True)
    parser.parse(reply)  # imports and caches out of the count
    touched: set[str] = set()
    edges: Counter[tuple[str, str]] = Counter()
    back = 0

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        nonlocal back
        if event != "call":
            return
        callee, caller = _module(frame), _module(frame.f_back)
        if not callee.startswith(PACKAGE):
            return
        touched.add(callee)
        if not caller.startswith(PACKAGE) or caller == callee:
            return
        edges[caller, callee] += 1
        below = frame.f_back.f_back if frame.f_back else None
        while below is not None:
            if _module(below) == callee:
                back += 1
                break
            below = below.f_back

    sys.setprofile(profile)
    try:
        parser.parse(reply)
    finally:
        sys.setprofile(None)
    return touched, edges, back


def main() -> None:
    """Print the figures for each reply."""
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("-v", action="store_true", help="print every edge")
    verbose = args.parse_args().v
    for name, reply in REPLIES.items():
        touched, edges, back = measure(reply)
        print(
            f"{name}: {len(touched)} modules touched, "
            f"{sum(edges.values())} cross-module calls, {back} calls back up"
        )
        if verbose:
            for (caller, callee), count in sorted(edges.items()):
                print(f"    {caller} -> {callee}: {count}")


if __name__ == "__main__":
    main()
