"""The continuation oracle (issue 21, family 22): never a value no reply wrote.

A sample of cut replies and their continuations (``tests/_oracle_continuations.py``)
through each entry point that continues a cut reply: every answer must be the
original value or a typed error (a re-ask for the whole answer that then gives
the original counts as right), at least ``RIGHT_FLOOR`` of them right, and
every continuation that starts exactly at the cut must join.
``benchmarks/oracle_continuations.py`` runs the same at scale.
"""

from __future__ import annotations

import doctest
from collections import Counter
from functools import cache

import _oracle_continuations
import orjson
import pytest
from _oracle_continuations import (
    FIXED_SEED,
    KINDS,
    Case,
    Runner,
    describe,
    generate,
    our_runners,
)

COUNT = 96  # 12 of each kind
RIGHT_FLOOR = 0.90  # 95 % on 400 cases of each seed


@cache
def cases() -> tuple[Case, ...]:
    return tuple(generate(FIXED_SEED, COUNT))


def _is_json(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


# ------------------------------------------------------- the generator


def test_every_kind_is_drawn_equally() -> None:
    assert Counter(case.kind for case in cases()) == dict.fromkeys(
        KINDS, COUNT // len(KINDS)
    )


def test_every_first_reply_is_cut_inside_its_json() -> None:
    for case in cases():
        assert case.whole.startswith(case.first), case.label
        assert case.first != case.whole, case.label
        body = case.first.split("```json\n")[-1]
        assert not _is_json(body), case.label


@pytest.mark.parametrize("kind", ["exact", "prose_after"])
def test_an_exact_continuation_completes_the_whole_reply(kind: str) -> None:
    for case in cases():
        if case.kind == kind:
            joined = case.first + "".join(case.pieces)
            assert joined.startswith(case.whole), case.label


def test_an_overlapping_continuation_repeats_what_the_cut_reply_ends_with() -> None:
    for case in cases():
        if case.kind in {"overlap", "last_key"}:
            piece = case.pieces[0]
            assert any(case.first.endswith(piece[:k]) for k in range(1, len(piece))), (
                case.label
            )


def test_some_continuations_must_join_and_none_of_those_overlaps() -> None:
    joins = [case for case in cases() if case.must_join]
    assert len(joins) >= COUNT // len(KINDS)
    for case in joins:
        piece = case.pieces[0]
        assert not any(case.first.endswith(piece[:k]) for k in range(1, len(piece)))


def test_cases_are_seeded_by_seed_and_index() -> None:
    assert generate(FIXED_SEED, 8, start=4) == list(cases()[4:12])
    assert generate(FIXED_SEED + 1, 8) != list(cases()[:8])


def test_the_module_doctests() -> None:
    assert doctest.testmod(_oracle_continuations).failed == 0


# ------------------------------------------------------- the entry points


@cache
def verdicts(runner: Runner) -> tuple[Counter[str], list[str], list[str]]:
    counts: Counter[str] = Counter()
    wrong: list[str] = []
    missed: list[str] = []
    for case in cases():
        verdict, outcome = runner.judge(case)
        counts[verdict] += 1
        if verdict == "wrong":
            wrong.append(describe(case, outcome))
        if case.must_join and verdict != "right":
            missed.append(describe(case, outcome))
    return counts, wrong, missed


RUNNERS = {runner.name: runner for runner in our_runners()}


@pytest.mark.parametrize("name", list(RUNNERS))
def test_no_continuation_gives_a_wrong_value(name: str) -> None:
    _, wrong, _ = verdicts(RUNNERS[name])
    assert not wrong, "\n".join(wrong[:3])


@pytest.mark.parametrize("name", list(RUNNERS))
def test_right_answers_hold_their_floor(name: str) -> None:
    counts, _, _ = verdicts(RUNNERS[name])
    assert counts["right"] >= RIGHT_FLOOR * COUNT, counts


@pytest.mark.parametrize("name", list(RUNNERS))
def test_a_continuation_that_starts_at_the_cut_joins(name: str) -> None:
    _, _, missed = verdicts(RUNNERS[name])
    assert not missed, "\n".join(missed[:3])
