"""Issue 21, review round 4: wrong values in repair and candidate choice, each a table.

(a) An object of two strings alone (``{"a", "b"}``, ``{"a" "b"}``) is a
    member whose colon was lost or a set with the wrong brackets: two
    readings, so ``repair=True`` raises (F3). A key then a value that is no
    string, or more members, keep their one reading.
(b) Without a schema, a broken candidate before a value that decodes (the
    answer with a slip, then a format example) is two readings when its
    repair gives another value, or it has no repair and opens with a quoted
    key and its colon: raise, with and without ``repair`` (F21).
(c) An array of data (``[2.5]``, ``[-1]``) beside an object is a second
    value, not a citation: several values, an error. Reference numbers
    (whole, 0 to 9999) stay citations.
(d) A reply that ends inside a string whose last quote is escaped and then
    only closers follow (``{"b": "x\\"}``) is a backslash slip or a cut:
    without ``finish_reason="length"`` the truncation parser raises.
(e) The inner-quote reading (``inner_quotes_escaped``) takes an even number
    of quotes for text in each string; an odd number (``"a "b" c "d"``)
    leaves one quote whose role no rule decides: raise (F12).
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    RegexJsonOutputParser,
    TruncationRecoveringOutputParser,
    extract_json,
)

PARSERS = [
    pytest.param(lambda r: JsonFenceOutputParser(repair=r), id="fence"),
    pytest.param(lambda r: TruncationRecoveringOutputParser(repair=r), id="truncation"),
    pytest.param(
        lambda r: RegexJsonOutputParser(pattern=r"<json>(.*?)</json>", repair=r),
        id="regex",
    ),
]


def _parse(make: Any, repair: bool, text: str) -> Any:
    parser = make(repair)
    if isinstance(parser, RegexJsonOutputParser):
        text = f"<json>{text}</json>"
    return parser.parse(text)


# --- (a) two strings alone ------------------------------------------------------

SET_LIKE = [
    pytest.param('{"a", "b"}', id="comma"),
    pytest.param('{"a" "b"}', id="space"),
    pytest.param('{ "a" , "b" }', id="spaced_comma"),
    pytest.param('{"tags": {"a", "b"}}', id="nested_comma"),
    pytest.param('{"tags": {"red" "blue"}, "n": 1}', id="nested_space"),
]


@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("text", SET_LIKE)
def test_two_strings_alone_raise_with_repair(make: Any, text: str) -> None:
    with pytest.raises(JsonRecoveryError):
        _parse(make, True, text)


ONE_READING = [
    pytest.param('{"a", 1}', {"a": 1}, id="comma_number"),
    pytest.param('{"a" 1}', {"a": 1}, id="space_number"),
    pytest.param('{"name" "Ada", "age": 3}', {"name": "Ada", "age": 3}, id="more"),
    pytest.param('{"n": 1, "b" "c"}', {"n": 1, "b": "c"}, id="not_first_key"),
]


@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize(("text", "expected"), ONE_READING)
def test_lost_colon_with_one_reading_is_repaired(
    make: Any, text: str, expected: Any
) -> None:
    assert _parse(make, True, text) == expected


def test_two_strings_alone_extract_json() -> None:
    with pytest.raises(JsonRecoveryError):
        extract_json('{"a", "b"}', repair=True)


# --- (b) a broken answer before a value that decodes -----------------------------

BROKEN_BEFORE = [
    pytest.param('Answer: {"a": 1, "b" 2}\nExample: {"a": 0, "b": 0}', id="lost_colon"),
    pytest.param('Answer: {"a": 1 "b": 2}\nFormat: {"a": 3, "b": 4}', id="lost_comma"),
    pytest.param('Here: {"a": 1, "b": 2,, }\nFor example {"a": 0}', id="two_commas"),
    pytest.param("Result: {'a': 1}\nSchema: {\"a\": 0}", id="single_quotes"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("text", BROKEN_BEFORE)
def test_broken_answer_before_a_valid_value_raises(text: str, repair: bool) -> None:
    for parser in (
        JsonFenceOutputParser(repair=repair),
        TruncationRecoveringOutputParser(repair=repair),
    ):
        with pytest.raises(JsonRecoveryError, match="two readings"):
            parser.parse(text)
    with pytest.raises(JsonRecoveryError, match="two readings"):
        extract_json(text, repair=repair)


KEPT = [
    # The broken value repairs to the later one itself, or is no object of
    # quoted keys and has no repair.
    pytest.param('Draft: {"a": 1,} Final: {"a": 1}', {"a": 1}, id="same_value"),
    pytest.param('Use {name: value}. Result: {"a": 1}', {"a": 1}, id="placeholder"),
    pytest.param('see [1]. Answer: {"a": 1}', {"a": 1}, id="citation"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("text", "expected"), KEPT)
def test_value_after_a_candidate_with_no_other_reading(
    text: str, expected: Any, repair: bool
) -> None:
    assert JsonFenceOutputParser(repair=repair).parse(text) == expected
    assert TruncationRecoveringOutputParser(repair=repair).parse(text) == expected


# --- (c) an array of data beside an object is no citation ------------------------

NOT_CITATIONS = [
    pytest.param('[2.5, 2.5]\n{"a": 1}', id="floats_before"),
    pytest.param('{"a": 1}\n[0.5]', id="float_after"),
    pytest.param('Sources [-1] {"a": 1}', id="negative_in_prose"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("text", NOT_CITATIONS)
def test_data_array_beside_object_is_two_values(text: str, repair: bool) -> None:
    for parser in (
        JsonFenceOutputParser(repair=repair),
        TruncationRecoveringOutputParser(repair=repair),
    ):
        with pytest.raises(JsonRecoveryError):
            parser.parse(text)


CITATIONS = [
    pytest.param('{"a": 1} [4]', id="after"),
    pytest.param('[1, 2]\n{"a": 1}', id="before_on_its_line"),
    pytest.param('[2] The filing says {"a": 1}', id="leading"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize("text", CITATIONS)
def test_reference_numbers_stay_citations(text: str, repair: bool) -> None:
    assert JsonFenceOutputParser(repair=repair).parse(text) == {"a": 1}
    assert TruncationRecoveringOutputParser(repair=repair).parse(text) == {"a": 1}


# --- (d) an escaped quote, then closers, at the end of the reply -------------------

ESCAPED_QUOTE_END = [
    pytest.param('{"a": 1, "b": "x\\"}', {"a": 1, "b": 'x"}'}, id="object"),
    pytest.param('{"p": "c:\\\\logs\\"}', {"p": 'c:\\logs"}'}, id="path"),
    pytest.param('[{"q": "say \\"hi\\"}]', [{"q": 'say "hi"}]'}], id="nested"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("text", "cut_reading"), ESCAPED_QUOTE_END)
def test_escaped_quote_then_closers_is_no_cut_without_the_token_limit(
    text: str, cut_reading: Any, repair: bool
) -> None:
    # A backslash slipped before the closing quote, or a cut inside the string
    # that happens to end in closers: two readings, unless the model says it
    # stopped at its token limit.
    with pytest.raises(JsonRecoveryError, match="escaped quote"):
        TruncationRecoveringOutputParser(repair=repair).parse(text)
    message = AIMessage(text, response_metadata={"finish_reason": "length"})
    parser = TruncationRecoveringOutputParser(repair=repair)
    assert parser.parse_result([ChatGeneration(message=message)]) == cut_reading


def test_escaped_quote_without_closers_is_still_a_cut() -> None:
    parser = TruncationRecoveringOutputParser()
    assert parser.parse('{"a": 1, "b": "x\\"') == {"a": 1, "b": 'x"'}
    assert parser.parse('{"a": 1, "b": "x\\\\"}') == {"a": 1, "b": "x\\"}


# --- (e) the inner-quote reading: an even count of inner quotes in each string -----

INNER_ODD = [
    pytest.param('{"q": "a "b" c "d", "n": 1}', id="three"),
    pytest.param('{"q": "He said "hi" to "Bob" and "x", "n": 1}', id="five"),
]


@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("text", INNER_ODD)
def test_odd_inner_quotes_in_one_string_raise(make: Any, text: str) -> None:
    with pytest.raises(JsonRecoveryError):
        _parse(make, True, text)


INNER_EVEN = [
    pytest.param(
        '{"t": "call it "Owl"", "n": 1}', {"t": 'call it "Owl"', "n": 1}, id="doubled"
    ),
    pytest.param(
        '{"q": "a "b" c", "r": "x "y" z", "n": 1}',
        {"q": 'a "b" c', "r": 'x "y" z', "n": 1},
        id="two_strings",
    ),
]


@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize(("text", "expected"), INNER_EVEN)
def test_even_inner_quotes_in_each_string_are_read(
    make: Any, text: str, expected: Any
) -> None:
    assert _parse(make, True, text) == expected
