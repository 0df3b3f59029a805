"""JSON that goes on after a root: a seeded slice of ``benchmarks/fuzz_goes_on.py``.

Replies with one fault that closes a value early or loses an opener (a closer
slipped in, inside a number or a literal too; an opener lost; an opener
written as a closer), and clean values with prose after them that starts as
JSON would (``tests/_goes_on.py``), through every entry point: the original
or an error, never a third value; and enough right answers that refusing
everything cannot pass.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from _goes_on import FAULTS, Case, Reader, generate, judge, make_case

import langchain_jsonrecover

SEED = 20261207
COUNT = 240  # 60 per fault


@cache
def _verdicts() -> tuple[Counter[tuple[str, str]], list[tuple[str, str, object]]]:
    reader = Reader(langchain_jsonrecover)
    counts: Counter[tuple[str, str]] = Counter()
    wrong: list[tuple[str, str, object]] = []
    for case in generate(SEED, COUNT):
        for entry, (value, failed) in reader.answers(case).items():
            verdict = judge(case, value, failed=failed)
            counts[case.fault, verdict] += 1
            if verdict == "wrong":
                wrong.append((case.text, entry, value))
    return counts, wrong


def test_no_entry_point_gives_a_third_value() -> None:
    assert _verdicts()[1] == []


def test_prose_after_a_clean_value_stays_prose() -> None:
    counts = _verdicts()[0]
    # Clean values with prose after them read at most entry points (the
    # errors: a tail in a fence-less reply that repair=False refuses, a
    # citation beside the value for a schema).
    assert counts["none", "right"] > 8 * counts["none", "error"]


def test_faults_read_right_often_enough_that_refusing_all_cannot_pass() -> None:
    counts = _verdicts()[0]
    for fault in FAULTS[1:]:
        assert counts[fault, "right"] > 0, fault


def test_a_seed_gives_the_same_cases_and_a_short_run_is_a_prefix() -> None:
    assert generate(SEED, 8) == generate(SEED, 16)[:8]
    assert [case.fault for case in generate(SEED, 4)] == list(FAULTS)
    assert make_case(SEED, 3) == generate(SEED, 4)[3]


def test_the_judge_takes_the_original_or_the_faulty_text_read_as_json() -> None:
    case = Case('{"a": 1}}', "closer_in", "bare", {"a": 1}, frozenset({'{"a": 1}'}))
    assert judge(case, {"a": 1}, failed=False) == "right"
    assert judge(case, None, failed=True) == "error"
    assert judge(case, {"a": 2}, failed=False) == "wrong"
