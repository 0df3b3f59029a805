"""The real-replies corpus (issue 11): its invariants, and our score on it.

The corpus is evidence, committed before the parser changes for it: replies
that broke JSON parsing in public issue threads, paraphrased, each labelled
with the value a careful reader would accept or ``"error"``. The invariants
pass on every case. The target of issue 11 holds on the cases it was set for
(real-001..real-133): ``repair=True`` recovers at least 90% with no wrong
value. The cases added for issue 22 (real-134 onwards) were committed before
their fixes, so the target of issue 22 (at least 92% right and no wrong value
on all cases) is an expected failure until those fixes land (on failure, each
message lists the cases missed).
"""

from __future__ import annotations

import json
import re
from typing import Final

import pytest
from _real_replies import (
    CLASSES,
    CORPUS_PATH,
    RealCase,
    expected_canonical,
    load_real_cases,
    score,
)
from _real_schemas import SCHEMAS

from langchain_jsonrecover import JsonFenceOutputParser, SchemaValidationError

CASES: Final = load_real_cases()
MIN_CASES: Final = 110
MAX_ERROR_SHARE: Final = 0.15
TARGET_RIGHT_SHARE: Final = 0.90
ISSUE_22_TARGET_RIGHT_SHARE: Final = 0.92
# The cases the issue-11 target was set for; issue 22 added real-134 onwards.
ISSUE_11_LAST_CASE: Final = 133
ISSUE_11_CASES: Final = [
    case for case in CASES if int(case.id.removeprefix("real-")) <= ISSUE_11_LAST_CASE
]
WRAPPER_KEYS: Final = {
    "real-111": "_",
    "real-118": "json_tool_call",
}
"""Cases that raise by issue 21's family 6: a one-key wrapper whose key does not
name the payload is an error naming the key."""
RAISED_BY_RULE: Final = {
    **dict.fromkeys(WRAPPER_KEYS, "a wrapper that does not name the payload"),
    "real-052": "a field the cut removed is never its default (family 19)",
    "real-127": "several values in one place (family 12)",
}
"""Cases that raise by a rule of issue 21, out of the right share (each listed
in the README)."""
SOURCE: Final = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+")
ID: Final = re.compile(r"real-\d{3}")
KEYS: Final = (
    "id",
    "source",
    "model",
    "class",
    "input",
    "schema",
    "cut_off",
    "expected",
    "expect",
    "note",
)


def case_id(case: RealCase) -> str:
    return case.id


def test_corpus_is_large_enough_and_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) >= MIN_CASES
    assert len(set(ids)) == len(ids)
    assert all(ID.fullmatch(case_id) for case_id in ids)


def test_every_line_has_exactly_the_documented_keys() -> None:
    lines = CORPUS_PATH.read_text(encoding="utf-8").splitlines()
    assert all(tuple(json.loads(line)) == KEYS for line in lines if line.strip())


def test_at_most_fifteen_percent_of_cases_are_labelled_error() -> None:
    errors = sum(case.expect == "error" for case in CASES)
    assert errors / len(CASES) <= MAX_ERROR_SHARE, f"{errors} of {len(CASES)}"


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_case_is_well_labelled(case: RealCase) -> None:
    assert SOURCE.fullmatch(case.source), case.source
    assert case.cls in CLASSES
    assert case.expect in {"value", "error"}
    assert isinstance(case.cut_off, bool)
    assert case.input.strip() or case.expect == "error"
    assert case.note
    if case.expect == "error":
        assert case.expected is None
    if case.schema is not None:
        assert case.schema in SCHEMAS


@pytest.mark.parametrize(
    "case", [case for case in CASES if case.expect == "value"], ids=case_id
)
def test_expected_value_validates_through_its_schema(case: RealCase) -> None:
    assert expected_canonical(case)


def assert_target(cases: list[RealCase], share: float) -> None:
    outcomes = {case.id: score(case, "ours repair=True").outcome for case in cases}
    missed = sorted(case_id for case_id, got in outcomes.items() if got != "right")
    wrong = sorted(case_id for case_id, got in outcomes.items() if got == "wrong")
    counted = len([case for case in cases if case.id not in RAISED_BY_RULE])
    raised = [case_id for case_id in RAISED_BY_RULE if outcomes.get(case_id) == "right"]
    assert not raised, f"listed as raising by a rule, but right: {raised}"
    right = len(cases) - len(missed)
    assert not wrong, f"wrong values: {wrong}"
    assert right / counted >= share, f"{right} of {counted} right; not right: {missed}"


def test_repair_recovers_ninety_percent_with_no_wrong_value() -> None:
    assert_target(ISSUE_11_CASES, TARGET_RIGHT_SHARE)


def test_new_cases_repair_recovers_ninety_two_percent_with_no_wrong_value() -> None:
    assert_target(CASES, ISSUE_22_TARGET_RIGHT_SHARE)


@pytest.mark.parametrize(
    ("case_id", "key"), sorted(WRAPPER_KEYS.items()), ids=sorted(WRAPPER_KEYS)
)
def test_a_wrapper_that_does_not_name_the_payload_raises_naming_its_key(
    case_id: str, key: str
) -> None:
    (case,) = [c for c in CASES if c.id == case_id]
    assert case.schema is not None
    parser = JsonFenceOutputParser(pydantic_object=SCHEMAS[case.schema], repair=True)
    with pytest.raises(SchemaValidationError) as caught:
        parser.parse(case.input)
    assert [e["value"] for e in caught.value.errors] == [key]
