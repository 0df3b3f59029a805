"""A tool call's arguments read, validated, or refused (for ``tools.calls``).

The arguments of one call, as text, become an object validated against the
tool's schema, or an error that says why; the errors and call ids that
reading needs are made here too.
"""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from typing import TYPE_CHECKING, Any, Final, Protocol

from pydantic import BaseModel

from langchain_jsonrecover._core.candidates.mention import CALL_UNWRAPS
from langchain_jsonrecover._core.candidates.order import SEVERAL_REASON
from langchain_jsonrecover._core.levels import guesses
from langchain_jsonrecover._core.prompts.tools import (
    call_as_answer_error,
    cut_off_error,
    duplicate_key_error,
    guessed_error,
    held_back_error,
    markup_inside_error,
    not_an_object_error,
    several_values_error,
    unknown_tool_error,
    wrapper_key_error,
)
from langchain_jsonrecover._core.reply.call_text import (
    duplicate_key,
    whole_body,
)
from langchain_jsonrecover._core.reply.envelopes import (
    CALL_NAME_KEYS,
    called_name,
)
from langchain_jsonrecover._core.reply.markup import prepare_reply
from langchain_jsonrecover._core.schema.keys import PAYLOAD_KEYS
from langchain_jsonrecover.errors import (
    InvalidJsonError,
    JsonRecoveryError,
    UnknownToolError,
)
from langchain_jsonrecover.parsers import JsonFenceOutputParser
from langchain_jsonrecover.parsers.events import recovery_payload

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from langchain_core.messages import AIMessage

    from langchain_jsonrecover._core.extract import Extraction
    from langchain_jsonrecover._core.levels import Repair

_SPAN_READER: Final = JsonFenceOutputParser(repair=True)
"""Reads the span of an envelope the schema unwrapped, for the tool it names."""

Arguments = tuple[dict[str, Any], tuple[str, ...], dict[str, Any]]
"""Arguments read: the value, the repairs made, the recovery payload."""

__all__ = [
    "Arguments",
    "Spec",
    "answer_from_a_call",
    "call_to_another_tool",
    "extract_refusing_guesses",
    "make_call_id",
    "make_error",
    "read_arguments",
    "same_arguments",
]


class Spec(Protocol):
    """What reading a call needs of a bound tool: the parser of its arguments.

    :class:`langchain_jsonrecover.tools.ToolSpec` is one.

    Example:
        >>> from langchain_jsonrecover.tools import tool_specs
        >>> spec: Spec = tool_specs([{"name": "f", "parameters": {}}])["f"]
        >>> type(spec.validator).__name__
        'JsonFenceOutputParser'
    """

    @property
    def validator(self) -> JsonFenceOutputParser[Any]:
        """The parser that validates the arguments."""
        ...


def read_arguments(
    arguments: str,
    name: str,
    spec: Spec | None,
    *,
    repair: Repair,
    cut: bool,
) -> Arguments | JsonRecoveryError:
    """Decode (and validate) a call's arguments, or say why they are not used."""
    if cut:
        return _make_cut_off_error(arguments, name)
    try:
        found, guessed = extract_refusing_guesses(arguments, repair)
    except JsonRecoveryError as error:
        if isinstance(error, InvalidJsonError) and error.truncated:
            return _make_cut_off_error(arguments, name)
        if isinstance(error, InvalidJsonError) and SEVERAL_REASON in str(error):
            text = several_values_error(name)  # two calls glued: say so of the call
            return InvalidJsonError(text, llm_output=arguments, observation=text)
        if isinstance(error, InvalidJsonError) and (
            prepare_reply(arguments).text != arguments
        ):
            # Markup the parser would blank (a token inside a single-quoted
            # string: two readings, so the parse raised): say so of the call.
            text = markup_inside_error(name)
            return InvalidJsonError(text, llm_output=arguments, observation=text)
        return error
    if not _is_whole(arguments, found):
        text = several_values_error(name)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    if _blanked_inside(arguments, found):
        text = markup_inside_error(name)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    if (key := duplicate_key(arguments)) is not None:
        text = duplicate_key_error(name, key)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    if guessed:
        text = guessed_error(name, guessed)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    value = found.value
    if not isinstance(value, dict):
        text = not_an_object_error(name)
        return InvalidJsonError(text, llm_output=arguments, observation=text)
    if spec is not None:
        checked = _validate(value, found, spec, name)
        if isinstance(checked, JsonRecoveryError):
            return checked
        value, found = checked
    payload = recovery_payload(found, arguments) or {
        "repairs": list(found.repairs),
        "bytes_before": len(arguments.encode("utf-8", "surrogatepass")),
        "bytes_after": len(json.dumps(value, default=str).encode()),
        "cut_off": False,
    }
    return value, found.repairs, payload


