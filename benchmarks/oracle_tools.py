"""The tool-call oracle at scale: right / error / wrong per entry point.

What it measures
    Issue 21's contract for tool calls: an entry point returns every call the
    reply made (same name, same arguments, in order, no markup left in the
    content) or leaves them invalid, and never a call the text did not make,
    nor a call dropped or changed. The generator in ``tests/_oracle_tools.py``
    builds replies with real calls in every supported form, prose that
    mentions, negates, proposes, quotes or announces a call, arguments with
    one slip, glued objects or key/value text, envelopes with an extra
    member, several calls, call markup quoted beside prose (a fenced
    example, a comment, a ``>`` line, inline code), calls to tools that
    are not bound (judged where the entry point knows the tools), markup held
    back in eight other languages, offered as options, drafts or examples,
    followed by a line asking for the go-ahead, or set in emphasis, a table,
    a heading, ``<details>`` or a ``User:`` line, and real calls with ``<s>``,
    ``</s>`` or a lone fence around them. For the
    fixed seed (20261203) and ``--seed`` it runs ``--count`` cases through

    * ours: ``recover_tool_calls`` with and without ``tools=`` and
      ``repair``, ``structured_output`` over tools (a scripted tool-calling
      model, the schema is the case's tool), ``JsonRecoveryMiddleware``;
    * ``json_repair.loads`` as a naive recoverer (optional);

    and counts each answer as right, error (the calls left invalid, or kept
    as text) or wrong. Then the same per case kind, and with ``--examples N``
    the first N wrong answers of each entry point.

How to run
    python benchmarks/oracle_tools.py                 # both seeds
    python benchmarks/oracle_tools.py --seed 7 --count 900 --examples 3
    python benchmarks/oracle_tools.py --markdown      # tables for the README
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from _oracle_table import cell, table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle_tools import FIXED_SEED, KINDS, VERDICTS, Answer, Case, generate
from _oracle_tools_runners import Runner, describe, our_runners, peer_runners

if TYPE_CHECKING:
    from collections.abc import Sequence

    from _oracle_tools import Verdict


def run_seed(
    runners: Sequence[Runner], cases: Sequence[Case]
) -> dict[
    str, tuple[Counter[Verdict], dict[str, Counter[Verdict]], list[tuple[Case, Answer]]]
]:
    """Each runner's verdicts, overall and per kind, and its wrong answers."""
    results = {}
    for runner in runners:
        total: Counter[Verdict] = Counter()
        by_kind: dict[str, Counter[Verdict]] = {k: Counter() for k in KINDS}
        wrong: list[tuple[Case, Answer]] = []
        for case in cases:
            if not runner.applies(case):
                continue
            verdict, answer = runner.judge(case)
            total[verdict] += 1
            by_kind[case.kind][verdict] += 1
            if verdict == "wrong":
                wrong.append((case, answer))
        results[runner.name] = (total, by_kind, wrong)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """Run the oracle for the fixed seed and one more; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the second seed")
    parser.add_argument("--count", type=int, default=1800, help="cases per seed")
    parser.add_argument("--examples", type=int, default=0, help="wrong examples each")
    parser.add_argument("--markdown", action="store_true", help="README-ready tables")
    parser.add_argument("--ours-only", action="store_true", help="skip the peers")
    args = parser.parse_args(argv)
    runners = our_runners() + ([] if args.ours_only else peer_runners())
    print(
        "command: python benchmarks/oracle_tools.py "
        + " ".join(sys.argv[1:] if argv is None else argv)
    )
    head = "### " if args.markdown else ""
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        results = run_seed(runners, generate(seed, args.count))
        print(f"\n{head}Seed {seed}: {args.count} cases\n")
        rows = [
            [name, str(sum(t.values())), *(cell(t, v) for v in VERDICTS)]
            for name, (t, _, _) in results.items()
        ]
        header = ["entry point", "cases", *VERDICTS]
        print(table(header, rows, markdown=args.markdown))
        print(f"\n{head}Seed {seed}: right / error / wrong per kind\n")
        kind_rows = [
            [
                kind,
                *(
                    "/".join(str(by_kind[kind][v]) for v in VERDICTS)
                    for _, by_kind, _ in results.values()
                ),
            ]
            for kind in KINDS
        ]
        print(table(["kind", *results], kind_rows, markdown=args.markdown))
        for name, (_, _, wrong) in results.items():
            for case, answer in wrong[: args.examples]:
                print(f"\n{name}: {describe(case, answer)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
