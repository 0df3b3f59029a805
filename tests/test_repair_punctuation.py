"""The punctuation repairs: each table holds what one repair reads, and what it refuses.

A repair reads a ``:`` or ``,`` of the wrong kind, doubled or lost only where
the text has one reading; the refusals beside each show the texts that a
different original explains as well.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover import JsonFenceOutputParser, JsonRecoveryError
from langchain_jsonrecover._core.repair.syntax import repair

Row = tuple[str, str, Any]


def _reads(rows: list[Row], name: str) -> None:
    for _, text, value in rows:
        found = JsonFenceOutputParser(repair=True).extract(text)
        assert (found.value, found.repairs) == (value, (name,)), text


def _refuses(text: str) -> None:
    assert repair(text) is None
    with pytest.raises(JsonRecoveryError):
        JsonFenceOutputParser(repair=True).parse(text)


def _ids(rows: list[Row]) -> list[str]:
    return [row[0] for row in rows]


SEMICOLON_READS: list[Row] = [
    ("between_members", '{"a": 1; "b": 2}', {"a": 1, "b": 2}),
    ("between_items", "[1; 2]", [1, 2]),
    ("after_a_string", '{"a": "x"; "b": [true]}', {"a": "x", "b": [True]}),
    ("after_a_container", '[{"a": 1};\n{"b": 2}]', [{"a": 1}, {"b": 2}]),
]
SEMICOLON_REFUSES: list[tuple[str, str]] = [
    ("before_a_comma", '{"a": 1;, "b": 2}'),
    ("doubled", "[1;; 2]"),
    ("before_a_colon", '{"a": 1; : 2}'),
    # The string's closing quote may have traded places with a ``;`` in it.
    ("before_a_closer", '{"a": 1, "b": "x";}'),
]


@pytest.mark.parametrize(
    ("text", "value"), [r[1:] for r in SEMICOLON_READS], ids=_ids(SEMICOLON_READS)
)
def test_semicolon_as_comma_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "semicolon_as_comma")


@pytest.mark.parametrize(
    "text", [r[1] for r in SEMICOLON_REFUSES], ids=[r[0] for r in SEMICOLON_REFUSES]
)
def test_semicolon_as_comma_refuses(text: str) -> None:
    _refuses(text)


EQUALS_READS: list[Row] = [
    ("spaced", '{"a" = 1}', {"a": 1}),
    ("tight", '{"a"="x", "b": 2}', {"a": "x", "b": 2}),
    ("nested", '{"a": {"b" = [1]}}', {"a": {"b": [1]}}),
    ("after_a_string", '{"c": "noir", "size"= "L"}', {"c": "noir", "size": "L"}),
]
EQUALS_REFUSES: list[tuple[str, str]] = [
    ("bare_key", "{a = 1}"),  # a bare key is read only with its colon
    ("as_a_value", '{"a": = 1}'),
]


@pytest.mark.parametrize(
    ("text", "value"), [r[1:] for r in EQUALS_READS], ids=_ids(EQUALS_READS)
)
def test_equals_as_colon_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "equals_as_colon")


@pytest.mark.parametrize(
    "text", [r[1] for r in EQUALS_REFUSES], ids=[r[0] for r in EQUALS_REFUSES]
)
def test_equals_as_colon_refuses(text: str) -> None:
    _refuses(text)


COLON_READS: list[Row] = [
    ("number", '{"a" 1}', {"a": 1}),
    ("string", '{"a" "x", "b": 2}', {"a": "x", "b": 2}),
    ("container", '{"a"\n  {"b": [1]}}', {"a": {"b": [1]}}),
    ("literal", '{"a": 1, "ok" true}', {"a": 1, "ok": True}),
]
COLON_REFUSES: list[tuple[str, str]] = [
    # The colon may have traded places with the key's closing quote.
    ("colon_in_the_key", '{"name:" "Ada"}'),
    ("colon_in_the_value", '{"tool"":python"}'),
    ("bare_key", "{a 1}"),
    ("nothing_after_the_key", '{"a" }'),
    ("unquoted_value", '{"a" ok}'),
]


@pytest.mark.parametrize(
    ("text", "value"), [r[1:] for r in COLON_READS], ids=_ids(COLON_READS)
)
def test_colon_inserted_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "colon_inserted")


@pytest.mark.parametrize(
    "text", [r[1] for r in COLON_REFUSES], ids=[r[0] for r in COLON_REFUSES]
)
def test_colon_inserted_refuses(text: str) -> None:
    _refuses(text)


COMMA_COLON_READS: list[Row] = [
    ("number", '{"a", 1}', {"a": 1}),
    ("string_then_a_key", '{"a", "x", "b": 2}', {"a": "x", "b": 2}),
    ("container", '{"a", {"b": 1}}', {"a": {"b": 1}}),
    ("later_key_in_an_array", '[{"a": 1, "b", 2}]', [{"a": 1, "b": 2}]),
]
COMMA_COLON_REFUSES: list[tuple[str, str]] = [
    ("key_follows", '{"a", "x": 1}'),  # a lost value
    ("nothing_follows", '{"a",}'),
]


@pytest.mark.parametrize(
    ("text", "value"), [r[1:] for r in COMMA_COLON_READS], ids=_ids(COMMA_COLON_READS)
)
def test_comma_as_colon_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "comma_as_colon")


@pytest.mark.parametrize(
    "text",
    [r[1] for r in COMMA_COLON_REFUSES],
    ids=[r[0] for r in COMMA_COLON_REFUSES],
)
def test_comma_as_colon_refuses(text: str) -> None:
    _refuses(text)


DROPPED_READS: list[Row] = [
    ("colon_after_brace", '{: "a": 1}', {"a": 1}),
    ("doubled_colon", '{"a":: 1}', {"a": 1}),
    ("colon_after_bracket", "[:1, 2]", [1, 2]),
    ("colon_after_comma_in_array", "[1,: 2]", [1, 2]),
    ("colon_after_comma_in_object", '{"a": 1,: "b": 2}', {"a": 1, "b": 2}),
    ("colon_before_comma", "[1:, 2]", [1, 2]),
    ("colon_before_brace", '{"a": 1:}', {"a": 1}),
    ("doubled_comma_in_object", '{"a": 1,, "b": 2}', {"a": 1, "b": 2}),
    ("comma_before_colon", '{"a",: 1}', {"a": 1}),
    ("comma_after_colon", '{"a":, 1}', {"a": 1}),
]
DROPPED_REFUSES: list[tuple[str, str]] = [
    # ``[1,,2]``: a lost item reads as well as a doubled comma.
    ("doubled_comma_in_array", "[1,, 2]"),
    ("comma_where_a_value_is_due", '{"a":, "b": 1}'),
    ("comma_then_end", '{"a":,}'),
    ("colon_after_a_value", '{"a": "b": 1}'),
    ("colon_then_comma_after_colon", '{"a": :, "b": 1}'),
]


@pytest.mark.parametrize(
    ("text", "value"), [r[1:] for r in DROPPED_READS], ids=_ids(DROPPED_READS)
)
def test_punctuation_dropped_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "punctuation_dropped")


@pytest.mark.parametrize(
    "text", [r[1] for r in DROPPED_REFUSES], ids=[r[0] for r in DROPPED_REFUSES]
)
def test_punctuation_dropped_refuses(text: str) -> None:
    _refuses(text)


COLON_AS_COMMA_READS: list[Row] = [
    ("between_numbers", '{"a": 1: "b": 2}', {"a": 1, "b": 2}),
    ("after_a_container", '{"a": [1]: "b": {"c": 1}}', {"a": [1], "b": {"c": 1}}),
    ("before_a_spaced_key", '{"a": true:\n  "b" : null}', {"a": True, "b": None}),
]
COLON_AS_COMMA_REFUSES: list[tuple[str, str]] = [
    # A value, not a key, after it: a lost key or a lost comma reads as well.
    ("before_a_value", '{"a": 1: 2}'),
    ("after_a_string_before_a_value", '{"a": "b": 1}'),
    # In an array a key after it may open an object whose brace was lost.
    ("in_an_array", '[1: "b": 2]'),
    # A bare word before a colon is no quoted key.
    ("before_a_bare_key", '{"a": 1: b: 2}'),
]


@pytest.mark.parametrize(
    ("text", "value"),
    [r[1:] for r in COLON_AS_COMMA_READS],
    ids=_ids(COLON_AS_COMMA_READS),
)
def test_colon_as_comma_reads(text: str, value: Any) -> None:
    _reads([("", text, value)], "colon_as_comma")


@pytest.mark.parametrize(
    "text",
    [r[1] for r in COLON_AS_COMMA_REFUSES],
    ids=[r[0] for r in COLON_AS_COMMA_REFUSES],
)
def test_colon_as_comma_refuses(text: str) -> None:
    _refuses(text)