def extract_refusing_guesses(
    text: str, repair: Repair
) -> tuple[Extraction, tuple[str, ...]]:
    r"""The JSON in a call's text, and the repairs that make it unusable.

    A call is never made on a guess: at any level, a ``*_guessed`` repair
    refuses it; at ``"safe"`` so does every repair that chose among readings
    (``guesses``). The parser repairs as ``True`` does, so that the refusal
    can name the call and the repairs.

    Raises:
        JsonRecoveryError: No usable JSON in ``text``.

    Example:
        >>> found, guessed = extract_refusing_guesses('{"q": "a", # x\n}', "safe")
        >>> found.value, guessed
        ({'q': 'a'}, ('comment_removed',))
    """
    parser = JsonFenceOutputParser(repair=True if repair == "safe" else repair)
    found = parser.extract(text)
    if repair == "safe":
        return found, guesses(found.repairs, text, found.span)
    return found, tuple(r for r in found.repairs if r.endswith("_guessed"))


_BLANKING: frozenset[str] = frozenset(
    {"tool_markup_stripped", "special_tokens_stripped", "reasoning_skipped"}
)


def _blanked_inside(arguments: str, found: Extraction) -> bool:
    """Whether the parser blanked markup or reasoning inside the value it read.

    A token inside a string the scan does not track (single quotes:
    ``{'path': '<tool_call>'}``) is blanked as the reply's markup, which
    changes the value.
    """
    if not _BLANKING.intersection(found.repairs):
        return False
    begin, end = found.span
    return prepare_reply(arguments).text[begin:end] != arguments[begin:end]


def _is_whole(arguments: str, found: Extraction) -> bool:
    """Whether the value read is all the arguments hold (one fence allowed).

    Glued objects (``{"city": "Oslo"}{"city": "Rome"}``, two parallel calls
    run together) or key/value text (``q="x", opts={"n": 2}``) are not one
    object: reading one of them would change the call.
    """
    body = whole_body(arguments)
    if body is None:
        return False
    begin, stop, _, _ = body
    return found.span == (begin, stop)


def _validate(
    value: dict[str, Any], found: Extraction, spec: Spec, name: str
) -> tuple[dict[str, Any], Extraction] | JsonRecoveryError:
    """Check decoded arguments against the tool's schema.

    The arguments stay as decoded (the tool validates and coerces them),
    unless an envelope was unwrapped: the tool then gets the inside. Only a
    wrapper whose key names the payload (:data:`PAYLOAD_KEYS`, or the tool's
    own name) is unwrapped, once, at the top: ``{"exclude": {"path": "/x"}}``
    or ``{"previous": {…}}`` say something the inside does not. An inner
    envelope naming another tool is not this call's arguments either.
    """
    try:
        validated = spec.validator.extract(json.dumps(value, ensure_ascii=False))
    except JsonRecoveryError as error:
        return error
    if not validated.repairs:
        return value, found
    wrapper = _foreign_wrapper(value, validated.repairs, name)
    if wrapper is not None:
        text = wrapper_key_error(name, wrapper)
        return InvalidJsonError(text, observation=text)
    inner = validated.value
    if isinstance(inner, BaseModel):
        inner = inner.model_dump(mode="json", by_alias=True, exclude_unset=True)
    found = dataclasses.replace(found, repairs=(*found.repairs, *validated.repairs))
    return inner, found


def _foreign_wrapper(
    value: dict[str, Any], repairs: Sequence[str], name: str
) -> str | None:
    """The wrapper key the schema reading unwrapped though it names no payload.

    ``None`` when the arguments were not unwrapped, or only once, at the top,
    from a key of :data:`PAYLOAD_KEYS` or the tool's name; for an envelope
    unwrapped inside, its tool's name must be the call's.
    """
    unwraps = sum(r == "wrapper_unwrapped" for r in repairs)
    keys = list(value)
    top = keys[0] if len(keys) == 1 else None
    allowed = top is not None and (
        top.casefold() in PAYLOAD_KEYS or top.casefold() == name.casefold()
    )
    if unwraps > int(allowed):
        return top if top is not None and not allowed else "…"
    if any(r.startswith(("unwrapped_", "tool_envelope")) for r in repairs):
        inner = value.get("function", value)
        named = (
            [inner.get(k) for k in CALL_NAME_KEYS] if isinstance(inner, dict) else []
        )
        if any(isinstance(n, str) and n != name for n in named):
            return next(n for n in named if isinstance(n, str) and n != name)
    return None


def _make_cut_off_error(arguments: str, name: str) -> InvalidJsonError:
    text = cut_off_error(name)
    return InvalidJsonError(
        text, llm_output=arguments, observation=text, truncated=True
    )


def make_error(text: str) -> UnknownToolError:
    """The error for a call that names no bound tool, said back to the model."""
    return UnknownToolError(text, observation=text)


