"""Where a cut text stops: in a string or not, after a key or not.

Pure functions on ``str``; no LangChain imports.

The truncation closer (``_recover.close_truncated``) asks this of every cut
text, so it is read in C where it can be: a first pass walks from bracket to
bracket (the text between two brackets, whole strings and closed containers
without a bracket inside and all, is one possessive regex match), keeping
only the containers still open; a second reads the tokens of the innermost
open container's own text after its last closed container (an object's
whole members, ``"key": value,``, a run of them in one match), and of the
containers around it only when the member the cut removed needs its path (an
object's last stretch, an array's commas counted in C). The token-by-token
scan of the whole text is kept for the one shape that reading does not
settle (a ``:`` that follows no key).

Before either, :func:`tail_state` reads the state from the text's end: the
skeleton outside the strings (C passes over its bytes) says where a string
the text ends in starts and which containers are open; the last tokens say
the rest. It leaves ``outer`` to the walk (only a schema reads that path),
and the few texts it does not settle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, NamedTuple

from langchain_jsonrecover._core.decode.skip import (
    skeleton_outside_strings,
    skip_string,
)

_STATE_TOKENS: Final = re.compile(r'[\[\]{}",:]')


class CutState(NamedTuple):
    """Where a cut text stops: in a string or not, after a key or not.

    A named tuple: built once per cut, at half a frozen dataclass's cost.
    """

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
# strings, each loop unrolled (ten times faster in ``re`` than an alternation
# per character) and possessive (no backtracking, one pass in C). It stops at
# a bracket, at the end, or at the quote of a string the text ends in.
_PLAIN: Final = r'[^\[\]{}"]*+(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"[^\[\]{}"]*+)*+'
_RUN: Final = re.compile(_PLAIN, re.DOTALL)
# A closed container without a bracket inside (outside its strings): ``_RUN``
# passes them too (a failed try at an opener reads up to the next bracket,
# never further: still linear), and ``_LAST_FLAT`` finds the last one of a
# stretch that holds no other bracket.
_FLAT: Final = rf"\{{{_PLAIN}\}}|\[{_PLAIN}\]"
_RUN_FLAT: Final = re.compile(f"{_PLAIN}(?:(?:{_FLAT}){_PLAIN})*+", re.DOTALL)
_LAST_FLAT: Final = re.compile(f"(?:{_PLAIN}({_FLAT}))*+", re.DOTALL)
_QUOTE_OR_BRACKET: Final = re.compile(r'["\[\]{}]')
_QUOTED: Final = r'"[^"\\]*+(?:\\.[^"\\]*+)*+"'
# In a stretch (every string closed, every bracket a closed container's
# without one inside), what hides commas from its own.
_STRING_OR_FLAT: Final = re.compile(f"{_QUOTED}|{_FLAT}", re.DOTALL)
# Whole members of an object, each ``"key": value,`` with at most one string
# for its value and no bracket (the text between tokens is skipped as the token
# read skips it): one match in C where the token read takes five steps a
# member. Group 1 is the last member's key.
_TEXT: Final = r'[^\[\]{}",:]*+'
_MEMBERS: Final = re.compile(
    rf"(?:{_TEXT}({_QUOTED}){_TEXT}:{_TEXT}(?:{_QUOTED}{_TEXT})?+,)*+",
    re.DOTALL,
)


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
            if in_object and out.prev in {"{", ","}:
                # Whole members read as the steps below read them: the key
                # (``member``), its colon (``key_before_colon``), the value,
                # the comma (``prev``; ``last_key`` back to none).
                members = _MEMBERS.match(text, pos, end)
                if members is not None and members.start(1) >= 0:
                    out.member = out.key_before_colon = members.start(1)
                    out.prev, last_key = ",", -2
                    pos = out.pos = members.end()
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


def cut_state(text: str, *, path: bool = True) -> CutState:
    """Where a cut text stops, read in two passes, both linear.

    ``path``: read ``outer`` too; else it may be left empty (the containers
    around the innermost one are not read for it), the other fields the same.

    :func:`tail_state` answers first where it settles the state and no
    ``outer`` is wanted (or there is none: no key at the cut). Else the first
    walks from bracket to bracket (the text between two, strings
    and closed containers without a bracket inside and all, is one match in
    C), keeping the containers still open; the second reads the tokens of the
    innermost open container's own text after its last closed container, and
    of the ones around it only when their keys are wanted. Where a key lies
    before an object's last stretch, the walk is made again, stopping at
    every bracket. The token scan of the whole text (``_cut_state_tokens``)
    is kept for a text this reading does not settle.
    """
    state = tail_state(text)
    if state is not None and (not path or state.key_start is None):
        return state  # no path to read: the tail said all
    state = _read(text, _open_frames(text, _RUN_FLAT), fine=False, path=path)
    if state is None:  # a key before an object's last stretch: every bracket
        state = _read(text, _open_frames(text, _RUN), fine=True, path=path)
    # On fine frames every read settles; the token scan is the full answer.
    return state if state is not None else _cut_state_tokens(text)


# A token of the cut state, then none to the end of the window.
_LAST_TOKEN: Final = re.compile(r'[\[\]{}",:][^\[\]{}",:]*+\Z')
_WINDOW: Final = 64
_CLOSERS_AS_ONE: Final = bytes.maketrans(b"]}", b"))")
_PEELS: Final = 24
"""Passes that drop closed containers from a skeleton (each drops the
innermost ones); a text nested deeper is left to the bracket walk."""


def tail_state(text: str) -> CutState | None:
    """:func:`cut_state` without ``outer``, read from the text's end.

    That of :func:`read_tail`, without the depth.

    Example:
        >>> tail_state('{"a": [1, {"b": "x')
        CutState(string_start=16, key_start=None, scalar_start=18, outer=())
        >>> tail_state('{"a": 1, "b": 2')
        CutState(string_start=None, key_start=9, scalar_start=13, outer=())
    """
    tail = read_tail(text)
    return None if tail is None else tail[0]


def read_tail(text: str) -> tuple[CutState, int] | None:
    """:func:`cut_state` without ``outer``, and the depth where the text ends.

    The depth counts the brackets outside the strings (an opener adds one,
    a closer of either kind takes one), as ``close._end_state`` does.

    ``None`` where this reading does not settle it (the walk then says): a
    backslash outside the strings, containers closed deeper than
    :data:`_PEELS` levels, a ``:`` after no key.

    The skeleton of the text outside its strings (C passes, as
    ``skeleton_outside_strings`` pairs the quotes) says where a string the
    text ends in starts; dropping closed containers from it, a pass per level,
    leaves the open ones, the innermost last (a closer of either kind closes
    any opener; one with none open is passed over, as the walk does). The
    last token then lies before that string (or the end) with only other
    text between, so it is outside the strings; one before a string's
    opening quote, likewise. A string that token closes opens at the nearest
    quote before it that an even run of backslashes precedes: with no
    backslash outside the strings, no opening quote follows one, and every
    quote inside a string follows an odd run. So the token read's ``prev``
    is known from the tail alone: a string is a key where the innermost open
    container is an object and a ``{`` or ``,`` comes before it.

    Example:
        >>> read_tail('{"a": [1, {"b": "x')
        (CutState(string_start=16, key_start=None, scalar_start=18, outer=()), 3)
    """
    raw = text.encode("utf-8", "surrogatepass")
    skeleton, opened = skeleton_outside_strings(raw, fold=False)
    if b"\0" in skeleton:
        return None
    skeleton = skeleton.translate(_CLOSERS_AS_ONE, b"'/#")
    for _ in range(_PEELS):
        peeled = skeleton.replace(b"[)", b"").replace(b"{)", b"")
        if len(peeled) == len(skeleton):
            break
        skeleton = peeled
    else:
        return None
    in_object = skeleton.endswith(b"{")
    depth = len(skeleton) - 2 * skeleton.count(b")")  # stray closers left first
    size = len(text)
    if opened >= 0:
        if len(raw) != size:  # the string's own characters: fewer to decode
            opened = size - len(raw[opened:].decode("utf-8", "surrogatepass"))
        before = _last_token(text, opened)
        is_key = in_object and before >= 0 and text[before] in "{,"
        return CutState(opened, opened if is_key else None, size), depth
    last = _last_token(text, size)
    if last < 0:
        return CutState(None, None, 0), depth
    char = text[last]
    if not in_object or char not in {'"', ":"}:
        return CutState(None, None, last + 1), depth
    key = last
    if char == ":":
        key = _last_token(text, last)
        if key < 0 or text[key] != '"':
            return None  # a ':' after no key: the walk says
    opener = _string_opener(text, key)
    before = _last_token(text, opener)
    if before >= 0 and text[before] in "{,":
        return CutState(None, opener, last + 1), depth
    if char == ":":
        return None  # a ':' after a string value: the walk says
    return CutState(None, None, last + 1), depth


def _last_token(text: str, end: int) -> int:
    """Where the last token of the cut state before ``end`` lies, or -1."""
    size = _WINDOW
    while True:
        lo = end - size if end > size else 0
        found = _LAST_TOKEN.search(text, lo, end)
        if found is not None:
            return found.start()
        if lo == 0:
            return -1
        size *= 4


def _string_opener(text: str, close: int) -> int:
    """The opening quote of the string whose closing quote is at ``close``.

    The nearest quote before it that an even run of backslashes precedes
    (see :func:`tail_state`: no backslash lies outside the strings).
    """
    quote = close
    while True:
        quote = text.rfind('"', 0, quote)
        run = quote
        while run > 0 and text[run - 1] == "\\":
            run -= 1
        if (quote - run) % 2 == 0:
            return quote


def _open_frames(text: str, run: re.Pattern[str]) -> list[_Frame]:
    """The root and the containers still open where the text ends.

    ``run``: what a step passes whole (``_RUN``: the text between two
    brackets; ``_RUN_FLAT``: closed containers without a bracket inside too,
    so that a frame's stretches may hold them).
    """
    openers = [""]
    stack = [[0]]
    segments = stack[0]
    match = run.match
    pos = 0
    size = len(text)
    while True:
        pos = match(text, pos).end()  # type: ignore[union-attr]
        if pos >= size:
            break
        char = text[pos]
        if char == '"':
            break
        pos += 1
        if char in "[{":
            segments.append(pos - 1)
            segments = [pos]
            stack.append(segments)
            openers.append(char)
        elif len(stack) > 1:
            stack.pop()
            openers.pop()
            segments = stack[-1]
            segments.append(pos)
    segments.append(size)
    return [
        _Frame(opener, segments)
        for opener, segments in zip(openers, stack, strict=True)
    ]


def _read(
    text: str, frames: list[_Frame], *, fine: bool, path: bool
) -> CutState | None:
    """The cut state from the open frames; ``None`` when it needs them ``fine``.

    ``fine``: every closed container is a break in its frame's stretches.
    ``path``: read the containers around the innermost one (``outer``).
    """
    size = len(text)
    inner = _replay_last(text, frames[-1])
    top = frames[-1].opener
    if inner.string_start is not None:
        if not inner.string_is_key:
            return CutState(inner.string_start, None, size)
        outer = _outer(text, frames, fine=fine) if path else ()
        return (
            None
            if outer is None
            else CutState(inner.string_start, inner.string_start, size, outer)
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
    outer = _outer(text, frames, fine=fine) if path else ()
    return None if outer is None else CutState(None, key_start, inner.pos, outer)


def _replay_last(text: str, frame: _Frame) -> _Replay:
    """:func:`_replay` of a container's last stretch alone.

    The stretch after its last closed container (one its last stretch may
    hold, without a bracket inside, included) says all the full read says
    but an earlier key: ``member`` is a key in that stretch, or 0.
    """
    last = len(frame.segments) - 2
    start, end = frame.segments[last], frame.segments[-1]
    after = _last_flat_end(text, start, end)
    if after >= 0:
        return _replay(text, _Frame(frame.opener, [after, end]), text[after - 1])
    if not last:
        # The token scan's prev at a container's start is its opener (the
        # root: none).
        return _replay(text, frame, frame.opener)
    tail = _Frame(frame.opener, frame.segments[last:])
    return _replay(text, tail, text[start - 1])


def _last_flat_end(text: str, start: int, end: int) -> int:
    """The end of the last closed container in a stretch, or -1: none."""
    found = _LAST_FLAT.match(text, start, end)
    return -1 if found is None or found.group(1) is None else found.end(1)


def _outer(
    text: str, frames: list[_Frame], *, fine: bool
) -> tuple[tuple[str, int], ...] | None:
    """Each container around the innermost one: its opener and member.

    ``None`` when one's member needs the frames ``fine`` and they are not.
    """
    outer = []
    for frame in frames[1:-1]:
        member = _member(text, frame, fine=fine)
        if member is None:
            return None
        outer.append((frame.opener, member))
    return tuple(outer)


def _member(text: str, frame: _Frame, *, fine: bool) -> int | None:
    """What :func:`_replay` reads as an outer container's member, in less work.

    An object's is its last key: the one its last stretch holds, if any (that
    stretch read alone, after the closer before it, as the full read meets
    it). An array's is its count of commas outside its strings and closed
    containers (each stretch's dropped in one substitution in C, where it
    has any). Else the full read says, on ``fine`` frames (``None`` when
    they are not).
    """
    segments = frame.segments
    if frame.opener == "{":
        member = _replay_last(text, frame).member
        whole = len(segments) == 2 and _last_flat_end(text, *segments) < 0
        if member or whole:  # a key's start is never 0
            return member
    elif frame.opener == "[":
        commas = 0
        for start, end in zip(segments[0::2], segments[1::2], strict=True):
            if _QUOTE_OR_BRACKET.search(text, start, end) is None:
                commas += text.count(",", start, end)
            else:  # the stretch's strings and closed containers dropped
                commas += _STRING_OR_FLAT.sub("", text[start:end]).count(",")
        return commas
    if not fine:
        return None
    return _replay(text, frame, frame.opener).member


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
