"""The fault-injection oracle at scale: right / error / wrong per parser.

What it measures
    Issue 10's contract: a parser answers the intended value or raises a typed
    error, never a third value. The generator in ``tests/_oracle.py`` builds
    realistic replies (nested records whose strings hold quotes, braces,
    brackets, URLs, code, newlines, backslashes and emoji; compact or indented;
    bare, fenced or in prose) with exactly one fault each, fault kinds equally
    weighted, keeping only replies whose JSON is not strictly valid; and,
    separately, replies cut at a random point inside their JSON (a token
    limit). For each seed (the fixed one, 20261130, and ``--seed``) it runs
    ``--count`` faulted and ``--cuts`` cut replies through

    * ours: ``JsonFenceOutputParser`` and ``TruncationRecoveringOutputParser``,
      each with ``repair=False``, the default (``repair="safe"``) and
      ``repair=True``;
    * ``json_repair.loads`` (optional) and langchain-core's
      ``JsonOutputParser().parse``;

    and counts each answer as

    * right: equal to the original value, types included (``1``, ``1.0`` and
      ``True`` differ); for a cut, equal to pydantic-core's
      ``from_json(cut, allow_partial="trailing-strings")``, or to it with a
      number at the cut dropped. A parser that closes cuts (truncation,
      json_repair, ``JsonOutputParser``) may also give the cut reading of a
      faulted reply that ends with an unclosed JSON (a last ``}`` or ``"``
      deleted): no parser can tell that from a cut;
    * error: one of our ``JsonRecoveryError``; for a peer, any exception,
      ``None`` or an empty result (``""``, ``{}``, ``[]``);
    * wrong: anything else (for ours, an exception that is not a
      ``JsonRecoveryError`` too).

    Then, per parser, the share of wrong values within each fault kind, and
    with ``--examples N`` the first N wrong answers of each parser (seed,
    index and fault kind; the reply; what was expected; what came back).
    Issue 10's target: 0 wrong for the default and truncation parsers, at most
    0.5 % wrong with ``repair=True`` while right on at least as many faulted
    replies as json_repair.

How to run
    pip install -e '.[bench]'                  # json-repair is optional
    python benchmarks/oracle.py                # both seeds, about two minutes
    python benchmarks/oracle.py --seed 7 --examples 5 --ours-only
    python benchmarks/oracle.py --markdown     # tables for the README
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from _oracle_table import cell, table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle import (
    FAULTS,
    FIXED_SEED,
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


@dataclass
class Tally:
    """One parser's verdicts on one seed."""

    plain: Counter[Verdict] = field(default_factory=Counter)
    cut: Counter[Verdict] = field(default_factory=Counter)
    by_fault: dict[str, Counter[Verdict]] = field(default_factory=dict)
    wrong: list[tuple[Case, Outcome]] = field(default_factory=list)
    empty: Counter[str] = field(default_factory=Counter)
    """Errors that were a ``None`` or empty result, not an exception (peers)."""
    seconds: float = 0.0


def run(runners: Sequence[Runner], cases: Sequence[Case]) -> dict[str, Tally]:
    """Judge every runner on every case."""
    tallies = {runner.name: Tally() for runner in runners}
    for runner in runners:
        tally = tallies[runner.name]
        start = time.process_time()
        for case in cases:
            verdict, outcome = runner.judge(case)
            if case.cut:
                tally.cut[verdict] += 1
            else:
                tally.plain[verdict] += 1
                tally.by_fault.setdefault(case.fault, Counter())[verdict] += 1
            if verdict == "wrong":
                tally.wrong.append((case, outcome))
            elif verdict == "error" and outcome.error is None:
                tally.empty["cut" if case.cut else "plain"] += 1
        tally.seconds = time.process_time() - start
    return tallies


def report(
    seed: int,
    tallies: dict[str, Tally],
    *,
    count: int,
    cuts: int,
    markdown: bool,
    examples: int,
) -> None:
    """Print one seed's tables (and wrong examples)."""
    header = ["parser", *(f"{v}" for v in VERDICTS)]
    for title, pick, total in (
        (f"faulted replies (one fault each), seed {seed}", "plain", count),
        (f"cut replies (token limit), seed {seed}", "cut", cuts),
    ):
        if not total:
            continue
        print(f"\n{'### ' if markdown else ''}{title}: {total} replies\n")
        rows = [
            [name, *(cell(getattr(t, pick), v) for v in VERDICTS)]
            for name, t in tallies.items()
        ]
        print(table(header, rows, markdown=markdown))
        for name, t in tallies.items():
            if t.empty[pick]:
                print(
                    f"\n{name}: errors that are a None or empty result, "
                    f"not an exception: {t.empty[pick]}"
                )
    if count:
        title = f"wrong values per fault kind (% of that kind's replies), seed {seed}"
        print(f"\n{'### ' if markdown else ''}{title}\n")
        names = list(tallies)
        rows = []
        for fault in FAULTS:
            row = [fault]
            for name in names:
                counts = tallies[name].by_fault.get(fault, Counter())
                total = sum(counts.values())
                row.append(f"{100 * counts['wrong'] / total:.1f}" if total else "-")
            rows.append(row)
        print(table(["fault", *(_short(n) for n in names)], rows, markdown=markdown))
    if examples:
        for name, tally in tallies.items():
            print(
                f"\n--- {name}: first {examples} of {len(tally.wrong)} wrong, seed {seed}"
            )
            for case, outcome in tally.wrong[:examples]:
                print(describe(case, outcome))


def _short(name: str) -> str:
    """A column title: ``Fence``, ``Fence+repair``, ``Trunc``, ``json_repair`` …."""
    return (
        name.replace("JsonFenceOutputParser", "Fence")
        .replace("TruncationRecoveringOutputParser", "Trunc")
        .replace("(repair=True)", "+repair")
        .replace("(repair=False)", " strict")
        .replace("langchain-core JsonOutputParser()", "lc-core")
        .replace(".loads", "")
        .replace("()", "")
    )


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "absent"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the oracle for the fixed seed and one more; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the second seed")
    parser.add_argument(
        "--count", type=int, default=5000, help="faulted replies per seed"
    )
    parser.add_argument("--cuts", type=int, default=2000, help="cut replies per seed")
    parser.add_argument(
        "--examples", type=int, default=0, help="wrong examples per parser"
    )
    parser.add_argument("--markdown", action="store_true", help="README-ready tables")
    parser.add_argument("--ours-only", action="store_true", help="skip the peers")
    args = parser.parse_args(argv)

    runners = our_runners() + ([] if args.ours_only else peer_runners())
    print(
        f"langchain-jsonrecover {_version('langchain-jsonrecover')}, "
        f"langchain-core {_version('langchain-core')}, "
        f"json_repair {_version('json_repair')}, "
        f"pydantic-core {_version('pydantic-core')}, Python {sys.version.split()[0]}"
    )
    print(
        "command: python benchmarks/oracle.py "
        + " ".join(sys.argv[1:] if argv is None else argv)
    )
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        cases = generate(seed, args.count) + generate(seed, args.cuts, cut=True)
        tallies = run(runners, cases)
        report(
            seed,
            tallies,
            count=args.count,
            cuts=args.cuts,
            markdown=args.markdown,
            examples=args.examples,
        )
        if not args.markdown:
            print(
                "\nCPU seconds: "
                + ", ".join(f"{_short(n)} {t.seconds:.1f}" for n, t in tallies.items())
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
