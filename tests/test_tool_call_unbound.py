"""A call to a tool that is not bound is never read as the answer.

``structured_output`` over tools binds the schema as the one tool: a reply
that calls another tool (``search``, a tool the model made up), decoded by
the provider, left invalid, written in markup or as the whole content, is
asked again, even when its arguments would validate as the schema. So is a
``JsonRetryChain`` over a tool-bound model. A call named after the schema
(any case) is still the answer, beside calls to other tools too; an object
the schema reads as it stands is not an envelope, whatever its ``name``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _chunked_models import ChunkedToolModel
from _models import ToolCallingChatModel
from _modes import run
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    JsonRetryChain,
    structured_output,
)
from langchain_jsonrecover.errors import UnknownToolError


class Person(BaseModel):
    """A person (no ``name`` field: an envelope's ``name`` fills nothing)."""

    full_name: str
    age: int = 0


class Command(BaseModel):
    """A command to run: a schema shaped like a call envelope."""

    name: str
    arguments: dict[str, Any]


ADA = Person(full_name="Ada", age=36)
GOOD = '{"full_name": "Ada", "age": 36}'
ARGS = {"full_name": "Grace", "age": 85}


def calls(*names: str) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=[
            {"name": n, "args": ARGS, "id": f"c{i}", "type": "tool_call"}
            for i, n in enumerate(names)
        ],
    )


UNBOUND = {
    "search": calls("search"),
    "made_up": calls("person_lookup"),
    "two_others": calls("search", "fetch_page"),
    "text_beside": AIMessage(GOOD, tool_calls=calls("search").tool_calls),
    "invalid": AIMessage(
        "",
        invalid_tool_calls=[
            {"name": "search", "args": '{"full_name": "Grace", "age": 85,}', "id": "c0"}
        ],
    ),
    "markup": AIMessage(
        '<tool_call>{"name": "search", "arguments": {"full_name": "Grace", "age": 85}}'
        "</tool_call>"
    ),
    "bare": AIMessage(
        '{"name": "search", "arguments": {"full_name": "Grace", "age": 85}}'
    ),
    "fenced": AIMessage(
        '```json\n{"name": "search", "parameters": {"full_name": "Grace", "age": 85}}\n```'
    ),
    # The newer envelope forms, and an envelope after a lead line.
    "call_list": AIMessage(f'[{{"name": "search", "arguments": {json.dumps(ARGS)}}}]'),
    "jsonrpc": AIMessage(
        f'{{"jsonrpc": "2.0", "method": "search", "id": 1, "params": {json.dumps(ARGS)}}}'
    ),
    "mcp": AIMessage(
        '{"jsonrpc": "2.0", "method": "tools/call", "id": 1, "params": '
        f'{{"name": "search", "arguments": {json.dumps(ARGS)}}}}}'
    ),
    "after_lead": AIMessage(
        f'Calling search:\n{{"name": "search", "arguments": {json.dumps(ARGS)}}}'
    ),
    "call_list_fenced": AIMessage(
        f'```json\n[{{"name": "search", "parameters": {json.dumps(ARGS)}}}]\n```'
    ),
}


@pytest.mark.parametrize("reply", list(UNBOUND.values()), ids=list(UNBOUND))
async def test_structured_output_asks_again(reply: AIMessage, mode: str) -> None:
    model = ToolCallingChatModel(script=[reply, GOOD])
    assert await run(structured_output(model, Person), "Who?", mode) == ADA
    assert len(model.calls) == 2
    sent = " ".join(str(m.content) for m in model.calls[1])
    assert "search" in sent or "person_lookup" in sent


@pytest.mark.parametrize("reply", list(UNBOUND.values()), ids=list(UNBOUND))
async def test_structured_output_without_retries_raises(
    reply: AIMessage, mode: str
) -> None:
    model = ToolCallingChatModel(script=[reply])
    with pytest.raises(OutputParserException):
        await run(structured_output(model, Person, max_retries=0), "Who?", mode)


