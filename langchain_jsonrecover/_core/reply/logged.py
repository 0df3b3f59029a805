r"""A logged message written out as text: its fields, not its text as a reply.

Pure functions on ``str``; no LangChain imports. Logs and data frames often
hold a chat message as text: its JSON (``model_dump_json()``, an OpenAI
message), a Python ``dict``'s repr (what ``str()`` of a frame cell gives, as
Dask's default string conversion does), or ``str()`` / ``repr()`` of a
LangChain message (``content='…' additional_kwargs={} …``,
``AIMessage(content='…', …)``). Read as a reply, such text gives the whole
envelope as the value (a repairing parser reads the repr's Python dict).
:func:`read_logged_message` says whether a text is such a message and gives
its fields: ``content``, ``additional_kwargs``, ``response_metadata`` and
the rest as written. Python literals are read with ``ast.literal_eval`` (no
code runs); each value's end is tried at most :data:`MAX_TRIES` times.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from typing import Any, Final

import orjson

MAX_TRIES: Final = 16
"""Where a field's value may end is tried at most this many times."""

ROLES: Final = frozenset(
    {"assistant", "user", "system", "tool", "developer", "function", "model"}
)
"""OpenAI's (and kin's) ``role`` values."""

TYPES: Final = frozenset(
    {
        "ai",
        "human",
        "system",
        "tool",
        "function",
        "chat",
        "AIMessage",
        "AIMessageChunk",
        "HumanMessage",
        "SystemMessage",
        "ToolMessage",
    }
)
"""LangChain's message ``type`` values (and class names)."""

ENVELOPE_KEYS: Final = frozenset({"additional_kwargs", "response_metadata"})
"""Keys only a LangChain message has."""

_FIELDS: Final = (
    "content",
    "additional_kwargs",
    "response_metadata",
    "type",
    "name",
    "id",
    "example",
    "tool_calls",
    "invalid_tool_calls",
    "usage_metadata",
    "tool_call_id",
    "artifact",
    "status",
    "chunk_position",
)
_ENVELOPE_HEAD: Final = re.compile(
    r"""\{\s*(?:(['"])(?:role|additional_kwargs|response_metadata)\1"""
    r"""|'(?:content|type)'|"content"\s*:\s*"(?:\{|\[|```))"""
)
_FIELD_NAME: Final = re.compile("(" + "|".join(_FIELDS) + ")=")
_REPR_HEAD: Final = re.compile(r"[A-Z][A-Za-z]{0,40}Message(?:Chunk)?\(")


class LoggedMessageError(ValueError):
    """The text is a logged message whose content cannot be read."""


def is_message_dict(fields: Mapping[Any, Any]) -> bool:
    """Whether a mapping is a chat message (with its content), not a value.

    It has ``content`` (or an OpenAI ``refusal``) beside a message's
    ``role`` or ``type``, or beside a key only LangChain messages have.

    Example:
        >>> is_message_dict({"role": "assistant", "content": '{"a": 1}'})
        True
        >>> is_message_dict({"content": "x", "response_metadata": {}})
        True
        >>> is_message_dict({"content": "an article", "type": "blog"})
        False
    """
    if "content" not in fields and not (
        "refusal" in fields and fields.get("role") in ROLES
    ):
        return False
    return (
        fields.get("role") in ROLES
        or fields.get("type") in TYPES
        or any(key in fields for key in ENVELOPE_KEYS)
    )


def unwrap_message(fields: Mapping[Any, Any]) -> Mapping[Any, Any]:
    """The message inside LangChain's serialised forms, else ``fields``.

    ``messages_to_dict`` writes ``{"type": "ai", "data": {...}}``; ``dumpd``
    writes ``{"lc": 1, "type": "constructor", "id": [...], "kwargs": {...}}``.

    Example:
        >>> unwrap_message({"type": "ai", "data": {"content": "x"}})
        {'content': 'x'}
    """
    if "content" in fields:
        return fields
    for key in ("data", "kwargs"):
        inner = fields.get(key)
        if (
            isinstance(inner, Mapping)
            and "content" in inner
            and fields.get("type") in (TYPES | {"constructor"})
        ):
            return inner
    return fields


