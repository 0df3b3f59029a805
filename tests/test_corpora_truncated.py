r"""Conformance of ``TruncationRecoveringOutputParser`` with the peers' truncated cases.

The corpora are read where they live, as in ``test_corpora.py``:
``../shared/corpora`` next to the clone, or the folder named by
``JSONRECOVER_CORPORA``. Without them the module is skipped with the reason
shown, unless ``JSONRECOVER_REQUIRE_CORPORA=1`` (as in CI).

In scope: every case labelled ``truncated`` in langchain, partial_json_parser,
vercel_ai, json_repair and baml, fed to
``TruncationRecoveringOutputParser().parse(input)``. The label is a heuristic
(see the corpora README): it also catches syntax errors that merely leave a
string or a bracket open. Every case we do not match is listed, with what we
do instead, pinned by a test so the list cannot rot:

- ``DELIBERATE_DIFFERENCES``: truncation policy where the peers disagree
  (the README's "Where peers disagree"); we follow pydantic-core's partial
  semantics (``from_json(text, allow_partial="trailing-strings")``), except
  where issue 21 asks otherwise: a number at the cut is dropped, and a cut
  right after a closer is an error without ``finish_reason="length"``;
- ``FOR_REPAIR``: syntax errors, not truncation; they belong to the repair
  issue (``repair=True``) and are re-checked when it lands. Today they raise,
  or return the value pinned here;
- two bugs found here are fixed: baml-95 (a fence body cut by a ``` line
  inside a JSON string was closed as if truncated) and a syntax error before
  the cut swallowed by pydantic-core's partial mode (``{"key": "v"alue"}`` ->
  ``{"key": "v"}``); both now raise ``InvalidJsonError``.

Counts (pinned by ``test_counts_per_corpus``):

| corpus | truncated | matched | deliberate | for repair |
|---|---|---|---|---|
| langchain | 104 | 95 | 7 | 2 |
| partial_json_parser | 58 | 39 | 19 | 0 |
| vercel_ai | 53 | 25 | 28 | 0 |
| json_repair | 74 | 19 | 17 | 38 |
| baml | 22 | 7 | 9 | 6 |
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final

import pytest
from _corpora import (
    CORPUS_NAMES,
    MISSING,
    MISSING_REASON,
    REQUIRE_ENV,
    Case,
    Outcome,
    Raises,
    Returns,
    all_cases,
    case_id,
    same_json,
)

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonRecoveryError,
    NoJsonFoundError,
    TruncationRecoveringOutputParser,
)


@dataclass(frozen=True, slots=True)
class Deliberate:
    """A truncation policy where we differ from the peer on purpose."""

    reason: str
    ours: Outcome


@dataclass(frozen=True, slots=True)
class ForRepair:
    """A syntax error the truncation parser is not meant to fix."""

    syntax: str
    """What the error is."""
    ours: Outcome
    """What we do today."""


# The truncation policies (README, "Where peers disagree") ----------------------

BARE_SCALAR: Final = "bare scalar reply: never taken"
LITERAL: Final = (
    "unfinished literal dropped (pydantic-core semantics), peer completes it"
)
NUMBER: Final = "unfinished number like 1. dropped"
KEY_WITHOUT_VALUE: Final = (
    "key without a value dropped, json_repair keeps it as empty string"
)
TRAILING_WHITESPACE: Final = (
    "whitespace kept at the end of a cut string (as BAML), json_repair strips it"
)
DANGLING_BACKSLASH: Final = "dangling backslash dropped (as langchain and Vercel)"
BRACKET_IN_STRING: Final = (
    "a closing bracket inside an unterminated string is string content (as langchain)"
)
COMMA_IN_STRING: Final = (
    "a comma inside an unterminated string is string content (as langchain), "
    "json_repair ends the string there and reads a member after it"
)
PARTIAL_KEY: Final = "partial key dropped (json_repair makes an array)"
OPEN_STRING_IN_ARRAY: Final = '["  -> [""] as partial-json-parser (json_repair: [])'
NUMBER_AT_CUT: Final = (
    "a number at the cut dropped: its last digits may be missing (issue 21)"
)
AFTER_CLOSER: Final = (
    "a cut right after a closer is an error unless finish_reason says the "
    "token limit: a lost closer reads so too (issue 21)"
)
CLOSES_THEN_WORDS: Final = (
    "a string at the cut closes the JSON, then goes on in words on its line: "
    "a lost closing quote reads as well, so without a token-limit stop the "
    "cut reading is not taken (issue 21)"
)

POLICIES: Final = frozenset(
    {
        BARE_SCALAR,
        LITERAL,
        NUMBER,
        KEY_WITHOUT_VALUE,  # no case in scope needs it today
        TRAILING_WHITESPACE,
        DANGLING_BACKSLASH,
        BRACKET_IN_STRING,
        CLOSES_THEN_WORDS,
        COMMA_IN_STRING,
        PARTIAL_KEY,
        OPEN_STRING_IN_ARRAY,
        NUMBER_AT_CUT,
        AFTER_CLOSER,
    }
)
FOR_REPAIR_REASON: Final = (
    "syntax error, not truncation: the repair issue (repair=True)"
)

DELIBERATE_DIFFERENCES: Final[dict[str, Deliberate]] = {
    # langchain
    "langchain-32": Deliberate(NUMBER, Returns({})),
    # partial_json_parser
    "partial_json_parser-1": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-2": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-3": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-4": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-7": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-8": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-9": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-12": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-13": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "partial_json_parser-18": Deliberate(NUMBER, Returns([])),
    "partial_json_parser-58": Deliberate(LITERAL, Returns([1, 2])),
    "partial_json_parser-59": Deliberate(LITERAL, Returns([1, 2])),
    "partial_json_parser-60": Deliberate(LITERAL, Returns([1, 2])),
    "partial_json_parser-64": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    # vercel_ai
    "vercel_ai-2": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-3": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-4": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-5": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-9": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-10": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-13": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-14": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-17": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-18": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-19": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-20": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-21": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-22": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-23": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-24": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-25": Deliberate(BARE_SCALAR, Raises(NoJsonFoundError)),
    "vercel_ai-31": Deliberate(LITERAL, Returns([[False], []])),
    # json_repair
    "json_repair-33": Deliberate(DANGLING_BACKSLASH, Returns({"key": "val"})),
    "json_repair-34": Deliberate(TRAILING_WHITESPACE, Returns({"key": "val\n"})),
    "json_repair-35": Deliberate(
        COMMA_IN_STRING, Returns({"key": "val\n123,`key2:value2"})
    ),
    "json_repair-36": Deliberate(BRACKET_IN_STRING, Returns({"key": "value}"})),
    "json_repair-40": Deliberate(OPEN_STRING_IN_ARRAY, Returns([""])),
    "json_repair-51": Deliberate(BRACKET_IN_STRING, Returns({"key": ["value]}"]})),
    "json_repair-61": Deliberate(PARTIAL_KEY, Returns([{"key": "value"}])),
    "json_repair-128": Deliberate(
        BRACKET_IN_STRING, Returns({"lorem_ipsum": "sic tamet, quick brown fox. }"})
    ),
    "json_repair-135": Deliberate(BRACKET_IN_STRING, Returns({"key": "value}```"})),
    "json_repair-191": Deliberate(BRACKET_IN_STRING, Returns({"a": "first, b: 1}"})),
    "json_repair-192": Deliberate(BRACKET_IN_STRING, Returns({"a": "first, b: true}"})),
    "json_repair-193": Deliberate(BRACKET_IN_STRING, Returns({"a": "first, b: [1]}"})),
    "json_repair-194": Deliberate(
        BRACKET_IN_STRING, Returns({"a": "first, b: prose}"})
    ),
    "json_repair-260": Deliberate(CLOSES_THEN_WORDS, Raises(InvalidJsonError)),
    # issue 21: the cut rules
    "langchain-83": Deliberate(AFTER_CLOSER, Raises(InvalidJsonError)),
    "langchain-105": Deliberate(NUMBER_AT_CUT, Returns({"country_name": "France"})),
    "langchain-106": Deliberate(NUMBER_AT_CUT, Returns({"country_name": "France"})),
    "langchain-107": Deliberate(NUMBER_AT_CUT, Returns({"country_name": "France"})),
    "langchain-108": Deliberate(NUMBER_AT_CUT, Returns({"country_name": "France"})),
    "langchain-126": Deliberate(
        NUMBER_AT_CUT, Returns({"names": ["suzy", "jermaine", "alex"], "person": {}})
    ),
    "json_repair-38": Deliberate(AFTER_CLOSER, Raises(InvalidJsonError)),
    "json_repair-50": Deliberate(NUMBER_AT_CUT, Returns({"key1": {"key2": [1, 2]}})),
    "json_repair-96": Deliberate(NUMBER_AT_CUT, Returns([105])),
    "baml-27": Deliberate(NUMBER_AT_CUT, Returns([1, 2])),
    "baml-28": Deliberate(NUMBER_AT_CUT, Returns({"key": [1, 2]})),
    "baml-102": Deliberate(NUMBER_AT_CUT, Returns([1234])),
    "baml-103": Deliberate(NUMBER_AT_CUT, Returns([])),
    "baml-125": Deliberate(NUMBER_AT_CUT, Returns([])),
    "baml-126": Deliberate(NUMBER_AT_CUT, Returns({"a": 11})),
    "baml-127": Deliberate(NUMBER_AT_CUT, Returns({"a": 11})),
    "baml-132": Deliberate(NUMBER_AT_CUT, Returns([1])),
    "baml-133": Deliberate(NUMBER_AT_CUT, Returns([1, 2, []])),
    "vercel_ai-29": Deliberate(NUMBER_AT_CUT, Returns([[1], []])),
    "vercel_ai-32": Deliberate(AFTER_CLOSER, Raises(InvalidJsonError)),
    "vercel_ai-35": Deliberate(NUMBER_AT_CUT, Returns([[]])),
    "vercel_ai-37": Deliberate(NUMBER_AT_CUT, Returns({"a": {"b": 1}, "c": {}})),
    "vercel_ai-38": Deliberate(NUMBER_AT_CUT, Returns({"a": {"b": "1"}, "c": {}})),
    "vercel_ai-39": Deliberate(NUMBER_AT_CUT, Returns({"a": {"b": False}, "c": {}})),
    "vercel_ai-40": Deliberate(NUMBER_AT_CUT, Returns({"a": {"b": []}, "c": {}})),
    "vercel_ai-41": Deliberate(NUMBER_AT_CUT, Returns({"a": {"b": {}}, "c": {}})),
    "vercel_ai-46": Deliberate(AFTER_CLOSER, Raises(InvalidJsonError)),
    "vercel_ai-60": Deliberate(AFTER_CLOSER, Raises(InvalidJsonError)),
    "partial_json_parser-31": Deliberate(NUMBER_AT_CUT, Returns({})),
    "partial_json_parser-32": Deliberate(NUMBER_AT_CUT, Returns({})),
    "partial_json_parser-33": Deliberate(NUMBER_AT_CUT, Returns({})),
    "partial_json_parser-52": Deliberate(NUMBER_AT_CUT, Returns([])),
    "partial_json_parser-55": Deliberate(NUMBER_AT_CUT, Returns([1])),
}

INVALID: Final = Raises(InvalidJsonError)
NO_JSON: Final = Raises(NoJsonFoundError)

FOR_REPAIR: Final[dict[str, ForRepair]] = {
    "json_repair-97": ForRepair("comma where the colon belongs", INVALID),
    "json_repair-121": ForRepair("unquoted values with a stray quote", INVALID),
    "json_repair-123": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-126": ForRepair("unquoted value with commas", INVALID),
    "json_repair-137": ForRepair("missing closing quote of a key", INVALID),
    "json_repair-138": ForRepair(
        "missing closing quote of a key; read as a cut, the open key is dropped",
        Returns({}),
    ),
    "json_repair-150": ForRepair("backslash-escaped quotes around the JSON", INVALID),
    "json_repair-153": ForRepair("object holding a bare number, stray text", INVALID),
    "json_repair-179": ForRepair("stray quote inside a key", INVALID),
    "json_repair-180": ForRepair("unquoted value, missing comma", INVALID),
    "json_repair-196": ForRepair("single-quoted string", INVALID),
    "json_repair-268": ForRepair("unquoted key and value", NO_JSON),
    "json_repair-47": ForRepair("missing commas between array items", INVALID),
    "json_repair-72": ForRepair("missing opening quote of an array item", INVALID),
    "json_repair-73": ForRepair("stray word and quote after an array item", INVALID),
    "json_repair-116": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-174": ForRepair("missing closing quote of a value", INVALID),
    "json_repair-176": ForRepair("doubled opening quote", INVALID),
    "json_repair-181": ForRepair("unescaped quotes inside a string", INVALID),
    "json_repair-185": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-186": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-190": ForRepair("missing closing quote of a value", INVALID),
    "json_repair-221": ForRepair("stray quote line, trailing comma", INVALID),
    "json_repair-222": ForRepair(
        "stray quote line, single-quoted key, trailing comma", INVALID
    ),
    "json_repair-223": ForRepair("stray quote line, comment, trailing comma", INVALID),
    "json_repair-224": ForRepair(
        "stray quote line, unquoted key, trailing comma", INVALID
    ),
    "json_repair-225": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-239": ForRepair("stray quote line, trailing comma", INVALID),
    "json_repair-240": ForRepair("stray quote line, trailing comma", INVALID),
    "json_repair-242": ForRepair("unescaped quote inside a string", INVALID),
    "json_repair-256": ForRepair("unescaped quotes inside a string", INVALID),
    "json_repair-257": ForRepair("unescaped quotes inside a string", INVALID),
    "json_repair-259": ForRepair("unescaped quotes inside a string", INVALID),
    # baml
    "baml-34": ForRepair("unescaped quote inside a string, in a fence", INVALID),
    "baml-67": ForRepair("unquoted key, missing brackets, prose after", INVALID),
    "baml-70": ForRepair("unquoted key, prose after", INVALID),
    "baml-95": ForRepair(
        "trailing comma in a fence whose string holds a ``` line", INVALID
    ),
    "baml-113": ForRepair(
        "single quotes (and BAML drops a number that may grow)", INVALID
    ),
    "baml-128": ForRepair("unquoted key", NO_JSON),
    # Only a prefix of valid JSON is a cut: text that no JSON value starts
    # with, before the reply ends, is a syntax error (issue 10, family 6).
    "langchain-31": ForRepair(
        "a bare word where a value is due, then the end", INVALID
    ),
    "langchain-34": ForRepair(
        "a bare word where a value is due, then the end", INVALID
    ),
    "json_repair-71": ForRepair(
        "a parenthesis where the array's bracket is due", INVALID
    ),
    "json_repair-82": ForRepair("an unclosed comment at the end", INVALID),
    "json_repair-134": ForRepair("backticks glued to the value", INVALID),
    "json_repair-261": ForRepair("a bare word after a closed string", INVALID),
    "json_repair-262": ForRepair("a bare word after a closed string", INVALID),
}


@dataclass(frozen=True, slots=True)
class Counts:
    """One corpus's tally: matched, deliberate, for repair."""

    truncated: int
    matched: int
    deliberate: int
    for_repair: int