async def test_the_feedback_names_the_tool_and_answers_its_id(mode: str) -> None:
    model = ToolCallingChatModel(script=[calls("search"), GOOD])
    result: Any = await run(
        structured_output(model, Person, include_raw=True), "Who?", mode
    )
    assert result["parsed"] == ADA
    error = result["attempts"][0]["error"]
    assert isinstance(error, UnknownToolError)
    assert "'search'" in str(error)
    # The re-ask goes to the plain model: the call as text, then the feedback.
    turn, feedback = model.calls[1][-2:]
    assert turn.content == json.dumps(ARGS)
    assert "There is no tool named 'search'" in str(feedback.content)


@pytest.mark.parametrize(
    "reply",
    [
        calls("Person"),
        calls("person"),
        calls("search", "Person"),
        AIMessage(
            '<tool_call>{"name": "Person", "arguments": ' + GOOD + "}</tool_call>"
        ),
        AIMessage(f'[{{"name": "Person", "arguments": {GOOD}}}]'),
        AIMessage(f'{{"jsonrpc": "2.0", "method": "person", "params": {GOOD}}}'),
        AIMessage(
            '{"jsonrpc": "2.0", "method": "tools/call", "params": '
            f'{{"name": "Person", "arguments": {GOOD}}}}}'
        ),
        AIMessage(f'Calling Person:\n{{"name": "Person", "arguments": {GOOD}}}'),
    ],
    ids=[
        "schema",
        "any_case",
        "beside_another",
        "markup",
        "call_list",
        "jsonrpc",
        "mcp",
        "after_lead",
    ],
)
async def test_the_schemas_call_is_the_answer(reply: AIMessage, mode: str) -> None:
    model = ToolCallingChatModel(script=[reply, GOOD])
    value = await run(structured_output(model, Person), "Who?", mode)
    assert value in (ADA, Person(**ARGS))
    assert len(model.calls) == 1


async def test_a_schema_shaped_like_an_envelope_reads_it_as_it_stands(
    mode: str,
) -> None:
    text = '{"name": "restart", "arguments": {"service": "web"}}'
    model = ToolCallingChatModel(script=[AIMessage(text)])
    value = await run(structured_output(model, Command), "What to run?", mode)
    assert value == Command(name="restart", arguments={"service": "web"})
    assert len(model.calls) == 1


async def test_a_retry_chain_over_bound_tools_reads_no_other_tool(mode: str) -> None:
    model = ToolCallingChatModel(script=[calls("search"), GOOD])
    chain = JsonRetryChain(
        model=model.bind_tools([Person]),
        parser=JsonFenceOutputParser(pydantic_object=Person),
    )
    assert await run(chain, "Who?", mode) == ADA
    assert len(model.calls) == 2


@pytest.mark.parametrize("chunked", [False, True], ids=["whole", "chunked"])
def test_a_stream_shows_no_partial_of_another_tools_call(chunked: bool) -> None:
    script = [calls("search"), GOOD]
    model = (
        ChunkedToolModel(script=script, seed=3)
        if chunked
        else ToolCallingChatModel(script=script)
    )
    items = list(structured_output(model, Person).stream("Who?"))
    assert items[-1] == ADA
    assert all("Ada".startswith(item.full_name or "") for item in items)


def test_a_stream_shows_the_schemas_call_beside_another() -> None:
    both = calls("search", "Person").tool_calls
    both[1]["args"] = {"full_name": "Ada", "age": 36}
    model = ChunkedToolModel(script=[AIMessage("", tool_calls=both)], seed=3)
    items = list(structured_output(model, Person).stream("Who?"))
    assert items[-1] == ADA
    assert all("Ada".startswith(item.full_name or "") for item in items)


# The JSON strategy compares an envelope's tool with the schema too.
@pytest.mark.parametrize(
    "reply",
    [UNBOUND[k] for k in ("markup", "bare", "call_list", "jsonrpc", "mcp")],
    ids=["markup", "bare", "call_list", "jsonrpc", "mcp"],
)
def test_the_json_strategy_asks_again_for_another_tools_call(reply: AIMessage) -> None:
    model = ToolCallingChatModel(script=[reply, GOOD])
    assert structured_output(model, Person, strategy="json").invoke("Who?") == ADA
    assert len(model.calls) == 2
