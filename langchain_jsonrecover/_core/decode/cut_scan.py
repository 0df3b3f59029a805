"""Where a cut text stops: in a string or not, after a key or not.

Pure functions on ``str``; no LangChain imports.

The truncation closer (``_recover.close_truncated``) asks this of every cut
text, so it is read in C where it can be: a first pass walks from bracket to
bracket (the text between two brackets, whole strings and all, is one
possessive regex match), keeping only the containers still open; a second
reads the tokens of the innermost open container's own text, and of the
containers around it only when the member the cut removed needs its path.
The token-by-token scan of the whole text is kept for the one shape that
reading does not settle (a ``:`` that follows no key).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from langchain_jsonrecover._core.decode.skip import skip_string

_STATE_TOKENS: Final = re.compile(r'[\[\]{}",:]')


@dataclass(frozen=True, slots=True)
class CutState:
    """Where a cut text stops: in a string or not, after a key or not."""

    string_start: int | None
    """Start of the string the text ends in."""
    key_start: int | None
    """Start of the last key of the innermost object, when its value is missing
    (the text ends in the key, after it, after its colon, or in a scalar)."""
    scalar_start: int
    """Where text after the last structural token starts (a scalar, if any)."""
    outer: tuple[tuple[str, int], ...] = ()
    """With ``key_start``: the containers around that object, each its opener
    and its member's key start (``{``) or item index (``[``)."""


# A run between brackets: anything but a bracket or a quote, and whole
# strings (possessive: no backtracking, one pass in C). It stops at a bracket,
# at the end, or at the quote of a string the text ends in.
_RUN: Final = re.compile(r'(?:[^\[\]{}"]++|"(?:[^"\\]++|\\.)*+")*+', re.DOTALL)


@dataclass(slots=True)
class _Frame:
    """An open container of the bracket scan: its opener, its own text."""

    opener: str
    segments: list[int]
    """Start and end of each stretch of its own text (between the closed
    containers inside it), flattened; the last one is still open."""


@dataclass(slots=True)
class _Replay:
    """A container's own tokens, read as the token scan reads them."""

    prev: str
    member: int  # its last key's start ({), or its item index ([)
    pos: int  # the end of its last structural token
    string_start: int | None = None  # a string the text ends in
    string_is_key: bool = False
    key_before_colon: int | None = None  # the key the last ':' follows


def _replay(text: str, frame: _Frame, prev: str) -> _Replay:
    """Read a container's own text, each closed container inside it a closer."""
    in_object = frame.opener == "{"
    segments = frame.segments
    out = _Replay(prev, 0, segments[0])
    last_key = -2  # where the last token, if a key, started
    for index in range(0, len(segments), 2):
        if index:
            out.prev = text[segments[index] - 1]  # the closer of the one inside
            out.pos = segments[index]
            last_key = -2
        pos, end = segments[index], segments[index + 1]
        while True:
            token = _STATE_TOKENS.search(text, pos, end)
            if token is None:
                break
            char, at = token.group(), token.start()
            if char == '"':
                is_key = in_object and out.prev in {"{", ","}
                closed_at = skip_string(text, at)
                if closed_at is None:
                    out.string_start, out.string_is_key = at, is_key
                    return out
                if is_key:
                    out.member = last_key = at
                else:
                    last_key = -2
                out.prev = "key" if is_key else "value"
                pos = out.pos = closed_at
                continue
            if char == "," and not in_object:
                out.member += 1
            elif char == ":":
                out.key_before_colon = last_key if last_key >= 0 else None
            if char != ":" or last_key < 0:
                last_key = -2
            out.prev = char
            pos = out.pos = token.end()
    return out


def cut_state(text: str) -> CutState:
    """Where a cut text stops, read in two passes, both linear.

    The first walks from bracket to bracket (the text between two, strings
    and all, is one match in C), keeping the containers still open; the
    second reads the tokens of the innermost open container's own text, and
    of the ones around it only when their keys are wanted. The token scan of
    the whole text (``_cut_state_tokens``) is kept for a text this reading
    does not settle.
    """
    frames = [_Frame("", [0])]
    pos = 0
    size = len(text)
    while True:
        pos = _RUN.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= size or text[pos] == '"':
            break
        char = text[pos]
        if char in "[{":
            frames[-1].segments.append(pos)
            frames.append(_Frame(char, [pos + 1]))
        elif len(frames) > 1:
            frames.pop()
            frames[-1].segments.append(pos + 1)
        pos += 1
    frames[-1].segments.append(size)
    # The token scan's prev at a container's start is its opener (the root: none).
    inner = _replay(text, frames[-1], frames[-1].opener)
    top = frames[-1].opener
    if inner.string_start is not None:
        if not inner.string_is_key:
            return CutState(inner.string_start, None, size)
        return CutState(
            inner.string_start, inner.string_start, size, _outer(text, frames)
        )
    if top != "{":
        return CutState(None, None, inner.pos)
    if inner.prev == "key":
        key_start = inner.member
    elif inner.prev == ":" and inner.key_before_colon is not None:
        key_start = inner.key_before_colon
    elif inner.prev == ":":
        return _cut_state_tokens(text)  # a ':' after no key: the full scan says
    else:
        return CutState(None, None, inner.pos)
    return CutState(None, key_start, inner.pos, _outer(text, frames))


def _outer(text: str, frames: list[_Frame]) -> tuple[tuple[str, int], ...]:
    """Each container around the innermost one: its opener and member."""
    return tuple(
        (frame.opener, _replay(text, frame, frame.opener).member)
        for frame in frames[1:-1]
    )


def _cut_state_tokens(text: str) -> CutState:
    """One linear scan of a cut text, token by token (strings skipped whole)."""
    stack: list[str] = []
    at_member: list[int] = []  # per container: its last key's start, or item index
    prev = ""
    pos = 0
    key_start = -1
    while True:
        token = _STATE_TOKENS.search(text, pos)
        if token is None:
            break
        char, at = token.group(), token.start()
        if char == '"':
            is_key = stack[-1:] == ["{"] and prev in {"{", ","}
            closed_at = skip_string(text, at)
            if closed_at is None:
                if not is_key:
                    return CutState(at, None, len(text))
                return CutState(
                    at,
                    at,
                    len(text),
                    tuple(zip(stack[:-1], at_member[:-1], strict=True)),
                )
            if is_key:
                key_start = at_member[-1] = at
            prev = "key" if is_key else "value"
            pos = closed_at
            continue
        if char in "[{":
            stack.append(char)
            at_member.append(0)
        elif char in "]}" and stack:
            stack.pop()
            at_member.pop()
        elif char == "," and stack[-1:] == ["["]:
            at_member[-1] += 1
        prev = char
        pos = token.end()
    if not (stack[-1:] == ["{"] and prev in {"key", ":"} and key_start >= 0):
        return CutState(None, None, pos)
    outer = tuple(zip(stack[:-1], at_member[:-1], strict=True))
    return CutState(None, key_start, pos, outer)