COUNTS: Final[dict[str, Counts]] = {
    "langchain": Counts(104, 95, 7, 2),
    "partial_json_parser": Counts(58, 39, 19, 0),
    "vercel_ai": Counts(53, 25, 28, 0),
    "json_repair": Counts(74, 19, 17, 38),
    "baml": Counts(22, 7, 9, 6),
}


# Loading -----------------------------------------------------------------------


def same_outcome(a: Outcome, b: Outcome) -> bool:
    if isinstance(a, Raises) or isinstance(b, Raises):
        return a == b
    return same_json(a.value, b.value)


def outcome(text: str) -> Outcome:
    """What ``TruncationRecoveringOutputParser(repair=False).parse`` does with
    ``text``: the syntax errors left for repair are errors here."""
    try:
        return Returns(TruncationRecoveringOutputParser(repair=False).parse(text))
    except JsonRecoveryError as error:
        return Raises(type(error))


ALL_CASES: Final = all_cases()
IN_SCOPE: Final = [case for case in ALL_CASES if case.kind == "truncated"]
CHECKED: Final = [
    case
    for case in IN_SCOPE
    if case.id not in DELIBERATE_DIFFERENCES and case.id not in FOR_REPAIR
]
VALUE_CASES: Final = [case for case in CHECKED if case.expect == "value"]
ERROR_CASES: Final = [case for case in CHECKED if case.expect == "error"]
DELIBERATE_CASES: Final = [
    case for case in IN_SCOPE if case.id in DELIBERATE_DIFFERENCES
]
REPAIR_CASES: Final = [case for case in IN_SCOPE if case.id in FOR_REPAIR]


