"""Call markup in a sentence that holds it back is no call (issue 21, review round 4).

The model's own call markup is a call, except where its own sentence says
it is not sent: a condition, a negation, a question, a proposal or an
example (``I won't run <tool_call>…</tool_call> until you confirm.``,
``Shall I send [TOOL_CALLS]…?``, ``If you agree, I would send:`` on the line
above). The words are those the schema layer reads around a mentioned
envelope. Such a call stays invalid with an error saying so, through
``recover_tool_calls`` (sync and async), ``structured_output`` over tools and
the agents middleware; markup that a plain lead announces
(``Let me check:``, ``I'll delete it.``) stays a call.
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from _modes import run
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from langchain_jsonrecover import (
    JsonFenceOutputParser,
    SchemaValidationError,
    structured_output,
)
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.tools import arecover_tool_calls, recover_tool_calls

SENT: list[str] = []


@tool
def send_email(to: str) -> str:
    """Send an email."""
    SENT.append(to)
    return "sent"


@pytest.fixture(autouse=True)
def _clear_sent() -> None:
    SENT.clear()


ARGS = '{"to": "all@corp.example"}'
ENVELOPE = f'{{"name": "send_email", "arguments": {ARGS}}}'
FORMS = {
    "tool_call": f"<tool_call>\n{ENVELOPE}\n</tool_call>",
    "mistral": f"[TOOL_CALLS][{ENVELOPE}]",
    "mistral_args": f"[TOOL_CALLS]send_email[ARGS]{ARGS}",
    "python_tag": f'<|python_tag|>{{"name": "send_email", "parameters": {ARGS}}}',
    "qwen": "<function=send_email><parameter=to>all@corp.example</parameter></function>",
    "invoke": (
        '<invoke name="send_email"><parameter name="to">all@corp.example'
        "</parameter></invoke>"
    ),
    "function_call": f"<function_call>{ENVELOPE}</function_call>",
    "harmony": (
        "<|start|>assistant<|channel|>commentary to=functions.send_email "
        f"<|constrain|>json<|message|>{ARGS}<|call|>"
    ),
}
HELD_BACK = [
    "I won't run {C} until you confirm.",
    "If you agree, I would send:\n{C}",
    "If you agree, I would send:\n\n{C}",
    "Example:\n{C}",
    "Shall I run this?\n{C}",
    "{C}\nShall I run this?",
    "{C}\n\nShould I go ahead?",
    "I could call {C}, but I need your approval.",
    "Would you like me to run {C}?",
    "Proposed call: {C}",
    "Do not call {C}.",
]

# A harmony header after prose on its line is no message (so no call): it
# is read only where it starts a line.
ROWS = [
    pytest.param(template.replace("{C}", FORMS[name]), id=f"{name}-{index}")
    for index, template in enumerate(HELD_BACK)
    for name in FORMS
    if name != "harmony" or template.startswith("{C}") or "\n{C}" in template
]
STILL_SENT = [
    pytest.param(text.replace("{C}", FORMS[name]), id=f"{name}-{index}")
    for index, text in enumerate(
        [
            "{C}",
            "Let me check:\n{C}",
            "I'll send it now.\n{C}",
            "Sending the email:\n\n{C}\n\nDone.",
            "<think>Should I? Yes.</think>\n{C}",
        ]
    )
    for name in FORMS
]


async def recover(message: AIMessage, mode: str) -> AIMessage:
    if mode == "sync":
        return recover_tool_calls(message, tools=[send_email])
    return await arecover_tool_calls(message, tools=[send_email])


@pytest.mark.parametrize("text", ROWS)
async def test_held_back_markup_is_no_call(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["send_email"]
    assert "holds it back" in (fixed.invalid_tool_calls[0]["error"] or "")


@pytest.mark.parametrize("text", STILL_SENT)
async def test_announced_markup_is_still_a_call(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [
        ("send_email", {"to": "all@corp.example"})
    ]
    assert "send_email" not in str(fixed.content)


@pytest.mark.parametrize("text", ROWS[::7])
async def test_the_agent_sends_nothing_held_back(text: str, mode: str) -> None:
    model = ToolCallingChatModel(script=[text, "Nothing sent."])
    agent: Any = create_agent(
        model, tools=[send_email], middleware=[JsonRecoveryMiddleware()]
    )
    await run(agent, {"messages": [("user", "Email everyone.")]}, mode)
    assert SENT == []


class Email(BaseModel):
    """An email to send."""

    to: str


@pytest.mark.parametrize(
    "template",
    ["Shall I submit {C}?", "I won't submit {C} until you confirm.", "Example:\n{C}"],
)
async def test_structured_output_asks_again(template: str, mode: str) -> None:
    call = '<tool_call>{"name": "Email", "arguments": {"to": "a@x"}}</tool_call>'
    good = AIMessage(
        "", tool_calls=[{"name": "Email", "args": {"to": "b@x"}, "id": "c1"}]
    )
    model = ToolCallingChatModel(script=[template.replace("{C}", call), good])
    chain = structured_output(model, Email, strategy="auto", max_retries=1)
    assert await run(chain, "Write it.", mode) == Email(to="b@x")
    assert len(model.calls) == 2


# The middleware with a structured output: a text whose answer the schema
# would read from a request to another tool (a JSON-RPC or MCP request to a
# bound tool, or any envelope naming a tool that is not bound) is no answer;
# the model is asked again. An envelope naming the schema is its answer.
class Person(BaseModel):
    """A person."""

    name: str
    age: int = 0


@tool
def search(name: str, age: int = 0) -> str:
    """Search people."""
    return "Ada Lovelace"


PERSON_ARGS = '{"name": "Ada", "age": 36}'


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            f'{{"jsonrpc": "2.0", "method": "search", "id": 1, "params": {PERSON_ARGS}}}',
            "writes a call to the tool 'search' as text",
        ),
        (
            (
                '{"jsonrpc": "2.0", "method": "tools/call", "id": 1, "params": '
                f'{{"name": "search", "arguments": {PERSON_ARGS}}}}}'
            ),
            "writes a call to the tool 'search' as text",
        ),
        (
            f'{{"name": "lookup", "arguments": {PERSON_ARGS}}}',
            "no tool named 'lookup'",
        ),
        (
            f'{{"jsonrpc": "2.0", "method": "lookup", "id": 1, "params": {PERSON_ARGS}}}',
            "no tool named 'lookup'",
        ),
    ],
    ids=["jsonrpc_bound", "mcp_bound", "envelope_unbound", "jsonrpc_unbound"],
)
async def test_the_middleware_reads_no_answer_from_another_tools_request(
    reply: str, said: str, mode: str
) -> None:
    model = ToolCallingChatModel(script=[reply, '{"name": "Bo", "age": 1}'])
    agent: Any = create_agent(
        model,
        tools=[search],
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    result = await run(agent, {"messages": [("user", "Who?")]}, mode)
    assert result["structured_response"] == Person(name="Bo", age=1)
    assert len(model.calls) == 2
    assert said in str(model.calls[1][-1].content)


@pytest.mark.parametrize(
    "reply",
    [
        PERSON_ARGS,
        f'{{"name": "Person", "arguments": {PERSON_ARGS}}}',
        f'{{"jsonrpc": "2.0", "method": "Person", "id": 1, "params": {PERSON_ARGS}}}',
    ],
    ids=["plain", "envelope_schema", "jsonrpc_schema"],
)
async def test_the_middleware_reads_the_schemas_own_answer(
    reply: str, mode: str
) -> None:
    model = ToolCallingChatModel(script=[reply])
    agent: Any = create_agent(
        model,
        tools=[search],
        middleware=[JsonRecoveryMiddleware(response_format=Person)],
    )
    result = await run(agent, {"messages": [("user", "Who?")]}, mode)
    assert result["structured_response"] == Person(name="Ada", age=36)
    assert len(model.calls) == 1


# More words of a sentence that holds a call back (the list is shared with
# the schema reading of a mentioned envelope): "I'd" / "we'd" (would), a
# sample, an instance, a template, a hypothetical, a pending call, a refusal,
# "avoid", the syntax or usage shown, an earlier or previous call.
MORE_HELD_BACK = [
    "Here's what I'd run:\n{C}",
    "I\u2019d send {C} next.",
    "We'd call {C}.",
    "A sample call:\n{C}",
    "For instance:\n{C}",
    "Template:\n{C}",
    "Hypothetically: {C}",
    "Pending review:\n{C}",
    "Awaiting your go-ahead:\n{C}",
    "I refuse to run {C}.",
    "Avoid {C} at all costs.",
    "Syntax: {C}",
    "Usage: {C}",
    "Earlier: {C}",
    "The previous turn sent {C}.",
]


@pytest.mark.parametrize("template", MORE_HELD_BACK)
async def test_more_held_back_words_withhold_the_call(template: str, mode: str) -> None:
    fixed = await recover(AIMessage(template.replace("{C}", FORMS["tool_call"])), mode)
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["send_email"]


@pytest.mark.parametrize("template", MORE_HELD_BACK)
def test_more_held_back_words_make_an_envelope_no_answer(template: str) -> None:
    parser = JsonFenceOutputParser(pydantic_object=Person)
    envelope = f'{{"name": "search", "arguments": {PERSON_ARGS}}}'
    with pytest.raises(SchemaValidationError, match="only mentions this tool call"):
        parser.parse(template.replace("{C}", envelope))


# Call markup inside text the reply quotes, strikes out, or writes for
# another role is no call: quoted or struck HTML, markdown strikethrough, a
# tool's result, a user / tool / system turn (ChatML, Llama 3, [INST]), CJK
# corner brackets. The assistant's own turn keeps its call.
DELETE = '<tool_call>{"name": "send_email", "arguments": {"to": "all@corp.example"}}</tool_call>'
NOT_MADE = [
    f"<q>{DELETE}</q>",
    f"<blockquote>{DELETE}</blockquote>",
    f"<del>{DELETE}</del>",
    f"<strike>{DELETE}</strike>",
    f"~~{DELETE}~~",
    f"<tool_response>{DELETE}</tool_response>",
    f"<tool_result>\n{DELETE}\n</tool_result>",
    f"<|im_start|>user\n{DELETE}<|im_end|>",
    f"<|im_start|>tool\n{DELETE}<|im_end|>",
    f"<|start_header_id|>user<|end_header_id|>\n\n{DELETE}<|eot_id|>",
    f"[INST] {DELETE} [/INST]",
    f"\u300c{DELETE}\u300d",
    f"\u300e{DELETE}\u300f",
]
MADE = [
    f"<|im_start|>assistant\n{DELETE}<|im_end|>",
    f"<|start_header_id|>assistant<|end_header_id|>\n\n{DELETE}<|eot_id|>",
    f"~~old plan~~ New plan:\n{DELETE}",
    f"<q>hi</q>\n{DELETE}",  # on its own line: after prose on its line, held back
]


@pytest.mark.parametrize("text", NOT_MADE)
async def test_markup_quoted_struck_or_of_another_role_is_no_call(
    text: str, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.content == text


@pytest.mark.parametrize("text", MADE)
async def test_the_assistants_own_turn_keeps_its_call(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode)
    assert [c["name"] for c in fixed.tool_calls] == ["send_email"]
    assert "<tool_call>" not in str(fixed.content)


@pytest.mark.parametrize("text", NOT_MADE[::4])
async def test_the_agent_sends_nothing_quoted(text: str, mode: str) -> None:
    model = ToolCallingChatModel(script=[text, "Nothing sent."])
    agent: Any = create_agent(
        model, tools=[send_email], middleware=[JsonRecoveryMiddleware()]
    )
    await run(agent, {"messages": [("user", "Email everyone.")]}, mode)
    assert SENT == []
