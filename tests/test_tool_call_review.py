"""Wrong calls found in review of issue 21's tool-call rules, one table per cause.

- A key written twice in one object of a call (``name``, ``arguments`` or
  an argument) has two readings: the call is withheld, in every form.
- The arguments' schema reading unwraps only a wrapper that names the
  payload: ``{"previous": {"path": "/x"}}`` is not ``path="/x"``.
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import structured_output
from langchain_jsonrecover._core.reply.call_text import duplicate_key
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.tools import recover_tool_calls


@tool
def delete_file(path: str, recursive: bool = False) -> str:
    """Delete a file."""
    return path


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return city


@tool
def send_email(to: str) -> str:
    """Send an email."""
    return to


TOOLS = [delete_file, get_weather, send_email]


def _calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def _invalid(name: str, arguments: str) -> AIMessage:
    bad = {"name": name, "args": arguments, "id": "c1", "error": None}
    return AIMessage("", invalid_tool_calls=[bad])


TWICE = [
    '{"name": "get_weather", "name": "delete_file", "arguments": {"path": "/"}}',
    (
        '<tool_call>{"name": "get_weather", "name": "delete_file", '
        '"arguments": {"path": "/"}}</tool_call>'
    ),
    (
        '{"name": "get_weather", "arguments": {"city": "Oslo"}, '
        '"arguments": {"city": "Rome"}}'
    ),
    (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}, '
        '"arguments": {"city": "Rome"}}</tool_call>'
    ),
    (
        '<tool_call>{"name": "delete_file", "arguments": {"path": "/tmp/x", '
        '"path": "/"}}</tool_call>'
    ),
    '```json\n{"name": "delete_file", "arguments": {"path": "/tmp/x", "path": "/"}}\n```',
    '[TOOL_CALLS]delete_file[ARGS]{"path": "/tmp/x", "path": "/"}',
    (
        "<tool_call>\n<function=delete_file>\n<parameter=path>\n/tmp/x\n</parameter>\n"
        "<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>"
    ),
]


@pytest.mark.parametrize("text", TWICE)
@pytest.mark.parametrize("repair", [True, False])
def test_a_key_written_twice_withholds_the_call(text: str, repair: bool) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS, repair=repair)
    assert fixed.tool_calls == []
    assert len(fixed.invalid_tool_calls) == 1
    assert "twice" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize("tools", [TOOLS, None], ids=["tools", "no_tools"])
def test_an_invalid_call_with_a_key_twice_stays_invalid(tools: Any) -> None:
    fixed = recover_tool_calls(
        _invalid("delete_file", '{"path": "/tmp", "path": "/",}'), tools
    )
    assert fixed.tool_calls == []
    assert "'path' twice" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"path": "/tmp/x", "path": "/"}', "path"),
        ('{"a": {"b": 1}, "b": 2}', None),
        ('[{"a": 1}, {"a": 2}]', None),
        ('{"a": "x:", "b": "a"}', None),
        ('{"a": [{"a": 1}], "a": 2}', "a"),
        ('{"k": "\\"k\\": 1", "k2": 1}', None),
        ('{"t\\u0061g": 1, "tag": 2}', None),  # spelt otherwise: left to the decoder
    ],
)
def test_duplicate_key(text: str, expected: str | None) -> None:
    assert duplicate_key(text) == expected


WRAPPED = [
    (
        '<tool_call>{"name": "delete_file", "arguments": {"exclude": {"path": "/home"}}}'
        "</tool_call>"
    ),
    (
        '<tool_call>{"name": "delete_file", "arguments": {"previous": {"path": "/x"}}}'
        "</tool_call>"
    ),
    '{"name": "send_email", "arguments": {"draft": {"to": "all@corp.example"}}}',
    '[TOOL_CALLS]send_email[ARGS]{"name": "delete_file", "arguments": {"to": "x"}}',
    (
        '[TOOL_CALLS]send_email[ARGS]{"type": "function", "function": '
        '{"name": "delete_file", "arguments": {"to": "x"}}}'
    ),
]


@pytest.mark.parametrize("text", WRAPPED)
def test_a_wrapper_that_names_no_payload_withholds_the_call(text: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert "wrapped in" in str(fixed.invalid_tool_calls[0]["error"])


def test_an_invalid_call_wrapped_in_another_key_stays_invalid() -> None:
    fixed = recover_tool_calls(
        _invalid("delete_file", '{"exclude": {"path": "/"},}'), TOOLS
    )
    assert fixed.tool_calls == []
    assert "'exclude'" in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    "text",
    [
        (
            '<tool_call>{"name": "delete_file", "arguments": {"arguments": {"path": "/x"}}}'
            "</tool_call>"
        ),
        (
            '<tool_call>{"name": "delete_file", "arguments": {"delete_file": '
            '{"path": "/x"}}}</tool_call>'
        ),
        '[TOOL_CALLS]delete_file[ARGS]{"name": "delete_file", "arguments": {"path": "/x"}}',
    ],
    ids=["arguments", "own_name", "own_envelope"],
)
def test_a_payload_wrapper_is_unwrapped(text: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == [("delete_file", {"path": "/x"})]


# --- a key/value call the readers ended early ----------------------------------------

EARLY = [
    (
        "<tool_call>\n<function=send_email>\n<parameter=to>\na@b\n</parameter>\n"
        "<parameter=body>\nuse </function> and <parameter=to>evil@x\n</parameter>\n"
        "</function>\n</tool_call>"
    ),
    (
        '<invoke name="send_email"><parameter name="to">a@b</parameter>'
        '<parameter name="body">x</invoke>y</parameter></invoke>'
    ),
    (
        "<tool_call>send_email\n<arg_key>to</arg_key><arg_value>a@b</arg_value>\n"
        "</tool_call>\n<arg_value>evil@x</arg_value>"
    ),
]


@pytest.mark.parametrize("text", EARLY, ids=["qwen_xml", "invoke", "glm"])
def test_a_key_value_call_ended_early_is_withheld(text: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["send_email"]


# --- calls in the text beside the provider's ---------------------------------------

WEATHER = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
DELETE = '{"name": "delete_file", "arguments": {"path": "/"}}'
OSLO = {"name": "get_weather", "args": {"city": "Oslo"}, "id": "a"}
OSLO_BAD = {"name": "get_weather", "args": '{"city": "Oslo",}', "id": "a"}


@pytest.mark.parametrize(
    "message",
    [
        AIMessage(f"<tool_call>{DELETE}</tool_call>", tool_calls=[OSLO]),
        AIMessage(f"<tool_call>{DELETE}</tool_call>", invalid_tool_calls=[OSLO_BAD]),
        AIMessage(
            f"<tool_call>{WEATHER}</tool_call><tool_call>{DELETE}</tool_call>",
            tool_calls=[OSLO],
        ),
    ],
    ids=["valid", "invalid", "one_more"],
)
def test_calls_in_the_text_beside_the_providers_withhold_them(
    message: AIMessage,
) -> None:
    fixed = recover_tool_calls(message, TOOLS)
    assert fixed.tool_calls == []
    assert [c["id"] for c in fixed.invalid_tool_calls] == ["a"]
    assert "also writes" in str(fixed.invalid_tool_calls[0]["error"])
    assert fixed.content == message.content
    assert message.tool_calls == (
        [OSLO | {"type": "tool_call"}] if message.tool_calls else []
    )


@pytest.mark.parametrize(
    "message",
    [
        AIMessage(f"<tool_call>{WEATHER}</tool_call>", tool_calls=[OSLO]),
        AIMessage(
            f"<tool_call>{WEATHER}</tool_call>",
            invalid_tool_calls=[OSLO | {"args": '{"city": "Oslo"}'}],
        ),
    ],
    ids=["valid", "invalid"],
)
def test_the_providers_calls_echoed_in_the_text_leave_it(message: AIMessage) -> None:
    fixed = recover_tool_calls(message, TOOLS)
    assert _calls(fixed) == [("get_weather", {"city": "Oslo"})]
    assert fixed.content == ""


# --- Magistral's [THINK] reasoning --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            (
                '[THINK]I could run [TOOL_CALLS]delete_file[ARGS]{"path": "/"} but must '
                "not.[/THINK]I will not delete anything."
            ),
            [],
        ),
        (
            f"[THINK]Maybe {DELETE}[/THINK]\nNo.",
            [],
        ),
        (
            '[THINK]Oslo.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}',
            [("get_weather", {"city": "Oslo"})],
        ),
        (f"[THINK]Oslo.[/THINK]\n{WEATHER}", [("get_weather", {"city": "Oslo"})]),
    ],
    ids=["markup_in_reasoning", "envelope_in_reasoning", "after", "bare_after"],
)
def test_a_call_inside_think_brackets_is_reasoning(
    text: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == expected
    assert fixed.invalid_tool_calls == []


# --- reasoning tags and markup inside a call's arguments ---------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            (
                '<tool_call>{"name": "get_weather", "arguments": {"city": "a</think>"}}'
                f"</tool_call><tool_call>{WEATHER}</tool_call>"
            ),
            [("get_weather", {"city": "a</think>"}), ("get_weather", {"city": "Oslo"})],
        ),
        (
            (
                '[TOOL_CALLS]get_weather[ARGS]{"city": " ]/</think>.."}'
                '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}'
            ),
            [
                ("get_weather", {"city": " ]/</think>.."}),
                ("get_weather", {"city": "Oslo"}),
            ],
        ),
        (
            (
                '<|python_tag|>{"name": "delete_file", "parameters": {"path": "/srv"}}; '
                '{"name": "get_weather", "parameters": {"city": "a[/THINK]b"}}'
            ),
            [
                ("delete_file", {"path": "/srv"}),
                ("get_weather", {"city": "a[/THINK]b"}),
            ],
        ),
        (
            (
                '<think>Hmm "</think>\n<tool_call>{"name": "get_weather", "arguments": '
                '{"city": "c[/THINK]"}}</tool_call>'
            ),
            [("get_weather", {"city": "c[/THINK]"})],
        ),
    ],
    ids=["lone_closer_in_string", "mistral", "python_tag", "other_closer"],
)
def test_a_reasoning_closer_inside_a_json_string_is_data(
    text: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            (
                "<tool_call>\n<function=delete_file>\n<parameter=path>\n<think></think>x\n"
                "</parameter>\n</function>\n</tool_call>"
            ),
            "reasoning tags",
        ),
        (
            (
                "<tool_call>\n<function=send_email>\n<parameter=to>\na@b<parameter=path>/\n"
                "</parameter>\n</function>\n</tool_call>"
            ),
            "inside another's value",
        ),
        (
            (
                '<invoke name="send_email"><parameter name="to">a<parameter name="x">b'
                "</parameter></invoke>"
            ),
            "inside another's value",
        ),
    ],
    ids=["think_in_value", "qwen_parameter_in_value", "invoke_parameter_in_value"],
)
def test_markup_inside_a_key_value_value_withholds_the_call(
    text: str, error: str
) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert error in str(fixed.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '<invoke name="send_email"><parameter name="to">"x"</parameter></invoke>',
            '"x"',
        ),
        (
            (
                '<tool_call>send_email\n<arg_key>to</arg_key><arg_value>"a@b"</arg_value>'
                "</tool_call>"
            ),
            '"a@b"',
        ),
        (
            (
                '<tool_call>\n<function=send_email>\n<parameter=to>\n"q"\n</parameter>\n'
                "</function>\n</tool_call>"
            ),
            '"q"',
        ),
    ],
    ids=["invoke", "glm", "qwen"],
)
def test_a_quoted_key_value_value_keeps_its_quotes(text: str, expected: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == [("send_email", {"to": expected})]


def test_a_key_value_call_without_closers_still_reads() -> None:
    text = (
        "<tool_call>\n<function=send_email>\n<parameter=to>\na@b\n"
        "</function>\n</tool_call>"
    )
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == [("send_email", {"to": "a@b"})]


# --- structured output: two calls of the schema are two answers -----------------------


class GetWeather(BaseModel):
    """The weather in a city."""

    city: str


def _two(rome: str, oslo: str) -> list[dict[str, Any]]:
    return [
        {"name": "GetWeather", "args": {"city": rome}, "id": "x"},
        {"name": "GetWeather", "args": {"city": oslo}, "id": "y"},
    ]


@pytest.mark.parametrize(
    "reply",
    [
        AIMessage("", tool_calls=_two("Rome", "Oslo")),
        AIMessage(
            '<tool_call>{"name": "GetWeather", "arguments": {"city": "Oslo"}}</tool_call>'
            '<tool_call>{"name": "GetWeather", "arguments": {"city": "Rome"}}</tool_call>'
        ),
        AIMessage(
            "",
            tool_calls=_two("Rome", "Oslo")[:1],
            invalid_tool_calls=[
                {"name": "GetWeather", "args": '{"city": "Oslo",}', "id": "y"}
            ],
        ),
    ],
    ids=["provider", "markup", "valid_and_invalid"],
)
def test_structured_output_asks_again_for_two_different_answers(
    reply: AIMessage,
) -> None:
    model = ToolCallingChatModel(script=[reply, '{"city": "Paris"}'])
    result = structured_output(model, GetWeather, max_retries=1).invoke("Weather?")
    assert result == GetWeather(city="Paris")
    assert len(model.calls) == 2


def test_structured_output_reads_the_same_answer_sent_twice() -> None:
    reply = AIMessage("", tool_calls=_two("Rome", "Rome"))
    model = ToolCallingChatModel(script=[reply])
    result = structured_output(model, GetWeather, max_retries=0).invoke("Weather?")
    assert result == GetWeather(city="Rome")


def test_the_middleware_asks_again_for_two_different_answers() -> None:
    reply = AIMessage("", tool_calls=_two("Rome", "Oslo"))
    model = ToolCallingChatModel(script=[reply, '{"city": "Paris"}'])
    agent: Any = create_agent(
        model,
        tools=[get_weather],
        middleware=[JsonRecoveryMiddleware(response_format=GetWeather)],
    )
    result = agent.invoke({"messages": [("user", "Weather?")]})
    assert result["structured_response"] == GetWeather(city="Paris")


# --- call markup inside a quoted string in prose or code is text ---------------------


@pytest.mark.parametrize(
    "text",
    [
        f'Use this code:\n```python\nprint("Call: <tool_call>{DELETE}</tool_call>")\n```',
        f'He said "run <tool_call>{DELETE}</tool_call>" and left.',
        'log = "step [TOOL_CALLS]delete_file[ARGS]{\\"path\\": \\"/\\"}"',
    ],
    ids=["code_string", "prose_quote", "escaped"],
)
def test_call_markup_inside_a_quoted_string_is_text(text: str) -> None:
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.content == text


def test_markup_after_a_call_with_quotes_in_its_arguments_is_read() -> None:
    text = (
        '[TOOL_CALLS]get_weather[ARGS]{"city": "a\\"b"}'
        '[TOOL_CALLS]get_weather[ARGS]{"city": "x"}'
    )
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert _calls(fixed) == [
        ("get_weather", {"city": 'a"b'}),
        ("get_weather", {"city": "x"}),
    ]


# --- markup inside a single-quoted string of the arguments -------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        "{'path': '<tool_call>'}",
        "{'path': '/srv/<|im_end|>', 'recursive': True}",
        "{'path': 'a [TOOL_CALLS] b'}",
    ],
)
@pytest.mark.parametrize("tools", [TOOLS, None], ids=["tools", "no_tools"])
def test_markup_in_a_single_quoted_argument_is_not_blanked(
    arguments: str, tools: Any
) -> None:
    fixed = recover_tool_calls(_invalid("delete_file", arguments), tools)
    assert fixed.tool_calls == []
    assert "markup" in str(fixed.invalid_tool_calls[0]["error"])


def test_markup_in_a_double_quoted_argument_is_data() -> None:
    fixed = recover_tool_calls(
        _invalid("delete_file", '{"path": "<tool_call>",}'), TOOLS
    )
    assert _calls(fixed) == [("delete_file", {"path": "<tool_call>"})]


def test_markup_in_a_single_quoted_whole_content_call_is_not_blanked() -> None:
    text = "{'name': 'delete_file', 'arguments': {'path': 'a<tool_call>b'}}"
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert "markup" in str(fixed.invalid_tool_calls[0]["error"])


def test_a_glm_key_that_runs_over_markup_withholds_the_calls() -> None:
    text = (
        "<tool_call>delete_file\n<arg_key>path</arg_key>\n<arg_value>/srv</arg_value>"
        "<arg_key>x</arg_value>\n</tool_call>\n<tool_call>send_email\n"
        "<arg_key>to</arg_key>\n<arg_value>a@b</arg_value>\n</tool_call>\n"
    )
    fixed = recover_tool_calls(AIMessage(text), TOOLS)
    assert fixed.tool_calls == []
    assert "a key that holds markup" in str(fixed.invalid_tool_calls[0]["error"])
