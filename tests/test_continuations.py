"""Issue 21, family 22: a continuation joins only where it starts at the cut.

``on_truncation="continue"`` reads every way a continuation can join the
cut-off reply (exact, without an overlap it repeats, after a lead-in
sentence, or the answer started over) and keeps a value only where every
reading that parses agrees; otherwise it asks for the whole answer
(``WHOLE_REQUEST``). Each case runs through ``JsonRetryChain`` with our
parser, with ``repair=True``, and ``structured_output``, sync and async.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from _models import ScriptedChatModel
from _modes import run
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.output_parsers import JsonOutputParser
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRetryChain,
    RetryExhaustedError,
    TruncationRecoveringOutputParser,
)
from langchain_jsonrecover._core.decode.joins import (
    join_readings,
    lead_in,
    overlaps,
    restart_at,
)
from langchain_jsonrecover._core.prompts.retry import CONTINUE_REQUEST, WHOLE_REQUEST
from langchain_jsonrecover.structured import structured_output

if TYPE_CHECKING:
    from collections.abc import Callable

LENGTH = {"finish_reason": "length"}


class Numbers(BaseModel):
    """Some numbers."""

    a: list[int]


WHOLE = '{"whole": true}'
"""What the scripted model sends when asked for the whole answer."""

JOINED = "joined"
ASKED = "asked for the whole answer"
REASKED = "asked again (feedback on the joined text)"

# (cut reply, continuation, what the chain must give: the value, or ASKED)
CASES: list[tuple[str, str, Any]] = [
    # exact continuations join
    ("[101, 102, 10", "3, 104]", [101, 102, 103, 104]),
    (
        '{"summary": "The quarter was ',
        'strong."}',
        {"summary": "The quarter was strong."},
    ),
    ('```json\n{"a": [1, 2', "]}\n```\nDone.", {"a": [1, 2]}),
    ('{"name": "Ada", ', '"age": 36}', {"name": "Ada", "age": 36}),
    # issue 21's examples: two readings give values, so ask again
    ("[101, 102, 10", "103, 104]", ASKED),
    (
        '{"summary": "The quarter was strong',
        'The quarter was strong, margins grew."}',
        ASKED,
    ),
    # an overlap only one reading of which parses is removed
    ('{"a": 1, "b": "xy', '"b": "xyz"}', {"a": 1, "b": "xyz"}),
    (
        '{"s": "The quarter", "risk": "lo',
        '"risk": "low"}',
        {"s": "The quarter", "risk": "low"},
    ),
    (
        '{"tags": ["alpha", "be',
        'beta", "gamma"]}',
        ASKED,  # "bebeta" or "beta"
    ),
    (
        '{"tags": ["alpha", "be',
        '"beta", "gamma"]}',
        {"tags": ["alpha", "beta", "gamma"]},
    ),
    # the answer started over
    ('{"a": [1, 2', '{"a": [1, 2, 3]}', {"a": [1, 2, 3]}),
    (
        'Here it is:\n```json\n{"a": [1, 2',
        '```json\n{"a": [1, 2, 3]}\n```',
        {"a": [1, 2, 3]},
    ),
    # a lead-in sentence: outside a string it goes; inside one, two readings
    ('{"a": 1, ', 'Sure, here is the rest: "b": 2}', {"a": 1, "b": 2}),
    ('{"k": "ent', 'Continuing: ity"}', ASKED),
    # a fragment is not an answer: an object after the cut alone is not it
    ('{"items": [{"id": 1}, {"id": 2', '{"id": 3}]}', REASKED),
    (
        '[{"id": 1}, {"id": 2',
        '{"id": 2}, {"id": 3}]',
        [{"id": 1}, {"id": 2}, {"id": 3}],
    ),
]


def _entry_points(model: ScriptedChatModel) -> dict[str, Any]:
    return {
        "chain": JsonRetryChain(
            model=model, parser=JsonFenceOutputParser(), on_truncation="continue"
        ),
        "repair": JsonRetryChain(
            model=model,
            parser=JsonFenceOutputParser(repair=True),
            on_truncation="continue",
        ),
        "structured": structured_output(
            model, Any, strategy="json", on_truncation="continue"
        ),
    }


@pytest.mark.parametrize("entry", ["chain", "repair", "structured"])
@pytest.mark.parametrize(("cut", "piece", "expected"), CASES)
async def test_a_continuation_joins_or_asks_for_the_whole_answer(
    mode: str, entry: str, cut: str, piece: str, expected: Any
) -> None:
    model = ScriptedChatModel(
        script=[AIMessage(cut, response_metadata=LENGTH), piece, WHOLE]
    )
    runnable = _entry_points(model)[entry]
    value = await run(runnable, "Answer in JSON.", mode)
    if expected is ASKED:
        assert value == {"whole": True}
        assert model.calls[2][-2:] == [AIMessage(cut), HumanMessage(WHOLE_REQUEST)]
    elif expected is REASKED:
        assert value == {"whole": True}
        assert model.calls[2][-2] == AIMessage(cut + piece)
    else:
        assert value == expected
        assert len(model.calls) == 2
        assert model.calls[1][-1] == HumanMessage(CONTINUE_REQUEST)


async def test_readings_of_an_earlier_continuation_are_continued_too(
    mode: str,
) -> None:
    # "10" + "103, " is cut again: both readings are carried, and the last
    # piece is read on each; they disagree, so the model is asked for all.
    model = ScriptedChatModel(
        script=[
            AIMessage("[101, 102, 10", response_metadata=LENGTH),
            AIMessage("103, ", response_metadata=LENGTH),
            "104]",
            WHOLE,
        ]
    )
    chain = JsonRetryChain(
        model=model,
        parser=JsonFenceOutputParser(),
        on_truncation="continue",
        max_retries=3,
    )
    assert await run(chain, "Answer in JSON.", mode) == {"whole": True}
    assert model.calls[3][-1] == HumanMessage(WHOLE_REQUEST)


@pytest.mark.parametrize(
    ("text", "piece", "expected"),
    [
        ("[101, 102, 10", "103, 104]", [2]),
        ("[101, 102, 10", "3, 104]", []),
        ("aaaa", "aab", [2, 1]),
        ("", "x", []),
        ("x", "", []),
        ('"was strong', 'was strong"}', [10]),
    ],
)
def test_overlaps_are_every_prefix_the_text_ends_with(
    text: str, piece: str, expected: list[int]
) -> None:
    assert overlaps(text, piece) == expected
    assert overlaps(text, piece) == [
        k for k in range(min(len(text), len(piece)), 0, -1) if text.endswith(piece[:k])
    ]


@pytest.mark.parametrize(
    ("piece", "expected"),
    [
        ("Sure, here is the rest:\n1]", "1]"),
        ("Continuing from where I stopped: 1]", "1]"),
        ("Apologies for the cut. 1]", "1]"),
        ("here's more: 1]", "1]"),
        ("Of course, the rest:\n1]", "1]"),
        ("1]", "1]"),
        ("Surely 1]", "Surely 1]"),
    ],
)
def test_a_lead_in_sentence_is_from_a_closed_list(piece: str, expected: str) -> None:
    assert piece[lead_in(piece) :] == expected


@pytest.mark.parametrize(
    ("partial", "piece", "expected"),
    [
        ('{"a": [1, 2', '{"a": [1, 2, 3]}', 0),
        ('{"entities', 'Sure: {"entities": []}', 6),
        ('{"items": [{"id": 1}, {"id": 2', '{"id": 3}]}', None),
        ("no json", "{}", None),
        ('{"a": 1, "b', "zzz", None),
    ],
)
def test_a_restart_begins_as_the_cut_reply_does(
    partial: str, piece: str, expected: int | None
) -> None:
    assert restart_at(partial, piece) == expected


def test_readings_are_listed_once_with_the_exact_join_first() -> None:
    texts = [r.text for r in join_readings(["[0, 0, "], "0, 0]")]
    assert texts == ["[0, 0, 0, 0]", "[0, 0, 0]"]
    assert [r.text for r in join_readings(["[1, ", "[1, "], "2]")] == ["[1, 2]"]


# --- found by fuzzing (issue 21, family 22) -----------------------------------

CLOSING_PARSERS: dict[str, Callable[[], Any]] = {
    "truncation": lambda: TruncationRecoveringOutputParser(repair=True),
    "core": JsonOutputParser,
    "fence_repair": lambda: JsonFenceOutputParser(repair=True),
}

# (cut reply, continuation, the value): with on_truncation="continue" a reply
# cut at the token limit is continued whatever a parser could read from it
# (a closed value, an inner complete one), and a join still open is not closed.
FUZZ_CASES: list[tuple[str, str, Any]] = [
    ("```json\n[1, []", ", []]\n```", ASKED),  # the inner [] is no answer
    ('{"aa": {"a": 1}, "b": [1, 2', ", 3]}", {"aa": {"a": 1}, "b": [1, 2, 3]}),
    ('{"v": "', "here's more: 0\"}", ASKED),  # a lead-in in any case
    ('{"a": [1, 2', ', 3], "b": {"c": ', RetryExhaustedError),  # never closed
]


@pytest.mark.parametrize("parser", list(CLOSING_PARSERS))
@pytest.mark.parametrize(("cut", "piece", "expected"), FUZZ_CASES)
async def test_a_cut_reply_is_continued_not_closed(
    mode: str, parser: str, cut: str, piece: str, expected: Any
) -> None:
    model = ScriptedChatModel(
        script=[AIMessage(cut, response_metadata=LENGTH), piece, WHOLE]
    )
    chain = JsonRetryChain(
        model=model, parser=CLOSING_PARSERS[parser](), on_truncation="continue"
    )
    if expected is RetryExhaustedError:
        with pytest.raises(RetryExhaustedError):
            await run(chain, "Answer in JSON.", mode)
        return
    value = await run(chain, "Answer in JSON.", mode)
    if expected is ASKED:
        assert value == {"whole": True}
        assert len(model.calls) == 3
    else:
        assert value == expected
        assert len(model.calls) == 2


async def test_structured_output_continues_a_cut_native_reply(mode: str) -> None:
    # The native call's reply is cut: with on_truncation="continue" even a
    # truncation parser's closed value is not taken; the reply is continued.
    from _models import ToolCallingChatModel  # noqa: PLC0415

    cut = AIMessage('{"a": [1, 2', response_metadata=LENGTH)
    model = ToolCallingChatModel(script=[cut, ", 3]}"])
    runnable = structured_output(
        model,
        Numbers,
        parser=TruncationRecoveringOutputParser(),
        on_truncation="continue",
    )
    assert await run(runnable, "Answer in JSON.", mode) == Numbers(a=[1, 2, 3])
    assert len(model.calls) == 2
