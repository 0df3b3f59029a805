"""The cuts oracle at scale: right / error / wrong per entry point.

What it measures
    Issue 21's cut rules: a cut reply reads as its right partial (a scalar at
    the cut dropped, a string's prefix kept, no default for a member whose
    key the reply wrote but whose value the cut removed) or raises a typed
    error; a slipped reply (a missing inner closer, a key opened with ``'``, a
    lost comma, a partly escaped member, raw backslashes in a path) is never
    read as a cut. Cases come from ``tests/_oracle_cuts.py`` (pydantic models
    whose every field has a default; compact or indented; bare, fenced or after
    a lead line), through the truncation parser with a schema (``M``) and
    without (``dict``), with and without ``repair``, with ``finish_reason``
    ``"stop"`` or ``"length"``, and the streaming path's final value; beside
    them ``json_repair.loads`` and langchain-core's ``JsonOutputParser`` (their
    value validated by the model for the ``M`` rows).

How to run
    python benchmarks/oracle_cuts.py                  # both seeds, 2,000 cases each
    python benchmarks/oracle_cuts.py --seed 7 --count 500 --examples 3
    python benchmarks/oracle_cuts.py --markdown --ours-only
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _oracle_table import table

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _oracle_cuts import (
    FIXED_SEED,
    VERDICTS,
    Case,
    Entry,
    Outcome,
    describe,
    entries,
    generate,
    run_case,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


def _peers() -> list[Entry]:
    from langchain_core.output_parsers import JsonOutputParser  # noqa: PLC0415

    peers: list[tuple[str, Callable[[str], Any]]] = [
        ("langchain-core JsonOutputParser", JsonOutputParser().parse)
    ]
    try:
        import json_repair  # noqa: PLC0415
    except ImportError:
        pass
    else:
        peers.insert(0, ("json_repair.loads", json_repair.loads))
    out = []
    for name, parse in peers:
        out.append(
            Entry(f"{name} (dict)", parse, schema=False, length=False, ours=False)
        )
        out.append(Entry(f"{name} (M)", parse, schema=True, length=False, ours=False))
    return out


def _validated(entry: Entry, case: Case) -> tuple[str, Outcome]:
    """A peer's value, validated by the case's model on an ``M`` row."""
    verdict, outcome = run_case(entry, case)
    if entry.ours or not entry.schema or outcome.error is not None:
        return verdict, outcome
    try:
        model_value = case.model.model_validate(outcome.value)
    except Exception as exc:  # noqa: BLE001 - a peer's failure is an outcome
        return "error", Outcome(error=exc)
    from _oracle_cuts import judge  # noqa: PLC0415

    validated = Outcome(value=model_value)
    return judge(case, entry, validated), validated


def main(argv: Sequence[str] | None = None) -> int:
    """Print right / error / wrong per entry point for the fixed seed and one more."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="the second seed")
    parser.add_argument("--count", type=int, default=2000, help="cases per seed")
    parser.add_argument("--examples", type=int, default=0, help="wrong examples shown")
    parser.add_argument("--markdown", action="store_true", help="README-ready tables")
    parser.add_argument("--ours-only", action="store_true", help="skip the peers")
    args = parser.parse_args(argv)
    runners = entries() + ([] if args.ours_only else _peers())
    print(
        "command: python benchmarks/oracle_cuts.py "
        + " ".join(sys.argv[1:] if argv is None else argv)
    )
    for seed in dict.fromkeys((FIXED_SEED, args.seed)):
        cases = generate(seed, args.count)
        print(f"\n{'### ' if args.markdown else ''}seed {seed}: {len(cases)} cases\n")
        rows = []
        shown: list[str] = []
        for entry in runners:
            counts: Counter[str] = Counter()
            wrong = []
            for case in cases:
                verdict, outcome = _validated(entry, case)
                counts[verdict] += 1
                if verdict == "wrong":
                    wrong.append(describe(case, outcome))
            rows.append([entry.name, *(_cell(counts, v, len(cases)) for v in VERDICTS)])
            shown += (
                [f"--- {entry.name}", *wrong[: args.examples]] if args.examples else []
            )
        print(table(["entry point", *VERDICTS], rows, markdown=args.markdown))
        if shown:
            print("\n" + "\n".join(shown))
    return 0


def _cell(counts: Counter[str], verdict: str, total: int) -> str:
    return f"{counts[verdict]} ({100 * counts[verdict] / total:.1f}%)"


if __name__ == "__main__":
    raise SystemExit(main())