# Tests -------------------------------------------------------------------------


def test_peer_corpora_are_present() -> None:
    if MISSING:
        pytest.fail(f"{MISSING_REASON} ({REQUIRE_ENV}=1)")


@pytest.mark.parametrize("case", VALUE_CASES, ids=case_id)
def test_closes_as_the_peer_expects(case: Case) -> None:
    actual = outcome(case.input)
    assert same_outcome(actual, Returns(case.expected)), (
        f"{case.id}: {case.input!r} gave {actual!r}, peer expects {case.expected!r}"
    )


@pytest.mark.parametrize("case", ERROR_CASES, ids=case_id)
def test_rejects_what_the_peer_rejects(case: Case) -> None:
    with pytest.raises(JsonRecoveryError):
        TruncationRecoveringOutputParser().parse(case.input)


@pytest.mark.parametrize("case", DELIBERATE_CASES, ids=case_id)
def test_keeps_the_deliberate_difference(case: Case) -> None:
    ours = DELIBERATE_DIFFERENCES[case.id].ours
    actual = outcome(case.input)
    assert same_outcome(actual, ours), f"{case.id}: {case.input!r} gave {actual!r}"
    _assert_peer_differs(case, ours)


@pytest.mark.parametrize("case", REPAIR_CASES, ids=case_id)
def test_syntax_error_left_for_repair(case: Case) -> None:
    ours = FOR_REPAIR[case.id].ours
    actual = outcome(case.input)
    assert same_outcome(actual, ours), f"{case.id}: {case.input!r} gave {actual!r}"
    _assert_peer_differs(case, ours)