def read_logged_message(text: str) -> dict[str, Any] | None:
    """The fields of a message logged as text, or ``None`` for a plain reply.

    Example:
        >>> read_logged_message("content='[1, 2]' additional_kwargs={}")
        {'content': '[1, 2]', 'additional_kwargs': {}}
        >>> read_logged_message("{'role': 'assistant', 'content': '[1]'}")["content"]
        '[1]'
        >>> read_logged_message('Sure: {"a": 1}') is None
        True
        >>> read_logged_message("{'content': '[1, 2")
        Traceback (most recent call last):
        ...
        langchain_jsonrecover._core.reply.logged.LoggedMessageError: a chat message ...

    Raises:
        LoggedMessageError: The text is a message's ``str()`` or ``repr()``
            whose content cannot be read, or begins as a written-out message
            (:func:`looks_like_envelope`) and does not decode.
    """
    body = text.strip()
    if body.startswith("{"):
        return _read_dict_text(body)
    if body.startswith("content="):
        return _read_fields(body, " ")
    head = _REPR_HEAD.match(body)
    if head is not None and body.startswith("content=", head.end()):
        inner = body[head.end() :]
        return _read_fields(inner.removesuffix(")"), ", ")  # a cut log: no ")"
    return None


def looks_like_envelope(body: str) -> bool:
    """Whether a text that starts with ``{`` begins as a written-out message.

    Its first key is ``role``, ``additional_kwargs`` or ``response_metadata``;
    or ``content`` or ``type`` in Python quotes (a dict's repr); or
    ``content`` whose string holds JSON or a fence; or the text has a key
    only LangChain messages have.

    Example:
        >>> looks_like_envelope("{'content': '[1, 2")
        True
        >>> looks_like_envelope('{"content": "an article", "tags": []}')
        False
    """
    if _ENVELOPE_HEAD.match(body[:200]):
        return True
    head = body[:4096]
    return any(f'"{key}":' in head or f"'{key}':" in head for key in ENVELOPE_KEYS)


def _read_dict_text(body: str) -> dict[str, Any] | None:
    value: Any
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:
        value = _literal(body) if "'" in body[:200] else None
        if value is None and looks_like_envelope(body):
            msg = (
                "a chat message written out as text that does not decode "
                "(cut short, or neither JSON nor a Python literal)"
            )
            raise LoggedMessageError(msg) from None
    if not isinstance(value, Mapping):
        return None
    fields = unwrap_message(value)
    return dict(fields) if is_message_dict(fields) else None


def _literal(text: str) -> Any:
    """A Python literal's value, or ``None`` when the text is not one."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _read_fields(body: str, sep: str) -> dict[str, Any] | None:
    """``name=value`` fields, each value a Python literal, ``sep`` between them."""
    fields: dict[str, Any] = {}
    pos = 0
    while pos < len(body):
        named = _FIELD_NAME.match(body, pos)
        if named is None:
            break
        name, start = named.group(1), named.end()
        ends = [m.start() for m in _ends(body, sep, start)] + [len(body)]
        for end in ends:
            value = _literal(body[start:end])
            if value is not None or body[start:end].strip() == "None":
                fields[name] = value
                pos = end + len(sep)
                break
        else:
            break
    if "content" not in fields:
        msg = "a chat message written out as text, whose content cannot be read"
        raise LoggedMessageError(msg)
    return fields


_NEXT_FIELD: Final = {
    sep: re.compile(re.escape(sep) + _FIELD_NAME.pattern) for sep in (" ", ", ")
}


def _ends(body: str, sep: str, start: int) -> list[re.Match[str]]:
    """Where a value that starts at ``start`` may end: before the next field."""
    found: list[re.Match[str]] = []
    for match in _NEXT_FIELD[sep].finditer(body, start):
        found.append(match)
        if len(found) >= MAX_TRIES - 1:
            break
    return found
