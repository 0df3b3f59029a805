"""Conformance with peer projects' test cases (the shared JSONL corpora).

The corpora are read where they live, never copied: ``../shared/corpora`` next
to the clone, or the folder named by ``JSONRECOVER_CORPORA``. Without them the
module is skipped, unless ``JSONRECOVER_REQUIRE_CORPORA=1`` (as in CI).

In scope now (extraction only; truncation recovery and syntax repair come later):

- langchain: every case whose input is complete JSON, i.e. every kind but
  ``truncated``, plus the complete inputs the kind heuristic labels truncated;
- the other corpora: the ``fence`` and ``prose`` cases, and the ``other`` cases
  (nothing JSON-like: the peers reject them, and so must we).

Where we differ on purpose the case is listed in ``DELIBERATE_DIFFERENCES`` and
the test pins what we do instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import pytest
from _corpora import (
    MISSING,
    MISSING_REASON,
    REQUIRE_ENV,
    Case,
    Raises,
    Returns,
    all_cases,
    case_id,
    same_json,
)

from langchain_jsonrecover import JsonRecoveryError, NoJsonFoundError, extract_json


@dataclass(frozen=True, slots=True)
class Deliberate:
    """A case where we differ from the peer on purpose."""

    reason: str
    ours: Returns | Raises


DELIBERATE_DIFFERENCES: Final[dict[str, Deliberate]] = {
    "langchain-20": Deliberate(
        "langchain's parse_and_check_json_markdown requires a dict; extract_json "
        "returns the scalar 1 from a json-tagged fence, as parse_json_markdown does",
        Returns(1),
    ),
    "baml-129": Deliberate(
        "'foobar' -> \"foobar\" is BAML schema-driven string coercion; a bare "
        "word is no JSON, and bare scalar replies are never taken",
        Raises(NoJsonFoundError),
    ),
}

# Complete JSON that the corpus's kind heuristic labels ``truncated``: it took
# the ``` inside a string for the closing fence.
COMPLETE_DESPITE_LABEL: Final[dict[str, str]] = {
    "langchain-15": "fenced object whose string value holds ```bar```",
    "langchain-17": "fenced object whose string value holds ```bar ... ```",
}


def in_scope(case: Case) -> bool:
    if case.corpus == "langchain":
        return case.kind != "truncated" or case.id in COMPLETE_DESPITE_LABEL
    return case.kind in {"fence", "prose", "other"}


ALL_CASES: Final = all_cases()
IN_SCOPE: Final = [case for case in ALL_CASES if in_scope(case)]
CHECKED: Final = [case for case in IN_SCOPE if case.id not in DELIBERATE_DIFFERENCES]
VALUE_CASES: Final = [case for case in CHECKED if case.expect == "value"]
ERROR_CASES: Final = [case for case in CHECKED if case.expect == "error"]
DELIBERATE_CASES: Final = [
    case for case in IN_SCOPE if case.id in DELIBERATE_DIFFERENCES
]


def test_peer_corpora_are_present() -> None:
    if MISSING:
        pytest.fail(f"{MISSING_REASON} ({REQUIRE_ENV}=1)")


@pytest.mark.parametrize("case", VALUE_CASES, ids=case_id)
def test_finds_the_value_the_peer_expects(case: Case) -> None:
    actual = extract_json(case.input).value
    assert same_json(actual, case.expected), (
        f"{case.id} ({case.kind}): got {actual!r}, peer expects {case.expected!r}"
    )


@pytest.mark.parametrize("case", ERROR_CASES, ids=case_id)
def test_rejects_what_the_peer_rejects(case: Case) -> None:
    with pytest.raises(JsonRecoveryError):
        extract_json(case.input)


@pytest.mark.parametrize("case", DELIBERATE_CASES, ids=case_id)
def test_keeps_the_deliberate_difference(case: Case) -> None:
    ours = DELIBERATE_DIFFERENCES[case.id].ours
    if isinstance(ours, Raises):
        assert case.expect == "value", f"{case.id}: the peer rejects it too now"
        with pytest.raises(ours.error):
            extract_json(case.input)
        return
    actual = extract_json(case.input).value
    assert same_json(actual, ours.value), f"{case.id}: got {actual!r}"
    assert case.expect == "error" or not same_json(actual, case.expected), (
        f"{case.id}: the peer expects {actual!r} too now"
    )


@pytest.mark.parametrize(
    "listed", [*DELIBERATE_DIFFERENCES, *COMPLETE_DESPITE_LABEL], ids=str
)
def test_listed_case_is_in_scope(listed: str) -> None:
    if MISSING:
        pytest.skip("no corpora: see test_peer_corpora_are_present")
    matches = [case for case in IN_SCOPE if case.id == listed]
    assert matches, f"{listed} is listed here but is not an in-scope corpus case"
    if listed in COMPLETE_DESPITE_LABEL:
        assert matches[0].kind == "truncated", f"{listed} is no longer mislabelled"


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        pytest.param(True, 1, False, id="true-is-not-1"),
        pytest.param(False, 0, False, id="false-is-not-0"),
        pytest.param(1, 1.0, True, id="1-equals-1.0"),
        pytest.param(None, 0, False, id="null-is-not-0"),
        pytest.param("1", 1, False, id="string-is-not-number"),
        pytest.param({"a": [True]}, {"a": [1]}, False, id="nested-bool-is-not-int"),
        pytest.param({"a": 1, "b": 2}, {"b": 2, "a": 1.0}, True, id="key-order-free"),
        pytest.param({"a": 1}, {"a": 1, "b": None}, False, id="extra-key-differs"),
        pytest.param([1, 2], [2, 1], False, id="list-order-counts"),
        pytest.param([1], [1, 1], False, id="list-length-counts"),
        pytest.param([], {}, False, id="list-is-not-dict"),
    ],
)
def test_same_json_is_strict_about_types(a: object, b: object, equal: bool) -> None:
    assert same_json(a, b) is equal
    assert same_json(b, a) is equal
