"""``recover_tool_calls``: invalid tool calls made usable, never on a guess."""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from pydantic import BaseModel
from typing_extensions import TypedDict

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover.tools import (
    arecover_tool_calls,
    recover_tool_calls,
    tool_specs,
)


class Person(BaseModel):
    """A person."""

    name: str
    age: int


@tool
def search(query: str, limit: int = 3) -> str:
    """Search the web."""
    return f"{limit} results for {query}"


def delete(path: str, recursive: bool) -> str:
    """Delete a path."""
    return path


PERSON_DICT = {
    "type": "function",
    "function": {
        "name": "Person",
        "description": "A person.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name", "age"],
        },
    },
}


def invalid(args: str, name: str = "Person", call_id: str = "c1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "error": "bad json"}


def reply_with(*calls: dict[str, Any], **metadata: Any) -> AIMessage:
    return AIMessage("", invalid_tool_calls=list(calls), response_metadata=metadata)


ADA = {"name": "Ada", "age": 36}


@pytest.mark.parametrize(
    ("args", "repair"),
    [
        ('{"name": "Ada", "age": 36,}', "trailing_comma_removed"),
        ('{"name": "Ada", "age": 36, "ok": True}', "python_literal_replaced"),
        ("{'name': 'Ada', 'age': 36}", "single_quotes_replaced"),
        ('```json\n{"name": "Ada", "age": 36}\n```', "fence_stripped"),
    ],
    ids=["trailing_comma", "python_true", "single_quotes", "fenced"],
)
def test_invalid_call_becomes_a_tool_call_with_its_id(args: str, repair: str) -> None:
    message = reply_with(invalid(args))
    fixed = recover_tool_calls(message)
    assert fixed.invalid_tool_calls == []
    (call,) = fixed.tool_calls
    assert call["id"] == "c1"
    assert call["name"] == "Person"
    assert {k: call["args"][k] for k in ADA} == ADA
    recorded = fixed.response_metadata["jsonrecover"]["recovered_tool_calls"]
    assert recorded[0]["id"] == "c1"
    assert recorded[0]["source"] == "invalid_tool_calls"
    assert repair in recorded[0]["repairs"]


def test_the_input_message_is_not_mutated() -> None:
    message = reply_with(invalid('{"name": "Ada", "age": 36,}'))
    before = message.model_dump()
    recover_tool_calls(message, [Person])
    assert message.model_dump() == before


@pytest.mark.parametrize(
    ("message", "error_part"),
    [
        (reply_with(invalid('{"name": "Ada", "ag')), "cut off"),
        (reply_with(invalid('{"name": "Ada "the" Lovelace", "age": 36}')), "guessing"),
        (reply_with(invalid("[1, 2,]")), "must be a JSON object"),
        (
            reply_with(invalid('{"name": "Ada", "age": 36,}'), finish_reason="length"),
            "cut off",
        ),
    ],
    ids=["cut_off_arguments", "guessed_repair", "not_an_object", "stopped_at_limit"],
)
def test_unsafe_calls_stay_invalid_with_an_error(
    message: AIMessage, error_part: str
) -> None:
    fixed = recover_tool_calls(message)
    assert fixed.tool_calls == []
    (call,) = fixed.invalid_tool_calls
    assert error_part in str(call["error"])
    assert call["args"] == message.invalid_tool_calls[0]["args"]


def test_the_last_valid_call_of_a_reply_cut_at_the_limit_is_not_executed() -> None:
    # langchain-core closes streamed arguments: '{"path": "build/x", "recursive": tr'
    # arrives as a valid call.
    first = {"name": "search", "args": {"query": "x"}, "id": "a"}
    last = {"name": "delete", "args": {"path": "build/x"}, "id": "b"}
    message = AIMessage(
        "",
        tool_calls=[first, last],
        response_metadata={"finish_reason": "length"},
    )
    fixed = recover_tool_calls(message)
    assert [c["id"] for c in fixed.tool_calls] == ["a"]
    assert [c["id"] for c in fixed.invalid_tool_calls] == ["b"]
    assert "cut off" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "tools",
    [[Person], [PERSON_DICT], [search, Person], [delete, Person]],
    ids=["pydantic_model", "json_schema_dict", "base_tool", "function"],
)
def test_with_tools_arguments_must_validate(tools: list[Any]) -> None:
    good = invalid('{"name": "Ada", "age": 36,}', call_id="good")
    bad = invalid('{"name": "Ada", "age": "old",}', call_id="bad")
    fixed = recover_tool_calls(reply_with(good, bad), tools)
    assert [c["id"] for c in fixed.tool_calls] == ["good"]
    (left,) = fixed.invalid_tool_calls
    assert left["id"] == "bad"
    assert "age" in str(left["error"])


