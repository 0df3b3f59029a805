"""What the agent middleware tells a model: the system prompt and failed calls.

A model without tool calling gets one instruction, built from the package's
own format instructions (no raw JSON Schema listing the answer as a "tool",
no "answer normally" beside "respond with only one JSON object"). A failed
tool call's ``ToolMessage`` asks for the tool to be called again with
corrected arguments, not for "only the corrected JSON object".
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ScriptedChatModel, ToolCallingChatModel
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import JsonFenceOutputParser
from langchain_jsonrecover._core.prompts.tools import ask_for_call, write_call_feedback
from langchain_jsonrecover.agents import JsonRecoveryMiddleware


@tool
def search(query: str, limit: int = 3) -> str:
    """Search the web."""
    return f"{limit} results for {query}"


class Person(BaseModel):
    """A person."""

    name: str
    age: int


ANSWER = JsonFenceOutputParser(pydantic_object=Person).get_format_instructions()
TOOLS = (
    "You can call these tools:\n"
    "- search: Search the web.\n"
    "  The arguments object has these fields:\n"
    '  - "query" (string, required)\n'
    '  - "limit" (integer, optional, default 3)\n'
    "\n"
    'To call a tool, reply with only this JSON object: {"name": "<tool name>", '
    '"arguments": {<the arguments>}}. To call several tools, reply with a JSON '
    "list of such objects.\n"
)
SYSTEM_CASES = [
    pytest.param(
        [search],
        None,
        TOOLS + "When you need no tool, answer normally.",
        id="tools-no-schema",
    ),
    pytest.param(
        [search],
        Person,
        TOOLS + "When you need no tool, your reply is the final answer, in this form "
        "instead:\n\n" + ANSWER,
        id="tools-and-schema",
    ),
    pytest.param([], Person, ANSWER, id="schema-only"),
]


def _system_of(tools: list[Any], schema: Any) -> str:
    model = ScriptedChatModel(script=['{"name": "Ada", "age": 36}', "Done."])
    middleware = JsonRecoveryMiddleware(response_format=schema)
    agent = create_agent(model, tools=tools, middleware=[middleware])
    agent.invoke({"messages": [HumanMessage("Who?")]})
    first = model.calls[0][0]
    assert first.type == "system"
    return str(first.content)


@pytest.mark.parametrize(("tools", "schema", "expected"), SYSTEM_CASES)
def test_a_toolless_model_gets_one_coherent_instruction(
    tools: list[Any], schema: Any, expected: str
) -> None:
    system = _system_of(tools, schema)
    assert system == expected
    assert '"properties"' not in system  # no raw JSON Schema to echo back
    assert not ("answer normally" in system and "only one JSON object" in system)
    assert "Person" not in system  # the answer is not offered as a tool


FEEDBACK_CASES = [
    (
        (
            "Your reply is not valid JSON: expected a value at line 1, column 12. "
            "Respond with only the corrected JSON object, and nothing else."
        ),
        "Your reply is not valid JSON: expected a value at line 1, column 12.",
        "Call the tool 'search' again with corrected arguments.",
    ),
    (
        (
            'Your JSON does not match the schema:\n- "query": field required\n'
            "Respond with only the corrected JSON object, and nothing else."
        ),
        'Your JSON does not match the schema:\n- "query": field required',
        "Call the tool 'search' again with corrected arguments.",
    ),
    (
        (
            "Your reply was cut off at the token limit before the JSON was complete. "
            "Respond with a shorter JSON object, and nothing else."
        ),
        "Your reply was cut off at the token limit before the JSON was complete.",
        "Call the tool 'search' again with shorter, complete arguments.",
    ),
    (
        "The arguments of the call to 'search' must be a JSON object.",
        "The arguments of the call to 'search' must be a JSON object.",
        "Call the tool 'search' again with corrected arguments.",
    ),
]


@pytest.mark.parametrize(("feedback", "head", "ask"), FEEDBACK_CASES)
def test_the_reply_ask_becomes_a_call_ask(feedback: str, head: str, ask: str) -> None:
    assert ask_for_call("search", feedback) == (head, ask)
    text = write_call_feedback("search", feedback, '{"query": "x",,}')
    assert "Respond with" not in text
    assert text.endswith(ask)
    assert '{"query": "x",,}' in text


@pytest.mark.parametrize(
    ("arguments", "expected_head"),
    [
        ('{"query": "x",,}', "Error in the arguments of your call to 'search': "),
        ('{"limit": 2}', "Error in the arguments of your call to 'search': "),
    ],
)
def test_a_failed_calls_tool_message_asks_for_the_call_again(
    arguments: str, expected_head: str
) -> None:
    bad = {"name": "search", "args": arguments, "id": "c1", "error": None}
    model = ToolCallingChatModel(
        script=[
            AIMessage("", invalid_tool_calls=[{"type": "invalid_tool_call", **bad}]),
            AIMessage(
                "",
                tool_calls=[{"name": "search", "args": {"query": "Ada"}, "id": "c2"}],
            ),
            "Done.",
        ]
    )
    agent = create_agent(model, tools=[search], middleware=[JsonRecoveryMiddleware()])
    agent.invoke({"messages": [HumanMessage("Find Ada")]})
    failed = [m for m in model.calls[1] if isinstance(m, ToolMessage)]
    assert len(failed) == 1
    content = str(failed[0].content)
    assert content.startswith(expected_head)
    assert content.endswith("Call the tool 'search' again with corrected arguments.")
    assert "Respond with only the corrected JSON object" not in content
    assert arguments in content
