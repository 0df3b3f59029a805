"""Issue 21, families 19-21: what a cut may remove, and what is not a cut.

Each table row goes through the truncation parser's entry points: ``parse``,
``invoke`` with the message's ``finish_reason``, ``ainvoke``, and the
streaming path's final value; the schema rows through ``structured_output``'s
retry loop too (a cut member is an error the model is asked again about).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from _models import ScriptedChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

if TYPE_CHECKING:
    from collections.abc import Callable

from langchain_jsonrecover import (
    InvalidJsonError,
    JsonRecoveryError,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    structured_output,
)


class Job(BaseModel):
    n: int = 0
    done: bool = False
    label: str = "none"
    scores: list[float] = []


def _message(reply: str, *, length: bool) -> AIMessage:
    reason = "length" if length else "stop"
    return AIMessage(reply, response_metadata={"finish_reason": reason})


def _streamed(parser: Any, reply: str, *, length: bool) -> Any:
    reason = "length" if length else "stop"
    chunks = [AIMessageChunk(content=reply[i : i + 5]) for i in range(0, len(reply), 5)]
    chunks.append(
        AIMessageChunk(content="", response_metadata={"finish_reason": reason})
    )
    out = None
    for out in parser.transform(iter(chunks)):  # noqa: B007 - keep the last
        pass
    return out


def _each_entry(parser: Any, reply: str, *, length: bool) -> list[Any]:
    """The outcome of every entry point: a value, or the exception's type."""
    outcomes: list[Any] = []
    calls: list[Callable[[], Any]] = [
        lambda: parser.invoke(_message(reply, length=length)),
        lambda: _streamed(parser, reply, length=length),
    ]
    if not length:
        calls.append(lambda: parser.parse(reply))
    for call in calls:
        try:
            outcomes.append(call())
        except JsonRecoveryError as exc:
            outcomes.append(type(exc))
    return outcomes


async def _ainvoke(parser: Any, reply: str, *, length: bool) -> Any:
    try:
        return await parser.ainvoke(_message(reply, length=length))
    except JsonRecoveryError as exc:
        return type(exc)


# Family 19: a scalar at the cut is dropped; a member whose value the cut
# removed is an error under a schema, never its default.
SCALARS = [
    pytest.param("[101, 102, 10", [101, 102], id="number_in_a_list"),
    pytest.param('{"x": 2.5e1', {}, id="exponent"),
    pytest.param('{"x": -0.', {}, id="decimal"),
    pytest.param('{"a": 1, "b": tr', {"a": 1}, id="literal"),
    pytest.param('{"a": [1, 2 ', {"a": [1, 2]}, id="number_that_space_follows"),
    pytest.param('{"a": true', {"a": True}, id="whole_literal"),
    pytest.param('{"a": "10', {"a": "10"}, id="digits_in_a_string"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("reply", "expected"), SCALARS)
def test_a_scalar_at_the_cut_is_dropped(
    reply: str, expected: Any, *, repair: bool
) -> None:
    parser = TruncationRecoveringOutputParser(repair=repair)
    for length in (False, True):
        assert _each_entry(parser, reply, length=length) == [expected] * (3 - length)


CUT_MEMBERS = [
    pytest.param('{"n": 3, "done": fa', "done", id="literal_cut"),
    pytest.param('{"done": true, "n": 12', "n", id="number_cut"),
    pytest.param('{"done": true, "n":', "n", id="after_the_colon"),
    pytest.param('{"done": true, "n"', "n", id="after_the_key"),
    pytest.param('{"done": true, "lab', "lab", id="inside_the_key"),
    pytest.param('```json\n{"n": 1, "scores": [0.5], "done": ', "done", id="fenced"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("reply", "key"), CUT_MEMBERS)
def test_a_member_the_cut_removed_is_never_a_default(
    reply: str, key: str, *, repair: bool
) -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Job, repair=repair)
    for length in (False, True):
        outcomes = _each_entry(parser, reply, length=length)
        assert outcomes == [SchemaValidationError] * (3 - length)
    with pytest.raises(SchemaValidationError, match=key):
        parser.parse(reply)


@pytest.mark.parametrize(("reply", "key"), CUT_MEMBERS)
async def test_a_cut_member_async(reply: str, key: str) -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Job)
    assert await _ainvoke(parser, reply, length=True) is SchemaValidationError
    del key


# Fields the reply never reached take their defaults, and the repairs say so.
REACHED = [
    pytest.param('{"n": 3, ', Job(n=3), True, id="after_a_comma"),
    pytest.param('{"n": 3, "label": "ab', Job(n=3, label="ab"), True, id="string"),
    pytest.param('{"scores": [0.5, 1', Job(scores=[0.5]), True, id="list_item"),
    pytest.param(
        '{"n": 1, "done": true, "label": "x", "scores": [',
        Job(n=1, done=True, label="x"),
        False,
        id="every_field_reached",
    ),
]


