"""A harmony ``commentary`` message holding JSON is the payload (issue 22, family 4).

gpt-oss sometimes answers in ``commentary`` without a recipient and writes no
``final`` message. When the body is JSON, that is the answer; prose there is
still reasoning, and a ``final`` message, when present, wins.
"""

from __future__ import annotations

from typing import Any

import pytest

from langchain_jsonrecover import NoJsonFoundError, TruncationRecoveringOutputParser
from langchain_jsonrecover._core.extract import Extraction, extract
from langchain_jsonrecover._core.reply.markup import prepare_reply

START = "<|start|>assistant"
ANALYSIS = "<|channel|>analysis<|message|>The user wants a city. {draft}<|end|>"


def commentary(body: str, end: str = "<|end|>") -> str:
    """A commentary message without a recipient."""
    return f"{START}<|channel|>commentary<|message|>{body}{end}"


FINAL = f'{START}<|channel|>final<|message|>{{"city": "Oslo"}}<|return|>'
READ = "harmony_commentary_read"

# Rows: id, reply, the value and whether the commentary repair is named.
FOUND: list[tuple[str, str, Any, bool]] = [
    ("commentary_json_alone", commentary('{"city": "Paris"}'), {"city": "Paris"}, True),
    (
        "commentary_json_after_analysis",
        ANALYSIS + commentary('{"city": "Paris"}'),
        {"city": "Paris"},
        True,
    ),
    (
        "commentary_array_with_constrain",
        f"{START}<|channel|>commentary <|constrain|>json<|message|>[1, 2]<|end|>",
        [1, 2],
        True,
    ),
    (
        "commentary_json_unterminated",
        ANALYSIS + commentary('\n{"city": "Paris"}\n', end=""),
        {"city": "Paris"},
        True,
    ),
    (
        "final_wins_over_commentary",
        commentary('{"city": "Paris"}') + FINAL,
        {"city": "Oslo"},
        False,
    ),
    (
        "final_before_commentary_wins",
        FINAL + commentary('{"city": "Paris"}'),
        {"city": "Oslo"},
        False,
    ),
]


@pytest.mark.parametrize(
    ("reply", "value", "named"),
    [row[1:] for row in FOUND],
    ids=[row[0] for row in FOUND],
)
def test_commentary_payload(reply: str, value: Any, *, named: bool) -> None:
    found = extract(reply)
    assert isinstance(found, Extraction)
    assert found.value == value
    assert (READ in found.repairs) == named
    assert TruncationRecoveringOutputParser().parse(reply) == value


# Rows: id, reply. No JSON outside reasoning: a typed error, never a draft.
NOT_PAYLOAD: list[tuple[str, str]] = [
    ("commentary_prose", commentary('Let me think: {"city": "Paris"}')),
    ("analysis_json_only", '<|channel|>analysis<|message|>{"city": "Rome"}<|end|>'),
    (
        "final_prose_hides_commentary_json",
        commentary('{"city": "Paris"}')
        + f"{START}<|channel|>final<|message|>Done.<|return|>",
    ),
]


@pytest.mark.parametrize(
    "reply", [row[1] for row in NOT_PAYLOAD], ids=[row[0] for row in NOT_PAYLOAD]
)
def test_commentary_not_payload(reply: str) -> None:
    with pytest.raises(NoJsonFoundError) as caught:
        TruncationRecoveringOutputParser().parse(reply)
    assert caught.value.llm_output == reply


def test_tool_call_commentary_not_marked_as_payload() -> None:
    reply = f'{START}<|channel|>commentary to=functions.f<|message|>{{"q": 1}}<|call|>'
    prepared = prepare_reply(reply)
    assert READ not in prepared.repairs
    assert [c.name for c in prepared.tool_calls] == ["f"]
