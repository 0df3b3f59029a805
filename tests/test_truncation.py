"""Replies cut off by the token limit: closing, trimming, and knowing the cut."""

from __future__ import annotations

import re
from typing import Any

import orjson
import pydantic_core
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage
from langchain_core.outputs import Generation
from pydantic import BaseModel

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonFenceOutputParser,
    NoJsonFoundError,
    RegexJsonOutputParser,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core.reply.record import stopped_at_token_limit

CLOSED: list[tuple[str, str, Any]] = [
    ("open_array", '{"a": [1, 2', {"a": [1]}),
    ("open_array_item_done", '{"a": [1, 2, ', {"a": [1, 2]}),
    (
        "candidate_closed_as_a_whole",
        '{"items": [{"a": 1}, {"b"',
        {"items": [{"a": 1}, {}]},
    ),
    ("unfinished_string_keeps_prefix", '{"text": "Hello wor', {"text": "Hello wor"}),
    ("unfinished_key_dropped", '{"a": 1, "ke', {"a": 1}),
    ("key_without_value_dropped", '{"a": 1, "b":', {"a": 1}),
    ("unfinished_true_dropped", '{"a": tr', {}),
    ("unfinished_null_dropped", "[1, 2, nul", [1, 2]),
    ("unfinished_decimal_dropped", '{"a": 1.', {}),
    ("lone_minus_dropped", '{"a": -', {}),
    ("number_at_the_cut_dropped", '{"a": 12', {}),
    ("exponent_at_the_cut_dropped", "[2.5e1", []),
    ("number_list_cut", "[101, 102, 10", [101, 102]),
    (
        "nested_containers_closed",
        '{"a": {"b": [true, {"c": [',
        {"a": {"b": [True, {"c": []}]}},
    ),
    ("cut_inside_unicode_escape", '{"a": "x\\u12', {"a": "x"}),
    ("cut_after_backslash", '{"a": "x\\', {"a": "x"}),
    ("brace_inside_cut_string_is_text", '{"a": "value}', {"a": "value}"}),
    ("raw_newline_in_cut_string", '{"a": "line\nnext', {"a": "line\nnext"}),
    ("unclosed_fence", '```json\n{"a": [1, 2', {"a": [1]}),
    (
        "in_prose",
        'Here you go: {"name": "Ada", "tags": ["x", "y',
        {"name": "Ada", "tags": ["x", "y"]},
    ),
    ("after_reasoning", '<think>hm</think>\n{"a": [1', {"a": []}),
    ("only_the_opening_bracket", "Result: [", []),
    ("complete_json_untouched", '{"a": 1}', {"a": 1}),
    (
        "closed_fence_with_open_json",
        '```\n{"foo": "bar"\n\n```\nThis should work',
        {"foo": "bar"},
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in CLOSED], ids=[r[0] for r in CLOSED]
)
def test_closes_the_cut_candidate(text: str, expected: Any) -> None:
    assert TruncationRecoveringOutputParser().parse(text) == expected


def test_closing_is_listed_in_repairs() -> None:
    found = TruncationRecoveringOutputParser().extract('Sure: ```json\n{"a": [1, ')
    assert found.repairs == ("fence_stripped", "truncation_closed")
    assert found.value == {"a": [1]}


# Only a prefix of valid JSON is a cut: each of these holds text that no JSON
# value starts with, so closing it would hide a syntax error or invent a value.
NOT_A_PREFIX = [
    # (a doubled comma in an object is repaired: ``punctuation_dropped``)
    ("double_comma_before_cut", '{"a": [1,, 2], "b": ['),
    ("missing_comma_before_cut", '{"a": "x" "b": [1'),
    ("missing_comma_in_array", '{"a": [1 2, 3'),
    ("nan_at_the_end", '{"a": 1, "b": NaN'),
    ("date_as_a_number", '{"date": 2024-01-15'),
    ("leading_zeros", '{"a": 00123'),
    ("hex_number", '{"a": 0x1F'),
    ("version_number", '{"a": 1.0.2'),
    ("unquoted_value_at_the_end", '{"a": 1, "b": ok'),
    ("bare_word_in_an_array", '{"foo": [1, 2, oops'),
    ("parenthesis_for_a_bracket", "[1, 2)"),
]


@pytest.mark.parametrize(
    "text", [r[1] for r in NOT_A_PREFIX], ids=[r[0] for r in NOT_A_PREFIX]
)
def test_syntax_error_before_the_cut_stays_invalid(text: str) -> None:
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser(repair=False).parse(text)
    assert (
        JsonFenceOutputParser().parse_result([Generation(text=text)], partial=True)
        is None
    )
    if " 2, 3" not in text and '"x" "b"' not in text:  # a missing comma is repaired
        with pytest.raises(InvalidJsonError):
            TruncationRecoveringOutputParser(repair=True).parse(text)


