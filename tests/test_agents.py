"""``JsonRecoveryMiddleware`` in ``create_agent``, end to end, offline.

Scripted models stand in for a tool-calling model (``ToolCallingChatModel``)
and a model without tool calling (``ScriptedChatModel``). Every agent test
runs through ``invoke`` and ``ainvoke``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, cast

import pytest
from _models import ScriptedChatModel, ToolCallingChatModel
from langchain.agents import create_agent
from langchain.agents.structured_output import ToolStrategy
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser, RetryExhaustedError
from langchain_jsonrecover.agents import JsonRecoveryMiddleware

EXECUTED: list[dict[str, Any]] = []


@tool
def search(query: str, limit: int = 3) -> str:
    """Search the web."""
    EXECUTED.append({"query": query, "limit": limit})
    return f"{limit} results for {query}"


class Person(BaseModel):
    """A person."""

    name: str
    age: int


ADA = Person(name="Ada", age=36)


@pytest.fixture(autouse=True)
def _clear_executed() -> None:
    EXECUTED.clear()


async def run(agent: Any, text: str, mode: str) -> dict[str, Any]:
    payload = {"messages": [("user", text)]}
    if mode == "sync":
        result: dict[str, Any] = agent.invoke(payload)
    else:
        result = await agent.ainvoke(payload)
    return result


async def stream_custom(agent: Any, payload: Any, mode: str) -> list[Any]:
    """The custom stream's chunks of one run, sync or async."""
    if mode == "sync":
        return list(agent.stream(payload, stream_mode="custom"))
    return [c async for c in agent.astream(payload, stream_mode="custom")]


def invalid(args: str, name: str = "search", call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "error": "bad"}


def calls(*items: dict[str, Any], bad: list[dict[str, Any]] | None = None) -> AIMessage:
    return AIMessage("", tool_calls=list(items), invalid_tool_calls=bad or [])


async def test_a_tool_runs_with_recovered_arguments(mode: str) -> None:
    model = ToolCallingChatModel(
        script=[calls(bad=[invalid("{'query': 'Ada', 'limit': 2,}")]), "Done."]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    result = await run(agent, "Find Ada", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 2}]
    assert result["messages"][-1].content == "Done."
    assert len(model.calls) == 2


