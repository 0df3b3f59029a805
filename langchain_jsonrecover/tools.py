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

import dataclasses
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, InvalidToolCall, ToolCall
from langchain_core.messages.tool import invalid_tool_call as make_invalid_call
from langchain_core.messages.tool import tool_call as make_tool_call
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from langchain_jsonrecover._markup import MarkupCall, find_tool_calls
from langchain_jsonrecover._tool_prompts import (
    cut_off_error,
    guessed_error,
    not_an_object_error,
    unknown_tool_error,
)
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    JsonRecoveryError,
)
from langchain_jsonrecover.events import (
    RECOVERY_EVENT,
    aemit_event,
    emit_event,
    recovery_payload,
)
from langchain_jsonrecover.parsers import JsonFenceOutputParser, stopped_at_token_limit

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
        target = _target(tool)
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


def _target(tool: ToolLike) -> Any:
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


@dataclass(slots=True)
class _Work:
    valid: list[ToolCall]
    invalid: list[InvalidToolCall]
    recovered: list[dict[str, Any]]
    events: list[dict[str, Any]]
    failures: list[tuple[str, JsonRecoveryError]]


def recover(
    message: AIMessage,
    specs: Mapping[str, ToolSpec] | None = None,
    *,
    repair: bool = True,
) -> Recovered:
    """Recover a message's invalid tool calls (and, with tools, those in its text).

    The pure step behind :func:`recover_tool_calls`: no events are emitted.

    Args:
        message: The model's reply (never mutated).
        specs: The bound tools, from :func:`tool_specs`; ``None``: any name.
        repair: Let the parser repair the syntax (``repair=True``).

    Returns:
        The new message, the events to emit, and the calls left invalid.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> bad = {"name": "search", "args": "{'q': 'Ada', 'all': True}", "id": "1"}
        >>> result = recover(AIMessage("", invalid_tool_calls=[bad]))
        >>> result.message.tool_calls[0]["args"], result.failures
        ({'q': 'Ada', 'all': True}, [])
    """
    cut = stopped_at_token_limit(message.response_metadata)
    work = _Work(list(message.tool_calls), [], [], [], [])
    if cut and work.valid:
        last = work.valid.pop()
        arguments = json.dumps(last["args"], ensure_ascii=False, default=str)
        _withhold(work, last["name"], arguments, last.get("id"), _cut_error(last))
        cut = False
    invalid = list(message.invalid_tool_calls)
    for index, call in enumerate(invalid):
        last_cut = cut and index == len(invalid) - 1
        _recover_invalid(work, call, specs, repair=repair, cut=last_cut)
    content: Any = message.content
    if specs is not None and not message.tool_calls and not invalid:
        content = _recover_text(work, message, specs, repair=repair, cut=cut)
    metadata = dict(message.response_metadata)
    if work.recovered or work.invalid:
        record = dict(metadata.get(METADATA_KEY) or {})
        record["recovered_tool_calls"] = work.recovered
        record["withheld_tool_calls"] = [
            {"id": c.get("id"), "name": c.get("name"), "error": c.get("error")}
            for c in work.invalid
        ]
        metadata[METADATA_KEY] = record
    new = message.model_copy(
        update={
            "content": content,
            "tool_calls": work.valid,
            "invalid_tool_calls": work.invalid,
            "response_metadata": metadata,
        }
    )
    return Recovered(new, work.events, work.failures)


def _cut_error(call: ToolCall) -> InvalidJsonError:
    text = cut_off_error(call["name"])
    return InvalidJsonError(text, observation=text, truncated=True)


def _withhold(
    work: _Work,
    name: str | None,
    arguments: str | None,
    call_id: str | None,
    error: JsonRecoveryError,
) -> None:
    call_id = call_id or _new_id()
    text = str(error.observation or error)
    work.invalid.append(
        make_invalid_call(name=name, args=arguments, id=call_id, error=text)
    )
    work.failures.append((call_id, error))


def _new_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def _recover_invalid(
    work: _Work,
    call: InvalidToolCall,
    specs: Mapping[str, ToolSpec] | None,
    *,
    repair: bool,
    cut: bool,
) -> None:
    name = call.get("name") or ""
    arguments = call.get("args") or ""
    call_id = call.get("id") or _new_id()
    if specs is not None and name not in specs:
        text = unknown_tool_error(name, sorted(specs))
        _withhold(work, call.get("name"), call.get("args"), call_id, _plain(text))
        return
    spec = specs[name] if specs is not None else None
    outcome = _read_arguments(arguments, name, spec, repair=repair, cut=cut)
    if isinstance(outcome, JsonRecoveryError):
        _withhold(work, call.get("name"), call.get("args"), call_id, outcome)
        return
    value, repairs, payload_source = outcome
    work.valid.append(make_tool_call(name=name, args=value, id=call_id))
    _record(
        work,
        name,
        call_id,
        "invalid_tool_calls",
        repairs=repairs,
        payload=payload_source,
    )


