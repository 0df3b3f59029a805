"""Reasoning hidden from the JSON scan: think blocks and harmony channels."""

from __future__ import annotations

import pytest

from langchain_jsonrecover._reasoning import (
    harmony_hidden,
    harmony_messages,
    mask_reasoning,
    think_spans,
)

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
