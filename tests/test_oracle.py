"""The fault-injection oracle (issue 10): never a third value.

A few hundred generated replies with one fault each, and some cut by the token
limit (``tests/_oracle.py``), through each of our parsers: every answer must be
the original value (for a cut, what pydantic-core's partial parser reads) or
one of our typed errors. ``benchmarks/oracle.py`` runs the same at scale.

The generator's own invariants pass today. The parsers' targets do not yet:
those tests are marked ``xfail(strict=True)`` until the fixes of issue 10 land
(a strict xfail that starts passing fails the run, so the mark must then go).
"""

from __future__ import annotations

import doctest
from collections import Counter
from functools import cache
from typing import Any

import _oracle
import orjson
import pytest
from _oracle import (
    CUT,
    FAULTS,
    FIXED_SEED,
    Case,
    Outcome,
    Runner,
    canonical,
    cut_readings,
    describe,
    generate,
    judge,
    our_runners,
)

from langchain_jsonrecover import InvalidJsonError

PLAIN_COUNT = 300
CUT_COUNT = 150
REPAIR_LIMIT = 0.005  # issue 10: at most 0.5 % wrong with repair=True


@cache
def plain_cases() -> tuple[Case, ...]:
    return tuple(generate(FIXED_SEED, PLAIN_COUNT))


@cache
def cut_cases() -> tuple[Case, ...]:
    return tuple(generate(FIXED_SEED, CUT_COUNT, cut=True))


def is_strict_json(text: str) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


# ------------------------------------------------------- the generator


def test_every_faulted_payload_is_invalid_json_and_stands_in_its_reply() -> None:
    for case in plain_cases():
        assert not is_strict_json(case.payload), case.label
        assert case.payload in case.reply, case.label
        assert not case.cut
        assert case.accepted == (canonical(case.original),)


def test_every_cut_reply_ends_inside_its_json() -> None:
    for case in cut_cases():
        assert case.cut
        assert case.fault == CUT
        assert case.reply.endswith(case.payload), case.label
        assert not is_strict_json(case.payload), case.label
        assert case.accepted == cut_readings(case.payload), case.label
        assert case.accepted, case.label


def test_fault_kinds_are_equally_weighted() -> None:
    counts = Counter(case.fault for case in plain_cases())
    assert set(counts) == set(FAULTS)
    assert max(counts.values()) - min(counts.values()) <= 1


def test_a_seed_gives_the_same_cases_and_a_short_run_is_a_prefix() -> None:
    assert generate(FIXED_SEED, 40) == list(plain_cases()[:40])
    assert generate(FIXED_SEED, 10, cut=True) == list(cut_cases()[:10])
    assert generate(FIXED_SEED, 5, start=20) == list(plain_cases()[20:25])


def test_another_seed_gives_other_replies() -> None:
    mine = {case.reply for case in generate(FIXED_SEED, 50)}
    other = {case.reply for case in generate(FIXED_SEED + 1, 50)}
    assert not mine & other


