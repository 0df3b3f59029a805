"""Issue 21's tool-call rules, family by family, through every entry point.

1. Text is a call only in the model's call markup, or when the whole content
   (reasoning and whitespace aside) is call envelopes, bare or in one fence.
2. Arguments are one JSON object, or the call stays invalid.
3. An envelope with a key beyond its kind's keys is not unwrapped silently.
4. Every call becomes a call, in order, or all of them stay invalid.
5. No markup is left in the content once the calls are taken out.

Entry points: ``recover_tool_calls`` (sync and async, with and without
``tools=``), ``structured_output`` over tools with a scripted tool-calling
model, and ``JsonRecoveryMiddleware``'s model hook.
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser, structured_output
from langchain_jsonrecover._core.reply.envelopes import (
    CALL_KEYS,
    JSONRPC_KEYS,
    CallEnvelope,
    extra_keys,
    read_call_envelope,
)
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.retry import RetryExhaustedError
from langchain_jsonrecover.tools import (
    arecover_tool_calls,
    recover_tool_calls,
    tool_specs,
)
from langchain_jsonrecover.tools.calls import CallLedger, read_text_calls

SENT: list[dict[str, Any]] = []


@tool
def send_email(to: str) -> str:
    """Send an email."""
    SENT.append({"to": to})
    return "sent"


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def get_time(tz: str) -> str:
    """The time in a zone."""
    return f"noon in {tz}"


class GetWeather(BaseModel):
    """The weather in a city."""

    city: str


TOOLS = [send_email, get_weather, get_time]
EMAIL = '{"name": "send_email", "arguments": {"to": "all@corp.example"}}'
WEATHER = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
TIME = '{"name": "get_time", "arguments": {"tz": "UTC"}}'
Calls = list[tuple[str, dict[str, Any]]]


@pytest.fixture(autouse=True)
def _clear_sent() -> None:
    SENT.clear()


async def recover(message: AIMessage, mode: str, tools: Any = TOOLS) -> AIMessage:
    if mode == "sync":
        return recover_tool_calls(message, tools)
    return await arecover_tool_calls(message, tools)


def calls_of(message: AIMessage) -> Calls:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def invalid(name: str, arguments: str) -> AIMessage:
    bad = {"name": name, "args": arguments, "id": "c1", "error": None}
    return AIMessage("", invalid_tool_calls=[bad])


# --- 1. a call mentioned in prose is text ------------------------------------------

MENTIONS = [
    f"I won't run {EMAIL} until you confirm.",
    f"If you agree, I would send:\n```json\n{EMAIL}\n```",
    f"Let me check: {WEATHER}",  # an announced call: the rule's cost
    f"Do not call {EMAIL}; it would email everyone.",
    f"The format is `<tool_call>{EMAIL}</tool_call>`.",
    f"> {EMAIL}\n\nThat is what the docs show.",
    f"```json\n{EMAIL}\n```\n```json\n{WEATHER}\n```",
    f"{EMAIL}\nShall I?",
    f"Option A: {EMAIL}. Option B: {WEATHER}.",
]


@pytest.mark.parametrize("text", MENTIONS)
async def test_a_call_mentioned_in_prose_stays_text(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.content == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (EMAIL, [("send_email", {"to": "all@corp.example"})]),
        (f"\n  {WEATHER}\n", [("get_weather", {"city": "Oslo"})]),
        (f"```json\n{WEATHER}\n```", [("get_weather", {"city": "Oslo"})]),
        (
            f"```\n[{WEATHER}, {TIME}]\n```\n",
            [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "UTC"})],
        ),
        (f"<think>I should call it.</think>\n{TIME}", [("get_time", {"tz": "UTC"})]),
        (
            f"I'll check.\n<tool_call>\n{WEATHER}\n</tool_call>",
            [("get_weather", {"city": "Oslo"})],
        ),
        (
            (
                "<|start|>assistant<|channel|>commentary to=functions.get_time "
                '<|constrain|>json<|message|>{"tz": "UTC"}<|call|>'
            ),
            [("get_time", {"tz": "UTC"})],
        ),
    ],
    ids=[
        "bare",
        "spaces",
        "fenced",
        "fenced_list",
        "after_reasoning",
        "markup",
        "harmony",
    ],
)
async def test_a_whole_content_call_or_markup_is_a_call(
    text: str, expected: Calls, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert calls_of(fixed) == expected
    assert fixed.invalid_tool_calls == []


async def test_the_agent_runs_no_tool_the_model_warns_against(mode: str) -> None:
    model = ToolCallingChatModel(script=[f"I won't run {EMAIL} until you confirm."])
    agent: Any = create_agent(model, tools=TOOLS, middleware=[JsonRecoveryMiddleware()])
    payload = {"messages": [("user", "Email everyone")]}
    if mode == "sync":
        result = agent.invoke(payload)
    else:
        result = await agent.ainvoke(payload)
    assert SENT == []
    assert "until you confirm" in result["messages"][-1].content


# --- 2. arguments are one JSON object -----------------------------------------------

GLUED = [
    ("get_weather", '{"city": "Oslo"}{"city": "Rome"}'),
    ("get_weather", '{"city": "Oslo"}\n{"city": "Rome"}'),
    ("get_weather", 'city="Oslo", opts={"city": "Rome"}'),
    ("get_weather", '{"city": "Oslo"} and Rome'),
    ("get_weather", '```json\n{"city": "Oslo"}\n```\n```json\n{"city": "Rome"}\n```'),
]


@pytest.mark.parametrize(("name", "arguments"), GLUED)
@pytest.mark.parametrize("tools", [TOOLS, None], ids=["tools", "no_tools"])
async def test_arguments_that_are_not_one_object_stay_invalid(
    name: str, arguments: str, tools: Any, mode: str
) -> None:
    fixed = await recover(invalid(name, arguments), mode, tools)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls[0]["args"] == arguments
    assert "not one JSON object" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "text",
    [
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}{"city": "Rome"}',
        '<function=get_weather>{"city": "Oslo"}{"city": "Rome"}</function>',
        (
            "<|start|>assistant<|channel|>commentary to=functions.get_weather "
            '<|constrain|>json<|message|>{"city": "Oslo"}{"city": "Rome"}<|call|>'
        ),
        (
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}'
            '{"city": "Rome"}}</tool_call>'
        ),
    ],
    ids=["mistral", "function", "harmony", "hermes"],
)
async def test_glued_arguments_in_markup_stay_invalid(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["get_weather"]


def test_one_object_in_one_fence_is_one_object() -> None:
    fixed = recover_tool_calls(
        invalid("get_weather", '```json\n{"city": "Oslo",}\n```')
    )
    assert calls_of(fixed) == [("get_weather", {"city": "Oslo"})]


# --- 3. no envelope member is dropped -----------------------------------------------

EXTRA = '{"name": "get_time", "arguments": {"tz": "UTC"}, "format": "24h"}'


@pytest.mark.parametrize(
    "text",
    [
        EXTRA,
        f"```json\n{EXTRA}\n```",
        f"<tool_call>{EXTRA}</tool_call>",
        f"[TOOL_CALLS][{EXTRA}]",
        '<|python_tag|>{"name": "get_time", "parameters": {"tz": "UTC"}, "x": 1}',
        (
            '<tool_call>{"type": "function", "function": {"name": "get_time", '
            '"arguments": {"tz": "UTC"}, "format": "24h"}}</tool_call>'
        ),
        (
            '<tool_call>{"type": "function", "function": {"name": "get_time", '
            '"arguments": {"tz": "UTC"}}, "format": "24h"}</tool_call>'
        ),
        '{"name": "get_time", "arguments": {"tz": "UTC"}, "parameters": {"tz": "CET"}}',
        (
            '<tool_call>{"name": "get_time", "arguments": {\'tz\': \'UTC\'}, '
            '"format": "24h"}</tool_call>'
        ),
    ],
    ids=[
        "bare",
        "fenced",
        "hermes",
        "mistral",
        "python_tag",
        "inside_function",
        "beside_function",
        "two_argument_keys",
        "after_broken_arguments",
    ],
)
async def test_an_envelope_with_an_extra_member_is_withheld(
    text: str, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["get_time"]
    assert "beside its name and arguments" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_time", "arguments": {"tz": "UTC"}, "id": "call_1"}',
        '{"type": "function", "name": "get_time", "arguments": {"tz": "UTC"}}',
        (
            '<tool_call>{"type": "function", "id": "c", "function": {"name": "get_time", '
            '"arguments": "{\\"tz\\": \\"UTC\\"}"}}</tool_call>'
        ),
        '{"tool_name": "get_time", "parameters": {"tz": "UTC"}}',
    ],
    ids=["id", "type", "function_wrapper", "synonyms"],
)
async def test_a_call_kinds_own_keys_are_unwrapped(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert calls_of(fixed) == [("get_time", {"tz": "UTC"})]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"name": "f", "arguments": {}}, CallEnvelope("f", {})),
        ({"name": "f", "arguments": {}, "x": 1}, CallEnvelope("f", {}, ("x",))),
        ({"tool_name": "f", "parameters": "{}"}, CallEnvelope("f", "{}")),
        (
            {"name": "f", "tool_name": "g", "arguments": {}},
            CallEnvelope("f", {}, ("tool_name",)),
        ),
        (
            {"name": "f", "arguments": {}, "type": "tool"},
            CallEnvelope("f", {}, ("type",)),
        ),
        (
            {"type": "function", "function": {"name": "f", "arguments": {}}, "x": 2},
            CallEnvelope("f", {}, ("x",)),
        ),
        ({"name": "Ada", "age": 36}, None),
        ({"arguments": {}}, None),
        ([{"name": "f", "arguments": {}}], None),
    ],
)
def test_read_call_envelope(value: Any, expected: CallEnvelope | None) -> None:
    assert read_call_envelope(value) == expected


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        (
            {"jsonrpc": "2.0", "method": "tools/call", "id": 1, "params": {}},
            "jsonrpc",
            (),
        ),
        ({"jsonrpc": "2.0", "method": "m", "meta": {}}, "jsonrpc", ("meta",)),
        ({"name": "f", "arguments": {}, "id": "1", "type": "function"}, "call", ()),
        ({"type": "function", "function": {}, "note": ""}, "function", ("note",)),
    ],
)
def test_extra_keys(
    value: dict[str, Any], kind: str, expected: tuple[str, ...]
) -> None:
    assert extra_keys(value, kind) == expected


def test_the_kinds_keys_are_the_documented_lists() -> None:
    assert {"name", "tool_name", "arguments", "parameters", "id", "type"} == CALL_KEYS
    assert {"jsonrpc", "method", "id", "params"} == JSONRPC_KEYS


# --- 4. every call, in order, or none ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            f"<tool_call>\n{WEATHER}\n{TIME}\n</tool_call>",
            [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "UTC"})],
        ),
        (
            f"<tool_call>{WEATHER}, {TIME}</tool_call>",
            [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "UTC"})],
        ),
        (
            f"<tool_call>\n{WEATHER}\n</tool_call>\n{TIME}",
            [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "UTC"})],
        ),
        (
            (
                f"<|python_tag|>{TIME.replace('arguments', 'parameters')}; "
                f"{WEATHER.replace('arguments', 'parameters')}"
            ),
            [("get_time", {"tz": "UTC"}), ("get_weather", {"city": "Oslo"})],
        ),
        (
            (
                '[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}[TOOL_CALLS]get_weather[ARGS]'
                '{"city": "Oslo"}'
            ),
            [("get_time", {"tz": "UTC"}), ("get_weather", {"city": "Oslo"})],
        ),
    ],
    ids=["one_block", "one_block_comma", "markup_then_bare", "python_tag", "mistral"],
)
async def test_every_call_becomes_a_call_in_order(
    text: str, expected: Calls, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert calls_of(fixed) == expected
    assert fixed.invalid_tool_calls == []
    assert fixed.content == ""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            (
                f'<tool_call>{WEATHER}</tool_call>\n<tool_call>{{"name": "rm", '
                '"arguments": {}}</tool_call>'
            ),
            "another call of the same reply",
        ),
        (
            (
                f"<tool_call>{WEATHER}</tool_call>"
                '[TOOL_CALLS]get_time[ARGS]{"tz": "UTC"}{"tz": "CET"}'
            ),
            "another call of the same reply",
        ),
    ],
    ids=["unknown_tool", "glued_arguments"],
)
async def test_when_one_call_cannot_be_used_none_is(
    text: str, error: str, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert len(fixed.invalid_tool_calls) == 2
    assert error in str(fixed.invalid_tool_calls[0]["error"]) + str(
        fixed.invalid_tool_calls[1]["error"]
    )


async def test_a_call_written_in_prose_beside_markup_holds_the_markup_call(
    mode: str,
) -> None:
    text = f"<tool_call>{WEATHER}</tool_call>\nThen I would run {EMAIL}."
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["get_weather"]
    assert "neither in the tool-call format" in str(
        fixed.invalid_tool_calls[0]["error"]
    )


# --- 5. no markup left ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "left"),
    [
        (f"<tool_call>\n<tool_call>{WEATHER}</tool_call>", ""),
        (f"```json\n<tool_call>{WEATHER}</tool_call>\n```", ""),
        (f"<tool_call>{WEATHER}</tool_call>\n</tool_call>", ""),
        ('```\n[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}\n```', ""),
        (f"Checking.\n<tool_call>{WEATHER}</tool_call><|im_end|>", "Checking."),
        (
            f"<think>x</think>Checking.\n<tool_call>{WEATHER}</tool_call>",
            "<think>x</think>Checking.",
        ),
    ],
    ids=[
        "lone_opener",
        "fence",
        "lone_closer",
        "mistral_fence",
        "eos",
        "reasoning_kept",
    ],
)
async def test_no_markup_is_left_in_the_content(
    text: str, left: str, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert calls_of(fixed) == [("get_weather", {"city": "Oslo"})]
    assert fixed.content == left


# --- structured_output over tools, and the middleware ---------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        invalid("GetWeather", '{"city": "Oslo"}{"city": "Rome"}'),
        invalid("GetWeather", 'city="Oslo", opts={"city": "Rome"}'),
        AIMessage('{"name": "GetWeather", "arguments": {"city": "Oslo"}, "unit": "f"}'),
        AIMessage(
            '<|python_tag|>{"name": "GetWeather", "parameters": {"city": "Oslo"}, '
            '"dry_run": true}'
        ),
    ],
    ids=["glued", "key_value", "extra_member", "extra_in_markup"],
)
async def test_structured_output_reasks_instead_of_reading_one_of_two(
    reply: AIMessage, mode: str
) -> None:
    model = ToolCallingChatModel(script=[reply, '{"city": "Paris"}'])
    runnable = structured_output(model, GetWeather, max_retries=1)
    result = (
        runnable.invoke("Weather?")
        if mode == "sync"
        else await runnable.ainvoke("Weather?")
    )
    assert result == GetWeather(city="Paris")
    assert len(model.calls) == 2


@pytest.mark.parametrize(
    "reply",
    [
        invalid("GetWeather", '{"city": "Oslo",}'),
        AIMessage(
            '<tool_call>{"name": "GetWeather", "arguments": {"city": "Oslo"}}</tool_call>'
        ),
        AIMessage('{"name": "GetWeather", "arguments": {"city": "Oslo"}, "id": "x"}'),
    ],
    ids=["slip", "markup", "own_keys"],
)
async def test_structured_output_reads_a_call_it_can(
    reply: AIMessage, mode: str
) -> None:
    model = ToolCallingChatModel(script=[reply])
    parser = JsonFenceOutputParser(repair=True)
    runnable = structured_output(model, GetWeather, max_retries=0, parser=parser)
    result = (
        runnable.invoke("Weather?")
        if mode == "sync"
        else await runnable.ainvoke("Weather?")
    )
    assert result == GetWeather(city="Oslo")


def _hook(reply: AIMessage, mode: str) -> Any:
    from langchain.agents.middleware import ModelRequest, ModelResponse  # noqa: PLC0415

    request: ModelRequest[Any] = ModelRequest(
        model=ToolCallingChatModel(script=[reply]),
        messages=[],
        tools=list(TOOLS),
    )
    middleware = JsonRecoveryMiddleware(max_retries=0)
    response = ModelResponse([reply])
    if mode == "sync":
        return middleware.wrap_model_call(request, lambda _r: response)

    async def handler(_request: Any) -> Any:
        return response

    return middleware.awrap_model_call(request, handler)


async def _run_hook(reply: AIMessage, mode: str) -> AIMessage:
    result = _hook(reply, mode)
    if mode == "async":
        result = await result
    message = result.result[0]
    assert isinstance(message, AIMessage)
    return message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"I won't run {EMAIL} until you confirm.", []),
        (f"If you agree, I would send:\n```json\n{EMAIL}\n```", []),
        (
            f"<tool_call>\n{WEATHER}\n{TIME}\n</tool_call>",
            [("get_weather", {"city": "Oslo"}), ("get_time", {"tz": "UTC"})],
        ),
        (
            f"```json\n<tool_call>{WEATHER}</tool_call>\n```",
            [("get_weather", {"city": "Oslo"})],
        ),
    ],
    ids=["negated", "proposed", "two_in_one_block", "markup_in_fence"],
)
async def test_the_middleware_reads_calls_by_the_rules(
    text: str, expected: Calls, mode: str
) -> None:
    message = await _run_hook(AIMessage(text), mode)
    assert calls_of(message) == expected
    if expected:
        assert message.content == ""


@pytest.mark.parametrize(
    "reply",
    [
        invalid("get_weather", '{"city": "Oslo"}{"city": "Rome"}'),
        AIMessage(EXTRA),
        AIMessage(f"<tool_call>{WEATHER}</tool_call>\nThen I would run {EMAIL}."),
    ],
    ids=["glued", "extra_member", "call_in_prose_beside_markup"],
)
async def test_the_middleware_reasks_for_calls_it_cannot_use(
    reply: AIMessage, mode: str
) -> None:
    with pytest.raises(RetryExhaustedError):
        await _run_hook(reply, mode)


def test_a_callers_message_is_not_mutated() -> None:
    message = AIMessage(f"<tool_call>\n{WEATHER}\n{TIME}\n</tool_call>")
    before = message.model_dump()
    recover_tool_calls(message, TOOLS)
    assert message.model_dump() == before


def test_the_failed_call_comes_first_among_the_failures() -> None:
    ledger = CallLedger()
    text = f'<tool_call>{WEATHER}</tool_call><tool_call>{{"name": "rm", "arguments": {{}}}}</tool_call>'
    read_text_calls(ledger, AIMessage(text), tool_specs(TOOLS), repair=True, cut=False)
    assert [c["name"] for c in ledger.invalid] == ["get_weather", "rm"]
    assert "no tool named 'rm'" in str(ledger.failures[0][1])
    assert "another call" in str(ledger.failures[1][1])