@pytest.mark.parametrize(("reply", "expected", "defaulted"), REACHED)
def test_fields_never_reached_take_defaults_and_say_so(
    reply: str, expected: Job, *, defaulted: bool
) -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Job)
    assert _each_entry(parser, reply, length=False) == [expected] * 3
    found = parser.extract(reply)
    assert ("unreached_fields_defaulted" in found.repairs) is defaulted
    assert "truncation_closed" in found.repairs


def test_structured_output_asks_again_about_a_cut_member() -> None:
    model = ScriptedChatModel(
        script=[_message('{"n": 3, "done": fa', length=True), '{"n": 3, "done": true}']
    )
    chain = structured_output(
        model,
        Job,
        strategy="json",
        parser=TruncationRecoveringOutputParser(pydantic_object=Job),
    )
    assert chain.invoke("go") == Job(n=3, done=True)
    assert len(model.calls) == 2


# Family 20: the cut reading needs a reply that ends inside the JSON; one that
# ends right after a closer is closed only when the model said it was cut.
AFTER_CLOSER = [
    pytest.param('{"a": {"b": 1, "c": 2}', {"a": {"b": 1, "c": 2}}, id="object"),
    pytest.param('{"a": [1, 2]', {"a": [1, 2]}, id="array"),
    pytest.param('[{"a": 1}, {"b": 2}\n', [{"a": 1}, {"b": 2}], id="space_after"),
]


@pytest.mark.parametrize("repair", [False, True])
@pytest.mark.parametrize(("reply", "closed"), AFTER_CLOSER)
def test_a_reply_that_ends_after_a_closer(
    reply: str, closed: Any, *, repair: bool
) -> None:
    parser = TruncationRecoveringOutputParser(repair=repair)
    assert _each_entry(parser, reply, length=False) == [InvalidJsonError] * 3
    assert _each_entry(parser, reply, length=True) == [closed] * 2


SLIPS = [
    pytest.param(
        '{"id": 7, \'name": "Ada", "city": "Oslo"}', id="key_opened_with_quote"
    ),
    pytest.param('{"id": 7, \'name": "Ada", "ci', id="key_opened_then_cut"),
    pytest.param('{"a": {"b": 1, "c": 2, "d": 3}', id="inner_closer_missing"),
    pytest.param('{"a": 1, "b": {"c": 2}, "d": [3]', id="inner_closer_at_the_end"),
]


@pytest.mark.parametrize("reply", SLIPS)
def test_a_slip_is_not_read_as_a_cut(reply: str) -> None:
    for repair in (False, True):
        parser = TruncationRecoveringOutputParser(repair=repair)
        assert _each_entry(parser, reply, length=False) == [InvalidJsonError] * 3


# Family 21: JSON only partly escaped is read whole or refused, never cut.
PARTLY_ESCAPED = [
    pytest.param('{\\"a\\": \\"x\\", "b": "y"}', id="closed"),
    pytest.param('{\\"a\\": \\"x\\", "b": "y', id="cut"),
    pytest.param('{\\"a\\": [\\"x\\"], "b": {"c": 1', id="cut_nested"),
]


@pytest.mark.parametrize("reply", PARTLY_ESCAPED)
def test_partly_escaped_json_never_drops_members(reply: str) -> None:
    for schema in (None, dict[str, Any]):
        parser = TruncationRecoveringOutputParser(pydantic_object=schema, repair=True)
        for length in (False, True):
            for outcome in _each_entry(parser, reply, length=length):
                assert outcome in ({"a": "x", "b": "y"}, InvalidJsonError), outcome


def test_wholly_escaped_json_still_reads() -> None:
    parser = TruncationRecoveringOutputParser(repair=True)
    assert parser.parse('{\\"a\\": \\"x\\", \\"b\\": \\"y\\"}') == {"a": "x", "b": "y"}
    assert parser.parse('{\\"a\\": \\"x\\", \\"b\\": \\"y') == {"a": "x", "b": "y"}


@pytest.mark.parametrize(("reply", "closed"), AFTER_CLOSER)
async def test_a_reply_that_ends_after_a_closer_async(reply: str, closed: Any) -> None:
    parser = TruncationRecoveringOutputParser(repair=True)
    assert await _ainvoke(parser, reply, length=False) is InvalidJsonError
    assert await _ainvoke(parser, reply, length=True) == closed


class Step(BaseModel):
    id: int = 0
    ok: bool = True


class Plan(BaseModel):
    steps: list[Step] = []


@pytest.mark.parametrize(
    ("reply", "path"),
    [
        pytest.param(
            '{"steps": [{"id": 1}, {"id": 2, "ok": fa', "steps[1].ok", id="item"
        ),
        pytest.param('{"steps": [{"id": 1', "steps[0].id", id="first_item"),
    ],
)
def test_the_error_names_the_member_by_its_path(reply: str, path: str) -> None:
    parser = TruncationRecoveringOutputParser(pydantic_object=Plan)
    with pytest.raises(SchemaValidationError, match=re.escape(path)):
        parser.parse(reply)
    assert parser.parse('{"steps": [{"id": 1}, ') == Plan(steps=[Step(id=1)])