async def test_an_unusable_call_is_reasked_with_one_tool_result_per_id(
    mode: str,
) -> None:
    cut = calls(
        {"name": "search", "args": {"query": "x"}, "id": "ok"},
        bad=[invalid('{"query": "Ad', call_id="cut")],
    )
    model = ToolCallingChatModel(
        script=[
            cut,
            calls({"name": "search", "args": {"query": "Ada"}, "id": "c2"}),
            "Done.",
        ]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    await run(agent, "Find Ada", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]
    reask = model.calls[1]
    sent_back = reask[-3]  # the failed reply goes back unchanged
    assert isinstance(sent_back, AIMessage)
    assert sent_back.tool_calls == cut.tool_calls
    assert sent_back.invalid_tool_calls == cut.invalid_tool_calls
    results = {m.tool_call_id: m for m in reask[-2:] if isinstance(m, ToolMessage)}
    failed, other = results["cut"], results["ok"]
    assert (failed.tool_call_id, failed.status) == ("cut", "error")
    assert "cut off" in str(failed.content)
    assert '{"query": "Ad' in str(failed.content)  # the arguments as sent
    assert (other.tool_call_id, other.status) == ("ok", "error")
    assert "Not executed" in str(other.content)


async def test_a_model_that_never_complies_ends_with_retry_exhausted(
    mode: str,
) -> None:
    model = ToolCallingChatModel(
        script=[
            calls(bad=[invalid('{"query": "A"d"}', call_id="a")]),
            calls(bad=[invalid('{"query": "B"d"}', call_id="b")]),
        ]
    )
    agent = create_agent(
        model, tools=[search], middleware=[JsonRecoveryMiddleware(max_retries=1)]
    )
    with pytest.raises(RetryExhaustedError) as caught:
        await run(agent, "Find Ada", mode)
    assert len(caught.value.attempts) == 2
    assert EXECUTED == []


async def test_a_toolless_model_gives_structured_response_after_one_reask(
    mode: str,
) -> None:
    model = ScriptedChatModel(
        script=['Ada, aged "36".', '```json\n{"name": "Ada", "age": 36}\n```']
    )
    agent = create_agent(
        model, middleware=[JsonRecoveryMiddleware(response_format=Person)]
    )
    result = await run(agent, "Who wrote the first program?", mode)
    assert result["structured_response"] == ADA
    assert len(model.calls) == 2
    system = model.calls[0][0]
    assert system.type == "system"
    assert '"age"' in str(system.content)  # the format instructions


async def test_the_agents_tool_strategy_served_by_fenced_text(mode: str) -> None:
    model = ToolCallingChatModel(script=['```json\n{"name": "Ada", "age": 36,}\n```'])
    agent = create_agent(
        model,
        response_format=ToolStrategy(Person),
        middleware=[JsonRecoveryMiddleware(parser=JsonFenceOutputParser(repair=True))],
    )
    result = await run(agent, "Who?", mode)
    assert result["structured_response"] == ADA
    assert len(model.calls) == 1


async def test_the_schema_named_call_is_read_and_answered(mode: str) -> None:
    reply = calls(bad=[invalid('{"name": "Ada", "age": 36,}', name="Person")])
    model = ToolCallingChatModel(script=[reply])
    agent = create_agent(
        model, middleware=[JsonRecoveryMiddleware(response_format=Person)]
    )
    result = await run(agent, "Who?", mode)
    assert result["structured_response"] == ADA
    last = result["messages"][-1]
    assert isinstance(last, ToolMessage)
    assert last.tool_call_id == "c1"
    bound = [t["function"]["name"] for t in model.bound[0]["tools"]]
    assert bound == ["Person"]


async def test_a_toolless_model_calls_tools_in_its_text(mode: str) -> None:
    model = ScriptedChatModel(
        script=['{"name": "search", "arguments": {"query": "Ada",}}', "Found her."]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    result = await run(agent, "Find Ada", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]
    assert result["messages"][-1].content == "Found her."
    system = str(model.calls[0][0].content)
    assert "- search: Search the web." in system
    assert '"arguments"' in system
    assert "tools" not in model.bound[0]
    # The second call shows the call and its result as text, not as tool turns.
    second = model.calls[1]
    assert [m.type for m in second] == ["system", "human", "ai", "human"]
    assert second[2].content == '{"name": "search", "arguments": {"query": "Ada"}}'
    assert second[3].content == "Result of the tool 'search':\n3 results for Ada"


async def test_a_provider_raw_call_error_is_recovered(mode: str) -> None:
    error = ValueError(
        'error parsing tool call: raw=\'{"name": "search", "arguments": '
        '{"query": "Ada",}}\', err=invalid character \'}\' (status code: 500)'
    )
    model = ToolCallingChatModel(script=[error, "Done."])
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    await run(agent, "Find Ada", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]


async def test_other_model_errors_propagate(mode: str) -> None:
    model = ToolCallingChatModel(script=[ConnectionError("refused")])
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    with pytest.raises(ConnectionError):
        await run(agent, "Find Ada", mode)


async def test_events_reach_the_custom_stream(mode: str) -> None:
    model = ScriptedChatModel(script=["No JSON.", '{"name": "Ada", "age": 36,}'])
    agent = create_agent(
        model,
        middleware=[
            JsonRecoveryMiddleware(
                response_format=Person, parser=JsonFenceOutputParser(repair=True)
            )
        ],
    )
    payload: Any = {"messages": [("user", "Who?")]}
    chunks = await stream_custom(agent, payload, mode)
    names = [c["event"] for c in chunks]
    assert names == ["jsonrecover.retry", "jsonrecover.recovery"]
    assert chunks[0]["data"]["error"] == "no_json"


async def test_a_call_to_an_unknown_tool_is_reasked_as_unknown_tool(
    mode: str,
) -> None:
    model = ToolCallingChatModel(
        script=[
            calls(bad=[invalid('{"query": "Ada"}', name="serch")]),
            calls({"name": "search", "args": {"query": "Ada"}, "id": "c2"}),
            "Done.",
        ]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    payload: Any = {"messages": [("user", "Find Ada")]}
    chunks = await stream_custom(agent, payload, mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]
    retries = [c["data"] for c in chunks if c["event"] == "jsonrecover.retry"]
    assert [r["error"] for r in retries] == ["unknown_tool"]


def test_two_response_formats_are_a_value_error() -> None:
    model = ScriptedChatModel(script=["{}"])
    agent = create_agent(
        model,
        response_format=Person,
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    with pytest.raises(ValueError, match="both given"):
        agent.invoke(cast("Any", {"messages": [("user", "Who?")]}))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"parser": JsonFenceOutputParser}, TypeError),
        ({"parser": object()}, TypeError),
        ({"max_retries": -1}, ValueError),
        ({"max_retries": "2"}, TypeError),
        (
            {
                "response_format": Person,
                "parser": JsonFenceOutputParser(pydantic_object=dict),
            },
            ValueError,
        ),
    ],
    ids=[
        "parser_class",
        "not_a_parser",
        "negative_retries",
        "retries_str",
        "parser_with_other_schema",
    ],
)
def test_constructor_checks_its_arguments(
    kwargs: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        JsonRecoveryMiddleware(**kwargs)


def test_messages_of_the_caller_are_not_mutated() -> None:
    model = ToolCallingChatModel(
        script=[calls(bad=[invalid("{'query': 'Ada',}")]), "Done."]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    question: list[BaseMessage] = []
    payload: Any = {"messages": [("user", "Find Ada")]}
    agent.invoke(payload)
    assert payload == {"messages": [("user", "Find Ada")]}
    assert question == []


def test_importing_without_langchain_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "langchain.agents.middleware", None)
    monkeypatch.delitem(sys.modules, "langchain_jsonrecover.agents")
    with pytest.raises(
        ImportError, match=r"pip install 'langchain-jsonrecover\[agents\]'"
    ):
        importlib.import_module("langchain_jsonrecover.agents")


async def test_a_structured_agent_runs_other_tools_first(mode: str) -> None:
    model = ScriptedChatModel(
        script=[
            '{"name": "search", "arguments": {"query": "Ada"}}',
            '{"name": "Ada", "age": 36}',
        ]
    )
    agent = create_agent(
        model,
        tools=[search],
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    result = await run(agent, "Who?", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]
    assert result["structured_response"] == ADA
    assert len(model.calls) == 2


async def test_a_toolless_model_writing_markup_gets_its_call_run(mode: str) -> None:
    model = ScriptedChatModel(
        script=[
            '<tool_call>{"name": "search", "arguments": {"query": "Ada"}}</tool_call>',
            "Found her.",
        ]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    result = await run(agent, "Find Ada", mode)
    assert EXECUTED == [{"query": "Ada", "limit": 3}]
    assert result["messages"][-1].content == "Found her."
