"""Find the JSON-like spans of a reply: balanced brackets in prose.

Pure functions on ``str``; no LangChain imports.

One pass, one stack, no recursion. A bracket opens a frame, classified by the
first character after it:

- ``JSON``: plainly JSON (``{"``, ``{}``, ``[1``, ``["``, ``[{``, ``[true`` …);
- ``MAYBE``: an object with a bare or single-quoted first key (``{name: …``);
  JSON-like only if a ``:`` turns up at its own depth;
- ``PROSE``: anything else (``{1, 2, 3}``, ``{name}``, ``[citation]``).

JSON-like spans that no JSON-like span encloses are the candidates. Strings are
tracked inside JSON-like frames only, so an apostrophe or a stray quote in prose
cannot hide the JSON after it.

A candidate root is first handed to the decoder as it stands: orjson reads a
clean value at C speed and says where it ends, and the scan resumes there. The
text handed over is bounded by a budget proportional to the input, which keeps
the whole scan linear however many candidates the reply holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from langchain_jsonrecover._decode import Decoded, DecodeFailure, decode

JSON: Final = 0
MAYBE: Final = 1
PROSE: Final = 2

_OPENERS: Final = re.compile(r"[\[{]")
_PROSE_TOKENS: Final = re.compile(r"[\[\]{}]")
_JSON_TOKENS: Final = re.compile(r'[\[\]{}"]|//|/\*|#')
_MAYBE_TOKENS: Final = re.compile(r'[\[\]{}":]|//|/\*|#')
_JSON_TOKENS_SQ: Final = re.compile(r"[\[\]{}\"']|//|/\*|#")
_MAYBE_TOKENS_SQ: Final = re.compile(r"[\[\]{}\":']|//|/\*|#")
_SQ_STRING_REST: Final = re.compile(r"(?:[^'\\]++|\\.)*+'", re.DOTALL)
# A comment in almost-JSON hides its brackets: to the line's end, or to */.
_COMMENT_END: Final = {"//": "\n", "#": "\n", "/*": "*/"}
_STRING_REST: Final = re.compile(r'(?:[^"\\]++|\\.)*+"', re.DOTALL)
_SPACE: Final = re.compile(r"\s*")
_LITERALS: Final = ("true", "false", "null")


@dataclass(frozen=True, slots=True)
class Span:
    """A JSON-like span: a candidate for decoding."""

    start: int
    """Offset of the opening bracket."""
    end: int
    """Offset just after the closing bracket, or the scan's limit if unclosed."""
    closed: bool
    """Whether the span's brackets balance before the scan's limit."""
    is_object: bool
    """``{`` rather than ``[``."""
    empty: bool
    """Nothing but whitespace between the brackets."""
    decoded: Decoded | None = None
    """The value, when the scan already decoded it (offsets relative to ``start``)."""
    cut: DecodeFailure | None = None
    """The decoder's verdict when it ran out of text inside this span: the
    span holds a cut-off value and runs to the limit (no scan was needed)."""


class _Frame:
    __slots__ = (
        "char",
        "empty",
        "has_colon",
        "in_json",
        "mark",
        "mode",
        "squote",
        "start",
        "strings",
    )

    def __init__(  # noqa: PLR0917
        self,
        start: int,
        char: str,
        mode: int,
        empty: bool,
        mark: int,
        in_json: bool,
        strings: bool,
    ) -> None:
        self.start = start
        self.char = char
        self.mode = mode
        self.empty = empty
        self.mark = mark
        self.in_json = in_json
        self.strings = strings
        self.squote = False
        self.has_colon = False


def classify(text: str, start: int, limit: int) -> tuple[int, bool]:
    """Classify the bracket at ``start`` by what follows it.

    Args:
        text: The reply.
        start: Offset of a ``{`` or ``[``.
        limit: Where the scan stops.

    Returns:
        The frame kind (``JSON``, ``MAYBE`` or ``PROSE``) and whether the
        brackets enclose nothing.

    Example:
        >>> classify("{1, 2}", 0, 6)
        (2, False)
    """
    space = _SPACE.match(text, start + 1, limit)
    j = space.end() if space else start + 1
    nxt = text[j] if j < limit else ""
    if text[start] == "{":
        if nxt in {'"', ""}:
            return JSON, False
        if nxt == "}":
            return JSON, True
        if nxt in {"'", "_"} or nxt.isalpha():
            return MAYBE, False
        return PROSE, False
    if nxt == "]":
        return JSON, True
    if nxt in '"{[-' or nxt.isdigit() or nxt == "'":
        return JSON, False
    if text.startswith(_LITERALS, j) or (
        limit - j < 5 and any(lit.startswith(text[j:limit]) for lit in _LITERALS)
    ):
        return JSON, False  # a literal, or the start of one cut by the limit
    return PROSE, False


