"""The continuation oracle at scale: right / error / wrong per entry point.

What it measures
    Issue 21's family 22: ``on_truncation="continue"`` joins a cut reply and
    its continuation only where the continuation starts at the cut, removes
    an overlap only where it is unique, and otherwise asks again for the
    whole answer; it never returns a value that no reply wrote. The
    generator in ``tests/_oracle_continuations.py`` cuts a rendered value
    after a random token and writes a continuation of one of eight kinds
    (exact, overlapping by 1-4 tokens, repeating a phrase, restarting from
    the last key, restarting the whole answer, prose after, prose before, in
    two pieces). A scripted chat model sends the cut reply with
    ``finish_reason="length"``, the continuation, then the whole answer to
    any further request. For each seed (the fixed one, 20261203, and
    ``--seed``) it runs ``--count`` cases through

    * ours: ``JsonRetryChain`` with ``JsonFenceOutputParser()`` and with
      ``repair=True``, and ``structured_output(strategy="json")``, all with
      ``on_truncation="continue"``;
    * peers: langchain-core's ``JsonOutputParser`` in the same loop, and
      ``json_repair.loads`` on the naive join (cut reply + continuation),
      when installed;

    and counts each answer as right (the original value, types included),
    error (an ``OutputParserException``: a typed error, or the retries
    exhausted) or wrong (anything else). ``missed joins`` counts the
    continuations that start exactly at the cut (no chance overlap) and did
    not give the original value: they must join.

How to run
    python benchmarks/oracle_continuations.py
    python benchmarks/oracle_continuations.py --seed 7 --count 400 --examples 3
    python benchmarks/oracle_continuations.py --markdown
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle import VERDICTS, Outcome, Verdict
from _oracle_continuations import (
    FIXED_SEED,
    KINDS,
    Case,
    Runner,
    describe,
    generate,
    our_runners,
    peer_runners,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


def run(
    runner: Runner, cases: Sequence[Case]
) -> tuple[Counter[Verdict], Counter[str], int, list[tuple[Case, Outcome]]]:
    """One entry point over the cases: verdicts, wrong per kind, missed joins."""
    verdicts: Counter[Verdict] = Counter()
    wrong_by_kind: Counter[str] = Counter()
    missed = 0
    wrong: list[tuple[Case, Outcome]] = []
    for case in cases:
        verdict, outcome = runner.judge(case)
        verdicts[verdict] += 1
        if verdict == "wrong":
            wrong_by_kind[case.kind] += 1
            wrong.append((case, outcome))
        if case.must_join and verdict != "right":
            missed += 1
    return verdicts, wrong_by_kind, missed, wrong


def _table(header: list[str], rows: list[list[str]], *, markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True))
        for row in [header, *rows]
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the oracle and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=800)
    parser.add_argument("--examples", type=int, default=0)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--ours-only", action="store_true")
    args = parser.parse_args(argv)
    runners = our_runners() + ([] if args.ours_only else peer_runners())
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        cases = generate(seed, args.count)
        joins = sum(case.must_join for case in cases)
        print(f"\nseed {seed}: {len(cases)} cases, {joins} that must join")
        rows = []
        kind_rows = []
        examples = []
        for runner in runners:
            verdicts, by_kind, missed, wrong = run(runner, cases)
            total = sum(verdicts.values())
            rows.append(
                [
                    runner.name,
                    *(
                        f"{verdicts[v]} ({100 * verdicts[v] / total:.1f} %)"
                        for v in VERDICTS
                    ),
                    str(missed),
                ]
            )
            kind_rows.append([runner.name, *(str(by_kind[k]) for k in KINDS)])
            examples += [(runner.name, c, o) for c, o in wrong[: args.examples]]
        header = ["entry point", *VERDICTS, "missed joins"]
        print(_table(header, rows, markdown=args.markdown))
        print("\nwrong per kind")
        print(_table(["entry point", *KINDS], kind_rows, markdown=args.markdown))
        for name, case, outcome in examples:
            print(f"\n{name}\n{describe(case, outcome)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
