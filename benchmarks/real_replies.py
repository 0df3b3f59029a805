"""Score the real-replies corpus: right, error and wrong per contender and class.

What it measures
    Every case of ``tests/data/real_replies.jsonl`` (replies that broke JSON
    parsing in public issue threads, paraphrased and labelled; see
    ``tests/_real_replies.py``) is run through four contenders, scored by the
    same function the test uses:

    * ``ours repair=False``: ``JsonFenceOutputParser(pydantic_object=schema,
      repair=False)``, or ``TruncationRecoveringOutputParser`` fed the reply as
      an ``AIMessage`` with ``finish_reason == "length"`` when the case was cut
      off;
    * ``ours (default)``: the same at the default level (``repair="safe"``:
      only the repairs with one reading);
    * ``ours repair=True``: the same with every repair, the guesses too;
    * ``json_repair``: ``json_repair.loads(reply)``, then the case's schema
      (pydantic lax validation) when it has one;
    * ``langchain-core``: ``JsonOutputParser().parse(reply)``, then the same.

    ``right`` is the labelled value (on a case labelled "error", raising);
    ``error`` is an exception where a value was expected; ``wrong`` is any
    other value, the outcome that matters most, since a wrong value passes
    validation and nobody asks again.

How to run
    pip install -e '.[bench]'                 # json-repair is optional
    python benchmarks/real_replies.py         # totals, then per class
    python benchmarks/real_replies.py --markdown   # the README's tables
    python benchmarks/real_replies.py --failures   # our non-right cases
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _real_replies import (
    CONTENDERS,
    Outcome,
    RealCase,
    Scored,
    load_real_cases,
    score,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

OURS: Final = "ours repair=True"
Tally = collections.Counter[Outcome]


def available_contenders() -> list[str]:
    names = list(CONTENDERS)
    if importlib.util.find_spec("json_repair") is None:
        names.remove("json_repair")
    return names


def cell(tally: Tally, total: int) -> str:
    right = tally["right"]
    return (
        f"{right}/{total} ({100 * right / total:.0f}%), "
        f"{tally['error']} error, {tally['wrong']} wrong"
    )


def table(rows: list[list[str]], *, markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(row) + " |" for row in rows]
        lines.insert(1, "|" + "---|" * len(rows[0]))
        return "\n".join(lines)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(text.ljust(width) for text, width in zip(row, widths, strict=True))
        for row in rows
    )


def report(
    cases: list[RealCase],
    results: dict[str, dict[str, Scored]],
    contenders: list[str],
    *,
    markdown: bool,
) -> str:
    overall = [["contender", "right", "error", "wrong"]]
    for name in contenders:
        tally = Tally(results[name][case.id].outcome for case in cases)
        overall.append(
            [
                name,
                f"{tally['right']}/{len(cases)} ({100 * tally['right'] / len(cases):.0f}%)",
                str(tally["error"]),
                str(tally["wrong"]),
            ]
        )
    by_class: dict[str, list[RealCase]] = collections.defaultdict(list)
    for case in cases:
        by_class[case.cls].append(case)
    classes = [["class", "cases", *contenders]]
    for cls, members in sorted(by_class.items(), key=lambda item: -len(item[1])):
        classes.append(
            [
                cls,
                str(len(members)),
                *(
                    cell(
                        Tally(results[name][case.id].outcome for case in members),
                        len(members),
                    )
                    for name in contenders
                ),
            ]
        )
    labelled_error = sum(case.expect == "error" for case in cases)
    head = (
        f"{len(cases)} real replies ({labelled_error} labelled error) from "
        f"{len({case.source for case in cases})} public threads"
    )
    return "\n\n".join(
        [head, table(overall, markdown=markdown), table(classes, markdown=markdown)]
    )


def failures(cases: list[RealCase], results: dict[str, Scored]) -> str:
    blocks = []
    for case in cases:
        scored = results[case.id]
        if scored.outcome != "right":
            expected = case.expected if case.expect == "value" else "an error"
            blocks.append(
                f"{case.id} [{case.cls}] {scored.outcome.upper()}  {case.source}\n"
                f"  schema: {case.schema}  cut_off: {case.cut_off}\n"
                f"  reply:  {case.input!r}\n"
                f"  want:   {expected!r}\n"
                f"  got:    {scored.got}"
            )
    return "\n\n".join(blocks) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Score the real-replies corpus per contender and class."
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print tables as markdown"
    )
    parser.add_argument(
        "--failures",
        action="store_true",
        help=f"list the cases '{OURS}' does not get right, with reply and result",
    )
    args = parser.parse_args(argv)
    cases = load_real_cases()
    contenders = available_contenders()
    results = {
        name: {case.id: score(case, name) for case in cases} for name in contenders
    }
    print(report(cases, results, contenders, markdown=args.markdown))
    if len(contenders) < len(CONTENDERS):
        print("\n(json_repair not installed: pip install -e '.[bench]')")
    if args.failures:
        print(f"\nCases '{OURS}' does not get right:\n")
        print(failures(cases, results[OURS]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
