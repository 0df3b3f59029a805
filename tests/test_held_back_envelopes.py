"""A call the reply's words hold back is no answer, in every envelope form.

(F1) The call list ``[{…}]`` and the JSON-RPC / MCP requests are read as
their arguments too, so a sentence that holds them back makes them a
mention, as for the bare envelope: every schema parser, through every entry
point, raises; ``structured_output`` and the agents middleware ask again.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from _entry_points import ENTRY_POINTS, read_through
from _models import ScriptedChatModel, ToolCallingChatModel
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRecoveryError,
    SchemaValidationError,
    TruncationRecoveringOutputParser,
    structured_output,
)
from langchain_jsonrecover.agents import JsonRecoveryMiddleware


class Person(BaseModel):
    """A person."""

    name: str
    age: int = 0


ADA = Person(name="Ada", age=36)
ARGS = '{"name": "Ada", "age": 36}'
CALL = f'{{"name": "send", "arguments": {ARGS}}}'
CALL_LIST = f"[{CALL}]"
JSONRPC = f'{{"jsonrpc": "2.0", "method": "send", "id": 1, "params": {ARGS}}}'
MCP = (
    '{"jsonrpc": "2.0", "method": "tools/call", "id": 1, '
    f'"params": {{"name": "send", "arguments": {ARGS}}}}}'
)
PARSERS = [
    pytest.param(lambda: JsonFenceOutputParser(pydantic_object=Person), id="fence"),
    pytest.param(
        lambda: JsonFenceOutputParser(pydantic_object=Person, repair=True),
        id="fence_repair",
    ),
    pytest.param(
        lambda: JsonFenceOutputParser(pydantic_object=Person, repair=False),
        id="fence_strict",
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(pydantic_object=Person), id="trunc"
    ),
    pytest.param(
        lambda: TruncationRecoveringOutputParser(pydantic_object=Person, repair=True),
        id="trunc_repair",
    ),
]

NEWER_HELD_BACK = [
    pytest.param(f"I won't run {CALL_LIST} until you confirm.", id="call_list"),
    pytest.param(f"I won't send {JSONRPC} until you confirm.", id="jsonrpc"),
    pytest.param(f"I won't send {MCP} until you confirm.", id="mcp"),
    pytest.param(f"For example:\n```json\n{CALL_LIST}\n```", id="call_list_fenced"),
    pytest.param(f"Shall I send this?\n\n{JSONRPC}", id="jsonrpc_question"),
]
NEWER_SENT = [
    pytest.param(CALL_LIST, id="call_list"),
    pytest.param(JSONRPC, id="jsonrpc"),
    pytest.param(MCP, id="mcp"),
    pytest.param(f"Here is the result:\n{CALL_LIST}", id="call_list_plain_lead"),
    pytest.param(f"```json\n{JSONRPC}\n```", id="jsonrpc_fenced"),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", NEWER_HELD_BACK)
def test_a_held_back_call_is_no_answer(reply: str, make: Any, entry: str) -> None:
    parser = make()
    if entry == "stream":
        with contextlib.suppress(JsonRecoveryError):
            assert read_through(parser, reply, entry) != ADA
        return
    with pytest.raises(SchemaValidationError, match="only mentions this tool call"):
        read_through(parser, reply, entry)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", NEWER_SENT)
def test_a_call_that_is_sent_is_still_read(reply: str, make: Any, entry: str) -> None:
    assert read_through(make(), reply, entry) == ADA


@pytest.mark.parametrize("strategy", ["json", "auto"])
@pytest.mark.parametrize("reply", NEWER_HELD_BACK)
def test_structured_output_asks_again(reply: str, strategy: Any) -> None:
    model = ToolCallingChatModel(script=[reply, '{"name": "Bo", "age": 1}'])
    chain = structured_output(model, Person, strategy=strategy, max_retries=1)
    assert chain.invoke("go") == Person(name="Bo", age=1)
    assert len(model.calls) == 2


@tool
def search(q: str) -> str:
    """Search the web."""
    return "Ada Lovelace"


def test_the_middleware_asks_again_for_a_held_back_call_list() -> None:
    reply = f'I won\'t search; [{{"name": "search", "arguments": {ARGS}}}] until you confirm'
    model = ScriptedChatModel(script=[reply, '{"name": "Bo", "age": 1}'])
    agent = create_agent(
        model,
        tools=[search],
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    result = agent.invoke({"messages": [HumanMessage("Who?")]})
    assert result["structured_response"] == Person(name="Bo", age=1)
    assert len(model.calls) == 2
