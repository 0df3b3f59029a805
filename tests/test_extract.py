"""The extraction rules, one table row per rule, named by what it shows."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover import (
    Extraction,
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    ReplyTooLargeError,
    TruncationRecoveringOutputParser,
    extract_json,
)

FOUND: list[tuple[str, str, Any]] = [
    # The reply as it stands.
    ("clean_object", '{"a": 1}', {"a": 1}),
    ("clean_array", "[1, 2]", [1, 2]),
    ("clean_with_surrounding_whitespace", '\n\t {"a": 1} \n', {"a": 1}),
    (
        "non_ascii_text",
        '{"ville": "Zürich", "emoji": "🙂"}',
        {"ville": "Zürich", "emoji": "🙂"},
    ),
    # Reasoning blocks.
    ("think_block_skipped", '<think>{"draft": 0}</think>{"a": 1}', {"a": 1}),
    ("thinking_block_skipped", '<thinking>maybe [1]</thinking> {"a": 1}', {"a": 1}),
    ("reasoning_block_skipped", '<reasoning>{"x": 1}</reasoning>\n[2]', [2]),
    ("tags_in_any_case", '<THINK>{"x": 1}</Think>{"a": 1}', {"a": 1}),
    (
        "lone_closing_tag_hides_what_precedes",
        'so {"draft": 1}.</think>{"a": 1}',
        {"a": 1},
    ),
    (
        "several_think_blocks",
        '<think>[0]</think>x\n<think>{"y": 1}</think>{"a": 1}',
        {"a": 1},
    ),
    (
        "think_tag_mid_line_is_text",
        'Sure: {"tip": "use <think> tags"}',
        {"tip": "use <think> tags"},
    ),
    (
        "quoted_closing_tag_is_text",
        '```json\n{"end": "</think>"}\n```',
        {"end": "</think>"},
    ),
    (
        "lone_closer_after_a_block_is_text",
        '<think>x</think>\n{"s": "a </think> b"}',
        {"s": "a </think> b"},
    ),
    (
        "json_tag_inside_string_kept",
        '{"prompt": "use <think> tags"}',
        {"prompt": "use <think> tags"},
    ),
    (
        "fence_inside_think_ignored",
        '<think>```json\n{"x": 1}\n```</think>\n```json\n{"a": 1}\n```',
        {"a": 1},
    ),
    # Fences.
    ("json_fence", '```json\n{"a": 1}\n```', {"a": 1}),
    ("json_fence_upper_case_tag", '```JSON\n{"a": 1}\n```', {"a": 1}),
    ("json_fence_in_prose", 'Sure!\n```json\n{"a": 1}\n```\nAnything else?', {"a": 1}),
    ("untagged_fence", 'Here:\n```\n{"a": 1}\n```', {"a": 1}),
    ("indented_fence", '  Here:\n    ```json\n    {"a": 1}\n    ```\n', {"a": 1}),
    ("crlf_line_ends", 'Here:\r\n```json\r\n{"a": 1}\r\n```\r\n', {"a": 1}),
    (
        "json_fence_before_untagged",
        '```\n{"b": 2}\n```\n```json\n{"a": 1}\n```',
        {"a": 1},
    ),
    (
        "other_language_fence_not_a_candidate",
        '```python\nd = {"x": 1}\n```\n{"a": 1}',
        {"a": 1},
    ),
    (
        "first_fence_that_decodes_wins",
        '```json\n{"a": \n```\n```json\n{"a": 1}\n```',
        {"a": 1},
    ),
    ("empty_fence_is_no_candidate", '```json\n```\n{"a": 1}', {"a": 1}),
    ("one_line_fence", '```json {"a": 1}```', {"a": 1}),
    ("four_backticks", '````json\n{"a": "```"}\n````', {"a": "```"}),
    ("closing_fence_glued_to_json", '```json\n{"a": 1}```', {"a": 1}),
    ("unclosed_fence_with_complete_json", 'Here:\n```json\n{"a": 1}\n', {"a": 1}),
    ("json_label_in_untagged_fence", '```\njson\n{"a": 1}\n```', {"a": 1}),
    (
        "backticks_inside_string",
        '```json\n{"md": "use ```py``` blocks"}\n```',
        {"md": "use ```py``` blocks"},
    ),
    ("scalar_in_json_fence", "```json\n1\n```", 1),
    # The trimmed reply.
    ("bare_json_label_line", 'json\n{"a": 1}', {"a": 1}),
    ("trailing_prose_cut", '{"a": 1} Here is why.', {"a": 1}),
    ("object_wins_over_array_at_start", '[1, 2] and {"a": 1}', {"a": 1}),
    ("array_at_start_alone", "[1, 2]\n", [1, 2]),
    # Prose.
    ("object_in_prose", 'The answer is {"a": 1}, I think.', {"a": 1}),
    ("object_wins_over_earlier_array", 'see [1]. Answer: {"a": 1}', {"a": 1}),
    ("placeholder_before_answer", 'Use {name: value}. Result: {"a": 1}', {"a": 1}),
    ("set_notation_before_answer", 'The set {1, 2, 3}; the answer {"a": 1}', {"a": 1}),
    ("array_when_no_object", "The list: [1, 2, 3].", [1, 2, 3]),
    (
        "closing_brackets_inside_strings",
        'x {"text": "literal } and ]"} y',
        {"text": "literal } and ]"},
    ),
    ("apostrophe_and_quote_in_prose", 'It\'s 5" long: {"a": 1}', {"a": 1}),
    ("json_inside_bracketed_prose", '[Note: {"a": 1}]', {"a": 1}),
    ("stray_closer_before_json", ']\n{"a": 1}', {"a": 1}),
    (
        "nested_value_not_taken_alone",
        'x {"outer": {"inner": 1}} y',
        {"outer": {"inner": 1}},
    ),
    ("empty_object_when_nothing_else", "stringbeforeobject {}", {}),
    ("non_empty_before_empty", 'format {} then {"a": 1}', {"a": 1}),
    (
        "fence_marker_inside_a_string_in_prose",
        'Here: {"code": "```json\\n{}\\n```"}',
        {"code": "```json\n{}\n```"},
    ),
    # Tolerated deviations.
    ("raw_newline_in_string", '{"a": "x\ny"}', {"a": "x\ny"}),
    ("raw_tab_in_fenced_string", '```json\n{"a": "x\ty"}\n```', {"a": "x\ty"}),
]


@pytest.mark.parametrize(
    ("text", "expected"), [row[1:] for row in FOUND], ids=[row[0] for row in FOUND]
)
def test_finds_the_value(text: str, expected: Any) -> None:
    assert extract_json(text).value == expected


STEPS: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("fast_path", '{"a": 1}', "raw", ()),
    ("fence", 'x\n```json\n{"a": 1}\n```', "fence", ("fence_stripped",)),
    ("reasoning_then_raw", '<think>x</think>{"a": 1}', "raw", ("reasoning_skipped",)),
    ("label", 'json\n{"a": 1}', "raw", ("json_label_dropped",)),
    ("prose", 'So: {"a": 1}', "prose", ("prose_trimmed",)),
    ("trailing_prose", '{"a": 1} done', "raw", ("prose_trimmed",)),
    ("control_characters", '{"a": "x\ny"}', "raw", ("control_characters_escaped",)),
    (
        "everything",
        '<think>x</think>\n```json\n{"a": "x\ny"}\n```',
        "fence",
        ("reasoning_skipped", "fence_stripped", "control_characters_escaped"),
    ),
]


@pytest.mark.parametrize(
    ("text", "step", "repairs"),
    [row[1:] for row in STEPS],
    ids=[row[0] for row in STEPS],
)
def test_records_step_and_repairs(
    text: str, step: str, repairs: tuple[str, ...]
) -> None:
    found = extract_json(text)
    assert found.step == step
    assert found.repairs == repairs


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}  ',
        'Sure:\n```json\n{"a": 1}\n```\nok',
        'Text {"a": 1} more',
        '<think>[0]</think> [1, {"a": 1}] tail',
        'Answer: {"a": "x\ny"} ok',
    ],
)
def test_span_points_at_the_value_in_the_reply(text: str) -> None:
    found = extract_json(text)
    start, end = found.span
    assert extract_json(text[start:end]).value == found.value
    assert text[start] in "{["
    assert text[end - 1] in "}]"


NO_JSON: list[tuple[str, str]] = [
    ("plain_prose", "I'm sorry, I can't help with that."),
    ("empty_reply", ""),
    ("whitespace_only", "  \n\t "),
    ("set_notation", "The set {1, 2, 3} has three elements."),
    ("placeholder", "Use the placeholder {name} here."),
    ("markdown_link", "See [the docs](https://example.com)."),
    ("bare_scalar_number", "42"),
    ("bare_scalar_true", "true"),
    ("bare_scalar_string", '"just a string"'),
    ("scalar_in_prose", 'The answer is "yes" and 42.'),
    ("only_reasoning", '<think>I should answer {"a": 1}'),
    ("closed_reasoning_then_nothing", '<think>{"a": 1}</think> Sorry.'),
    ("other_language_fence_only", '```python\nprint({"a": 1})\n```'),
    ("untagged_fence_of_code", "```\nls -la\n```"),
    ("empty_fence", "```json\n```"),
    ("unclosed_empty_fence", " France:\n\n```json"),
]


@pytest.mark.parametrize(
    "text", [row[1] for row in NO_JSON], ids=[row[0] for row in NO_JSON]
)
def test_no_json_found(text: str) -> None:
    with pytest.raises(NoJsonFoundError) as caught:
        extract_json(text)
    assert caught.value.llm_output == text


INVALID: list[tuple[str, str, int, int, bool]] = [
    ("missing_colon", '{"a" 1}', 1, 6, False),
    ("trailing_comma", '{"a": 1,}', 1, 8, False),
    ("second_line", '{\n  "a": tru\n}', 2, 8, False),
    (
        "broken_json_fence_does_not_fall_through",
        '```json\n{"a": 1,}\n```\nor {"b": 2}',
        2,
        8,
        False,
    ),
    (
        "broken_outer_object_reported_not_inner_array",
        'x {"a": [1, 2], "b" 3} y',
        1,
        21,
        False,
    ),
    ("unquoted_value", "{status: ok}", 1, 2, False),
    ("truncated_object", '{"items": [{"a": 1}, {"b"', 1, 26, True),
    (
        "truncated_in_prose_no_nested_value",
        'Result: {"items": [{"a": 1}, {"b": 2',
        1,
        37,
        True,
    ),
    ("truncated_string", 'Here: {"text": "Hello wor', 1, 26, True),
    ("unclosed_fence_truncated", '```json\n{"a": [1, 2', 2, 12, True),
    ("unclosed_fence_truncated_then_newline", '```json\n{"a": 1\n', 3, 1, True),
    ("truncated_then_spaces", '{"a": "b \n  ', 2, 3, True),
    ("mismatched_bracket", '{"a": [1, 2}', 1, 12, False),
]


@pytest.mark.parametrize(
    ("text", "line", "column", "truncated"),
    [row[1:] for row in INVALID],
    ids=[row[0] for row in INVALID],
)
def test_invalid_json_located(
    text: str, line: int, column: int, truncated: bool
) -> None:
    with pytest.raises(InvalidJsonError) as caught:
        extract_json(text, repair=False)  # where strict decoding stops
    error = caught.value
    assert (error.line, error.column, error.truncated) == (line, column, truncated)
    assert error.llm_output == text
    assert f"line {line}, column {column}" in str(error)


def test_invalid_message_has_excerpt_with_caret() -> None:
    with pytest.raises(InvalidJsonError) as caught:
        extract_json('Answer: {"name": "Ada" "age": 36}', repair=False)
    assert str(caught.value) == (
        "Invalid JSON at line 1, column 24 of the reply: "
        "expected ',' or '}'.\n"
        '  Answer: {"name": "Ada" "age": 36}\n'
        "                         ^"
    )


def test_truncated_message_says_cut_off() -> None:
    with pytest.raises(InvalidJsonError) as caught:
        extract_json('{"items": [{"a": 1}, {"b"')
    assert str(caught.value) == (
        "The reply looks cut off: the JSON that starts at line 1, column 1 "
        "is still open where the reply ends (line 1, column 26)."
    )


def test_first_failing_candidate_is_reported() -> None:
    with pytest.raises(InvalidJsonError) as caught:
        extract_json('First {"a": 1,} then {"b" 2}', repair=False)
    assert caught.value.column == 14


def test_too_deep_is_invalid_json_not_recursion_error() -> None:
    deep = "[" * 300 + "]" * 300
    with pytest.raises(InvalidJsonError, match="nested too deeply"):
        extract_json(deep)
    assert extract_json(deep, max_depth=300).value is not None


def test_depth_limit_counts_containers() -> None:
    assert extract_json("[[[1]]]", max_depth=3).value == [[[1]]]
    with pytest.raises(InvalidJsonError):
        extract_json("[[[1]]]", max_depth=2)


def test_depth_check_with_brackets_inside_strings() -> None:
    text = '{"a": "]]]]", "b": ' + "[" * 10 + "]" * 10 + "}"
    assert extract_json(text, max_depth=11).value["a"] == "]]]]"
    with pytest.raises(InvalidJsonError):
        extract_json(text, max_depth=10)


def test_max_chars_refuses_before_scanning() -> None:
    with pytest.raises(JsonRecoveryError) as caught:
        extract_json('{"a": 1}', max_chars=5)
    assert type(caught.value) is ReplyTooLargeError
    assert "too long" in str(caught.value)


@pytest.mark.parametrize("limit", ["max_chars", "max_depth"])
def test_limits_must_be_positive(limit: str) -> None:
    with pytest.raises(ValueError, match=limit):
        extract_json("{}", **{limit: 0})  # type: ignore[arg-type]


def test_str_subclass_accepted() -> None:
    class Text(str):
        __slots__ = ()

    assert extract_json(Text('x {"a": 1}')).value == {"a": 1}


def test_extraction_is_a_frozen_value() -> None:
    found = extract_json('{"a": 1}')
    assert found == Extraction({"a": 1}, (0, 8), "raw", ())
    with pytest.raises(AttributeError):
        found.value = 2  # type: ignore[misc]


def test_fence_line_inside_a_json_string_is_not_taken_for_the_cut() -> None:
    reply = '```json\n{"code": "```\nx = 1\n```", "type": "code",}\n```'
    with pytest.raises(InvalidJsonError):
        TruncationRecoveringOutputParser(repair=False).parse(reply)
    repaired = JsonFenceOutputParser(repair=True).parse(reply)
    assert repaired == {"code": "```\nx = 1\n```", "type": "code"}


@pytest.mark.parametrize(
    "text",
    [
        '{"id": 18446744073709551616}',
        'Sure: {"id": 123456789012345678901234567890}',
        "```json\n[-99999999999999999999999]\n```",
    ],
    ids=["fast_path", "prose", "fence"],
)
def test_big_integers_stay_exact(text: str) -> None:
    value = extract_json(text).value
    number = value["id"] if isinstance(value, dict) else value[0]
    assert type(number) is int
    assert str(abs(number)) in text


def test_trailing_content_position_in_non_ascii_text() -> None:
    found = extract_json('{"ville": "Zürich"} — voilà')
    assert found.span == (0, 19)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Sure: {"a": "see ```json", "b": [1, 2]}', {"a": "see ```json", "b": [1, 2]}),
        (
            'Sure!\n{"say": "Reply in a ```json block```"}',
            {"say": "Reply in a ```json block```"},
        ),
        ('Sure: {"md": "Use:\n```json\n{}\n```"}', {"md": "Use:\n```json\n{}\n```"}),
        ('Example {"x": 1}. Now:\n```json\n{"a": 1}\n```', {"a": 1}),
    ],
    ids=[
        "json_tag_mid_string",
        "one_line_block_in_a_string",
        "fence_lines_in_a_string",
        "real_fence_after_an_example",
    ],
)
def test_fence_markers_inside_json_strings_in_prose(text: str, expected: Any) -> None:
    assert extract_json(text).value == expected
