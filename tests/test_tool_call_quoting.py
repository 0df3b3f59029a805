"""Call markup the reply quotes is text: a fence beside prose, a comment, ``>``, code.

A model shows a call as an example (``Example:`` then a fenced block, then
``Should I?``), comments one out, quotes what an earlier turn sent, or names
the syntax in inline code: none of these is a call, through every entry
point that reads calls (``recover_tool_calls`` with and without ``repair``,
sync and async; ``JsonRecoveryMiddleware`` in ``create_agent``). A fence with
nothing beside it but reasoning, whitespace and tokens is the model's own
wrapper, and its markup is a call.
"""

from __future__ import annotations

from typing import Any

import pytest
from _models import ToolCallingChatModel
from _modes import run
from langchain.agents import create_agent
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from langchain_jsonrecover._core.reply.markup import find_tool_calls
from langchain_jsonrecover._core.reply.quoted import QuotedMarkup
from langchain_jsonrecover.agents import JsonRecoveryMiddleware
from langchain_jsonrecover.tools import arecover_tool_calls, recover_tool_calls

DELETED: list[str] = []


@tool
def delete_file(path: str) -> str:
    """Delete a file."""
    DELETED.append(path)
    return "deleted"


@pytest.fixture(autouse=True)
def _clear_deleted() -> None:
    DELETED.clear()


ROOT = '<tool_call>{"name": "delete_file", "arguments": {"path": "/"}}</tool_call>'
SCRATCH = (
    '<tool_call>{"name": "delete_file", "arguments": {"path": "/scratch"}}</tool_call>'
)
SPACED = '    "name": "delete_file", "arguments": {"path": "/scratch"}}'
QWEN = "<function=delete_file>\n<parameter=path>\n/\n</parameter>\n</function>"
INVOKE = '<invoke name="delete_file">\n<parameter name="path">/</parameter>\n</invoke>'
GLM = "<tool_call>delete_file\n<arg_key>path</arg_key>\n<arg_value>/</arg_value>\n</tool_call>"
HARMONY = (
    "<|start|>assistant<|channel|>commentary to=functions.delete_file "
    '<|constrain|>json<|message|>{"path": "/"}<|call|>'
)

QUOTED = [
    f"Example:\n```xml\n{ROOT}\n```\nShould I?",
    f"Example:\n```\n{ROOT}\n```\nShall I run it?",
    'The previous assistant sent:\n```\n[TOOL_CALLS]delete_file[ARGS]{"path": "/"}\n```',
    f"Would this be right?\n```xml\n{QWEN}\n```",
    f"Would this be right?\n```xml\n{INVOKE}\n```",
    f"The GLM form:\n```\n{GLM}\n```",
    f"The harmony form:\n```\n{HARMONY}\n```\nNot sent.",
    f"I will not delete anything. <!-- {ROOT} -->",
    f"> {ROOT}\n\nThat is what the previous assistant sent. I will not repeat it.",
    f"Run `x {ROOT}` only if you must.",
    f"Two forms:\n```\n{ROOT}\n```\n```\n{QWEN}\n```",
    # The other code forms: a ~~~ fence, an indented block, HTML code, a
    # Python triple-quoted string; typographic quotes and guillemets.
    f"Example:\n~~~xml\n{ROOT}\n~~~\nShould I?",
    f"Example:\n~~~~\n{QWEN}\n~~~~",
    f"Example:\n\n    {ROOT}\n\nShould I?",
    f"Example:\n\n\t{INVOKE}\n\nShould I?",
    f"<code>{ROOT}</code> Should I?",
    f"<pre>\n{GLM}\n</pre>\nShould I?",
    f"\u201c{ROOT}\u201d",
    f"The user said: \u00ab{ROOT}\u00bb",
    f"The user said: \u201e{ROOT}\u201c",
    f"x = '''\n{ROOT}\n'''",
    f'"""\n{ROOT}\n"""',
]


async def recover(message: AIMessage, mode: str, **kwargs: Any) -> AIMessage:
    if mode == "sync":
        return recover_tool_calls(message, **kwargs)
    return await arecover_tool_calls(message, **kwargs)


@pytest.mark.parametrize("text", QUOTED)
@pytest.mark.parametrize("repair", [True, False], ids=["repair", "no_repair"])
@pytest.mark.parametrize("tools", [[delete_file], None], ids=["tools", "no_tools"])
async def test_quoted_markup_is_text(
    text: str, repair: bool, tools: Any, mode: str
) -> None:
    fixed = await recover(AIMessage(text), mode, tools=tools, repair=repair)
    assert fixed.tool_calls == []
    assert fixed.invalid_tool_calls == []
    assert fixed.content == text


