r"""The messages of the retry loop: what a reply holds, what a re-ask sends.

Internal to the retry loop (``retry.steps``, ``retry``, ``structured``,
``agents``); not a public API. Reading a reply: its text, its tool calls, the
call a structured reply is read from. Building a re-ask: the failed reply as it
goes back, the tool results that follow it, feedback in the system message.
Converting: what a chat model takes, as messages; what it returns, as an
``AIMessage``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableBinding

from langchain_jsonrecover._core.prompts.tools import NOT_EXECUTED, write_call_feedback
from langchain_jsonrecover.parsers.streaming import message_text

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput

_TOOL_BLOCKS: Final = frozenset(
    {
        "tool_use",
        "tool_call",
        "tool_call_chunk",
        "invalid_tool_call",
        "function_call",
        "server_tool_call",
        "server_tool_result",
    }
)


def read_reply_text(reply: BaseMessage) -> str:
    """A reply's text; its first tool call's arguments when it has no text.

    The arguments of a valid call as JSON; those of an invalid call as sent.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> call = {"name": "Person", "args": {"name": "Ada"}, "id": "1"}
        >>> read_reply_text(AIMessage("", tool_calls=[call]))
        '{"name": "Ada"}'
        >>> bad = {"name": "Person", "args": '{"name": "Ada",}', "id": "1"}
        >>> read_reply_text(AIMessage("", invalid_tool_calls=[bad]))
        '{"name": "Ada",}'
    """
    text = message_text(reply)
    if text.strip() or not isinstance(reply, AIMessage):
        return text
    calls = list_tool_calls(reply)
    return calls[0][2] if calls else text


def list_tool_calls(reply: BaseMessage) -> list[tuple[str | None, str, str]]:
    """``(id, name, arguments text)`` of each tool call, valid ones first."""
    if not isinstance(reply, AIMessage):
        return []
    calls: list[tuple[str | None, str, str]] = [
        (
            call.get("id"),
            call["name"],
            json.dumps(call["args"], ensure_ascii=False, default=str),
        )
        for call in reply.tool_calls
    ]
    calls.extend(
        (call.get("id"), call.get("name") or "", call.get("args") or "")
        for call in reply.invalid_tool_calls
    )
    return calls


def read_call(reply: AIMessage, name: str | None) -> tuple[str, str | None] | None:
    """The tool call a structured reply is read from: ``(arguments, id)``.

    The call named ``name`` (the schema's name) wins; else, when the reply has
    no text and the schema no name, its first call. A call to another tool
    is never the answer. ``None``: read the text.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> calls = [
        ...     {"name": "search", "args": {"q": "Ada"}, "id": "1"},
        ...     {"name": "Person", "args": {"name": "Ada"}, "id": "2"},
        ... ]
        >>> read_call(AIMessage("", tool_calls=calls), "Person")
        ('{"name": "Ada"}', '2')
    """
    calls = list_tool_calls(reply)
    if name:
        for call_id, call_name, arguments in calls:
            if call_name.casefold() == name.casefold():
                return arguments, call_id
    if calls and not name and not str(reply.text).strip():
        return calls[0][2], calls[0][0]
    return None


def build_tool_turns(
    reply: AIMessage, feedback: str, failed_id: str | None
) -> tuple[BaseMessage, ...]:
    """The re-ask turns when tools are bound: the reply, then a result per call.

    The failed call's ``ToolMessage`` holds the feedback and the arguments as
    sent; every other call's says it was not executed (providers want a
    result for every tool-call id). When no call failed (the text did), the
    feedback follows as a user message.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> bad = {"name": "search", "args": '{"q": "x",}', "id": "c1"}
        >>> reply = AIMessage("", invalid_tool_calls=[bad])
        >>> turns = build_tool_turns(reply, "Bad.", "c1")
        >>> [(type(m).__name__, getattr(m, "status", "")) for m in turns]
        [('AIMessage', ''), ('ToolMessage', 'error')]
    """
    turns: list[BaseMessage] = [reply]
    for call_id, name, arguments in list_tool_calls(reply):
        if call_id is None:
            continue
        text = (
            write_call_feedback(name, feedback, arguments)
            if call_id == failed_id
            else NOT_EXECUTED
        )
        turns.append(
            ToolMessage(text, tool_call_id=call_id, name=name or None, status="error")
        )
    if failed_id is None or failed_id not in {c[0] for c in list_tool_calls(reply)}:
        turns.append(HumanMessage(feedback))
    return tuple(turns)


def build_failed_turn(reply: AIMessage) -> AIMessage:
    """The failed reply as it goes back into the conversation: no tool calls.

    A tool call left in would need a tool result after it; its content blocks
    are dropped too. The calls' arguments (as sent, for invalid ones) are
    shown as text after the reply's text, so the model sees what it sent.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> call = {"name": "Person", "args": {"age": "x"}, "id": "1"}
        >>> turn = build_failed_turn(AIMessage("", tool_calls=[call]))
        >>> turn.content, turn.tool_calls
        ('{"age": "x"}', [])
    """
    content: str | list[str | dict[Any, Any]]
    if isinstance(reply.content, str):
        content = reply.content
    else:
        content = [
            block
            for block in reply.content
            if not (isinstance(block, dict) and block.get("type") in _TOOL_BLOCKS)
        ]
    calls = list_tool_calls(reply)
    shown = (
        calls[0][2]
        if len(calls) == 1
        else "\n".join(f"{name}: {arguments}" for _, name, arguments in calls)
    )
    if not content or not str(AIMessage(content).text).strip():
        if shown.strip():
            content = shown
    elif shown.strip():
        if isinstance(content, str):
            content = f"{content}\n\n{shown}"
        else:
            content = [*content, {"type": "text", "text": shown}]
    return AIMessage(content=content, name=reply.name)


def append_to_system(base: Sequence[BaseMessage], text: str) -> tuple[BaseMessage, ...]:
    r"""Append ``text`` to the system message, or put one first. No mutation.

    Example:
        >>> from langchain_core.messages import HumanMessage, SystemMessage
        >>> base = [SystemMessage("Be terse."), HumanMessage("Hi")]
        >>> append_to_system(base, "Answer in JSON.")[0].content
        'Be terse.\n\nAnswer in JSON.'
        >>> base[0].content
        'Be terse.'
        >>> append_to_system([HumanMessage("Hi")], "Answer in JSON.")[0].content
        'Answer in JSON.'
    """
    for index, message in enumerate(base):
        if isinstance(message, SystemMessage):
            content: str | list[str | dict[Any, Any]]
            if isinstance(message.content, str):
                content = f"{message.content}\n\n{text}" if message.content else text
            else:
                content = [*message.content, {"type": "text", "text": text}]
            merged = message.model_copy(update={"content": content})
            return (*base[:index], merged, *base[index + 1 :])
    return (SystemMessage(text), *base)


def to_messages(value: LanguageModelInput) -> tuple[BaseMessage, ...]:
    """What a chat model takes (text, messages, a prompt value) as messages.

    Example:
        >>> to_messages("Hi")
        (HumanMessage(content='Hi', additional_kwargs={}, response_metadata={}),)

    Raises:
        TypeError: The value is none of these.
    """
    if isinstance(value, PromptValue):
        return tuple(value.to_messages())
    if isinstance(value, str):
        return (HumanMessage(value),)
    if isinstance(value, Sequence):
        return tuple(convert_to_messages(value))
    msg = f"expected a str, a list of messages or a PromptValue, got {type(value)}"
    raise TypeError(msg)


def as_reply(output: Any) -> AIMessage:
    """The model's output as an ``AIMessage`` (an LLM returns a ``str``).

    Example:
        >>> as_reply("hi").content
        'hi'

    Raises:
        TypeError: The output is neither a message nor a string.
    """
    if isinstance(output, AIMessage):
        return output
    if isinstance(output, BaseMessage):
        return AIMessage(
            content=output.content,
            additional_kwargs=dict(output.additional_kwargs),
            response_metadata=dict(output.response_metadata),
            id=output.id,
        )
    if isinstance(output, str):
        return AIMessage(output)
    msg = f"the model returned a {type(output).__name__}, not a message or a string"
    raise TypeError(msg)


def has_bound_tools(model: Runnable[Any, Any]) -> bool:
    """Whether ``model`` is a chat model with tools bound (``bind_tools``).

    Example:
        >>> from langchain_core.language_models import GenericFakeChatModel
        >>> model = GenericFakeChatModel(messages=iter([]))
        >>> has_bound_tools(model), has_bound_tools(model.bind(tools=[{}]))
        (False, True)
    """
    return isinstance(model, RunnableBinding) and bool(model.kwargs.get("tools"))
