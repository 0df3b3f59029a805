"""RegexJsonOutputParser: the pattern sees the reply as written (issue 22, family 1).

Only reasoning is hidden: ``<think>`` blocks, harmony ``analysis``, and harmony
``commentary`` when a ``final`` message is present. A capture touching
reasoning is skipped.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from langchain_jsonrecover import NoJsonFoundError, RegexJsonOutputParser
from langchain_jsonrecover._core.extract import Extraction
from langchain_jsonrecover._core.extract_pattern import extract_with_pattern
from langchain_jsonrecover._core.pattern_view import find_capture, pattern_view

TOOL_CALL = r"<tool_call>(.*?)</tool_call>"
MISTRAL = r"\[TOOL_CALLS\]\s*(\[.*\])"
HARMONY = r"<\|message\|>(\{.*?\})<\|call\|>"
FUNCTION_CALL = r"<function_call>(.*?)</function_call>"
CALL = '{"name": "f", "arguments": {"q": "x"}}'
CALL_VALUE = {"name": "f", "arguments": {"q": "x"}}
SEEN = ("markup_matched", "prose_trimmed")
THOUGHT = ("reasoning_skipped", "markup_matched", "prose_trimmed")

# Rows: id, pattern, reply, the value and its repairs.
FOUND: list[tuple[str, str, str, Any, tuple[str, ...]]] = [
    ("hermes_tool_call", TOOL_CALL, f"<tool_call>{CALL}</tool_call>", CALL_VALUE, SEEN),
    (
        "hermes_tool_call_lines",
        TOOL_CALL,
        f"Sure.\n<tool_call>\n{CALL}\n</tool_call><|im_end|>",
        CALL_VALUE,
        SEEN,
    ),
    ("mistral_calls", MISTRAL, f"[TOOL_CALLS] [{CALL}]", [CALL_VALUE], SEEN),
    (
        "mistral_calls_no_space",
        MISTRAL,
        f"[TOOL_CALLS][{CALL}]</s>",
        [CALL_VALUE],
        SEEN,
    ),
    (
        "harmony_call",
        HARMONY,
        (
            "<|channel|>commentary to=functions.f <|constrain|>json"
            '<|message|>{"q": "x"}<|call|>'
        ),
        {"q": "x"},
        SEEN,
    ),
    (
        "harmony_call_after_analysis",
        HARMONY,
        (
            '<|channel|>analysis<|message|>Call f with {"q": 0}? No, 1.<|end|>'
            '<|start|>assistant<|channel|>commentary to=functions.f<|message|>{"q": 1}'
            "<|call|>"
        ),
        {"q": 1},
        THOUGHT,
    ),
    (
        "granite_function_call",
        FUNCTION_CALL,
        f"<function_call>{CALL}</function_call>",
        CALL_VALUE,
        SEEN,
    ),
    (
        "tool_call_in_think_skipped",
        TOOL_CALL,
        (
            '<think>I could <tool_call>{"name": "g"}</tool_call></think>'
            f"<tool_call>{CALL}</tool_call>"
        ),
        CALL_VALUE,
        THOUGHT,
    ),
    # Markup the pattern does not name is blanked as before.
    (
        "special_token_inside_capture",
        r"<json>(.*?)</json>",
        '<json>{"a": 1}<|eot_id|></json>',
        {"a": 1},
        ("special_tokens_stripped", "prose_trimmed"),
    ),
    (
        "no_markup_unchanged",
        r"<json>(.*?)</json>",
        "<json>[1]</json>",
        [1],
        ("prose_trimmed",),
    ),
]


@pytest.mark.parametrize(
    ("pattern", "reply", "value", "repairs"),
    [row[1:] for row in FOUND],
    ids=[row[0] for row in FOUND],
)
def test_pattern_sees_markup(
    pattern: str, reply: str, value: Any, repairs: tuple[str, ...]
) -> None:
    found = extract_with_pattern(reply, re.compile(pattern, re.DOTALL))
    assert isinstance(found, Extraction)
    assert (found.value, found.repairs) == (value, repairs)
    assert RegexJsonOutputParser(pattern=pattern).parse(reply) == value
    parser = RegexJsonOutputParser(pattern=pattern)
    assert asyncio.run(parser.aparse(reply)) == value


# (id, pattern, reply): the only capture lies in reasoning.
HIDDEN: list[tuple[str, str, str]] = [
    ("in_think", TOOL_CALL, f"<think><tool_call>{CALL}</tool_call></think>Done."),
    ("in_unclosed_think", TOOL_CALL, f"<think>maybe <tool_call>{CALL}</tool_call>"),
    (
        "in_harmony_analysis",
        TOOL_CALL,
        f"<|channel|>analysis<|message|>maybe <tool_call>{CALL}</tool_call><|end|>",
    ),
    (
        "harmony_commentary_before_final",
        HARMONY,
        (
            '<|channel|>commentary to=functions.f<|message|>{"q": 1}<|call|>'
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>"
        ),
    ),
    (
        "capture_spans_reasoning",
        r"<json>(.*?)</json>",
        "<json>[1, <think>x</think> 2]</json>",
    ),
]


@pytest.mark.parametrize(
    ("pattern", "reply"),
    [row[1:] for row in HIDDEN],
    ids=[row[0] for row in HIDDEN],
)
def test_capture_in_reasoning_skipped(pattern: str, reply: str) -> None:
    with pytest.raises(NoJsonFoundError) as caught:
        RegexJsonOutputParser(pattern=pattern).parse(reply)
    assert caught.value.llm_output == reply


# (id, reply, hidden spans): only reasoning is blanked.
VIEWS: list[tuple[str, str, list[tuple[int, int]]]] = [
    ("plain", "<tool_call>{}</tool_call>", []),
    ("think", "<think>a</think>[1]", [(0, 16)]),
    ("harmony_analysis", "<|channel|>analysis<|message|>a<|end|>", [(0, 38)]),
    ("commentary_without_final_shown", "<|channel|>commentary<|message|>{}<|end|>", []),
]


@pytest.mark.parametrize(
    ("reply", "hidden"), [row[1:] for row in VIEWS], ids=[row[0] for row in VIEWS]
)
def test_pattern_view(reply: str, hidden: list[tuple[int, int]]) -> None:
    view, spans = pattern_view(reply)
    assert spans == hidden
    assert len(view) == len(reply)
    visible = reply[hidden[-1][1] :] if hidden else reply
    assert view.strip() == visible.strip()


def test_last_match_among_many_reasoning_blocks() -> None:
    # Every block is hidden; the last visible capture is the one kept.
    reply = "<think>x</think><j>1</j>\n" * 2000
    view, hidden = pattern_view(reply)
    assert len(hidden) == 2000
    capture = find_capture(view, re.compile(r"<j>(.*?)</j>"), "last", hidden)
    assert capture is not None
    assert view[capture[0] : capture[1]] == "1"
