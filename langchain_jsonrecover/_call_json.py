"""Tool calls whose body is JSON: where the body ends, and the envelopes it holds.

Pure functions on ``str``; no LangChain imports.

Also the records every form's reader returns (:class:`FoundCall`,
:class:`Found`) and the small matchers the readers share. A body is read with
orjson while a budget (twice the reply's length) lasts, then by counting
brackets outside strings, so many bodies in a row stay linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Self

import orjson

from langchain_jsonrecover._markup_tokens import JSON_RUN, TO_TOKEN, spell_deepseek

_WINDOW: Final = 512
_TRAILING: Final = "unexpected content after document"
_SPACE: Final = re.compile(r"\s*+")
_ENVELOPE_HEAD: Final = re.compile(
    r'\{\s*+(?:"type"\s*+:\s*+"function"\s*+,\s*+)?+"(?:name|tool_name)"\s*+:\s*+'
    r'"((?:[^"\\\n]|\\.){0,300})"\s*+,\s*+"(?:arguments|parameters)"\s*+:\s*+'
)
_NAME_KEYS: Final = ("name", "tool_name")
_ARGUMENT_KEYS: Final = ("arguments", "parameters")
CLOSERS: Final = {
    "tool_call": re.compile(r"\s*+</tool_call>"),
    "deepseek": re.compile(r"\s*+" + spell_deepseek("tool call end")),
    "kimi": re.compile(r"\s*+<\|tool_call_end\|>"),
    "cohere": re.compile(r"\s*+<\|END_ACTION\|>"),
    "function": re.compile(r"\s*+</function>"),
    "function_call": re.compile(r"\s*+</function_?call>"),
}


class FoundCall(NamedTuple):
    """A tool call as a form's reader found it.

    :class:`~langchain_jsonrecover._markup.MarkupCall`, the record callers
    get, is made from it (same fields, same meaning).
    """

    name: str
    arguments: str
    start: int
    end: int
    closed: bool


@dataclass(frozen=True, slots=True)
class Found:
    calls: list[FoundCall]
    blanks: list[tuple[int, int]]
    end: int


class ScanText(str):  # noqa: SLOT000 - str subtypes cannot have non-empty __slots__
    """The reply being scanned, with what orjson may still be handed.

    orjson finds where a clean value ends at C speed, but each try copies the
    text from the opener on; the budget (twice the reply's length) keeps many
    tries in a row linear, after which brackets are counted in Python.
    """

    budget: int

    def __new__(cls, text: str) -> Self:
        made = super().__new__(cls, text)
        made.budget = 2 * len(text) + 1024
        return made


def _json_end(text: ScanText, start: int, stop: int | None = None) -> int | None:
    """The end of the bracketed value at ``start``, or ``None`` if it is cut.

    A token outside strings, or ``stop``, also ends the search: the scan never
    reads past the next markup, so many cut bodies in a row stay linear.
    """
    limit = len(text) if stop is None else stop
    if limit - start <= text.budget:
        text.budget -= limit - start
        end = find_clean_end(text, start, limit)
        if end is not None:
            return end
    depth = 0
    pos = start
    while pos < limit:
        run = JSON_RUN.match(text, pos, limit)
        if run is None or run.start("stop") < 0:
            return None
        begin, pos = run.span("stop")
        if pos - begin > 1:
            return None  # a token
        if text[begin] in "[{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return pos
    return None


def find_clean_end(text: str, start: int, limit: int) -> int | None:
    """Where a strictly valid JSON value at ``start`` ends, read by orjson."""
    try:
        orjson.loads(text[start:limit])
    except orjson.JSONDecodeError as exc:
        if not exc.msg.startswith(_TRAILING):
            return None
        end = start + exc.pos
    else:
        end = limit
    while text[end - 1].isspace():
        end -= 1
    return end


def _next_token(text: str, start: int) -> int:
    """The offset of the next token outside strings at or after ``start``."""
    run = TO_TOKEN.match(text, start)
    return start if run is None else run.end()


def _body(text: ScanText, start: int) -> tuple[int, int, bool] | None:
    """A JSON body from ``start`` (after spaces): its span, and whether it closed.

    A body that does not close runs to the next token outside strings, or to
    the reply's end (then it is cut). ``None`` when no bracket opens it.
    """
    begin = skip_space(text, start)
    if begin >= len(text) or text[begin] not in "[{":
        return None
    end = _json_end(text, begin)
    if end is not None:
        return begin, end, True
    stop = _next_token(text, begin)
    end = max(begin, len(text[begin:stop].rstrip()) + begin)
    return begin, end, stop < len(text)


def _unpack(
    text: ScanText, begin: int, end: int, closed: bool
) -> list[tuple[str, str, bool]]:
    """A body's calls: ``(name, arguments, closed)`` for each envelope."""
    if text[begin] == "[":
        items = _array_envelopes(text, begin, end)
        if items is not None:
            return items
    elif (one := _envelope(text, begin, end)) is not None:
        return [one]
    return [("", text[begin:end], closed)]


def _array_envelopes(
    text: ScanText, begin: int, end: int
) -> list[tuple[str, str, bool]] | None:
    items: list[tuple[str, str, bool]] = []
    pos = skip_space(text, begin + 1)
    while pos < end and text[pos] == "{":
        stop = _json_end(text, pos, end)
        one = _envelope(text, pos, end if stop is None else stop)
        if one is None:
            return None
        items.append(one)
        if stop is None:
            return items
        pos = skip_space(text, stop)
        if pos < end and text[pos] == ",":
            pos = skip_space(text, pos + 1)
        elif pos < end and text[pos] == "]":
            return items
    return items or None


def _envelope(text: ScanText, begin: int, end: int) -> tuple[str, str, bool] | None:
    """``(name, arguments, closed)`` of a ``{"name": …, "arguments": …}`` object."""
    head = _ENVELOPE_HEAD.match(text, begin, end)
    if head is not None:
        name = _json_string(head.group(1))
        at = head.end()
        if at < end and text[at] in "[{":
            stop = _json_end(text, at, end)
            if stop is None:
                return name, text[at:end].rstrip(), False
            return name, text[at:stop], True
    try:
        value = orjson.loads(text[begin:end])
    except orjson.JSONDecodeError:
        return None
    return _decoded_envelope(value)


def _decoded_envelope(value: Any) -> tuple[str, str, bool] | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = next((value[k] for k in _NAME_KEYS if isinstance(value.get(k), str)), None)
    key = next((k for k in _ARGUMENT_KEYS if k in value), None)
    if name is None or key is None:
        return None
    arguments = value[key]
    if isinstance(arguments, str):
        return name, arguments, True
    return name, orjson.dumps(arguments).decode(), True


def _json_string(raw: str) -> str:
    try:
        decoded = orjson.loads(f'"{raw}"')
    except orjson.JSONDecodeError:
        return raw
    return decoded if isinstance(decoded, str) else raw


def read_json_call(
    text: ScanText, start: int, after: int, closer: str | None, name: str | None
) -> Found | None:
    """A call whose body is JSON: an envelope (``name`` None) or arguments."""
    body = _body(text, after)
    if body is None:
        return None
    begin, end, closed = body
    stop = end
    close = None if closer is None else match_head(CLOSERS[closer], text, end)
    if close is not None:
        stop = close.end()
        closed = True
    if name is None:
        found = _unpack(text, begin, end, closed)
    else:
        found = [(name, text[begin:end], closed)]
    calls = [FoundCall(n, args, start, stop, done) for n, args, done in found]
    blanks = [(start, begin)]
    if stop > end:
        blanks.append((end, stop))
    return Found(calls, blanks, stop)


def match_head(pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
    """Match a bounded piece of markup at ``pos``, after any spaces.

    Every such pattern reads at most a few hundred characters, so the match
    is given a window of that size: a miss costs little, however long the
    reply.
    """
    start = skip_space(text, pos)
    return pattern.match(text, start, start + _WINDOW)


def skip_space(text: str, pos: int) -> int:
    """The offset of the first non-space character at or after ``pos``."""
    space = _SPACE.match(text, pos)
    return pos if space is None else space.end()