def _plain(text: str) -> JsonRecoveryError:
    return JsonRecoveryError(text, observation=text)


def _read_arguments(
    arguments: str,
    name: str,
    spec: ToolSpec | None,
    *,
    repair: bool,
    cut: bool,
) -> tuple[dict[str, Any], tuple[str, ...], dict[str, Any]] | JsonRecoveryError:
    """Decode (and validate) a call's arguments, or say why they are not used."""
    if cut:
        text = cut_off_error(name)
        return InvalidJsonError(
            text, llm_output=arguments, observation=text, truncated=True
        )
    try:
        found = JsonFenceOutputParser(repair=repair).extract(arguments)
    except JsonRecoveryError as error:
        if isinstance(error, InvalidJsonError) and error.truncated:
            text = cut_off_error(name)
            return InvalidJsonError(
                text, llm_output=arguments, observation=text, truncated=True
            )
        return error
    guessed = [r for r in found.repairs if r.endswith("_guessed")]
    if guessed:
        text = guessed_error(name, guessed)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    value = found.value
    if not isinstance(value, dict):
        text = not_an_object_error(name)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    if spec is not None:
        # The arguments stay as decoded: the tool validates (and coerces) them.
        try:
            validated = spec.validator.extract(json.dumps(value, ensure_ascii=False))
        except JsonRecoveryError as error:
            return error
        if validated.repairs:  # an envelope unwrapped: the tool wants the inside
            inner = validated.value
            value = (
                inner.model_dump(mode="json", by_alias=True, exclude_unset=True)
                if isinstance(inner, BaseModel)
                else inner
            )
            found = dataclasses.replace(
                found, repairs=(*found.repairs, *validated.repairs)
            )
    payload = recovery_payload(found, arguments) or {
        "repairs": list(found.repairs),
        "bytes_before": len(arguments.encode("utf-8", "surrogatepass")),
        "bytes_after": len(json.dumps(value, default=str).encode()),
        "cut_off": False,
    }
    return value, found.repairs, payload


def _record(
    work: _Work,
    name: str,
    call_id: str,
    source: str,
    *,
    repairs: Sequence[str],
    payload: dict[str, Any],
) -> None:
    work.recovered.append(
        {"id": call_id, "name": name, "source": source, "repairs": list(repairs)}
    )
    work.events.append({"tool_call": name, "id": call_id, "source": source, **payload})


def _recover_text(
    work: _Work,
    message: AIMessage,
    specs: Mapping[str, ToolSpec],
    *,
    repair: bool,
    cut: bool,
) -> Any:
    """Turn a bare ``{"name", "arguments"}`` JSON naming a bound tool into calls.

    Returns the message's content, without the calls' text when it is a
    ``str``.
    """
    text = str(message.text)
    markup = find_tool_calls(text)
    if markup:
        return _recover_markup(work, message, markup, specs, repair=repair, cut=cut)
    if "{" not in text:
        return message.content
    try:
        found = JsonFenceOutputParser(repair=repair).extract(text)
    except JsonRecoveryError:
        return message.content
    written = _written_calls(found.value, specs)
    if written is None:
        return message.content
    guessed = [r for r in found.repairs if r.endswith("_guessed")]
    for index, (name, arguments) in enumerate(written):
        last_cut = cut and index == len(written) - 1
        as_text = (
            arguments
            if isinstance(arguments, str)
            else json.dumps(arguments, ensure_ascii=False)
        )
        if guessed:
            text_error = guessed_error(name, guessed)
            error = InvalidJsonError(text_error, observation=text_error)
            _withhold(work, name, as_text, None, error)
            continue
        outcome = _read_arguments(
            as_text, name, specs[name], repair=repair, cut=last_cut
        )
        if isinstance(outcome, JsonRecoveryError):
            _withhold(work, name, as_text, None, outcome)
            continue
        value, repairs, payload = outcome
        call_id = _new_id()
        work.valid.append(make_tool_call(name=name, args=value, id=call_id))
        all_repairs = (*found.repairs, *(r for r in repairs if r not in found.repairs))
        payload = {**payload, "repairs": list(all_repairs)}
        _record(work, name, call_id, "text", repairs=all_repairs, payload=payload)
    if isinstance(message.content, str):
        start, end = found.span
        return (message.content[:start] + message.content[end:]).strip()
    return message.content


