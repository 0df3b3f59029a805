r"""Close JSON that the token limit cut off.

Pure functions on ``str``; no LangChain imports.

The closing itself is pydantic-core's partial JSON parser
(``from_json(text, allow_partial="trailing-strings")``, a well-kept Rust
parser): an unfinished string keeps its prefix, an unfinished key or a key
without a value is dropped, an unfinished literal (``tr``, ``nul``, ``1.``,
``-``) is dropped, a number keeps its digits, open containers are closed.

Around it: raw control characters are escaped first (as the strict decoder
tolerates them); Normandy's opt-in rule trims a runaway of ``\n`` escapes
from a string cut at depth 1; and a cut the parser cannot close (inside a
``\u`` escape, say) falls back to the longest prefix that closes, found from
the parser's own error position, never by trying every prefix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

import pydantic_core

from langchain_jsonrecover._decode import (
    DecodeFailure,
    escape_control_characters,
    within_depth,
)

_TOKENS: Final = re.compile(r'[\[\]{}"]')
_STRING_REST: Final = re.compile(r'(?:[^"\\]++|\\.)*+"', re.DOTALL)
_RUNAWAY: Final = re.compile(r"(?:\\[nr])+\\?\Z|\\\Z")
_POSITION: Final = re.compile(r"at line (\d+) column (\d+)")
_STRUCTURAL: Final = re.compile(r'[\[\]{}":,]')
_RECURSION: Final = "recursion limit"
_RETRIES: Final = 3


@dataclass(frozen=True, slots=True)
class Closed:
    """A truncated text, closed."""

    value: Any
    repairs: tuple[str, ...]


def close_truncated(
    text: str, *, max_depth: int, trim_runaway_newlines: bool = False
) -> Closed | DecodeFailure:
    r"""Close a JSON text that stops before its value does.

    Args:
        text: The candidate text, from its opening bracket to the cut.
        max_depth: Deeper nesting is a failure.
        trim_runaway_newlines: Normandy's rule: a string cut at depth 1 ends
            after its last character that is not part of a ``\n``/``\r``
            escape run.

    Returns:
        The closed value and the repairs made, or why it cannot be closed.

    Example:
        >>> close_truncated('{"items": [{"a": 1}, {"b"', max_depth=200).value
        {'items': [{'a': 1}, {}]}
        >>> close_truncated('{"page": "Hi\\n\\n\\n', max_depth=200,
        ...                 trim_runaway_newlines=True).value
        {'page': 'Hi'}
    """
    repairs: list[str] = []
    escaped = escape_control_characters(text)
    if escaped.at:
        text = escaped.text
        repairs.append("control_characters_escaped")
    if trim_runaway_newlines:
        trimmed = _trim_runaway(text)
        if trimmed is not None:
            text = trimmed
            repairs.append("runaway_newlines_trimmed")
    repairs.append("truncation_closed")
    for _ in range(_RETRIES + 1):
        try:
            value = pydantic_core.from_json(text, allow_partial="trailing-strings")
        except ValueError as exc:
            message = str(exc)
            pos = _offset(text, message)
            if _RECURSION in message:
                return DecodeFailure("too_deep", pos or 0, "more than 200 levels")
            if pos is None or pos == 0 or not error_at_cut(text, pos):
                # Not a cut the parser stumbles on: a real error before the end.
                return DecodeFailure("invalid", pos or 0, _reason(message))
            text = text[:pos]
            continue
        if not within_depth(text, value, max_depth):
            return DecodeFailure("too_deep", 0, f"more than {max_depth} levels")
        return Closed(value, tuple(repairs))
    return DecodeFailure("invalid", len(text), "cannot be closed")


def error_at_cut(text: str, pos: int) -> bool:
    """Whether a decoder error at ``pos`` is the cut itself, not a syntax error.

    Only the last token may be broken by a cut: after the error there must be
    no structural character (``,:{}[]"``).

    Example:
        >>> error_at_cut('[1, 2, nul', 7), error_at_cut('{"a" 1, "b": [', 5)
        (True, False)
    """
    return _STRUCTURAL.search(text, pos + 1) is None


def _trim_runaway(text: str) -> str | None:
    r"""Trim a run of ``\n``/``\r`` escapes ending a string cut at depth 1."""
    depth = 0
    pos = 0
    while True:
        token = _TOKENS.search(text, pos)
        if token is None:
            return None
        char = token.group()
        if char == '"':
            rest = _STRING_REST.match(text, token.end())
            if rest is None:
                if depth != 1:
                    return None
                runaway = _RUNAWAY.search(text, token.end())
                return None if runaway is None else text[: runaway.start()]
            pos = rest.end()
            continue
        depth += 1 if char in "[{" else -1
        pos = token.end()


def _offset(text: str, message: str) -> int | None:
    """The offset pydantic-core's ``line L column C`` points at."""
    found = _POSITION.search(message)
    if found is None:
        return None
    line, column = int(found.group(1)), int(found.group(2))
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    return min(start + max(column - 1, 0), len(text))


def _reason(message: str) -> str:
    return _POSITION.sub("", message).strip().rstrip(",")
