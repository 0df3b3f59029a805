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
# What makes a container JSON-like though it is broken: a comment, escaped
# JSON, a comma or colon first; and in an array, a Python literal, NaN,
# Infinity or a bare decimal.
_BROKEN_START: Final = re.compile(r'//|/\*|#[ #]|\\"|[,:]')
# A first key that lost its opening quote: ``{name": …``.
_HALF_QUOTED_KEY: Final = re.compile(r'[A-Za-z_$][\w$-]{0,64}"[ \t]*:')
_ARRAY_WORD: Final = re.compile(r"(?:True|False|None|NaN|-?Infinity)\b|-?\.[0-9]")
# How far past a closed root the look for more structure reaches (a bound, so
# that many roots cost a bounded look each).
_LOOK: Final = 256
# After a closed root: a closer (perhaps after a comma), a key (``, "k":`` or
# ``"k":``), or the next value of a run (``, {`` or ``{``).
_AFTER_ROOT: Final = re.compile(
    r"[ \t\r\n]*+(?:(?:,[ \t\r\n]*+)?+([\]}])"
    r'|(?:,[ \t\r\n]*+)?+("(?:[^"\\\n]++|\\.)*+"[ \t\r\n]*+:)'
    r"|(?:,[ \t\r\n]*+)?+[\[{])"
)


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
    broken: bool = False
    """The structure shows the span is one value with a fault inside (a stray
    closer in it, or a root closed too early): it must decode whole."""
    nested: bool = False
    """A key and a colon stand right before it: it is a member's value, in
    an object whose opening bracket is missing, never the answer alone."""


