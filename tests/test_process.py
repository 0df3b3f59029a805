"""The halt/continue step: ``process()`` and ``aprocess()``."""

from __future__ import annotations

import pytest
from langchain_core.exceptions import ModelRefusalError
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel

from langchain_jsonrecover import (
    Continue,
    Halt,
    InvalidJsonError,
    JsonFenceOutputParser,
    JsonRecoveryError,
    NoJsonFoundError,
    RegexJsonOutputParser,
    SchemaValidationError,
)


class Person(BaseModel):
    name: str
    age: int


def test_continue_carries_value_and_reply() -> None:
    reply = AIMessage('Sure: {"name": "Ada", "age": 36}')
    step = JsonFenceOutputParser(pydantic_object=Person).process(reply)
    assert isinstance(step, Continue)
    assert step.value == Person(name="Ada", age=36)
    assert step.message is reply


def test_text_is_taken_as_an_ai_message() -> None:
    step = JsonFenceOutputParser().process("[1]")
    assert isinstance(step, Continue)
    assert step.message == AIMessage("[1]")


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("no json", NoJsonFoundError),
        ('{"name": "Ada" 36}', InvalidJsonError),
        ('{"name": "Ada"}', SchemaValidationError),
    ],
    ids=["no_json", "invalid", "schema"],
)
def test_halt_carries_feedback_and_error(
    reply: str, error: type[JsonRecoveryError]
) -> None:
    step = JsonFenceOutputParser(pydantic_object=Person).process(AIMessage(reply))
    assert isinstance(step, Halt)
    assert isinstance(step.feedback, HumanMessage)
    assert isinstance(step.error, error)
    assert step.feedback.content == step.error.observation
    assert step.error.llm_output == reply


def test_feedback_builder_can_be_replaced() -> None:
    parser = JsonFenceOutputParser(feedback=lambda e: f"ERROR: {type(e).__name__}")
    step = parser.process("nothing")
    assert isinstance(step, Halt)
    assert step.feedback.content == "ERROR: NoJsonFoundError"


def test_refusal_is_raised_not_halted() -> None:
    refusal = AIMessage(content=[{"type": "refusal", "refusal": "No."}])
    with pytest.raises(ModelRefusalError):
        JsonFenceOutputParser().process(refusal)


def test_reply_not_mutated() -> None:
    reply = AIMessage("broken {")
    before = reply.model_dump()
    JsonFenceOutputParser().process(reply)
    assert reply.model_dump() == before


def test_regex_parser_processes_too() -> None:
    parser = RegexJsonOutputParser(r"<json>(.*?)</json>")
    assert isinstance(parser.process("<json>[1]</json>"), Continue)
    step = parser.process("[1]")
    assert isinstance(step, Halt)
    assert "<json>(.*?)</json>" in str(step.feedback.content)


async def test_aprocess_continue() -> None:
    step = await JsonFenceOutputParser().aprocess(AIMessage('{"a": 1}'))
    assert isinstance(step, Continue)
    assert step.value == {"a": 1}


async def test_aprocess_halt() -> None:
    step = await JsonFenceOutputParser().aprocess("no")
    assert isinstance(step, Halt)
    assert isinstance(step.error, NoJsonFoundError)


async def test_aprocess_refusal() -> None:
    refusal = AIMessage(content=[{"type": "refusal", "refusal": "No."}])
    with pytest.raises(ModelRefusalError):
        await JsonFenceOutputParser().aprocess(refusal)
