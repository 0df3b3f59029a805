"""The words we show a person and send a model (``_prompts``).

Each kind of failure gets a message for the person (where, what, an excerpt)
and an observation for the model (what was wrong, what to send instead). Rows
pin the words that matter in each, the position, and the bounds that keep a
huge reply, key or value from making a huge error.
"""

from __future__ import annotations

import pytest

from langchain_jsonrecover._core.extract import ReplyFailure
from langchain_jsonrecover._core.prompts.feedback import (
    FORMAT_INSTRUCTIONS,
    Shape,
    cut_quoting_short,
    describe,
    locate,
    point_at,
)
from langchain_jsonrecover._core.schema.validate import FieldError

# --- where: line, column, excerpt ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        pytest.param("abc", 0, (1, 1), id="start"),
        pytest.param("ab\ncd", 4, (2, 2), id="second_line"),
        pytest.param("ab\ncd", 2, (1, 3), id="on_the_line_break"),
        pytest.param("ab\ncd", 3, (2, 1), id="just_after_the_line_break"),
        pytest.param("a\r\nb", 3, (2, 1), id="crlf_counts_one_line"),
        pytest.param("", 0, (1, 1), id="empty_text"),
    ],
)
def test_line_and_column_are_1_based(
    text: str, pos: int, expected: tuple[int, int]
) -> None:
    assert locate(text, pos) == expected


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        pytest.param('{"a" 1}', 5, '  {"a" 1}\n       ^', id="caret_under_the_error"),
        pytest.param(
            'one\n{"a" 1}\nthree', 9, '  {"a" 1}\n       ^', id="only_the_line_of_pos"
        ),
        pytest.param("ab\tc", 3, "  ab c\n     ^", id="tab_shown_as_a_space"),
        pytest.param("abc\n", 3, "  abc\n     ^", id="caret_at_the_line_end"),
        pytest.param("", 0, "  \n  ^", id="empty_text"),
    ],
)
def test_excerpt(text: str, pos: int, expected: str) -> None:
    assert point_at(text, pos) == expected


def test_excerpt_of_a_long_line_is_cut_short_on_both_sides() -> None:
    text = "x" * 1_000_000 + "!" + "y" * 1_000_000
    shown, caret = point_at(text, 1_000_000).split("\n")
    assert shown.startswith("  …")
    assert shown.endswith("…")
    assert len(shown) < 80
    assert shown[caret.index("^")] == "!"


# --- what: each kind of failure ----------------------------------------------------

# Each row: the failure, the reply, words the message holds, words the
# observation holds, and the (line, column) reported.
DESCRIBED = [
    pytest.param(
        ReplyFailure(kind="no_json", reason=""),
        "hello",
        "No JSON found in the reply.",
        "Your reply contains no JSON. Respond with only the JSON object",
        (None, None),
        id="no_json",
    ),
    pytest.param(
        ReplyFailure(kind="no_json", reason="", detail="reasoning_only"),
        "<think>x</think>",
        "it holds only a reasoning block",
        "After your reasoning, respond with only the JSON object",
        (None, None),
        id="reasoning_only",
    ),
    pytest.param(
        ReplyFailure(kind="no_json", reason="", detail="<json>(.*)</json>"),
        "no tags",
        "the pattern '<json>(.*)</json>' matched nothing",
        "Respond again with the JSON placed as instructed.",
        (None, None),
        id="pattern_matched_nothing",
    ),
    pytest.param(
        ReplyFailure(kind="too_large", reason="1000"),
        "x",
        "too long to scan (1000 characters)",
        "Respond with a shorter JSON object",
        (None, None),
        id="too_large",
    ),
    pytest.param(
        ReplyFailure(kind="invalid_json", reason="trailing comma", pos=7, start=0),
        '{"a": 1,}',
        'Invalid JSON at line 1, column 8 of the reply: trailing comma.\n  {"a": 1,}',
        "trailing comma at line 1, column 8. Respond with only the corrected",
        (1, 8),
        id="invalid_json_with_excerpt",
    ),
    pytest.param(
        ReplyFailure(kind="truncated", reason="ends", pos=9, start=3),
        'ok\n{"a": 1',
        "starts at line 2, column 1 is still open where the reply ends "
        "(line 2, column 7)",
        "stops before the JSON is complete",
        (2, 7),
        id="truncated_names_start_and_end",
    ),
    pytest.param(
        ReplyFailure(kind="too_deep", reason="nested deeper than max_depth (2)", pos=0),
        "[[[1]]]",
        "nested too deeply: nested deeper than max_depth (2)",
        "Respond with a flatter JSON object",
        (1, 1),
        id="too_deep",
    ),
    pytest.param(
        ReplyFailure(kind="no_json", reason="", cut_off=True),
        "Well, let me",
        "cut off at the token limit before any JSON",
        "cut off at the token limit",
        (None, None),
        id="cut_off_before_any_json",
    ),
    pytest.param(
        ReplyFailure(kind="truncated", reason="ends", pos=8, cut_off=True),
        '{"a": "x',
        "cut off at the token limit: the JSON is incomplete (line 1, column 9",
        "Respond with a shorter JSON object",
        (1, 9),
        id="cut_off_inside_the_json",
    ),
    pytest.param(
        ReplyFailure(kind="invalid_json", reason="trailing comma", pos=7, cut_off=True),
        '{"a": 1,}',
        'trailing comma.\n  {"a": 1,}\n         ^\nThe reply was also cut off',
        "Your reply was also cut off at the token limit: make it shorter.",
        (1, 8),
        id="syntax_error_said_before_the_cut",
    ),
    pytest.param(
        ReplyFailure(
            kind="schema",
            reason="",
            errors=(FieldError("age", "Input should be a valid integer", "'x'"),),
            detail="Person",
        ),
        '{"age": "x"}',
        "does not match the schema Person (1 error):\n"
        "  age: Input should be a valid integer (got 'x')",
        "Your JSON does not match the schema:\n- age: Input should be a valid",
        (1, 1),
        id="schema_error_names_the_field",
    ),
    pytest.param(
        ReplyFailure(
            kind="schema",
            reason="",
            errors=(FieldError("", "bad", ""),),
            recovered=True,
        ),
        '{"age": 1',
        "  the value: bad",
        "cut off before the JSON was complete, and what arrived does not match",
        (1, 1),
        id="schema_error_on_a_closed_cut",
    ),
]


