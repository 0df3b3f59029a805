r"""Tool calls whose arguments did not decode, made usable: :func:`recover_tool_calls`.

Providers put a call whose arguments do not decode (a trailing comma, Python
``True``, single quotes, arguments cut off) into ``AIMessage.invalid_tool_calls``,
and weak models write calls into the text. :func:`recover_tool_calls` returns a
new message in which each such call that our parser recovers safely becomes a
tool call. Nothing is executed on a guess:

- arguments cut off at the token limit stay invalid, with an error saying so;
  when the reply stopped at the token limit, its last call is treated as cut
  off even if it decodes (langchain-core closes streamed arguments such as
  ``{"path": "/tmp/x", "recursive": tr`` into a valid call);
- a call recovered only by a ``*_guessed`` repair stays invalid;
- with ``tools``, recovered arguments must validate against the tool's schema.

What was recovered is recorded in ``response_metadata["jsonrecover"]`` and
emitted as the ``jsonrecover.recovery`` event (one per call, with the call's
``name``, ``id`` and ``source``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_jsonrecover._core.reply.record import stopped_at_token_limit
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.base import is_refusal
from langchain_jsonrecover.parsers.events import RECOVERY_EVENT, aemit_event, emit_event
from langchain_jsonrecover.tools.arguments import answer_from_a_call
from langchain_jsonrecover.tools.calls import (
    CallLedger,
    check_text_beside_calls,
    read_invalid_call,
    read_text_calls,
    withhold_cut_call,
)

if TYPE_CHECKING:
    from langchain_jsonrecover._core.levels import Repair
    from langchain_jsonrecover.errors import JsonRecoveryError, UnknownToolError

__all__ = ["ToolSpec", "recover_tool_calls", "tool_specs"]

ToolLike = BaseTool | type | Callable[..., Any] | Mapping[str, Any]
"""What ``bind_tools`` takes: a tool, a pydantic model, a function, a dict."""

METADATA_KEY = "jsonrecover"
"""The ``response_metadata`` key recording what was recovered."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A bound tool as recovery needs it: its name, words and schema.

    Example:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     '''A person.'''
        ...     name: str
        >>> spec = tool_specs([Person])["Person"]
        >>> spec.name, spec.description, spec.parameters["required"]
        ('Person', 'A person.', ['name'])
    """

    name: str
    description: str
    parameters: dict[str, Any]
    """The arguments' JSON schema."""
    validator: JsonFenceOutputParser[Any] = field(repr=False)
    """Our parser with the arguments' schema (the tool's pydantic model, or
    the JSON schema of a dict tool), built once."""


def tool_specs(tools: Sequence[ToolLike]) -> dict[str, ToolSpec]:
    """The tools as :class:`ToolSpec`, by name.

    Args:
        tools: Tools as ``bind_tools`` takes them.

    Returns:
        Each tool's spec under its name.

    Raises:
        TypeError: A tool is none of these kinds.
        ValueError: A dict tool's schema needs ``jsonschema``, not installed
            (``pip install 'langchain-jsonrecover[jsonschema]'``).

    Example:
        >>> def search(query: str) -> str:
        ...     '''Search the web.'''
        ...     return query
        >>> sorted(tool_specs([search]))
        ['search']
    """
    specs: dict[str, ToolSpec] = {}
    for tool in tools:
        try:
            function = convert_to_openai_tool(tool)["function"]
        except (ValueError, TypeError) as exc:
            msg = f"tools: cannot read {tool!r} as a tool ({exc})"
            raise TypeError(msg) from exc
        parameters = dict(function.get("parameters") or {})
        name = str(function["name"])
        target = _find_target(tool)
        try:
            validator: JsonFenceOutputParser[Any] = JsonFenceOutputParser(
                pydantic_object=parameters if target is None else target
            )
        except ValueError as exc:
            msg = f"tools: cannot validate the arguments of {name!r}: {exc}"
            raise ValueError(msg) from exc
        description = str(function.get("description") or "")
        specs[name] = ToolSpec(name, description, parameters, validator)
    return specs