def _recover_markup(
    work: _Work,
    message: AIMessage,
    written: Sequence[MarkupCall],
    specs: Mapping[str, ToolSpec],
    *,
    repair: bool,
    cut: bool,
) -> Any:
    """Turn tool-call markup (``[TOOL_CALLS]``, ``<tool_call>`` …) into calls.

    Returns the message's content without the markup, when it is a ``str``.
    """
    for index, call in enumerate(written):
        name = call.name
        if name not in specs:
            error = _plain(unknown_tool_error(name, sorted(specs)))
            _withhold(work, name or None, call.arguments, None, error)
            continue
        last_cut = (cut and index == len(written) - 1) or not call.closed
        outcome = _read_arguments(
            call.arguments, name, specs[name], repair=repair, cut=last_cut
        )
        if isinstance(outcome, JsonRecoveryError):
            _withhold(work, name, call.arguments, None, outcome)
            continue
        value, repairs, payload = outcome
        call_id = _new_id()
        work.valid.append(make_tool_call(name=name, args=value, id=call_id))
        all_repairs = ("tool_markup_stripped", *repairs)
        payload = {**payload, "repairs": list(all_repairs)}
        _record(work, name, call_id, "markup", repairs=all_repairs, payload=payload)
    if not isinstance(message.content, str):
        return message.content
    content, position = [], 0
    for call in written:
        if call.start >= position:
            content.append(message.content[position : call.start])
            position = call.end
    content.append(message.content[position:])
    return "".join(content).strip()


def _written_calls(
    value: Any, specs: Mapping[str, ToolSpec]
) -> list[tuple[str, Any]] | None:
    """``(name, arguments)`` of each call written as JSON, or ``None``.

    A call is an object with a ``name`` that is a bound tool and an
    ``arguments`` (or ``parameters``) object or string, and nothing else; a
    list must hold only such calls.
    """
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    calls: list[tuple[str, Any]] = []
    for item in items:
        if not isinstance(item, dict) or item.get("name") not in specs:
            return None
        keys = set(item) - {"name"}
        if len(keys) != 1 or not keys <= {"arguments", "parameters"}:
            return None
        arguments = item[keys.pop()]
        if not isinstance(arguments, dict | str):
            return None
        calls.append((item["name"], arguments))
    return calls


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
    repair: bool = True,
) -> AIMessage:
    r"""A new message whose recoverable invalid tool calls are tool calls.

    Each invalid call's arguments go through
    ``JsonFenceOutputParser(repair=repair)``; a call whose arguments decode
    to an object (and, with ``tools``, validate against that tool's schema)
    becomes a tool call with the same id. With ``tools``, a reply whose text
    is a bare ``{"name": ..., "arguments": ...}`` JSON (or a list of them)
    naming a bound tool gets those calls, and loses their text; so does
    tool-call markup (``[TOOL_CALLS]name[ARGS]{…}``, ``<tool_call>{…}</tool_call>``,
    ``<|python_tag|>{…}``, harmony ``to=functions.x`` …; a call whose markup
    the reply ended inside counts as cut off). Never
    executed: cut-off arguments (or the last call of a reply that stopped at
    the token limit) and arguments read only by a ``*_guessed`` repair; they
    stay invalid with an error that says why. The input is never mutated.

    Use it in LCEL after the model: ``model.bind_tools(tools) |
    recover_tool_calls``.

    Args:
        message: The model's reply.
        tools: The bound tools (tools, pydantic models, functions or
            JSON-schema dicts, as ``bind_tools`` takes them).
        repair: Let the parser repair the syntax.

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
    repair: bool = True,
) -> AIMessage:
    """Async twin of :func:`recover_tool_calls` (the events are async).

    Args:
        message: The model's reply.
        tools: The bound tools.
        repair: Let the parser repair the syntax.

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
    message: AIMessage, tools: Sequence[ToolLike] | None, *, repair: bool
) -> Recovered:
    if not isinstance(message, AIMessage):
        msg = f"message must be an AIMessage, got a {type(message).__name__}"
        raise TypeError(msg)
    return recover(message, _resolve(tools), repair=repair)