@pytest.mark.parametrize("text", QUOTED)
def test_find_tool_calls_finds_no_quoted_call(text: str) -> None:
    assert find_tool_calls(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"{SCRATCH} <!-- {ROOT} -->",
        f"Example:\n```\n{ROOT}\n```\nNow: {SCRATCH}",
        f"> {ROOT}\n\nInstead: {SCRATCH}",
    ],
)
async def test_a_call_beside_a_quoted_call_is_withheld(text: str, mode: str) -> None:
    # The quoted call is text, and text that writes a call beside the calls
    # read leaves them all invalid: neither path is deleted.
    fixed = await recover(AIMessage(text), mode, tools=[delete_file])
    assert fixed.tool_calls == []
    assert [c["name"] for c in fixed.invalid_tool_calls] == ["delete_file"]


@pytest.mark.parametrize(
    "text",
    [
        f"```json\n{SCRATCH}\n```",
        '```\n[TOOL_CALLS]delete_file[ARGS]{"path": "/scratch"}\n```',
        f"<think>The user asked.</think>\n```xml\n{SCRATCH}\n```<|im_end|>",
        f"I'll delete it.\n{SCRATCH}",
        f"```\n{HARMONY.replace('/', '/scratch')}\n```",
        f"Use `ls` first. {SCRATCH}",
        f"~~~xml\n{SCRATCH}\n~~~",
        f"    {SCRATCH}",
        f"I'll delete it.\n\n{SCRATCH}\n\nDone.",
        f"Plan:\n\n    step one\n\nNow: {SCRATCH}",
        f"Say \u201chi\u201d. {SCRATCH}",
        f"Use <code>ls</code> first. {SCRATCH}",
        "I'll delete it.\n<tool_call>\n{\n\n" + SPACED + "\n</tool_call>",
    ],
)
async def test_the_models_own_markup_is_a_call(text: str, mode: str) -> None:
    fixed = await recover(AIMessage(text), mode, tools=[delete_file])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [
        ("delete_file", {"path": "/scratch"})
    ]
    assert "<tool_call>" not in fixed.content
    assert "```" not in fixed.content


async def test_a_quoted_example_beside_the_providers_call_keeps_that_call(
    mode: str,
) -> None:
    call = {"name": "delete_file", "args": {"path": "/scratch"}, "id": "c1"}
    reply = AIMessage(f"Example:\n```\n{ROOT}\n```", tool_calls=[call])
    fixed = await recover(reply, mode, tools=[delete_file])
    assert [(c["name"], c["args"]) for c in fixed.tool_calls] == [
        ("delete_file", {"path": "/scratch"})
    ]
    assert fixed.content == reply.content


@pytest.mark.parametrize("text", QUOTED[:3] + QUOTED[7:10])
async def test_the_agent_deletes_nothing_the_model_quotes(text: str, mode: str) -> None:
    model = ToolCallingChatModel(script=[text])
    agent: Any = create_agent(
        model, tools=[delete_file], middleware=[JsonRecoveryMiddleware()]
    )
    result = await run(agent, {"messages": [("user", "Clean up the disk.")]}, mode)
    assert DELETED == []
    assert result["messages"][-1].content == text


def test_quotes_opened_inside_a_call_read_do_not_count() -> None:
    # A backtick and a comment opener inside the first call's arguments
    # quote nothing after that call.
    first = (
        '<tool_call>{"name": "delete_file", "arguments": {"path": "`<!--"}}</tool_call>'
    )
    text = f"{first} {SCRATCH}"
    assert [c.arguments for c in find_tool_calls(text)] == [
        '{"path": "`<!--"}',
        '{"path": "/scratch"}',
    ]
    quoted = QuotedMarkup(text)
    assert quoted.inside(len(first) + 1)
    quoted.reset(len(first))
    assert not quoted.inside(len(first) + 1)


def test_harmony_calls_after_a_quoted_fence_leave_it_quoted() -> None:
    # The harmony messages are read before the other forms; reading them
    # must not move the reader past the fence.
    time = HARMONY.replace("delete_file", "get_time").replace("/", "UTC")
    text = f"Example:\n```\n{ROOT}\n```\n{time}{time}"
    assert [c.name for c in find_tool_calls(text)] == ["get_time", "get_time"]