def _find_target(tool: ToolLike) -> Any:
    """The type the arguments validate against, if the tool has one."""
    if isinstance(tool, type):
        return tool  # a pydantic model, a TypedDict, a dataclass
    if isinstance(tool, BaseTool):
        schema = tool.tool_call_schema
        return schema if isinstance(schema, type) else None
    if callable(tool) and not isinstance(tool, type):
        schema = StructuredTool.from_function(tool).tool_call_schema
        return schema if isinstance(schema, type) else None
    return None


@dataclass(slots=True)
class Recovered:
    """What :func:`recover` made of a message."""

    message: AIMessage
    """The new message."""
    events: list[dict[str, Any]] = field(default_factory=list)
    """One ``jsonrecover.recovery`` payload per recovered call."""
    failures: list[tuple[str, JsonRecoveryError]] = field(default_factory=list)
    """``(id, error)`` of each call left invalid, in order."""


def recover(
    message: AIMessage,
    specs: Mapping[str, ToolSpec] | None = None,
    *,
    repair: Repair = "safe",
) -> Recovered:
    """Recover a message's invalid tool calls (and, with tools, those in its text).

    The pure step behind :func:`recover_tool_calls`: no events are emitted.

    Args:
        message: The model's reply (never mutated).
        specs: The bound tools, from :func:`tool_specs`; ``None``: any name.
        repair: As for :func:`recover_tool_calls`.

    Returns:
        The new message, the events to emit, and the calls left invalid.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> bad = {"name": "search", "args": "{'q': 'Ada', 'all': True}", "id": "1"}
        >>> result = recover(AIMessage("", invalid_tool_calls=[bad]))
        >>> result.message.tool_calls[0]["args"], result.failures
        ({'q': 'Ada', 'all': True}, [])
    """
    if is_refusal(message):
        return Recovered(message.model_copy())  # a refusal makes no call
    cut = stopped_at_token_limit(message.response_metadata)
    ledger = CallLedger(valid=list(message.tool_calls))
    if cut and ledger.valid:
        withhold_cut_call(ledger, ledger.valid.pop())
        cut = False
    invalid = list(message.invalid_tool_calls)
    for index, call in enumerate(invalid):
        last_cut = cut and index == len(invalid) - 1
        read_invalid_call(ledger, call, specs, repair=repair, cut=last_cut)
    content: Any = message.content
    if specs is not None and not message.tool_calls and not invalid:
        content = read_text_calls(ledger, message, specs, repair=repair, cut=cut)
    elif specs is not None:
        content = check_text_beside_calls(ledger, message, invalid)
    metadata = dict(message.response_metadata)
    if ledger.recovered or ledger.invalid:
        record = dict(metadata.get(METADATA_KEY) or {})
        record["recovered_tool_calls"] = ledger.recovered
        record["withheld_tool_calls"] = [
            {"id": c.get("id"), "name": c.get("name"), "error": c.get("error")}
            for c in ledger.invalid
        ]
        metadata[METADATA_KEY] = record
    new = message.model_copy(
        update={
            "content": content,
            "tool_calls": ledger.valid,
            "invalid_tool_calls": ledger.invalid,
            "response_metadata": metadata,
        }
    )
    return Recovered(new, ledger.events, ledger.failures)


def answer_check(
    parser: Any,
) -> Callable[[AIMessage], UnknownToolError | None] | None:
    """The JSON strategy's check of a text answer: no other tool's call.

    For a parser whose schema is a tool's: a reply whose answer the schema
    would read from a call envelope naming another tool (a call, a list of
    one, a JSON-RPC or MCP request) is asked again, as the native strategy
    asks again for another tool's call.

    Example:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     name: str
        >>> check = answer_check(JsonFenceOutputParser(pydantic_object=Person))
        >>> envelope = '{"name": "search", "arguments": {"name": "Ada"}}'
        >>> type(check(AIMessage(envelope))).__name__
        'UnknownToolError'
        >>> check(AIMessage('{"name": "Ada"}')) is None
        True
    """
    schema = getattr(parser, "pydantic_object", None)
    if schema is None:
        return None
    try:
        specs = tool_specs([schema])
    except (TypeError, ValueError):
        return None  # a schema that is no tool
    (name,) = specs
    return lambda message: answer_from_a_call(message, specs, name)