def test_no_json_stays_no_json() -> None:
    with pytest.raises(NoJsonFoundError):
        TruncationRecoveringOutputParser().parse("I ran out of tokens before")


def test_strict_parser_reports_the_cut() -> None:
    with pytest.raises(InvalidJsonError) as caught:
        JsonFenceOutputParser().parse('{"items": [{"a": 1}, {"b"')
    assert caught.value.truncated


# Normandy's runaway-newline rule.

RUNAWAY: list[tuple[str, str, Any]] = [
    (
        "depth_one_string_trimmed",
        '{"page_text": "Hello\\n\\n\\n\\n',
        {"page_text": "Hello"},
    ),
    ("carriage_returns_too", '{"t": "Hi\\r\\n\\r\\n\\r', {"t": "Hi"}),
    ("all_newlines_gives_empty", '{"t": "\\n\\n\\n', {"t": ""}),
    ("raw_newlines_count", '{"t": "Hi\n\n\n', {"t": "Hi"}),
    ("inner_newlines_kept", '{"t": "a\\nb\\n\\n', {"t": "a\\nb".replace("\\n", "\n")}),
    ("nested_string_untrimmed", '{"p": {"t": "Hi\\n\\n', {"p": {"t": "Hi\n\n"}}),
    ("array_member_at_depth_one", '["Hi\\n\\n\\n', ["Hi"]),
]


@pytest.mark.parametrize(
    ("text", "expected"), [r[1:] for r in RUNAWAY], ids=[r[0] for r in RUNAWAY]
)
def test_trim_runaway_newlines(text: str, expected: Any) -> None:
    assert (
        TruncationRecoveringOutputParser(trim_runaway_newlines=True).parse(text)
        == expected
    )


def test_runaway_trim_is_opt_in_and_listed() -> None:
    text = '{"page_text": "Hello\\n\\n\\n'
    assert TruncationRecoveringOutputParser().parse(text) == {
        "page_text": "Hello\n\n\n"
    }
    found = TruncationRecoveringOutputParser(trim_runaway_newlines=True).extract(text)
    assert found.repairs == ("runaway_newlines_trimmed", "truncation_closed")


# With a schema.


class Article(BaseModel):
    title: str
    body: str
    tags: list[str]


def test_recovered_value_validates() -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Article)
    text = '{"title": "T", "body": "Long tex", "tags": ["a", "b'
    assert parser.parse(text) == Article(title="T", body="Long tex", tags=["a", "b"])


def test_recovered_value_failing_schema_asks_for_shorter() -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Article)
    with pytest.raises(SchemaValidationError) as caught:
        parser.parse('{"title": "T", "body": "Long tex')
    assert caught.value.observation == (
        "Your reply was cut off before the JSON was complete, and what arrived "
        "does not match the schema:\n"
        "- tags: Field required\n"
        "Respond with a shorter JSON object that is complete, and nothing else.\n\n"
        "The JSON object has these fields:\n"
        '- "title" (string, required)\n'
        '- "body" (string, required)\n'
        '- "tags" (array of string, required)'
    )


# Knowing that the model stopped for length.

LENGTH_STOPS: list[tuple[str, dict[str, Any]]] = [
    ("openai", {"finish_reason": "length"}),
    ("openai_responses", {"incomplete_details": {"reason": "max_output_tokens"}}),
    ("anthropic", {"stop_reason": "max_tokens"}),
    ("gemini", {"finish_reason": "MAX_TOKENS"}),
    ("bedrock", {"stopReason": "max_tokens"}),
    ("ollama", {"done_reason": "length"}),
]
NORMAL_STOPS: list[dict[str, Any]] = [
    {"finish_reason": "stop"},
    {"stop_reason": "end_turn"},
    {"finish_reason": "STOP"},
    {"done_reason": "stop"},
    {"incomplete_details": None},
    {},
]


@pytest.mark.parametrize(
    "metadata", [r[1] for r in LENGTH_STOPS], ids=[r[0] for r in LENGTH_STOPS]
)
def test_length_stop_recognised(metadata: dict[str, Any]) -> None:
    assert stopped_at_token_limit(metadata)
    message = AIMessage('{"a": [1, 2', response_metadata=metadata)
    found = TruncationRecoveringOutputParser().extract(message)
    assert found.cut_off
    assert found.value == {"a": [1]}


@pytest.mark.parametrize("metadata", NORMAL_STOPS)
def test_normal_stop_is_not_a_cut(metadata: dict[str, Any]) -> None:
    assert not stopped_at_token_limit(metadata)
    assert (
        not JsonFenceOutputParser()
        .extract(AIMessage('{"a": 1}', response_metadata=metadata))
        .cut_off
    )


def test_cut_off_recorded_on_a_complete_reply() -> None:
    message = AIMessage(
        '{"a": 1} and then I', response_metadata={"finish_reason": "length"}
    )
    found = JsonFenceOutputParser().extract(message)
    assert (found.value, found.cut_off) == ({"a": 1}, True)