def _assert_peer_differs(case: Case, ours: Outcome) -> None:
    if isinstance(ours, Raises):
        assert case.expect == "value", f"{case.id}: the peer rejects it too now"
    else:
        assert case.expect == "error" or not same_json(ours.value, case.expected), (
            f"{case.id}: the peer expects {ours.value!r} too now"
        )


@pytest.mark.parametrize("listed", [*DELIBERATE_DIFFERENCES, *FOR_REPAIR], ids=str)
def test_listed_case_is_in_scope(listed: str) -> None:
    if MISSING:
        pytest.skip("no corpora: see test_peer_corpora_are_present")
    assert [case for case in IN_SCOPE if case.id == listed], (
        f"{listed} is listed here but is not a truncated corpus case"
    )
    assert not (listed in DELIBERATE_DIFFERENCES and listed in FOR_REPAIR)


def test_reasons_come_from_the_policies() -> None:
    unknown = {d.reason for d in DELIBERATE_DIFFERENCES.values()} - POLICIES
    assert not unknown
    for entry in FOR_REPAIR.values():
        assert entry.syntax


def tally(cases: list[Case]) -> dict[str, Counts]:
    by_corpus: dict[str, Counter[str]] = {name: Counter() for name in CORPUS_NAMES}
    for case in cases:
        counter = by_corpus[case.corpus]
        counter["truncated"] += 1
        repair = FOR_REPAIR.get(case.id)
        if case.id in DELIBERATE_DIFFERENCES:
            counter["deliberate"] += 1
        elif repair is None:
            counter["matched"] += 1
        else:
            counter["for_repair"] += 1
    return {
        name: Counts(c["truncated"], c["matched"], c["deliberate"], c["for_repair"])
        for name, c in by_corpus.items()
    }