def find_spans(
    text: str, lo: int, hi: int, *, max_depth: int, budget: list[int]
) -> list[Span]:
    """List the candidate spans of ``text[lo:hi]`` in text order.

    Args:
        text: The reply (reasoning masked).
        lo: Where to start.
        hi: Where to stop; a span still open there is unclosed.
        max_depth: Passed to the decoder for spans decoded during the scan.
        budget: A one-item list: how many characters the scan may still hand
            to the decoder untrimmed (shared across calls on one reply).

    Returns:
        JSON-like spans that no JSON-like span encloses.

    Example:
        >>> [(s.start, s.end) for s in find_spans('see [1]. {"a": {"b": 2}}', 0, 24,
        ...                                       max_depth=9, budget=[99])]
        [(4, 7), (9, 24)]
    """
    spans: list[Span] = []
    stack: list[_Frame] = []
    open_count = {"{": 0, "[": 0}
    pos = lo
    while True:
        if not stack:
            found = _OPENERS.search(text, pos, hi)
            if found is None:
                return spans
            i, char = found.start(), found.group()
        else:
            top = stack[-1]
            if not top.strings:
                pattern = _PROSE_TOKENS
            elif top.mode == MAYBE:
                pattern = _MAYBE_TOKENS_SQ if top.squote else _MAYBE_TOKENS
            else:
                pattern = _JSON_TOKENS_SQ if top.squote else _JSON_TOKENS
            found = pattern.search(text, pos, hi)
            if found is None:
                break
            i, char = found.start(), found.group()
            if char in "\"'":
                rest = (_STRING_REST if char == '"' else _SQ_STRING_REST).match(
                    text, i + 1, hi
                )
                if rest is None:
                    break
                pos = rest.end()
                continue
            if char in _COMMENT_END:
                close = _COMMENT_END[char]
                end = text.find(close, i + len(char), hi)
                if end < 0:
                    break
                pos = end + len(close)
                continue
            if char == ":":
                top.has_colon = True
                pos = i + 1
                continue
            if char in "]}":
                want = "{" if char == "}" else "["
                pos = i + 1
                if (top.in_json or top.mode == JSON) and top.char != want:
                    # Inside JSON a wrong closer is a typo for the right one
                    # (or closes what was left open): it closes the top frame
                    # only, so the enclosing value keeps its real extent.
                    frame = stack.pop()
                    open_count[frame.char] -= 1
                    _finish(frame, spans, i + 1, closed=False)
                elif open_count[want]:
                    while True:
                        frame = stack.pop()
                        open_count[frame.char] -= 1
                        matched = frame.char == want
                        _finish(frame, spans, i + 1, closed=matched)
                        if matched:
                            break
                continue
        mode, empty = classify(text, i, hi)
        in_json = bool(stack) and (stack[-1].in_json or stack[-1].mode == JSON)
        if mode == JSON and not in_json and not empty and budget[0] >= hi - i:
            budget[0] -= hi - i
            result = decode(text[i:hi], max_depth=max_depth, allow_trailing=True)
            if isinstance(result, DecodeFailure) and result.kind == "truncated":
                # Valid JSON up to the limit: the span runs to it, and the
                # frames around it close there too.
                spans.append(
                    Span(
                        i,
                        hi,
                        closed=False,
                        is_object=char == "{",
                        empty=False,
                        cut=result,
                    )
                )
                break
            if isinstance(result, Decoded):
                spans.append(
                    Span(
                        i,
                        i + result.end,
                        closed=True,
                        is_object=char == "{",
                        empty=False,
                        decoded=result,
                    )
                )
                pos = i + result.end
                continue
        strings = mode != PROSE or (bool(stack) and stack[-1].strings)
        frame = _Frame(i, char, mode, empty, len(spans), in_json, strings)
        # A dict written with single quotes (Python style): its strings are
        # quoted that way, and may hold brackets.
        space = _SPACE.match(text, i + 1, hi)
        after = space.end() if space else i + 1
        frame.squote = text.startswith("'", after) or (bool(stack) and stack[-1].squote)
        stack.append(frame)
        open_count[char] += 1
        pos = i + 1
    while stack:
        _finish(stack.pop(), spans, hi, closed=False)
    return spans


def _finish(frame: _Frame, spans: list[Span], end: int, *, closed: bool) -> None:
    """Close a frame: a JSON-like root replaces the candidates inside it."""
    if frame.in_json:
        return
    if frame.mode == PROSE or (frame.mode == MAYBE and not frame.has_colon):
        return
    del spans[frame.mark :]
    spans.append(
        Span(frame.start, end, closed, frame.char == "{", frame.empty and closed)
    )


def json_extent(text: str, start: int) -> int | None:
    """Where a plainly-JSON span starting at ``start`` ends (string-aware).

    Used to keep backticks inside the strings of a reply that is JSON from
    being taken for a fence.

    Args:
        text: The reply.
        start: Offset of a ``{`` or ``[``.

    Returns:
        The offset just after its closing bracket, the reply's length when it
        never closes, or ``None`` when the bracket does not open plain JSON.

    Example:
        >>> json_extent('{"a": "```"} and more', 0)
        12
    """
    mode, _ = classify(text, start, len(text))
    if mode != JSON:
        return None
    depth = 0
    pos = start
    while True:
        found = _JSON_TOKENS.search(text, pos)
        if found is None:
            return len(text)
        char = found.group()
        if char == '"':
            rest = _STRING_REST.match(text, found.end())
            if rest is None:
                return len(text)
            pos = rest.end()
            continue
        if char in _COMMENT_END:
            close = _COMMENT_END[char]
            end = text.find(close, found.end())
            if end < 0:
                return len(text)
            pos = end + len(close)
            continue
        depth += 1 if char in "[{" else -1
        pos = found.end()
        if depth == 0:
            return pos