def _resolve(tools: Sequence[ToolLike] | None) -> dict[str, ToolSpec] | None:
    if tools is None:
        return None
    if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Sequence):
        msg = f"tools must be a list of tools, got a {type(tools).__name__}"
        raise TypeError(msg)
    return tool_specs(tools)


def recover_tool_calls(
    message: AIMessage,
    tools: Sequence[ToolLike] | None = None,
    *,
    repair: Repair = "safe",
) -> AIMessage:
    r"""A new message whose recoverable invalid tool calls are tool calls.

    Each invalid call's arguments go through
    ``JsonFenceOutputParser(repair=repair)``; a call whose arguments decode
    to an object (and, with ``tools``, validate against that tool's schema)
    becomes a tool call with the same id; arguments must be one JSON object
    (glued objects stay invalid). With ``tools``, calls in tool-call markup
    (``[TOOL_CALLS]name[ARGS]{…}``, ``<tool_call>{…}</tool_call>``,
    ``<|python_tag|>{…}``, harmony ``to=functions.x`` …; a call whose markup
    the reply ended inside counts as cut off), or a text that is nothing but
    ``{"name": ..., "arguments": ...}`` envelopes naming bound tools (bare, or
    in one fence), become calls, in order, and leave the content with their
    markup; a call mentioned in prose stays text. An envelope with a member
    beyond a call's keys, or one unusable call among several, leaves every
    call of the text invalid. Never
    executed: cut-off arguments (or the last call of a reply that stopped at
    the token limit) and arguments read only by a ``*_guessed`` repair (with
    the default ``repair="safe"``, by any repair that chooses); they
    stay invalid with an error that says why. A refusal (a refusal block,
    or langchain-openai's ``additional_kwargs["refusal"]``) comes back as it
    is: nothing in it becomes a call. The input is never mutated.

    Use it in LCEL after the model: ``model.bind_tools(tools) |
    recover_tool_calls``.

    Args:
        message: The model's reply.
        tools: The bound tools (tools, pydantic models, functions or
            JSON-schema dicts, as ``bind_tools`` takes them).
        repair: ``"safe"`` (the default, as for every parser): only the
            repairs with one reading; ``True``: the single-edit search and
            ``#`` comments too (a ``*_guessed`` repair never makes a call);
            ``False``: none.

    Returns:
        The new message; ``response_metadata["jsonrecover"]`` lists the
        ``recovered_tool_calls`` and the ``withheld_tool_calls``.

    Raises:
        TypeError: ``message`` is not an ``AIMessage``, or a tool is unusable.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> bad = {"name": "search", "args": '{"q": "Ada",}', "id": "c1"}
        >>> reply = AIMessage("", invalid_tool_calls=[bad])
        >>> fixed = recover_tool_calls(reply)
        >>> fixed.tool_calls[0]["args"], fixed.invalid_tool_calls
        ({'q': 'Ada'}, [])
        >>> reply.invalid_tool_calls[0]["args"]  # the input is unchanged
        '{"q": "Ada",}'
    """
    result = _run(message, tools, repair=repair)
    for payload in result.events:
        emit_event(RECOVERY_EVENT, payload)
    return result.message


async def arecover_tool_calls(
    message: AIMessage,
    tools: Sequence[ToolLike] | None = None,
    *,
    repair: Repair = "safe",
) -> AIMessage:
    """Async twin of :func:`recover_tool_calls` (the events are async).

    Args:
        message: The model's reply.
        tools: The bound tools.
        repair: As for :func:`recover_tool_calls`.

    Returns:
        The new message.

    Raises:
        TypeError: ``message`` is not an ``AIMessage``, or a tool is unusable.
    """
    result = _run(message, tools, repair=repair)
    for payload in result.events:
        await aemit_event(RECOVERY_EVENT, payload)
    return result.message


def _run(
    message: AIMessage, tools: Sequence[ToolLike] | None, *, repair: Repair
) -> Recovered:
    if not isinstance(message, AIMessage):
        msg = f"message must be an AIMessage, got a {type(message).__name__}"
        raise TypeError(msg)
    return recover(message, _resolve(tools), repair=repair)
