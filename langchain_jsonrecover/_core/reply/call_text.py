"""Where a reply's text is a tool call, and its content once the calls are out.

Pure functions on ``str``; no LangChain imports.

Text becomes a call in two cases only (issue 21): the call sits in the
model's own call markup (read by :mod:`~langchain_jsonrecover._core.reply.markup`), or
the whole visible content (reasoning, markup and whitespace aside) is call
envelopes, bare or in one fence with nothing else. :func:`whole_body` finds
that body; a call mentioned, negated, proposed or quoted in prose is not one.
:func:`take_out` gives the content without the calls and their markup, and
without a fence that held only them.
"""

from __future__ import annotations

import json
import re
from typing import Final

_NON_SPACE: Final = re.compile(r"\S")
_FENCE_OPEN: Final = re.compile(r"```[\w+\-.]{0,20}[ \t]*+\r?\n")
_EMPTY_FENCE: Final = re.compile(r"```[\w+\-.]{0,20}\s*+```")
_FENCE_LINE: Final = re.compile(r"^[ \t]*+```[\w+\-.]{0,20}[ \t]*+$", re.MULTILINE)
"""A fence's opening or closing line."""
_START_TOKEN: Final = re.compile(r"\s*+<s>")
"""The token that opens a sequence (Llama 2, Mistral), left in the content."""
CALL_HINT: Final = re.compile(r'"(?:arguments|parameters)"\s*+:')
"""A member that only a call envelope holds: a call may be written there."""
KEY_VALUE_HINT: Final = re.compile(
    r'<parameter(?:=|\s++name=")|</parameter>|</?arg_(?:key|value)>'
)
"""A piece of a key/value call form (Qwen3-Coder, ``<invoke>``, GLM) left in
the text once the calls are read: a call the readers ended early (a value
holding ``</function>``), whose arguments would then be cut or lost."""
_JSON_PIECE: Final = re.compile(r'"((?:[^"\\]++|\\.)*+)"\s*+(:)?|[\[\]{}]')


def whole_body(text: str) -> tuple[int, int, int, int] | None:
    r"""The JSON body of a text that is nothing else, bare or in one fence.

    Args:
        text: The visible text (reasoning and markup blanked, offsets kept).

    Returns:
        ``(body_start, body_end, start, end)``: the body, and the span the
        content loses with it (the fence included); ``None`` when the text
        holds anything beside one such body.

    Example:
        >>> whole_body('  ```json\n{"a": 1}\n```\n')
        (10, 18, 2, 22)
        >>> whole_body('Let me check: {"a": 1}') is None
        True
    """
    first = _NON_SPACE.search(text)
    if first is None:
        return None
    start = first.start()
    end = len(text.rstrip())
    if text.startswith("```", start):
        fence = _FENCE_OPEN.match(text, start)
        if fence is None or end - 3 < fence.end() or not text.endswith("```", 0, end):
            return None
        inner_start, inner_end = fence.end(), end - 3
        if text.find("```", inner_start, inner_end) >= 0:
            return None  # more than one fence
        body = _NON_SPACE.search(text, inner_start, inner_end)
        if body is None:
            return None
        body_end = len(text[:inner_end].rstrip())
        return _if_bracketed(text, body.start(), body_end, start, end)
    return _if_bracketed(text, start, end, start, end)


def _if_bracketed(
    text: str, begin: int, stop: int, start: int, end: int
) -> tuple[int, int, int, int] | None:
    if text[begin] not in "[{":
        return None
    return begin, stop, start, end


def take_out(content: str, spans: list[tuple[int, int]]) -> str:
    r"""The content without ``spans`` (merged, in order), and no markup left.

    Left out with the calls: a fence that held only them (both its lines, or
    the one line of a fence they left unclosed, at the content's start or
    end), the ``<s>`` token that opens the reply and the ``</s>`` that ends it.

    Example:
        >>> take_out('Sure.\n```json\n<tool_call>{}</tool_call>\n```', [(14, 39)])
        'Sure.'
        >>> take_out('<s>```\n<tool_call>{}</tool_call>', [(7, 32)])
        ''
    """
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts.append(content[last:start])
        last = max(last, end)
    parts.append(content[last:])
    left = "".join(parts)
    if _START_TOKEN.match(left) is not None and _START_TOKEN.match(content):
        left = left.lstrip()[3:]
    if left.rstrip().endswith("</s>") and content.rstrip().endswith("</s>"):
        left = left.rstrip()[:-4]
    if "```" in left:
        left = _EMPTY_FENCE.sub("", left)
        fences = list(_FENCE_LINE.finditer(left))
        if len(fences) % 2 == 1:
            opening, closing = fences[0], fences[-1]
            if not left[closing.end() :].strip():
                left = left[: closing.start()]
            elif not left[: opening.start()].strip():
                left = left[opening.end() :]
    return left.strip()


def duplicate_key(text: str) -> str | None:
    r"""A key written twice in one object of the JSON text, if any.

    JSON decoders keep one of the two values (the last, mostly); the text
    wrote both, so reading either would change the call. Keys are read as
    double-quoted strings followed by ``:``, strings skipped, so the text may
    be broken elsewhere.

    Example:
        >>> duplicate_key('{"path": "/tmp/x", "path": "/"}')
        'path'
        >>> duplicate_key('{"a": {"b": 1}, "b": "{\\"a\\": 1}"}') is None
        True
    """
    if text.count(":") < 2:
        return None
    seen: list[set[str] | None] = []
    for piece in _JSON_PIECE.finditer(text):
        char = text[piece.start()]
        if char in "{[":
            seen.append(set() if char == "{" else None)
        elif char in "}]":
            if seen:
                seen.pop()
        elif piece.group(2) and seen and seen[-1] is not None:
            key = piece.group(1)
            if key in seen[-1]:
                return _unescape(key)
            seen[-1].add(key)
    return None


def _unescape(key: str) -> str:
    try:
        value = json.loads(f'"{key}"')
    except ValueError:
        return key
    return value if isinstance(value, str) else key