def call_to_another_tool(
    message: AIMessage, specs: Mapping[str, Spec]
) -> tuple[str | None, UnknownToolError] | None:
    """A reply that calls only tools not in ``specs``: the call's id, and why.

    Where ``specs`` holds only the answer's schema (``structured_output``),
    another tool's arguments are never read as the answer, even when they
    validate: the reply is asked again. Checked: the calls the provider
    decoded (any of them naming the schema reads that one), and a text that
    whose answer the schema reads from a call envelope naming another tool
    (a call, a list of one, a JSON-RPC or MCP request; the whole text or after
    a lead), unless the schema reads that object as it stands (no envelope
    unwrapped).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover.tools import tool_specs
        >>> specs = tool_specs([{"name": "Person", "parameters": {}}])
        >>> call = {"name": "search", "args": {"name": "Ada"}, "id": "c1"}
        >>> found = call_to_another_tool(AIMessage("", tool_calls=[call]), specs)
        >>> found[0], type(found[1]).__name__
        ('c1', 'UnknownToolError')
    """
    names = {name.casefold() for name in specs}
    calls = message.tool_calls
    name: str | None
    if calls:
        if any(c["name"].casefold() in names for c in calls):
            return None
        call_id, name = calls[0].get("id"), calls[0]["name"]
    else:
        call_id, name = None, _enveloped_name(str(message.text), specs)
        if name is None or name.casefold() in names:
            return None
    return call_id, make_error(unknown_tool_error(name, sorted(specs)))


_HARMONY_CALL: Final = re.compile(
    r"<\|(?:channel|start)\|>[^<\n]{0,200}?\bto=functions\.([\w.\-]{1,80})"
)
"""A harmony call's header (``<|channel|>commentary to=functions.x``)."""


def call_in_prose(message: AIMessage) -> tuple[None, InvalidJsonError] | None:
    """A harmony call that the reply writes in prose, so sends none: why refused.

    A harmony call is read where its header opens the reply or a line; one
    inside a sentence, a list item or emphasis is talked about. Its arguments
    are not the answer either (``structured_output``): the reply is asked again.

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> text = ('You could run <|start|>assistant<|channel|>commentary '
        ...         'to=functions.search <|message|>{"q": "x"}<|call|>')
        >>> type(call_in_prose(AIMessage(text))[1]).__name__
        'InvalidJsonError'
        >>> call_in_prose(AIMessage('{"q": "x"}')) is None
        True
    """
    text = str(message.text)
    if message.tool_calls or "to=functions." not in text:
        return None
    found = _HARMONY_CALL.search(text)
    if found is None:
        return None
    feedback = held_back_error(found.group(1))
    return None, InvalidJsonError(feedback, observation=feedback)


def answer_from_a_call(
    message: AIMessage, specs: Mapping[str, Spec], schema_name: str
) -> UnknownToolError | None:
    """Why a text answer read from a call envelope to another tool is refused.

    For a reply with no tool call where ``specs`` holds the tools and the
    answer's schema (``schema_name``): the schema would read the answer from
    an envelope naming another tool (``{"jsonrpc": …, "method": "search"}``).

    Example:
        >>> from langchain_core.messages import AIMessage
        >>> from langchain_jsonrecover.tools import tool_specs
        >>> schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
        >>> specs = tool_specs([{"name": "Person", "parameters": schema}])
        >>> text = '{"jsonrpc": "2.0", "method": "search", "params": {"a": 1}}'
        >>> type(answer_from_a_call(AIMessage(text), specs, "Person")).__name__
        'UnknownToolError'
        >>> answer_from_a_call(AIMessage('{"a": 1}'), specs, "Person") is None
        True
    """
    if message.tool_calls or schema_name not in specs:
        return None
    name = _enveloped_name(str(message.text), {schema_name: specs[schema_name]})
    if name is None or name.casefold() == schema_name.casefold():
        return None
    if name in specs:
        return make_error(call_as_answer_error(name))
    return make_error(unknown_tool_error(name, sorted(specs)))


def _enveloped_name(text: str, specs: Mapping[str, Spec]) -> str | None:
    """The tool named by the call envelope the schema reads the text's answer from.

    Any envelope form the schema reading unwraps (a call, a list of one, a
    JSON-RPC or MCP request), wherever the reading finds it (the whole text,
    or after a lead such as ``Calling search:``).
    """
    if len(specs) != 1 or "{" not in text:
        return None
    spec = next(iter(specs.values()))
    try:
        read = spec.validator.extract(text)
    except JsonRecoveryError:
        return None
    if CALL_UNWRAPS.isdisjoint(read.repairs):
        return None  # the schema reads the object as it stands
    start, end = read.span
    try:
        value = _SPAN_READER.extract(text[start:end]).value
    except JsonRecoveryError:
        return None
    return called_name(value)


def make_call_id() -> str:
    """A fresh id for a call the reply wrote without one."""
    return f"call_{uuid.uuid4().hex[:24]}"


def same_arguments(written: str, sent: Any) -> bool:
    """Whether arguments written in markup are those the provider sent."""
    if isinstance(sent, str):
        if written.strip() == sent.strip():
            return True
        try:
            sent = json.loads(sent)
        except ValueError:
            return False
    try:
        return bool(json.loads(written) == sent)
    except ValueError:
        return False
