r"""A string that holds a reply of its own, and the envelopes agents write around one.

Pure functions over decoded JSON; no LangChain imports.

An agent framework, or the model itself, puts the answer into a string
(``{"result": "Here it is:\n```json\n{…}\n```"}``). Where the schema wants an
object or an array and no string, such a string is read as a reply is, as far
as it has one reading (:func:`read_string_reply`):

- tool-call markup and reasoning blanked (``{…}</invoke>``);
- the string is JSON (``decoded_json_string``), or one fence holding JSON
  (``fenced_string_decoded``), with prose around the fence that holds no
  bracket (``reply_string_read``; a second fence, or a bracket in the prose,
  and the string is left as it is).

The envelopes around such strings (:func:`agent_payloads`), each read only
when it holds its own kind's keys and nothing else:

- an agent SDK's result message (``{"type": "result", "subtype": "success",
  "result": "…", "structured_output": {…}, …}``, :data:`RESULT_KEYS`), not
  an error one: its ``structured_output``, or the reply in ``result``; when
  both hold a value and the two differ, neither;
- a list of one content block (``[{"type": "text", "text": "…"}]``,
  :data:`TEXT_BLOCK_KEYS`): the reply in its text;
- a list of one call envelope (``[TOOL_CALLS] [{"name": …, "arguments":
  {…}}]``, a call's keys only): its arguments;
- a bare array of objects where the schema's only required field is its one
  array field (:func:`only_list_field`): that field's value.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.decode.tolerant import Decoded, decode
from langchain_jsonrecover._core.reply.envelopes import read_call_envelope
from langchain_jsonrecover._core.reply.fences import find_fences
from langchain_jsonrecover._core.reply.markup import prepare_reply

if TYPE_CHECKING:
    from collections.abc import Iterator

RESULT_KEYS: Final = frozenset(
    {
        "type",
        "subtype",
        "is_error",
        "result",
        "structured_output",
        "num_turns",
        "session_id",
        "uuid",
        "duration_ms",
        "duration_api_ms",
        "total_cost_usd",
        "usage",
        "model",
        "modelUsage",
        "permission_denials",
    }
)
"""The keys of an agent SDK's result message (``"type": "result"``)."""
TEXT_BLOCK_KEYS: Final = frozenset({"type", "text", "annotations"})
"""The keys of a text content block (``{"type": "text", "text": …}``)."""
_BRACKET: Final = re.compile(r"[\[\]{}]")


def read_string_reply(text: str, *, max_depth: int) -> tuple[Any, str] | None:
    r"""The value a string holds when read as a reply, and the repair that names it.

    Args:
        text: The string, as decoded.
        max_depth: Nesting limit for the JSON inside.

    Returns:
        ``(value, repair)``, or ``None`` when the string holds no JSON, or
        holds it in more than one reading (two fences, brackets in the prose).

    Example:
        >>> read_string_reply('Here:\n```json\n{"a": 1}\n```\nDone.', max_depth=9)
        ({'a': 1}, 'reply_string_read')
        >>> read_string_reply('```json\n{"a": 1}\n```', max_depth=9)
        ({'a': 1}, 'fenced_string_decoded')
        >>> read_string_reply('{"a": 1}</invoke>', max_depth=9)
        ({'a': 1}, 'reply_string_read')
        >>> read_string_reply("See [1]:\n```json\n{}\n```", max_depth=9) is None
        True
    """
    prepared = prepare_reply(text).text
    repair = "decoded_json_string" if prepared == text else "reply_string_read"
    body = prepared.strip()
    if "```" in body:
        fences = find_fences(body)
        if len(fences) != 1 or not (fences[0].is_json or not fences[0].tag):
            return None
        (fence,) = fences
        prose = body[: fence.start] + body[fence.end :]
        if _BRACKET.search(prose) is not None:
            return None
        repair = "fenced_string_decoded" if not prose.strip() else "reply_string_read"
        body = body[fence.body_start : fence.body_end].strip()
    if not body.startswith(("{", "[", '"')):
        return None
    decoded = decode(body, max_depth=max_depth, allow_trailing=False)
    return (decoded.value, repair) if isinstance(decoded, Decoded) else None


def agent_payloads(
    value: Any, json_schema: dict[str, Any], *, max_depth: int
) -> Iterator[tuple[str, Any]]:
    r"""The payload an agent's envelope holds, with its repair; nothing for others.

    Example:
        >>> list(agent_payloads({"type": "result", "subtype": "success",
        ...     "result": "```json\n{\"a\": 1}\n```"}, {}, max_depth=9))
        [('result_message_unwrapped', {'a': 1})]
        >>> list(agent_payloads([{"type": "text", "text": '{"a": 1}'}], {},
        ...     max_depth=9))
        [('content_block_read', {'a': 1})]
        >>> list(agent_payloads([{"name": "f", "arguments": {"a": 1}}], {},
        ...     max_depth=9))
        [('call_list_unwrapped', {'a': 1})]
        >>> list(agent_payloads({"type": "result", "is_error": True,
        ...     "result": '{"a": 1}'}, {}, max_depth=9))
        []
    """
    field = only_list_field(json_schema)
    if field is not None and records(value):
        yield "list_wrapped_in_field", {field: value}
    if isinstance(value, list):
        call = read_call_envelope(value[0]) if len(value) == 1 else None
        if call is not None and not call.extra:
            arguments = call.arguments
            if isinstance(arguments, str):
                read = read_string_reply(arguments, max_depth=max_depth)
                arguments = arguments if read is None else read[0]
            yield "call_list_unwrapped", arguments
        elif len(value) == 1 and _is_text_block(value[0]):
            read = read_string_reply(value[0]["text"], max_depth=max_depth)
            if read is not None:
                yield "content_block_read", read[0]
        return
    if not _is_result_message(value):
        return
    said = []
    if isinstance(value.get("structured_output"), dict | list):
        said.append(value["structured_output"])
    if isinstance(value.get("result"), str):
        read = read_string_reply(value["result"], max_depth=max_depth)
        if read is not None:
            said.append(read[0])
    if said and all(item == said[0] for item in said):
        yield "result_message_unwrapped", said[0]


def _is_text_block(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        and set(block) <= TEXT_BLOCK_KEYS
    )


def _is_result_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "result"
        and value.get("subtype", "success") == "success"
        and value.get("is_error", False) is False
        and set(value) <= RESULT_KEYS
    )


def only_list_field(json_schema: dict[str, Any]) -> str | None:
    """The one field a bare array may fill, or ``None``.

    The schema's only required field, an array, where no other field is one.

    A model asked for ``{"facts": [...]}`` that answers ``[...]`` wrote the
    field's value without its object (``list_wrapped_in_field``).

    Example:
        >>> only_list_field({"type": "object", "required": ["facts"],
        ...     "properties": {"facts": {"type": "array"}, "n": {"type": "integer"}}})
        'facts'
        >>> only_list_field({"type": "object", "required": ["a", "b"],
        ...     "properties": {"a": {"type": "array"}, "b": {"type": "string"}}})
    """
    properties = json_schema.get("properties")
    required = json_schema.get("required")
    if not isinstance(properties, dict) or required is None or len(required) != 1:
        return None
    arrays = [
        name
        for name, node in properties.items()
        if isinstance(node, dict) and node.get("type") == "array"
    ]
    return arrays[0] if arrays == required else None


def records(value: Any) -> bool:
    """Whether ``value`` is a non-empty array of objects (never a citation's ``[1]``).

    Example:
        >>> records([{"a": 1}]), records([1]), records([])
        (True, False, False)
    """
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(item, dict) for item in value)
    )
