"""Issue 21's last wrong values of the candidate choice, each through its entry points.

(d) A call envelope that the prose holds back (a condition, a negation, a
    proposal, an example) is not the schema's answer: every schema parser,
    sync, async and streamed, and ``structured_output`` over JSON and tools,
    raise or ask again; an envelope that is the reply, or follows a plain
    lead, is still read.
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    extract_json,
    structured_output,
)


class SendEmail(BaseModel):
    """Send an email."""

    to: str


SENT = SendEmail(to="all@corp.example")
CALL = '{"name": "send_email", "arguments": {"to": "all@corp.example"}}'
PARAMS = '{"name": "send_email", "parameters": {"to": "all@corp.example"}}'
FUNCTION = (
    '{"type": "function", "function": {"name": "send_email", '
    '"arguments": "{\\"to\\": \\"all@corp.example\\"}"}}'
)
HELD_BACK = [
    pytest.param(f"I won't run {CALL} until you confirm.", id="negated"),
    pytest.param(f"I won\u2019t run {CALL} yet.", id="curly_apostrophe"),
    pytest.param(f"If you agree, I would send:\n```json\n{CALL}\n```", id="proposed"),
    pytest.param(f"{CALL} is what I would send.", id="would_after"),
    pytest.param(f"Shall I send this?\n\n{CALL}", id="question_before"),
    pytest.param(f"For example:\n{PARAMS}", id="example_parameters"),
    pytest.param(f"Do not call {FUNCTION} now.", id="function_form"),
    pytest.param(f"```json\n{CALL}\n``` once you approve it.", id="after_fence"),
    pytest.param(f"I suggest:\n```\n{PARAMS}\n```\n", id="suggested"),
    pytest.param(f"<think>ok</think>Unless told otherwise, {CALL}", id="unless"),
]
SENT_REPLIES = [
    pytest.param(CALL, id="bare"),
    pytest.param(f"```json\n{CALL}\n```", id="fenced"),
    pytest.param(f"<think>if not, never</think>\n{CALL}\n", id="after_reasoning"),
    pytest.param(f"Here is the result:\n{CALL}", id="plain_lead"),
    pytest.param(f"Calling the tool: {PARAMS}", id="inline_lead"),
    pytest.param(f"Sending it now.\n```json\n{FUNCTION}\n```", id="fenced_function"),
    pytest.param(f'Not this: {{"exclude": {{"x": 1}}}}\nThis: {CALL}', id="not_above"),
]
SCHEMA_PARSERS = [
    pytest.param(lambda: JsonFenceOutputParser(pydantic_object=SendEmail), id="fence"),
    pytest.param(
        lambda: JsonFenceOutputParser(pydantic_object=SendEmail, repair=True),
        id="fence_repair",
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(pydantic_object=SendEmail),
        id="truncation",
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(
            pydantic_object=SendEmail, repair=True
        ),
        id="truncation_repair",
    ),
]


def _streamed(parser: Any, reply: str) -> Any:
    chunks = [AIMessageChunk(content=reply[i : i + 5]) for i in range(0, len(reply), 5)]
    out = None
    for out in parser.transform(iter(chunks)):  # noqa: B007 - keep the last
        pass
    return out


@pytest.mark.parametrize("make", SCHEMA_PARSERS)
@pytest.mark.parametrize("reply", HELD_BACK)
async def test_a_held_back_call_is_not_the_answer(reply: str, make: Any) -> None:
    parser = make()
    with pytest.raises(SchemaValidationError, match="only mentions this tool call"):
        parser.parse(reply)
    with pytest.raises(SchemaValidationError, match="only mentions"):
        parser.invoke(AIMessage(reply))
    with pytest.raises(SchemaValidationError, match="only mentions"):
        await parser.ainvoke(AIMessage(reply))
    try:
        streamed = _streamed(parser, reply)
    except JsonRecoveryError:
        streamed = None
    assert streamed != SENT


@pytest.mark.parametrize("make", SCHEMA_PARSERS)
@pytest.mark.parametrize("reply", SENT_REPLIES)
async def test_a_call_that_is_the_reply_is_still_read(reply: str, make: Any) -> None:
    parser = make()
    assert parser.parse(reply) == SENT
    assert await parser.ainvoke(AIMessage(reply)) == SENT


@pytest.mark.parametrize("reply", HELD_BACK)
def test_without_a_schema_the_envelope_is_the_json(reply: str) -> None:
    # No schema reads the envelope as arguments: the JSON is the envelope.
    value = extract_json(reply).value
    assert "to" not in value


@pytest.mark.parametrize("strategy", ["json", "auto"])
@pytest.mark.parametrize("reply", HELD_BACK)
def test_structured_output_asks_again(reply: str, strategy: str) -> None:
    model = ToolCallingChatModel(script=[reply, '{"to": "me@corp.example"}'])
    chain = structured_output(model, SendEmail, strategy=strategy, max_retries=1)
    assert chain.invoke("go") == SendEmail(to="me@corp.example")
    assert len(model.calls) == 2