def test_generation_info_read_for_text_models() -> None:
    generation = Generation(
        text='{"a": [1', generation_info={"finish_reason": "length"}
    )
    with pytest.raises(InvalidJsonError) as caught:
        JsonFenceOutputParser().parse_result([generation])
    assert "cut off at the token limit" in str(caught.value)


@pytest.mark.parametrize(
    "parser",
    [JsonFenceOutputParser(), RegexJsonOutputParser(r"<json>(.*?)(?:</json>|$)")],
    ids=["fence", "regex"],
)
def test_errors_say_cut_off_instead_of_invalid(
    parser: JsonFenceOutputParser[Any],
) -> None:
    message = AIMessage(
        '<json>{"name": "Ada", "bio": "Born in',
        response_metadata={"finish_reason": "length"},
    )
    with pytest.raises(InvalidJsonError) as caught:
        parser.invoke(message)
    error = caught.value
    assert error.truncated
    assert str(error).startswith("The reply was cut off at the token limit")
    assert error.observation == (
        "Your reply was cut off at the token limit before the JSON was complete. "
        "Respond with a shorter JSON object, and nothing else."
    )


def test_cut_off_before_any_json() -> None:
    message = AIMessage(
        "Let me think about this carefully",
        response_metadata={"stop_reason": "max_tokens"},
    )
    with pytest.raises(NoJsonFoundError) as caught:
        JsonFenceOutputParser().invoke(message)
    assert (
        str(caught.value) == "The reply was cut off at the token limit before any JSON."
    )


def test_cut_off_schema_error_asks_for_shorter() -> None:
    message = AIMessage('{"title": "T"}', response_metadata={"finish_reason": "length"})
    with pytest.raises(SchemaValidationError) as caught:
        JsonFenceOutputParser(pydantic_object=Article).invoke(message)
    assert (caught.value.observation or "").startswith(
        "Your reply was cut off at the token limit before the JSON was complete"
    )


# Property: any JSON document, any cut point, the reference semantics.

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
documents = st.one_of(
    st.lists(json_values, max_size=4),
    st.dictionaries(st.text(max_size=6), json_values, max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(documents, st.data())
def test_any_cut_gives_the_reference_value(document: Any, data: st.DataObject) -> None:
    text = orjson.dumps(document).decode()
    cut = data.draw(st.integers(min_value=1, max_value=len(text)), label="cut")
    reply = text[:cut]
    parser = TruncationRecoveringOutputParser(max_depth=200)
    if cut < len(text) and reply[-1] in "}]" and _outside_strings(reply):
        # Right after a closer: a cut or a lost closer, unless the model said.
        message = AIMessage(reply, response_metadata={"finish_reason": "length"})
        with pytest.raises(InvalidJsonError):
            parser.parse(reply)
        got = parser.invoke(message)
    else:
        got = parser.parse(reply)
    expected = pydantic_core.from_json(reply, allow_partial="trailing-strings")
    tail = re.search(r"[-+.0-9eE]+\Z", reply)
    if cut < len(text) and tail and tail.group()[0] in "-0123456789":
        number = reply[: tail.start()]
        if _outside_strings(number):
            expected = pydantic_core.from_json(number, allow_partial="trailing-strings")
    assert got == expected


def _outside_strings(text: str) -> bool:
    """Whether the text ends outside every JSON string (tests only)."""
    inside = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif inside and char == "\\":
            escaped = True
        elif char == '"':
            inside = not inside
    return not inside


def test_syntax_error_in_a_cut_reply_is_reported_as_such() -> None:
    message = AIMessage(
        '{"name": "Ada" "age": 36}', response_metadata={"finish_reason": "length"}
    )
    with pytest.raises(InvalidJsonError) as caught:
        JsonFenceOutputParser(repair=False).invoke(message)
    error = caught.value
    assert not error.truncated
    assert error.observation == (
        "Your reply is not valid JSON: expected ',' or '}' at line 1, column 16. "
        "Respond with only the corrected JSON object, and nothing else. "
        "Your reply was also cut off at the token limit: make it shorter."
    )


def test_regex_capture_running_to_the_end_is_truncated() -> None:
    parser = RegexJsonOutputParser(r"<json>(.*?)(?:</json>|$)")
    with pytest.raises(InvalidJsonError) as caught:
        parser.parse('<json>{"a": [1, 2')
    assert caught.value.truncated


def test_wrong_closer_at_the_end_is_not_a_cut() -> None:
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser().parse('{"a": [}')


def test_max_depth_holds_for_short_cut_replies() -> None:
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser(max_depth=2).parse("[[[1")


def test_big_integers_in_a_closed_reply_and_its_event() -> None:
    text = '{"order_id": 123456789012345678901, "items": ["a", "b'
    assert (
        TruncationRecoveringOutputParser().parse(text)["order_id"]
        == 123456789012345678901
    )