def test_a_call_to_an_unbound_tool_stays_invalid() -> None:
    fixed = recover_tool_calls(reply_with(invalid("{'q': 1}", name="serch")), [search])
    assert fixed.tool_calls == []
    assert "no tool named 'serch'" in str(fixed.invalid_tool_calls[0]["error"])


def test_arguments_keep_their_decoded_values() -> None:
    # The tool validates (and coerces); recovery does not drop or convert keys.
    fixed = recover_tool_calls(
        reply_with(invalid('{"name": "Ada", "age": "36", "extra": True,}')), [Person]
    )
    assert fixed.tool_calls[0]["args"] == {"name": "Ada", "age": "36", "extra": True}


@pytest.mark.parametrize(
    ("text", "expected", "left"),
    [
        (
            '{"name": "search", "arguments": {"query": "Ada",}}',
            [("search", {"query": "Ada"})],
            "",
        ),
        (
            '\n{"name": "search", "parameters": {"query": "Ada"}}\n',
            [("search", {"query": "Ada"})],
            "",
        ),
        (
            (
                '[{"name": "search", "arguments": {"query": "a"}}, '
                '{"name": "Person", "arguments": "{\\"name\\": \\"Ada\\", \\"age\\": 36}"}]'
            ),
            [("search", {"query": "a"}), ("Person", ADA)],
            "",
        ),
    ],
    ids=["arguments", "parameters", "list_and_string_arguments"],
)
def test_calls_written_in_the_text_naming_a_bound_tool(
    text: str, expected: list[tuple[str, Any]], left: str
) -> None:
    fixed = recover_tool_calls(AIMessage(text), [search, Person])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == expected
    assert all(c["id"] for c in fixed.tool_calls)
    assert fixed.content == left
    recorded = fixed.response_metadata["jsonrecover"]["recovered_tool_calls"]
    assert {r["source"] for r in recorded} == {"text"}


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ('{"name": "lookup", "arguments": {"query": "Ada"}}', [search]),
        ('{"name": "search", "arguments": {"query": "Ada"}}', None),
        ('{"name": "Ada", "age": 36}', [search, Person]),
        ('Sure. {"name": "search", "parameters": {"query": "Ada"}}', [search]),
    ],
    ids=["unbound_name", "no_tools_given", "plain_answer", "after_prose"],
)
def test_text_that_is_not_a_call_stays_text(text: str, tools: Any) -> None:
    fixed = recover_tool_calls(AIMessage(text), tools)
    assert fixed.tool_calls == []
    assert fixed.content == text


def test_a_text_call_cut_at_the_limit_is_not_executed() -> None:
    text = '{"name": "delete", "arguments": {"path": "build/x", "recursive": true}}'
    message = AIMessage(text, response_metadata={"finish_reason": "length"})
    fixed = recover_tool_calls(message, [delete])
    assert fixed.tool_calls == []
    assert "cut off" in str(fixed.invalid_tool_calls[0]["error"])


def test_a_message_without_calls_comes_back_equal() -> None:
    message = AIMessage("Hello.")
    assert recover_tool_calls(message, [search]) == message


def test_not_a_message_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="message must be an AIMessage"):
        recover_tool_calls("{}")  # type: ignore[arg-type]


def test_tools_must_be_a_list() -> None:
    with pytest.raises(TypeError, match="tools must be a list"):
        recover_tool_calls(AIMessage("x"), search)  # type: ignore[arg-type]


def test_tool_specs_reads_every_kind() -> None:
    specs = tool_specs([search, Person, delete, PERSON_DICT])
    assert sorted(specs) == ["Person", "delete", "search"]
    assert specs["search"].parameters["required"] == ["query"]


