"""A seeded slice of ``benchmarks/fuzz_readings.py``: a closer too many or lost, never a third value.

Each original's replies with one ``}`` too many, one ``}`` lost or one comma
lost, at every place, read by ``extract`` at repair ``"safe"`` and ``True``
(no schema, the root's, a model of its keys) and as a tool call's arguments:
the intended value, the reply's own value where it is strict JSON, or an
error. (A ``]`` too many or an opener lost also meet the readings of items
after a closed root, pinned in ``test_adversary_s36.py``; the benchmark runs
them all.)
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from _slip_readings import verdicts


@pytest.mark.parametrize("seed", range(12))
def test_one_closer_or_comma_slip_reads_right_or_fails(seed: int) -> None:
    tally: Counter[str] = Counter()
    wrong = []
    rng = random.Random(seed)  # noqa: S311 - test data
    for seen in verdicts(rng, only="extra},lost},lost,"):
        tally[seen.verdict] += 1
        if seen.verdict == "wrong":
            wrong.append(seen)
    assert not wrong, wrong[:3]
    assert tally["right"] > 0  # the slice reads something
