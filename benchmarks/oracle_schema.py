"""The schema-reading oracle at scale: right / error / wrong per entry point.

What it measures
    Issue 21's contract for reading a value against a schema (families 6-10):
    the intended value or a typed error, never a third value. The generator in
    ``tests/_oracle_schema.py`` builds (pydantic model, value) replies: the
    value in every envelope kind, with keys spelt otherwise, enum values in
    another case, JSON in strings, unit-suffixed keys, wrappers of the opposite
    meaning (``exclude``, ``errors``, ``previous``, ``example``), two keys for
    one field, an invalid outer value around an inner call, a syntax slip; and
    distractors around it (citations, format examples, placeholders, a second
    value). Each case goes through

    * ours: ``JsonFenceOutputParser(pydantic_object=M)``, with and without
      ``repair=True``, ``TruncationRecoveringOutputParser(pydantic_object=M)``
      and ``structured_output(model, M)`` over a scripted fake chat model (one
      attempt, the JSON strategy);
    * ``json_repair.loads`` then ``M.model_validate`` (optional) and
      langchain-core's ``PydanticOutputParser(pydantic_object=M)``;

    and counts each answer as right (the original value as the validated
    model), error (one of our typed errors; for a peer, any exception) or wrong
    (anything else). A reply that does not say the value (a unit-suffixed key,
    a wrapper of the opposite meaning, two keys for one field, an invalid outer
    value) has no right answer: only an error passes.

How to run
    python benchmarks/oracle_schema.py                # both seeds, seconds
    python benchmarks/oracle_schema.py --seed 7 --examples 5 --ours-only
    python benchmarks/oracle_schema.py --markdown     # tables for the README
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from _oracle_table import cell, table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle_schema import (
    FIXED_SEED,
    VARIANTS,
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


def run_seed(
    seed: int,
    count: int,
    runners: Sequence[Runner],
    *,
    markdown: bool,
    examples: int,
) -> int:
    """Print one seed's tables; the number of wrong answers of ours."""
    cases: list[Case] = generate(seed, count)
    answerable = sum(case.intended is not None for case in cases)
    totals: dict[str, Counter[Verdict]] = {}
    by_variant: dict[str, dict[str, Counter[Verdict]]] = {}
    wrong: dict[str, list[tuple[Case, Outcome]]] = {}
    for runner in runners:
        totals[runner.name] = Counter()
        by_variant[runner.name] = {}
        wrong[runner.name] = []
        for case in cases:
            verdict, outcome = runner.judge(case)
            totals[runner.name][verdict] += 1
            by_variant[runner.name].setdefault(case.variant, Counter())[verdict] += 1
            if verdict == "wrong":
                wrong[runner.name].append((case, outcome))
    title = (
        f"schema-reading replies, seed {seed}: {count} replies, "
        f"{answerable} with a right answer"
    )
    print(f"\n{'### ' if markdown else ''}{title}\n")
    rows = [[name, *(cell(c, v) for v in VERDICTS)] for name, c in totals.items()]
    print(table(["entry point", *VERDICTS], rows, markdown=markdown))
    print(f"\n{'### ' if markdown else ''}wrong per variant, seed {seed}\n")
    names = list(totals)
    rows = [
        [variant, *(str(by_variant[n].get(variant, Counter())["wrong"]) for n in names)]
        for variant in VARIANTS
    ]
    print(
        table(
            ["variant", *(f"#{i + 1}" for i in range(len(names)))],
            rows,
            markdown=markdown,
        )
    )
    print("\n" + "; ".join(f"#{i + 1} {name}" for i, name in enumerate(names)))
    for name, found in wrong.items():
        if examples and found:
            print(f"\n--- {name}: first {examples} of {len(found)} wrong, seed {seed}")
            for case, outcome in found[:examples]:
                print(describe(case, outcome))
    ours = {runner.name for runner in runners if runner.ours}
    return sum(len(found) for name, found in wrong.items() if name in ours)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the oracle on the fixed seed and ``--seed``; 1 if ours gave a wrong value."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the second seed")
    parser.add_argument("--count", type=int, default=3400, help="replies per seed")
    parser.add_argument("--markdown", action="store_true", help="README-ready tables")
    parser.add_argument("--ours-only", action="store_true", help="skip the peers")
    parser.add_argument("--examples", type=int, default=0, help="wrong answers shown")
    args = parser.parse_args(argv)
    runners = our_runners() if args.ours_only else [*our_runners(), *peer_runners()]
    wrong = 0
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        wrong += run_seed(
            seed, args.count, runners, markdown=args.markdown, examples=args.examples
        )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