@pytest.mark.parametrize(
    ("failure", "reply", "message", "observation", "where"), DESCRIBED
)
def test_describe(
    failure: ReplyFailure,
    reply: str,
    message: str,
    observation: str,
    where: tuple[int | None, int | None],
) -> None:
    described = describe(failure, reply)
    assert message in described.message
    assert observation in described.observation
    assert (described.line, described.column) == where


@pytest.mark.parametrize(
    ("failure", "reply"), [pytest.param(*p.values[:2], id=p.id) for p in DESCRIBED]
)
def test_neither_text_copies_the_reply_back(failure: ReplyFailure, reply: str) -> None:
    secret = "TOKEN-" + "q" * 200
    described = describe(failure, reply + secret)
    assert secret not in described.observation
    assert "q" * 100 not in described.message


def test_schema_errors_past_ten_are_counted_not_listed() -> None:
    errors = tuple(FieldError(f"f{i}", "Field required", "") for i in range(12))
    described = describe(ReplyFailure(kind="schema", reason="", errors=errors), "{}")
    assert "(12 errors)" in described.message
    assert "f9: Field required" in described.message
    assert "f10" not in described.message
    assert "… and 2 more" in described.message
    assert "- … and 2 more" in described.observation


def test_shape_names_the_noun_and_ends_with_the_fields() -> None:
    shape = Shape(noun="JSON array", fields="Fields:\n- a: integer", name="A")
    failure = ReplyFailure(kind="invalid_json", reason="trailing comma", pos=7)
    described = describe(failure, '{"a": 1,}', shape)
    assert "the corrected JSON array" in described.observation
    assert described.observation.endswith("\n\nFields:\n- a: integer")
    assert "Fields:" not in described.message


# --- instructions and quoting --------------------------------------------------------


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        pytest.param(Shape(), FORMAT_INSTRUCTIONS, id="default_is_the_constant"),
        pytest.param(
            Shape(noun="JSON value"),
            "Respond with only one JSON value: no prose before or after it, "
            "no markdown code fences.",
            id="noun",
        ),
        pytest.param(
            Shape(fields="The JSON is an integer."),
            "The JSON is an integer.\n\n" + FORMAT_INSTRUCTIONS,
            id="fields_first",
        ),
    ],
)
def test_shape_instructions(shape: Shape, expected: str) -> None:
    assert shape.instructions() == expected


def test_quoting_cut_short_bounds_each_part() -> None:
    huge = FieldError("k" * 10**6, "m" * 10**6, "v" * 10**6)
    short = cut_quoting_short(huge)
    assert max(len(short.path), len(short.message), len(short.value)) <= 80


def test_quoting_cut_short_keeps_short_parts() -> None:
    error = FieldError("items.0.name", "Field required", "")
    assert cut_quoting_short(error) == error


def test_a_huge_key_makes_a_short_schema_error() -> None:
    errors = (FieldError("k" * 10**6, "Extra inputs are not permitted", "1"),)
    described = describe(ReplyFailure(kind="schema", reason="", errors=errors), "{}")
    assert len(described.message) < 300
    assert len(described.observation) < 400