async def test_in_lcel_after_a_tool_calling_model(mode: str) -> None:
    model = ToolCallingChatModel(
        script=[reply_with(invalid("{'query': 'Ada'}", name="search"))]
    )
    chain = model.bind_tools([search]) | recover_tool_calls
    result = chain.invoke("q") if mode == "sync" else await chain.ainvoke("q")
    assert result.tool_calls[0]["args"] == {"query": "Ada"}


async def test_recovery_events_name_the_call() -> None:
    model = ToolCallingChatModel(
        script=[reply_with(invalid("{'query': 'Ada'}", name="search"))]
    )
    chain = model.bind_tools([search]) | recover_tool_calls
    events = [
        e
        async for e in chain.astream_events("q", version="v2")
        if e["event"] == "on_custom_event"
    ]
    assert [e["name"] for e in events] == ["jsonrecover.recovery"]
    data: Any = events[0]["data"]
    assert data["tool_call"] == "search"
    assert data["id"] == "c1"
    assert data["source"] == "invalid_tool_calls"
    assert data["repairs"] == ["single_quotes_replaced"]


async def test_async_twin_gives_the_same_message() -> None:
    message = reply_with(invalid('{"name": "Ada", "age": 36,}'))
    sync = recover_tool_calls(message, [Person])
    other = await arecover_tool_calls(message, [Person])
    assert other.tool_calls == sync.tool_calls


@pytest.mark.parametrize(
    ("text", "args", "left"),
    [
        ('[TOOL_CALLS]search[ARGS]{"query": "Ada",}', {"query": "Ada"}, ""),
        (
            (
                'Let me look.<tool_call>{"name": "search", "arguments": {"query": "Ada"}}'
                "</tool_call>"
            ),
            {"query": "Ada"},
            "Let me look.",
        ),
        (
            '<|python_tag|>{"name": "search", "parameters": {"query": "Ada"}}',
            {"query": "Ada"},
            "",
        ),
    ],
    ids=["mistral", "hermes_after_prose", "llama_python_tag"],
)
def test_tool_call_markup_in_the_text_becomes_calls(
    text: str, args: dict[str, Any], left: str
) -> None:
    fixed = recover_tool_calls(AIMessage(text), [search])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [("search", args)]
    assert fixed.content == left
    recorded = fixed.response_metadata["jsonrecover"]["recovered_tool_calls"]
    assert recorded[0]["source"] == "markup"


@pytest.mark.parametrize(
    ("text", "error_part"),
    [
        ('<tool_call>{"name": "search", "arguments": {"query": "A', "cut off"),
        ('<tool_call>{"name": "serch", "arguments": {}}</tool_call>', "no tool named"),
    ],
    ids=["reply_ended_inside", "unbound_name"],
)
def test_unusable_markup_calls_stay_invalid(text: str, error_part: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), [search])
    assert fixed.tool_calls == []
    assert error_part in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "args",
    ["[" * 100_000, '{"a": ' * 50_000, "{'a': [" * 20_000],
    ids=["deep_brackets", "deep_objects", "deep_single_quoted"],
)
def test_hostile_arguments_stay_invalid_without_recursion_error(args: str) -> None:
    fixed = recover_tool_calls(reply_with(invalid(args)))
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls[0]["error"]


def test_many_calls_cost_work_in_proportion(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    real = JsonFenceOutputParser.extract

    def counting(self: Any, reply: Any) -> Any:
        seen.append(len(str(reply)))
        return real(self, reply)

    monkeypatch.setattr(JsonFenceOutputParser, "extract", counting)

    def work(n: int) -> int:
        seen.clear()
        calls = [
            invalid("{'query': 'x',}", name="search", call_id=f"c{i}") for i in range(n)
        ]
        recover_tool_calls(reply_with(*calls), [search])
        return sum(seen)

    assert work(200) == 2 * work(100)


class PersonDict(TypedDict):
    """A person, as a TypedDict."""

    name: str
    age: int


def test_a_typeddict_tool_validates_with_its_type() -> None:
    good = invalid('{"name": "Ada", "age": 36,}', name="PersonDict", call_id="good")
    bad = invalid('{"name": "Ada",}', name="PersonDict", call_id="bad")
    fixed = recover_tool_calls(reply_with(good, bad), [PersonDict])
    assert [c["id"] for c in fixed.tool_calls] == ["good"]
    assert "age" in str(fixed.invalid_tool_calls[0]["error"])
