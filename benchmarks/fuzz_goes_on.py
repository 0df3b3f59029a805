"""JSON that goes on after a root: right, error and wrong, this tree beside another.

What it measures
    Seeded replies (``tests/_goes_on.py``): a known original with one fault
    that makes a value close early or lose its opener (a closer slipped in,
    inside a number too; an opener lost; an opener written as a closer), or
    no fault and prose after the value that starts as JSON would (a number,
    a comma, a bracket). Each reply is read through every entry point
    (``extract`` at each repair level, first and last, with the original's
    schema, closing cuts; the parsers; a tool call's arguments for objects).
    Counts right (the original, or the faulty text's value when it is still
    JSON), error and wrong per fault and entry point; with ``--old REV``, the
    same for that revision, imported side by side in one process, and the
    shortest examples of each answer that changed.

How to run
    python benchmarks/fuzz_goes_on.py --count 2000 --seed 1
    python benchmarks/fuzz_goes_on.py --old main --count 2000 --examples 3

Offline and seeded: the old revision comes from this repository's git.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _goes_on import FAULTS, Reader, canonical, generate, judge
from beside import import_revision

import langchain_jsonrecover


def main(argv: list[str] | None = None) -> int:
    """Run the cases through each tree; print the counts and examples."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--old", help="a git revision to read beside this tree")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--examples", type=int, default=3)
    args = parser.parse_args(argv)
    counts: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    changed: dict[tuple[str, str], list[tuple[int, str, str, str]]] = defaultdict(list)
    with tempfile.TemporaryDirectory(prefix="goes-on-") as scratch:
        sys.path.insert(0, scratch)
        trees = {"new": Reader(langchain_jsonrecover)}
        if args.old:
            trees["old"] = Reader(import_revision(args.old, Path(scratch))[1])
        for case in generate(args.seed, args.count):
            seen = {tree: reader.answers(case) for tree, reader in trees.items()}
            for entry, (value, failed) in seen["new"].items():
                verdict = judge(case, value, failed=failed)
                counts["new"][case.fault, verdict] += 1
                counts["new"]["all", f"{entry} {verdict}"] += 1
                if "old" not in seen:
                    if verdict == "wrong":
                        changed["wrong", entry].append(
                            (len(case.text), case.text, "", canonical(value))
                        )
                    continue
                old_value, old_failed = seen["old"][entry]
                was = judge(case, old_value, failed=old_failed)
                counts["old"][case.fault, was] += 1
                counts["old"]["all", f"{entry} {was}"] += 1
                if was != verdict or verdict == "wrong":
                    old = "error" if old_failed else canonical(old_value)
                    new = "error" if failed else canonical(value)
                    changed[f"{was}->{verdict}", entry].append(
                        (len(case.text), case.text, old, new)
                    )
    print(
        f"seed {args.seed}: {args.count} replies, faults in turn: {', '.join(FAULTS)}"
    )
    for tree, tally in counts.items():
        print(f"\n{tree} tree: right / error / wrong per fault (answers)")
        for fault in FAULTS:
            row = [tally[fault, verdict] for verdict in ("right", "error", "wrong")]
            print(f"  {fault:14} {row[0]:6} {row[1]:6} {row[2]:6}")
        wrong = sum(n for (f, v), n in tally.items() if f != "all" and v == "wrong")
        print(f"  wrong in all: {wrong}")
    for (kind, entry), found in sorted(changed.items()):
        print(f"\n== {kind}: {entry} ({len(found)})")
        for _, text, old, new in sorted(found)[: args.examples]:
            print(f"  reply {text!r}\n    old {old[:160]}\n    new {new[:160]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
