"""A call the reply's words hold back is no answer, in every envelope form.

(F1) The call list ``[{…}]`` and the JSON-RPC / MCP requests are read as
their arguments too, so a sentence that holds them back makes them a
mention, as for the bare envelope: every schema parser, through every entry
point, raises; ``structured_output`` and the agents middleware ask again.
(F16) The mention words' inflections (``approval``, ``proposal``), negative
contractions (``haven't``, ``can't``), a sentence begun on the line above
the lead, and a next line that asks for the go-ahead or says the call is not
sent; a plain closing line (``Let me know if you need anything else.``)
keeps the call read.
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
WORDS_HELD_BACK = [
    pytest.param(f"Awaiting approval:\n{CALL}", id="approval"),
    pytest.param(f"{CALL} \u2190 proposal", id="proposal"),
    pytest.param(f"My proposal: {JSONRPC}", id="proposal_jsonrpc"),
    pytest.param(f"Careful \u2014 {CALL} \u2014 I haven't sent it.", id="havent"),
    pytest.param(f"It isn't sent: {CALL}", id="isnt"),
    pytest.param(f"I can\u2019t run {CALL} for you.", id="cant_curly"),
    pytest.param(f"I cannot run {CALL} yet.", id="cannot"),
    pytest.param(f"I will not send the following call\nto the API:\n{CALL}", id="two"),
    pytest.param(f"Here is the call:\n{CALL}\nShould I send it?", id="next_should"),
    pytest.param(
        f"Here is the call:\n```json\n{CALL}\n```\nShall I proceed?", id="next_fenced"
    ),
    pytest.param(f"{CALL}\n\nI have not sent this yet; confirm first.", id="next_not"),
    pytest.param(f"{CALL_LIST}\nPlease approve before I run it.", id="next_approve"),
    pytest.param(f"Ready:\n{CALL}\nSay go ahead and I send it.", id="next_go_ahead"),
    pytest.param(f"Ready:\n{CALL}\nOk. Should we run it now?", id="next_should_we"),
]
WORDS_SENT = [
    pytest.param(
        f"Here is the result:\n{CALL}\nLet me know if you need more.", id="if"
    ),
    pytest.param(f"```json\n{CALL}\n```\nWould you like anything else?", id="would"),
    pytest.param(f"Sending:\n{CALL}\nThe call should return the record.", id="should"),
    pytest.param(f"{CALL}\nDone.", id="done"),
    pytest.param(f"{CALL}\nCan I help with anything else?", id="can_i_help"),
    pytest.param(f"{CALL}\nI haven't made assumptions.", id="havent_made"),
    pytest.param(f"Steps:\n- check if it exists\nsend it now:\n{CALL}", id="list"),
    pytest.param(f"Not a draft.\nsent now:\n{CALL}", id="sentence_above"),
    pytest.param(f"Calling:\n{CALL}\n\nNotes: the age is not rounded.", id="not_far"),
]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("reply", NEWER_HELD_BACK + WORDS_HELD_BACK)
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
@pytest.mark.parametrize("reply", NEWER_SENT + WORDS_SENT)
def test_a_call_that_is_sent_is_still_read(reply: str, make: Any, entry: str) -> None:
    assert read_through(make(), reply, entry) == ADA


@pytest.mark.parametrize("strategy", ["json", "auto"])
@pytest.mark.parametrize("reply", NEWER_HELD_BACK + WORDS_HELD_BACK)
def test_structured_output_asks_again(reply: str, strategy: Any) -> None:
    model = ToolCallingChatModel(script=[reply, '{"name": "Bo", "age": 1}'])
    chain = structured_output(model, Person, strategy=strategy, max_retries=1)
    assert chain.invoke("go") == Person(name="Bo", age=1)
    assert len(model.calls) == 2


@tool
def search(q: str) -> str:
    """Search the web."""
    return "Ada Lovelace"


def _agent_answers(reply: str) -> tuple[Any, ScriptedChatModel]:
    """The agent's structured response to ``reply`` then a plain answer."""
    model = ScriptedChatModel(script=[reply, '{"name": "Bo", "age": 1}'])
    agent = create_agent(
        model,
        tools=[search],
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    result = agent.invoke({"messages": [HumanMessage("Who?")]})
    return result["structured_response"], model


def test_the_middleware_asks_again_for_a_held_back_call_list() -> None:
    reply = f'I won\'t search; [{{"name": "search", "arguments": {ARGS}}}] until you confirm'
    answer, model = _agent_answers(reply)
    assert answer == Person(name="Bo", age=1)
    assert len(model.calls) == 2


def test_the_middleware_reads_no_jsonrpc_request_to_a_bound_tool_as_the_answer() -> (
    None
):
    reply = f'{{"jsonrpc": "2.0", "method": "search", "id": 1, "params": {ARGS}}}'
    assert _agent_answers(reply)[0] != ADA
