"""Reasoning hidden from the JSON scan: think blocks and harmony channels."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from _counting import CountingStr, Tally, as_params, assert_linear_work, measure

from langchain_jsonrecover._core.reply.reasoning import (
    blank,
    harmony_hidden,
    harmony_messages,
    mask_reasoning,
    think_spans,
)

if TYPE_CHECKING:
    from collections.abc import Callable

# (reply, what stays visible with runs of spaces collapsed, hidden anything?)
MASKED = [
    pytest.param('<think>hm</think>{"a": 1}', '{"a": 1}', True, id="think_block"),
    pytest.param(
        '<thinking>x</thinking>\n<reasoning>y</reasoning>{"a": 1}',
        '{"a": 1}',
        True,
        id="thinking_and_reasoning_tags",
    ),
    pytest.param('I see.</think>\n{"a": 1}', '{"a": 1}', True, id="lone_closing_tag"),
    pytest.param('<think>{"a": 0} and on', "", True, id="unclosed_hides_the_rest"),
    pytest.param(
        '{"tip": "use <think> tags"}',
        '{"tip": "use <think> tags"}',
        False,
        id="tag_in_a_json_string_is_text",
    ),
    pytest.param(
        '<think>The format is "<think>...</think>" then {"a": 0}</think>{"a": 1}',
        '{"a": 1}',
        True,
        id="quoted_closing_tag_inside_reasoning_does_not_end_it",
    ),
    pytest.param(
        '<think>say "a </think> b" first</think>\n{"a": 1}',
        '{"a": 1}',
        True,
        id="closing_tag_between_quotes_on_its_line",
    ),
    pytest.param(
        "<think>close it with `</think>` later</think>[1]",
        "[1]",
        True,
        id="closing_tag_in_backticks",
    ),
    pytest.param(
        '<think>```json\n{"x": 1}\n```</think>\n{"a": 1}',
        '{"a": 1}',
        True,
        id="fence_in_reasoning_is_no_quote",
    ),
    pytest.param(
        '<think>0"</think>[]', "[]", True, id="only_quoted_closers_the_last_one_ends_it"
    ),
    pytest.param(
        '<|channel|>analysis<|message|>Maybe {"a": 0}<|end|>'
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}',
        '{"a": 1}',
        True,
        id="harmony_final_wins_over_the_analysis_draft",
    ),
    pytest.param(
        '<|channel|>analysis<|message|>Draft {"a": 0}<|end|>'
        "<|start|>assistant<|channel|>commentary to=functions.f json"
        '<|message|>{"q": 1}<|call|>'
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}<|return|>',
        '{"a": 1}',
        True,
        id="harmony_final_hides_tool_calls_too",
    ),
    pytest.param(
        '<|channel|>commentary<|message|>Let me think: {"a": 0}<|end|>'
        '<|start|>assistant<|channel|>final<|message|>{"a": 1}',
        '{"a": 1}',
        True,
        id="harmony_commentary_without_recipient_is_reasoning",
    ),
    pytest.param(
        "<|channel|>analysis<|message|>Need the tool.<|end|><|start|>assistant"
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"q": 1}'
        "<|call|>",
        "<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json"
        '<|message|>{"q": 1}<|call|>',
        True,
        id="harmony_tool_call_is_not_reasoning",
    ),
    pytest.param(
        '{"t": "<|channel|>analysis<|message|>x<|end|>"}',
        '{"t": "<|channel|>analysis<|message|>x<|end|>"}',
        False,
        id="harmony_header_inside_a_json_string_is_text",
    ),
    pytest.param(
        '{"a": 1}<|end|>', '{"a": 1}<|end|>', False, id="phi3_end_token_is_no_harmony"
    ),
    pytest.param('{"a": 1}', '{"a": 1}', False, id="no_reasoning"),
]


@pytest.mark.parametrize(("reply", "visible", "hidden"), MASKED)
def test_reasoning_is_hidden_and_the_answer_stays(
    reply: str, visible: str, hidden: bool
) -> None:
    masked, had = mask_reasoning(reply)
    assert len(masked) == len(reply)
    assert " ".join(masked.split()) == visible
    assert had is hidden


@pytest.mark.parametrize(("reply", "_visible", "_hidden"), MASKED)
def test_masking_only_blanks(reply: str, _visible: str, _hidden: bool) -> None:
    masked, _ = mask_reasoning(reply)
    assert all(m in (r, " ") for m, r in zip(masked, reply, strict=True))


def test_nothing_hidden_returns_the_same_object() -> None:
    reply = '{"a": "<b>"}'
    assert mask_reasoning(reply)[0] is reply


HARMONY = [
    pytest.param(
        "<|channel|>analysis<|message|>x<|end|>",
        [("analysis", "", "x", True)],
        id="analysis",
    ),
    pytest.param(
        "<|start|>assistant<|channel|>commentary to=functions.get_weather"
        ' <|constrain|>json<|message|>{"c": 1}<|call|>',
        [("commentary", "functions.get_weather", '{"c": 1}', True)],
        id="tool_call_recipient_in_the_channel",
    ),
    pytest.param(
        "<|start|>assistant to=functions.f<|channel|>commentary json"
        "<|message|>{}<|call|>",
        [("commentary", "functions.f", "{}", True)],
        id="tool_call_recipient_in_the_role",
    ),
    pytest.param(
        "<|channel|>commentary <|constrain|>json to=functions.g<|message|>{}",
        [("commentary", "functions.g", "{}", False)],
        id="tool_call_recipient_after_constrain",
    ),
    pytest.param(
        '<|channel|>final<|message|>{"a": [1',
        [("final", "", '{"a": [1', False)],
        id="final_cut",
    ),
    pytest.param(
        "<|channel|>analysis<|message|>a<|start|>assistant<|channel|>final<|message|>b",
        [("analysis", "", "a", True), ("final", "", "b", False)],
        id="next_header_ends_a_message",
    ),
    pytest.param("say <|channel|>final<|message|>x", [], id="header_inside_prose"),
    pytest.param(
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}'
        "<|call|><|start|>assistant<|start|>assistant<|channel|>commentary"
        "<|message|>{}<|call|>",
        [
            ("commentary", "functions.f", '{"a": 1}', True),
            ("commentary", "", "{}", True),
        ],
        id="repeated_start_token_before_a_header",
    ),
    pytest.param(
        "Done.\n   <|channel|>final<|message|>x",
        [("final", "", "x", False)],
        id="indented_header",
    ),
    pytest.param(
        "y" + " " * 40 + "<|channel|>final<|message|>x", [], id="spaces_after_text"
    ),
]


@pytest.mark.parametrize(("reply", "expected"), HARMONY)
def test_harmony_messages_are_read(
    reply: str, expected: list[tuple[str, str, str, bool]]
) -> None:
    messages = harmony_messages(reply)
    got = [
        (m.channel, m.recipient, reply[m.body_start : m.body_end], m.closed)
        for m in messages
    ]
    assert got == expected


def test_harmony_final_leaves_only_final_bodies() -> None:
    reply = (
        "<|channel|>analysis<|message|>a<|end|>"
        "<|start|>assistant<|channel|>final<|message|>B<|return|>"
    )
    hidden = harmony_hidden(harmony_messages(reply))
    visible = [i for i in range(len(reply)) if not any(s <= i < e for s, e in hidden)]
    assert "".join(reply[i] for i in visible) == "B"


def test_think_spans_cover_tags() -> None:
    assert think_spans("<think>a</think>b") == [(0, 16)]


# Each row: the reply, then what stays visible with runs of spaces collapsed.
TAGS = [
    pytest.param('<THINK>x</THINK>{"a": 1}', '{"a": 1}', id="tags_in_upper_case"),
    pytest.param("<think >x</think >[1]", "[1]", id="space_before_the_bracket"),
    pytest.param("<Thinking>x</thinking>[1]", "[1]", id="mixed_case_pair"),
    pytest.param(
        "<think>a</think>\n<think>b</think>[2]", "[2]", id="two_blocks_in_a_row"
    ),
    pytest.param(
        "<think>x</reasoning>[1]", "", id="another_tags_closer_does_not_close_it"
    ),
    pytest.param(
        "</think>[1] then </think>",
        "[1] then </think>",
        id="only_the_first_lone_closer_hides_what_precedes",
    ),
    pytest.param(
        'Use <think> here {"a": 1}',
        'Use <think> here {"a": 1}',
        id="opening_tag_mid_line_is_text",
    ),
    pytest.param("<think/>[1]", "<think/>[1]", id="self_closing_tag_is_no_tag"),
    pytest.param(
        'a<b and c>d {"a": 1}', 'a<b and c>d {"a": 1}', id="other_angle_brackets"
    ),
]


@pytest.mark.parametrize(("reply", "visible"), TAGS)
def test_tag_spellings(reply: str, visible: str) -> None:
    masked, _ = mask_reasoning(reply)
    assert " ".join(masked.split()) == visible


@pytest.mark.parametrize(
    ("text", "spans", "expected"),
    [
        pytest.param("ab<x>cd", [(2, 5)], "ab   cd", id="one_span"),
        pytest.param("abcdef", [(0, 1), (3, 6)], " bc   ", id="two_spans_to_the_end"),
        pytest.param("abc", [(1, 1)], "abc", id="empty_span"),
    ],
)
def test_blank_keeps_every_offset(
    text: str, spans: list[tuple[int, int]], expected: str
) -> None:
    assert blank(text, spans) == expected


def test_blank_without_spans_returns_the_same_object() -> None:
    text = "abc"
    assert blank(text, []) is text


# --- linear work -------------------------------------------------------------------

N = 2_000
"""Repetitions at the smaller size; each case also runs at twice this."""

HOSTILE: list[tuple[str, Callable[[int], str]]] = [
    ("opening_tags", lambda n: "<think>" * n),
    ("opening_tags_each_on_a_line", lambda n: "<think>\n" * n),
    ("closing_tags", lambda n: "</think>" * n),
    ("quoted_closers_on_one_line", lambda n: '<think>"' + '</think>"' * n),
    ("blocks_then_json", lambda n: "<think>x</think>\n" * n + "[1]"),
    ("angle_brackets", lambda n: "<" * n),
    ("lookalike_tags", lambda n: "<thinker>" * n),
    ("harmony_headers", lambda n: "<|channel|>analysis<|message|>" * n),
    ("harmony_starts", lambda n: "<|start|>assistant" * n),
    (
        "harmony_messages",
        lambda n: (
            "<|channel|>analysis<|message|>a<|end|>" * n
            + "<|start|>assistant<|channel|>final<|message|>[1]"
        ),
    ),
    ("harmony_json_bodies", lambda n: '<|channel|>final<|message|>{"a": "' * n),
]


def count_mask_work(monkeypatch: pytest.MonkeyPatch, text: str) -> tuple[Tally, str]:
    tally, (masked, _) = measure(
        monkeypatch, lambda tally: mask_reasoning(CountingStr(text, tally.charge))
    )
    return tally, masked


@pytest.mark.parametrize("build", as_params(HOSTILE))
def test_masking_takes_linear_work(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[int], str]
) -> None:
    small, large = assert_linear_work(
        lambda text: count_mask_work(monkeypatch, text), build, N
    )
    assert (len(small), len(large)) == (len(build(N)), len(build(2 * N)))
