"""The candidate-choice oracle at scale: right / error / wrong per entry point.

What it measures
    Issue 21's contract for candidate choice and masking: an entry point
    answers the reply's intended value or raises a typed error, never a third
    value. The generator in ``tests/_oracle_candidates.py`` places a known
    answer among distractors: citations before and after it, drafts and
    format examples before it, a second value after it, glued values, JSON
    Lines in a fence, typographic and fullwidth quotes as its structure,
    markup and reasoning tokens inside its strings, reasoning blocks and
    harmony messages. Kinds are equally weighted; each case is seeded by
    ``(seed, index)``. For each seed (the fixed one, 20261130, and ``--seed``)
    it runs ``--count`` replies through

    * ours: ``extract_json``, ``JsonFenceOutputParser()`` (default and
      ``prefer="last"``, with and without ``repair``),
      ``TruncationRecoveringOutputParser()`` and its ``repair=True``, and
      ``RegexJsonOutputParser`` on the replies whose answer stands in a json
      fence;
    * ``json_repair.loads`` (optional) and langchain-core's
      ``JsonOutputParser().parse``;

    and counts each answer as right (what the entry point's documented order
    gives: the answer, or for ``prefer="first"`` a draft written before it;
    for several values in one place, only an error is right), error (our
    ``JsonRecoveryError``; for a peer any exception or an empty result) or
    wrong (anything else). Then the share of wrong values per kind, and with
    ``--examples N`` the first N wrong answers of each entry point.

How to run
    python benchmarks/oracle_candidates.py                  # both seeds
    python benchmarks/oracle_candidates.py --seed 7 --count 600 --examples 3
    python benchmarks/oracle_candidates.py --markdown --ours-only
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _oracle_table import cell, table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle_candidates import (
    FIXED_SEED,
    KINDS,
    VERDICTS,
    Case,
    Outcome,
    Runner,
    Verdict,
    describe,
    generate,
    our_runners,
    peer_runners,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


def run(
    runners: Sequence[Runner], cases: Sequence[Case]
) -> dict[str, tuple[Counter[Verdict], dict[str, Counter[Verdict]], list[Any]]]:
    """Judge every runner on every case it applies to."""
    tallies = {}
    for runner in runners:
        total: Counter[Verdict] = Counter()
        by_kind: dict[str, Counter[Verdict]] = {}
        wrong: list[tuple[Case, Outcome]] = []
        for case in cases:
            if not runner.applies(case):
                continue
            verdict, outcome = runner.judge(case)
            total[verdict] += 1
            by_kind.setdefault(case.kind, Counter())[verdict] += 1
            if verdict == "wrong":
                wrong.append((case, outcome))
        tallies[runner.name] = (total, by_kind, wrong)
    return tallies


def main(argv: Sequence[str] | None = None) -> int:
    """Run the oracle for the fixed seed and one more; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the second seed")
    parser.add_argument("--count", type=int, default=2400, help="replies per seed")
    parser.add_argument(
        "--examples", type=int, default=0, help="wrong examples per entry point"
    )
    parser.add_argument("--markdown", action="store_true", help="README-ready tables")
    parser.add_argument("--ours-only", action="store_true", help="skip the peers")
    args = parser.parse_args(argv)
    runners = our_runners() + ([] if args.ours_only else peer_runners())
    orders = {runner.name: runner.order for runner in runners}
    print(
        "command: python benchmarks/oracle_candidates.py "
        + " ".join(sys.argv[1:] if argv is None else argv)
    )
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        tallies = run(runners, generate(seed, args.count))
        title = f"candidate choice, seed {seed}: {args.count} replies"
        print(f"\n{'### ' if args.markdown else ''}{title}\n")
        rows = [
            [name, *(cell(total, v) for v in VERDICTS)]
            for name, (total, _, _) in tallies.items()
        ]
        print(table(["entry point", *VERDICTS], rows, markdown=args.markdown))
        title = f"wrong values per kind (% of that kind's replies), seed {seed}"
        print(f"\n{'### ' if args.markdown else ''}{title}\n")
        names = list(tallies)
        kind_rows = []
        for kind in KINDS:
            row = [kind]
            for name in names:
                counts = tallies[name][1].get(kind, Counter())
                n = sum(counts.values())
                row.append(f"{100 * counts['wrong'] / n:.1f}" if n else "-")
            kind_rows.append(row)
        header = ["kind", *(f"#{i + 1}" for i in range(len(names)))]
        print(table(header, kind_rows, markdown=args.markdown))
        print("\n" + "; ".join(f"#{i + 1} {n}" for i, n in enumerate(names)))
        if args.examples:
            for name, (_, _, wrong) in tallies.items():
                print(f"\n--- {name}: first {args.examples} of {len(wrong)} wrong")
                for case, outcome in wrong[: args.examples]:
                    print(describe(case, outcome, orders[name]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