def _strings(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [*value, *(s for item in value.values() for s in _strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize(
    ("what", "holds", "at_least"),
    [
        pytest.param("a brace", lambda s: "{" in s or "}" in s, 0.4, id="brace"),
        pytest.param("a bracket", lambda s: "[" in s or "]" in s, 0.35, id="bracket"),
        pytest.param("a quote", lambda s: '"' in s, 0.3, id="quote"),
        pytest.param("a newline", lambda s: "\n" in s, 0.2, id="newline"),
        pytest.param("a backslash", lambda s: "\\" in s, 0.1, id="backslash"),
        pytest.param("a URL", lambda s: "https://" in s, 0.1, id="url"),
        pytest.param("non-ASCII text", lambda s: not s.isascii(), 0.5, id="non_ascii"),
    ],
)
def test_replies_hold_hostile_strings(what: str, holds: Any, at_least: float) -> None:
    share = sum(
        any(holds(s) for s in _strings(case.original)) for case in plain_cases()
    ) / len(plain_cases())
    assert share >= at_least, f"only {share:.0%} of replies hold {what} in a string"


def _in_prose(case: Case) -> bool:
    before, _, after = case.reply.partition(case.payload)
    return bool(before.strip() and after.strip()) and "```" not in case.reply


@pytest.mark.parametrize(
    "holds",
    [
        pytest.param(lambda c: c.reply == c.payload, id="bare"),
        pytest.param(lambda c: "```json\n" + c.payload in c.reply, id="fenced"),
        pytest.param(_in_prose, id="prose_around"),
        pytest.param(
            lambda c: c.reply != c.payload and c.reply.endswith(c.payload),
            id="prose_before_only",
        ),
        pytest.param(lambda c: "\n  " in c.payload, id="indented"),
        pytest.param(lambda c: "\n" not in c.payload, id="one_line"),
        pytest.param(lambda c: isinstance(c.original, list), id="top_level_array"),
        pytest.param(
            lambda c: "[{" in orjson.dumps(c.original).decode(), id="nested_records"
        ),
    ],
)
def test_every_reply_shape_appears(holds: Any) -> None:
    assert sum(map(holds, plain_cases())) >= 15


def test_oracle_doctests() -> None:
    result = doctest.testmod(_oracle)
    assert result.attempted
    assert not result.failed


# ------------------------------------------------------------- the verdict

ORIGINAL = {"id": 1, "score": 1.0, "ok": True, "tags": ["a"]}
PLAIN = Case(
    reply='{"id": 1, "score": 1.0, "ok": True, "tags": ["a"]}',
    original=ORIGINAL,
    fault="python_literal",
    cut=False,
    seed=0,
    index=0,
    payload='{"id": 1, "score": 1.0, "ok": True, "tags": ["a"]}',
    accepted=(canonical(ORIGINAL),),
)
ENDS_OPEN = Case(
    reply='{"a": "xyz}',
    original={"a": "xyz"},
    fault="quote_deleted",
    cut=False,
    seed=0,
    index=1,
    payload='{"a": "xyz}',
    accepted=(canonical({"a": "xyz"}),),
    as_cut=cut_readings('{"a": "xyz}'),
)
CUT_AT_NUMBER = Case(
    reply='Here: {"a": 1, "b": 23',
    original={"a": 1, "b": 2345},
    fault=CUT,
    cut=True,
    seed=0,
    index=2,
    payload='{"a": 1, "b": 23',
    accepted=cut_readings('{"a": 1, "b": 23'),
)


@pytest.mark.parametrize(
    ("case", "outcome", "ours", "closes", "verdict"),
    [
        pytest.param(
            PLAIN, Outcome(value=ORIGINAL), True, False, "right", id="original_is_right"
        ),
        pytest.param(
            PLAIN,
            Outcome(value={"tags": ["a"], "ok": True, "score": 1.0, "id": 1}),
            True,
            False,
            "right",
            id="key_order_does_not_matter",
        ),
        pytest.param(
            PLAIN,
            Outcome(value={**ORIGINAL, "score": 1}),
            True,
            False,
            "wrong",
            id="int_is_not_float",
        ),
        pytest.param(
            PLAIN,
            Outcome(value={**ORIGINAL, "id": True}),
            True,
            False,
            "wrong",
            id="true_is_not_one",
        ),
        pytest.param(
            PLAIN,
            Outcome(value={**ORIGINAL, "score": float("nan")}),
            True,
            False,
            "wrong",
            id="nan_is_not_a_number_we_sent",
        ),
        pytest.param(
            PLAIN, Outcome(value=["a"]), True, False, "wrong", id="inner_value_is_wrong"
        ),
        pytest.param(
            PLAIN,
            Outcome(error=InvalidJsonError("bad", llm_output="x")),
            True,
            False,
            "error",
            id="our_error_is_an_error",
        ),
        pytest.param(
            PLAIN,
            Outcome(error=TypeError("boom")),
            True,
            False,
            "wrong",
            id="our_other_exception_breaks_the_contract",
        ),
        pytest.param(
            PLAIN,
            Outcome(error=ValueError("x")),
            False,
            False,
            "error",
            id="peer_exception",
        ),
        pytest.param(PLAIN, Outcome(value=None), False, False, "error", id="peer_none"),
        pytest.param(
            PLAIN, Outcome(value=""), False, False, "error", id="peer_empty_string"
        ),
        pytest.param(
            PLAIN, Outcome(value={}), False, False, "error", id="peer_empty_object"
        ),
        pytest.param(
            PLAIN, Outcome(value=None), True, False, "wrong", id="our_none_is_wrong"
        ),
        pytest.param(
            ENDS_OPEN,
            Outcome(value={"a": "xyz}"}),
            True,
            True,
            "right",
            id="closer_may_read_an_open_end_as_a_cut",
        ),
        pytest.param(
            ENDS_OPEN,
            Outcome(value={"a": "xyz}"}),
            True,
            False,
            "wrong",
            id="non_closer_may_not",
        ),
        pytest.param(
            CUT_AT_NUMBER,
            Outcome(value={"a": 1, "b": 23}),
            True,
            True,
            "wrong",
            id="cut_number_kept",
        ),
        pytest.param(
            CUT_AT_NUMBER,
            Outcome(value={"a": 1}),
            True,
            True,
            "right",
            id="cut_number_dropped",
        ),
        pytest.param(
            CUT_AT_NUMBER,
            Outcome(value={"a": 1, "b": 2345}),
            True,
            True,
            "wrong",
            id="cut_number_invented",
        ),
    ],
)
def test_judge(
    case: Case, outcome: Outcome, ours: bool, closes: bool, verdict: str
) -> None:
    assert judge(case, outcome, ours=ours, closes=closes) == verdict


@pytest.mark.parametrize(
    ("text", "readings"),
    [
        ('{"a": [1, 2', [{"a": [1]}]),
        ('{"a": [1, 2 ', [{"a": [1, 2]}]),
        ('{"a": [true', [{"a": [True]}]),
        ('{"a": "12', [{"a": "12"}]),
        ('{"a": "x\\', [{"a": "x"}]),
        ('{"a": tr', [{}]),
        ("[", [[]]),
        ('{"a": 1}, {"b"', []),
        ('"a": 1}', []),
        ('{"a": 1,}', []),
    ],
    ids=[
        "number_at_cut_dropped",
        "number_that_space_follows_kept",
        "whole_literal_kept",
        "digits_in_a_string_stay",
        "cut_escape_dropped",
        "cut_literal_dropped",
        "lone_opener",
        "closed_root_then_more_is_not_a_cut",
        "no_opener_is_not_a_cut",
        "syntax_error_is_not_a_cut",
    ],
)
def test_cut_readings(text: str, readings: list[Any]) -> None:
    assert cut_readings(text) == tuple(canonical(r) for r in readings)


# ------------------------------------------------------------- the parsers

PENDING = pytest.mark.xfail(strict=True, reason="issue 10: fixes pending")
RUNNERS = {runner.name: runner for runner in our_runners()}


def wrong_answers(runner: Runner, cases: tuple[Case, ...]) -> list[str]:
    wrong = []
    for case in cases:
        verdict, outcome = runner.judge(case)
        if verdict == "wrong":
            wrong.append(describe(case, outcome))
    return wrong


@pytest.mark.parametrize(
    ("name", "family"),
    [
        pytest.param("JsonFenceOutputParser(repair=False)", "faulted"),
        pytest.param("JsonFenceOutputParser(repair=False)", "cut"),
        pytest.param("JsonFenceOutputParser()", "faulted"),
        pytest.param("JsonFenceOutputParser()", "cut"),
        pytest.param("JsonFenceOutputParser(repair=True)", "faulted"),
        pytest.param("JsonFenceOutputParser(repair=True)", "cut"),
        pytest.param("TruncationRecoveringOutputParser(repair=False)", "faulted"),
        pytest.param("TruncationRecoveringOutputParser(repair=False)", "cut"),
        pytest.param("TruncationRecoveringOutputParser()", "faulted"),
        pytest.param("TruncationRecoveringOutputParser()", "cut"),
        pytest.param("TruncationRecoveringOutputParser(repair=True)", "faulted"),
        pytest.param("TruncationRecoveringOutputParser(repair=True)", "cut"),
    ],
)
def test_never_a_third_value(name: str, family: str) -> None:
    runner = RUNNERS[name]
    cases = plain_cases() if family == "faulted" else cut_cases()
    wrong = wrong_answers(runner, cases)
    allowed = int(REPAIR_LIMIT * len(cases)) if "repair=True" in name else 0
    shown = "\n".join(wrong[:5])
    assert len(wrong) <= allowed, (
        f"{name}: {len(wrong)} wrong values in {len(cases)} {family} replies "
        f"(at most {allowed}); first ones:\n{shown}"
    )


def test_the_oracle_sees_wrong_values_when_there_are_some() -> None:
    # A parser that returns the first value it can find is caught: the oracle
    # is not blind to the failure it exists to measure.
    def first_inner_value(reply: str) -> Any:
        start = reply.find("{", reply.find("{") + 1)
        return orjson.loads(reply[start : reply.index("}", start) + 1])

    naive = Runner("naive", first_inner_value, ours=False)
    verdicts = Counter(naive.judge(case)[0] for case in plain_cases())
    assert verdicts["wrong"] >= len(plain_cases()) // 10


# Issue 10: with repair, the original value for at least as many faulted
# replies as json_repair recovers (62.5 % at 5,000 replies of the fixed seed;
# ours 73.5 %, `python benchmarks/oracle.py`). Pinned here on the CI sample
# without json_repair, as the share below which the single-edit search would
# have stopped doing its part.
REPAIR_RIGHT_AT_LEAST = 0.68


@pytest.mark.parametrize(
    "name",
    [
        "JsonFenceOutputParser(repair=True)",
        "TruncationRecoveringOutputParser(repair=True)",
    ],
)
def test_repair_recovers_more_than_json_repair_does(name: str) -> None:
    runner = RUNNERS[name]
    verdicts = Counter(runner.judge(case)[0] for case in plain_cases())
    assert verdicts["right"] >= REPAIR_RIGHT_AT_LEAST * len(plain_cases()), verdicts