def test_counts_per_corpus() -> None:
    if MISSING:
        pytest.skip("no corpora: see test_peer_corpora_are_present")
    assert tally(IN_SCOPE) == COUNTS
    for name, c in COUNTS.items():
        row = (
            f"| {name} | {c.truncated} | {c.matched} | {c.deliberate} "
            f"| {c.for_repair} |"
        )
        assert row in (__doc__ or ""), f"module docstring lacks {row}"


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        pytest.param(True, 1, False, id="true-is-not-1"),
        pytest.param(False, 0, False, id="false-is-not-0"),
        pytest.param(1, 1.0, True, id="1-equals-1.0"),
        pytest.param(None, 0, False, id="null-is-not-0"),
        pytest.param("", None, False, id="empty-string-is-not-null"),
        pytest.param({"a": [True]}, {"a": [1]}, False, id="nested-bool-is-not-int"),
        pytest.param({"a": 1}, {"a": 1, "b": ""}, False, id="extra-key-differs"),
        pytest.param([1, 2], [1, 2, None], False, id="list-length-counts"),
        pytest.param([], {}, False, id="list-is-not-dict"),
    ],
)
def test_same_json_is_strict_about_types(a: object, b: object, equal: bool) -> None:
    assert same_json(a, b) is equal
    assert same_json(b, a) is equal