class _Frame:
    __slots__ = (
        "broken",
        "char",
        "empty",
        "has_colon",
        "in_json",
        "mark",
        "mode",
        "nested",
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
        self.broken = False
        self.nested = False


def classify(text: str, start: int, limit: int) -> tuple[int, bool]:
    r"""Classify the bracket at ``start`` by what follows it.

    A container that opens with a comment, escaped JSON (``{\"``), or, for
    an array, a Python literal, ``NaN``/``Infinity`` or a bare decimal is
    JSON-like too: broken JSON, for the repair pass or for an error, never
    prose whose inner values could be taken alone.

    Args:
        text: The reply.
        start: Offset of a ``{`` or ``[``.
        limit: Where the scan stops.

    Returns:
        The frame kind (``JSON``, ``MAYBE`` or ``PROSE``) and whether the
        brackets enclose nothing.

    Example:
        >>> classify("{1, 2}", 0, 6), classify("[True, None]", 0, 12)
        ((2, False), (0, False))
    """
    space = _SPACE.match(text, start + 1, limit)
    j = space.end() if space else start + 1
    nxt = text[j] if j < limit else ""
    if _BROKEN_START.match(text, j, min(limit, j + 2)):
        return JSON, False
    if text[start] == "{":
        if nxt in {'"', ""}:
            return JSON, False
        if nxt == "}":
            return JSON, True
        if _HALF_QUOTED_KEY.match(text, j, min(limit, j + 72)):
            return JSON, False
        if nxt in {"'", "_"} or nxt.isalpha():
            return MAYBE, False
        return PROSE, False
    if nxt == "]":
        return JSON, True
    if nxt in '"{[-' or nxt.isdigit() or nxt == "'":
        return JSON, False
    if _ARRAY_WORD.match(text, j, min(limit, j + 10)):
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

    Candidate extents follow the structure: a closer of the wrong kind at a
    candidate's top level does not end it (it is a stray), and a closed
    candidate whose following text continues the structure (``, "key":``
    after an object, or a closer that matches nothing before prose resumes,
    after one or more values separated by commas) closed too early: the
    whole is one broken span. Values separated by commas in prose stay
    separate when nothing after them closes what they did not open.

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
        >>> [(s.start, s.end, s.broken) for s in find_spans('{"a": 1}}, "b": 2}', 0, 18,
        ...                                                 max_depth=9, budget=[99])]
        [(0, 18, True)]
    """
    spans: list[Span] = []
    stack: list[_Frame] = []
    open_count = {"{": 0, "[": 0}
    pos = lo
    chain = -1  # index of the first span of a run of roots apart only by commas
    root_end = -1  # where a root just closed (its span is the last one)
    while True:
        if root_end >= 0:
            reopen = _after_root(text, root_end, hi, spans, chain, open_count)
            root_end = -1
            if isinstance(reopen, _Frame):
                stack.append(reopen)
                open_count[reopen.char] += 1
                chain = -1
            elif reopen >= 0:
                chain = reopen
                if spans[-1].end > pos:
                    pos = root_end = spans[-1].end  # merged up to a stray closer
                    continue
            else:
                chain = -1
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
                    if not top.in_json:
                        # At a candidate's top level: a stray closer inside it.
                        top.broken = True
                        continue
                    # Inside JSON a wrong closer is a typo for the right one
                    # (or closes what was left open): it closes the top frame
                    # only, so the enclosing value keeps its real extent.
                    frame = stack.pop()
                    open_count[frame.char] -= 1
                    frame_root = _finish(frame, spans, i + 1, closed=False)
                elif open_count[want]:
                    while True:
                        frame = stack.pop()
                        open_count[frame.char] -= 1
                        matched = frame.char == want
                        frame_root = _finish(frame, spans, i + 1, closed=matched)
                        if matched:
                            break
                else:
                    continue
                if frame_root:
                    root_end = i + 1
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
                        nested=_after_key(text, i, lo),
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
                        nested=_after_key(text, i, lo),
                    )
                )
                pos = root_end = i + result.end
                continue
        strings = mode != PROSE or (bool(stack) and stack[-1].strings)
        frame = _Frame(i, char, mode, empty, len(spans), in_json, strings)
        # A dict written with single quotes (Python style): its strings are
        # quoted that way, and may hold brackets.
        space = _SPACE.match(text, i + 1, hi)
        after = space.end() if space else i + 1
        frame.squote = text.startswith("'", after) or (bool(stack) and stack[-1].squote)
        frame.nested = not in_json and mode != PROSE and _after_key(text, i, lo)
        stack.append(frame)
        open_count[char] += 1
        pos = i + 1
    while stack:
        _finish(stack.pop(), spans, hi, closed=False)
    return spans


def _after_root(  # noqa: PLR0917 - the scan's state, passed whole
    text: str,
    end: int,
    hi: int,
    spans: list[Span],
    chain: int,
    open_count: dict[str, int],
) -> _Frame | int:
    """Read what follows a root that just closed at ``end`` (``spans[-1]``).

    Returns:
        A frame to push when the root closed too early (a key follows: the
        root, with the run of roots before it, is reopened);
        else the index of the first span of the run of roots this one belongs
        to (the run merged into one broken span when a closer that matches
        nothing follows), or ``-1`` when prose resumes.
    """
    found = _AFTER_ROOT.match(text, end, min(hi, end + _LOOK))
    first = chain if chain >= 0 else len(spans) - 1
    if found is None:
        return -1
    closer = found.group(1)
    if closer is not None:
        if open_count["{" if closer == "}" else "["]:
            return -1  # it closes a bracket of the prose around
        start = spans[first].start
        is_object = spans[first].is_object
        del spans[first:]
        spans.append(
            Span(
                start,
                found.end(),
                closed=True,
                is_object=is_object,
                empty=False,
                broken=True,
            )
        )
        return first
    if found.group(2) is not None:
        start = spans[first].start
        del spans[first:]
        frame = _Frame(
            start,
            text[start],
            JSON,
            empty=False,
            mark=len(spans),
            in_json=False,
            strings=True,
        )
        frame.broken = True
        return frame
    return first


def continues_structure(text: str, end: int, hi: int) -> bool:
    """Whether the text after a value that ends at ``end`` goes on as if it had not.

    A closer (perhaps after a comma) or ``, "key":`` right after it: the
    value closed too early, and reading it alone would drop the rest.

    Example:
        >>> continues_structure('{"a": 1}, "b": 2}', 8, 17)
        True
        >>> continues_structure('{"a": 1}, {"b": 2}', 8, 18)
        False
    """
    found = _AFTER_ROOT.match(text, end, min(hi, end + _LOOK))
    return found is not None and (
        found.group(1) is not None or found.group(2) is not None
    )


def _after_key(text: str, start: int, lo: int) -> bool:
    """Whether a quoted key and its colon stand right before ``start``."""
    i = start - 1
    floor = max(lo, start - _LOOK)
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    if i < floor or text[i] != ":":
        return False
    i -= 1
    while i >= floor and text[i] in " \t\r\n":
        i -= 1
    return i >= floor and text[i] in "\"'"


def _finish(frame: _Frame, spans: list[Span], end: int, *, closed: bool) -> bool:
    """Close a frame: a JSON-like root replaces the candidates inside it.

    Returns:
        Whether the frame was a JSON-like root that closed (a span was added).
    """
    if frame.in_json:
        return False
    if frame.mode == PROSE or (frame.mode == MAYBE and not frame.has_colon):
        return False
    del spans[frame.mark :]
    spans.append(
        Span(
            frame.start,
            end,
            closed,
            frame.char == "{",
            frame.empty and closed,
            broken=frame.broken,
            nested=frame.nested,
        )
    )
    return closed


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
