"""A log record: where its reply is, what a logged message says, the row it gives.

Pure functions on decoded JSON; no LangChain imports. A *record* is what one
log line decodes to: the reply itself, or an object holding it at a dotted
path (digits index lists). What lies there is a reply string, or a message
(a dict, or either written out as text: ``logged``) whose fields
:func:`find_reply` checks and gives as a :class:`LoggedMessage`. The
command line reads a :attr:`~LoggedMessage.plain` message here (its text, its
refusal, its token-limit stop); ``records`` turns any message into
LangChain's ``AIMessage``, which reads content blocks and providers' metadata
too. Both write the same rows: ``{"line", "ok", "value", "error",
"repairs", "cut_off"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

from langchain_jsonrecover._core.reply.logged import (
    LoggedMessageError,
    read_logged_message,
    unwrap_message,
)

ROW_KEYS: Final = ("line", "ok", "value", "error", "repairs", "cut_off")
"""The keys of a row, in order."""

BAD_RECORD: Final = "BadRecord"
MALFORMED_LINE: Final = "MalformedLine"
REFUSED: Final = "ModelRefusalError"
"""The kind of a refusal's row: langchain-core's error."""

_UTF8_BOM: Final = b"\xef\xbb\xbf"
_LENGTH_STOPS: Final[dict[str, frozenset[str]]] = {
    "finish_reason": frozenset({"length", "MAX_TOKENS"}),
    "stop_reason": frozenset({"max_tokens"}),
    "stopReason": frozenset({"max_tokens"}),
    "done_reason": frozenset({"length"}),
}


class NoReplyError(ValueError):
    """The record holds no reply at the path."""


@dataclass(frozen=True, slots=True)
class LoggedMessage:
    """A message's fields as ``AIMessage`` takes them, checked.

    Example:
        >>> message = find_reply({"role": "assistant", "refusal": "No."}, None)
        >>> message.content, message.refusal
        ('', 'No.')
    """

    content: str | list[Any]
    additional_kwargs: dict[Any, Any]
    response_metadata: Any
    """As logged (``{}`` for a missing or empty one); ``AIMessage`` checks it."""
    where: str
    """Where it lies in the record, in words (for an error)."""

    @property
    def plain(self) -> bool:
        """Whether this module reads the message as ``AIMessage`` does.

        Text or text blocks, string keys, no provider's translator (which
        reads refusals from the metadata), no tool calls to parse: then the
        text, the refusal and the token-limit stop below are LangChain's.
        """
        metadata = self.response_metadata
        extra = self.additional_kwargs
        return (
            type(metadata) is dict
            and all(type(key) is str for key in metadata)
            and not metadata.get("model_provider")
            and all(type(key) is str for key in extra)
            and not extra.get("tool_calls")
            and (
                isinstance(self.content, str)
                or all(_is_text(item) for item in self.content)
            )
        )

    @property
    def text(self) -> str:
        """The text the parsers read: the content, or its text blocks joined."""
        if isinstance(self.content, str):
            return self.content
        return "".join(
            item if isinstance(item, str) else item["text"] for item in self.content
        )

    @property
    def refusal(self) -> str | None:
        """The refusal's text (OpenAI's ``refusal``), or ``None``."""
        refusal = self.additional_kwargs.get("refusal")
        return refusal if isinstance(refusal, str) and refusal.strip() else None

    @property
    def cut_off(self) -> bool:
        """Whether the metadata says the model stopped at its token limit."""
        metadata = self.response_metadata
        return isinstance(metadata, Mapping) and stopped_at_token_limit(metadata)


def _is_text(item: Any) -> bool:
    return isinstance(item, str) or (
        isinstance(item, dict)
        and item.get("type") == "text"
        and isinstance(item.get("text"), str)
        and "source_type" not in item
    )


def stopped_at_token_limit(metadata: Mapping[str, Any]) -> bool:
    """Whether a reply's metadata says the model stopped at its token limit.

    Covers OpenAI (``finish_reason == "length"``), OpenAI Responses
    (``incomplete_details.reason == "max_output_tokens"``), Anthropic
    (``stop_reason == "max_tokens"``), Gemini (``finish_reason ==
    "MAX_TOKENS"``), Bedrock (``stopReason == "max_tokens"``) and Ollama
    (``done_reason == "length"``).

    Args:
        metadata: A message's ``response_metadata`` or a generation's
            ``generation_info``.

    Returns:
        ``True`` when the reply was cut off.

    Example:
        >>> stopped_at_token_limit({"finish_reason": "length"})
        True
    """
    for key, values in _LENGTH_STOPS.items():
        if metadata.get(key) in values:
            return True
    details = metadata.get("incomplete_details")
    return isinstance(details, Mapping) and details.get("reason") == "max_output_tokens"


def decode_line(data: bytes) -> tuple[Any, str | None]:
    """A JSONL line's record, or why the line is malformed.

    A UTF-8 byte-order mark at its start is dropped.

    Example:
        >>> decode_line(b'"Sure: [1]"')
        ('Sure: [1]', None)
        >>> decode_line(b"")
        (None, 'an empty line, not a JSON record')
    """
    try:
        return orjson.loads(data.removeprefix(_UTF8_BOM)), None
    except orjson.JSONDecodeError as exc:
        if not data.strip():
            return None, "an empty line, not a JSON record"
        return None, f"the line is not JSON: {exc.msg} (character {exc.pos + 1})"


def failed_row(
    line: int | None, kind: str, message: str, *, cut_off: bool = False
) -> dict[str, Any]:
    """A row for a record that gave no value.

    Example:
        >>> failed_row(3, BAD_RECORD, "no reply")["error"]
        {'kind': 'BadRecord', 'message': 'no reply'}
    """
    return {
        "line": line,
        "ok": False,
        "value": None,
        "error": {"kind": kind, "message": message},
        "repairs": [],
        "cut_off": cut_off,
    }


def value_row(
    line: int | None, value: Any, repairs: tuple[str, ...], *, cut_off: bool
) -> dict[str, Any]:
    """A row for a record that gave ``value`` (JSON data).

    Example:
        >>> value_row(1, [1], ("prose_trimmed",), cut_off=False)["repairs"]
        ['prose_trimmed']
    """
    return {
        "line": line,
        "ok": True,
        "value": value,
        "error": None,
        "repairs": list(repairs),
        "cut_off": cut_off,
    }


def dump_json(data: Any) -> bytes:
    """Compact JSON for a row or a value (integers of any size kept).

    Example:
        >>> dump_json({"a": [1, 2**70]})
        b'{"a":[1,1180591620717411303424]}'
    """
    try:
        return orjson.dumps(data)
    except TypeError:
        # orjson refuses integers beyond 64 bits; pydantic-core writes them.
        import pydantic_core  # noqa: PLC0415 - start-up: the rare value only

        return pydantic_core.to_json(data, fallback=str)


def walk(record: Any, field: str | None) -> tuple[Any, str]:
    """What lies at a dotted path in a record, and where that is, in words.

    Raises:
        NoReplyError: The path leads nowhere.

    Example:
        >>> walk({"choices": [{"message": "x"}]}, "choices.0.message")
        ('x', "at 'choices.0.message'")
    """
    target = record
    if field is not None:
        walked: list[str] = []
        for part in field.split("."):
            target = _step_into(target, part, walked)
            walked.append(part)
    return target, f"at {field!r}" if field is not None else "in the record"


def find_reply(record: Any, field: str | None) -> str | LoggedMessage:
    """The reply held in a record at a dotted path: its text, or a message.

    Raises:
        NoReplyError: No reply lies there.

    Example:
        >>> find_reply({"reply": 'Sure: {"a": 1}'}, "reply")
        'Sure: {"a": 1}'
    """
    return read_reply(*walk(record, field))


def read_reply(target: Any, where: str) -> str | LoggedMessage:
    """A found value as a reply: a string, or a message (a dict, or one as text).

    Raises:
        NoReplyError: The value is no reply.
    """
    if isinstance(target, str):
        try:
            logged = read_logged_message(target)
        except LoggedMessageError as exc:
            raise NoReplyError(f"{exc} {where}") from None
        if logged is None:
            return target
        return read_message(logged, f"{where} (a message written as text)")
    if isinstance(target, Mapping):
        return read_message(unwrap_message(target), where)
    msg = (
        f"{describe_kind(target)} {where}, not a reply (a string, or a message dict "
        "with 'content')"
    )
    raise NoReplyError(msg)


def _step_into(target: Any, part: str, walked: list[str]) -> Any:
    where = ".".join(walked) or "the record"
    if isinstance(target, Mapping):
        if part in target:
            return target[part]
        keys = ", ".join(repr(k) for k in list(target)[:8])
        msg = f"no key {part!r} in {where} (keys: {keys or 'none'})"
        raise NoReplyError(msg)
    if isinstance(target, list) and part.lstrip("-").isdigit():
        try:
            return target[int(part)]
        except IndexError:
            msg = f"no item {part} in {where} (a list of {len(target)})"
            raise NoReplyError(msg) from None
    msg = f"cannot take {part!r} of {where}: it is {describe_kind(target)}"
    raise NoReplyError(msg)


def read_message(fields: Mapping[str, Any], where: str) -> LoggedMessage:
    """A message's fields, checked: content (or a refusal) and their types.

    Raises:
        NoReplyError: No content, or content or ``additional_kwargs`` of
            the wrong kind.
    """
    if "content" not in fields and "refusal" not in fields:
        keys = ", ".join(repr(k) for k in list(fields)[:8])
        msg = (
            f"an object {where} with no 'content' (keys: {keys or 'none'}); "
            "give the path to the reply"
        )
        raise NoReplyError(msg)
    content = fields.get("content")
    extra_fields = fields.get("additional_kwargs") or {}
    if not isinstance(extra_fields, Mapping):
        msg = (
            f"the message {where} has {describe_kind(extra_fields)} as "
            "additional_kwargs, not an object"
        )
        raise NoReplyError(msg)
    extra = dict(extra_fields)
    refusal = fields.get("refusal")  # OpenAI's message: beside the content
    if isinstance(refusal, str) and refusal.strip():
        extra.setdefault("refusal", refusal)
        if content is None:
            content = ""
    if not isinstance(content, str | list):
        msg = (
            f"the message {where} has {describe_kind(content)} as content, "
            "not text or content blocks"
        )
        raise NoReplyError(msg)
    return LoggedMessage(content, extra, fields.get("response_metadata") or {}, where)


def describe_kind(value: Any) -> str:
    """A value's kind, in words.

    Example:
        >>> describe_kind(None), describe_kind([1]), describe_kind(b"x")
        ('null', 'a list', 'a bytes')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"
