"""Seeded replies with one bracket, quote or comma slip, at every place: wrong values.

What it measures
    The repairs that guess between readings (``bracket_fixed_guessed``,
    ``comma_as_colon``, ``false_start_dropped``, a stray closer dropped, a
    schema settling between readings) must give the intended value or an
    error, never a third value. This script builds seeded originals (nested
    objects whose inner objects repeat the root's keys, big integers and
    digits beside brackets, arrays of objects and scalars, values of any
    shape; strings with markup are ``fuzz_shortcuts.py``'s), writes each compactly or spaced, and makes
    every reply one slip gives: a closer too many at every place between
    tokens (``}`` and ``]``), each closer, opener, quote and comma lost.
    Each reply, bare or in prose (``Result:`` before it, ``Done.`` after),
    is read by ``extract`` at repair ``"safe"`` and ``True``, without a
    schema and with one (``dict[str, Any]`` or ``list[Any]`` as the root
    is, and for an object a pydantic model of its keys), and, for an
    object, as a tool call's arguments (``[TOOL_CALLS]f[ARGS]…``).

    An answer is *right* when it is the original, or the reply's own value
    where the slip left strict JSON; an *error* is a refusal; anything else
    is *wrong*. Counts are per slip and entry point; the shortest wrong
    examples are printed.

How to run
    python benchmarks/fuzz_readings.py --seed 1 --count 300
    python benchmarks/fuzz_readings.py --seed 7 --count 2000 --examples 20

Offline and seeded; exit status 1 when a value is wrong.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _slip_readings import Verdict, verdicts


def run(seed: int, count: int, examples: int) -> int:
    """Read ``count`` originals' slips; print the counts; the number wrong."""
    rng = random.Random(seed)
    tally: Counter[tuple[str, str, str]] = Counter()
    found: list[Verdict] = []
    for _ in range(count):
        for seen in verdicts(rng):
            tally[seen.slip, seen.entry, seen.verdict] += 1
            if seen.verdict == "wrong":
                found.append(seen)
    _report(tally, found, examples)
    return len(found)


def _report(
    tally: Counter[tuple[str, str, str]],
    found: list[Verdict],
    examples: int,
) -> None:
    entries = sorted({entry for _, entry, _ in tally})
    slips_seen = sorted({slip for slip, _, _ in tally})
    print(f"{'slip':8} " + " ".join(f"{entry:>16}" for entry in entries))
    for slip in slips_seen:
        cells = []
        for entry in entries:
            right, error, wrong = (
                tally[slip, entry, verdict] for verdict in ("right", "error", "wrong")
            )
            cells.append(f"{right:>5}/{error:>5}/{wrong:>4}")
        print(f"{slip:8} " + " ".join(f"{cell:>16}" for cell in cells))
    print("cells: right/error/wrong")
    total = sum(tally.values())
    print(f"answers {total}, wrong {len(found)}")
    for seen in sorted(found, key=lambda seen: len(seen.reply))[:examples]:
        print(f"\n{seen.entry}: {seen.reply!r}")
        print(f"  gave     {seen.answer}\n  intended {seen.intended}")


def main(argv: list[str] | None = None) -> int:
    """Run the seeded slips; exit status 1 when a value is wrong."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=300, help="originals")
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args(argv)
    return 1 if run(args.seed, args.count, args.examples) else 0


if __name__ == "__main__":
    sys.exit(main())
