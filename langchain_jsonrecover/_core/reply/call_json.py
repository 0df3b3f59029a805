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

from langchain_jsonrecover._core.decode.skip import skip_string
from langchain_jsonrecover._core.decode.tolerant import TRAILING
from langchain_jsonrecover._core.reply.envelopes import (
    CALL_ARGUMENT_KEYS,
    CALL_KEYS,
    CALL_NAME_KEYS,
    read_call_envelope,
)
from langchain_jsonrecover._core.reply.markup_tokens import (
    JSON_RUN,
    TO_TOKEN,
    spell_deepseek,
)

_WINDOW: Final = 512
_SPACE: Final = re.compile(r"\s*+")
_ENVELOPE_HEAD: Final = re.compile(
    r'\{\s*+(?:"type"\s*+:\s*+"function"\s*+,\s*+)?+'
    f'"(?:{"|".join(CALL_NAME_KEYS)})"'
    r'\s*+:\s*+"((?:[^"\\\n]|\\.){0,300})"\s*+,\s*+'
    f'"(?:{"|".join(CALL_ARGUMENT_KEYS)})"'
    r"\s*+:\s*+"
)
_CLOSE_OBJECT: Final = re.compile(r"\s*+\}")
# A member's key after the arguments (an envelope read without decoding it),
# and a scalar value (a string, a number or a literal).
_MEMBER_KEY: Final = re.compile(r'\s*+,\s*+"((?:[^"\\\n]|\\.){0,100})"\s*+:')
_SCALAR: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"|[-+.\w]{1,64}')
GOES_ON: Final = "JSON that goes on after the envelope"
"""The ``extra`` of an envelope after which JSON goes on (``{…}}, 2]``): a
closer slipped in early, or a lost opener; the envelope is not the call."""
SHORT_OF_A_CLOSER: Final = "a closer lost inside the arguments"
"""The ``extra`` of an envelope short of its ``}`` inside closed markup whose
arguments may have lost it instead, which moves members: two readings."""
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

    :class:`~langchain_jsonrecover._core.reply.markup.MarkupCall`, the record callers
    get, is made from it (same fields, same meaning).
    """

    name: str
    arguments: str
    start: int
    end: int
    closed: bool
    extra: tuple[str, ...] = ()
    """Members of the envelope beyond a call's keys (see ``_envelopes``)."""


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
        if not exc.msg.startswith(TRAILING):
            return None
        end = start + exc.pos
    else:
        end = limit
    while text[end - 1].isspace():
        end -= 1
    return end


def next_token(text: str, start: int) -> int:
    """The offset of the next token outside strings at or after ``start``."""
    run = TO_TOKEN.match(text, start)
    return start if run is None else run.end()


def _body(
    text: ScanText, start: int, *, encoded: bool = False
) -> tuple[int, int, bool] | None:
    r"""A JSON body from ``start`` (after spaces): its span, and whether it closed.

    A body that does not close runs to the next token outside strings, or to
    the reply's end (then it is cut). ``None`` when no bracket opens it; with
    ``encoded`` (arguments after a named call's marker), a whole JSON string
    is a body too: the arguments encoded once more (``"{\"a\": 1}"``).
    """
    begin = skip_space(text, start)
    if encoded and text[begin : begin + 1] == '"':
        end = skip_string(text, begin)
        return None if end is None else (begin, end, True)
    if begin >= len(text) or text[begin] not in "[{":
        return None
    end = _json_end(text, begin)
    if end is not None:
        return begin, end, True
    stop = next_token(text, begin)
    end = max(begin, len(text[begin:stop].rstrip()) + begin)
    return begin, end, stop < len(text)


_Unpacked = tuple[str, str, bool, tuple[str, ...]]
"""``(name, arguments, closed, extra keys)`` of one envelope."""


def _unpack(text: ScanText, begin: int, end: int, closed: bool) -> list[_Unpacked]:
    """A body's calls: ``(name, arguments, closed, extra)`` for each envelope."""
    if text[begin] == "[":
        items = _array_envelopes(text, begin, end)
        if items is not None:
            return items
    elif (one := _envelope(text, begin, end)) is not None:
        return [one]
    return [("", text[begin:end], closed, ())]


def _array_envelopes(text: ScanText, begin: int, end: int) -> list[_Unpacked] | None:
    items: list[_Unpacked] = []
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
    if pos < end and text[pos] != "]":
        return None  # an item that is not an envelope: the list is not calls
    return items or None


def _envelope(text: ScanText, begin: int, end: int) -> _Unpacked | None:
    """``(name, arguments, closed, extra)`` of a ``{"name": …, "arguments": …}``.

    The arguments are kept as written (they may need repair), so an envelope
    whose head reads is cut at its arguments; the members after them are
    read by their keys, and any key beyond a call's is named in ``extra``.
    An envelope short of its own ``}`` (closed by markup, or at the reply's
    end: a cut there and a lost ``}`` read alike) is named
    :data:`SHORT_OF_A_CLOSER` when the arguments may have lost it instead.
    """
    head = _ENVELOPE_HEAD.match(text, begin, end)
    if head is not None:
        name = _json_string(head.group(1))
        at = head.end()
        if at < end and text[at] in "[{":
            stop = _json_end(text, at, end)
            if stop is None:
                return name, text[at:end].rstrip(), False, ()
            if skip_space(text, stop) >= end and _closer_may_move(text[at:stop]):
                return name, text[at:stop], True, (SHORT_OF_A_CLOSER,)
            return name, text[at:stop], True, _keys_after(text, begin, stop, end)
    try:
        value = orjson.loads(text[begin:end])
    except orjson.JSONDecodeError:
        return None
    return _decoded_envelope(value)


def _closer_may_move(arguments: str) -> bool:
    """Whether a ``}`` lost inside ``arguments`` reads as well as the envelope's.

    The envelope's ``}`` is lost (its arguments end where its markup closes).
    A ``}`` lost after a member of an object nested in objects only (from the
    arguments down) that has a member after it reads too: the later members
    move one level up (``{"a": {"b": 1}, "c": 2}``), a call with other
    arguments. At the top level, they move into the envelope, where only a
    call's keys (``id``, ``type``) would make it a call with fewer arguments.
    Flat arguments without such keys have one reading. Arguments that do
    not decode are doubted too: a slip beside a lost closer is two faults.
    """
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return True
    if not isinstance(value, dict):
        return False
    if any(key in CALL_KEYS for key in list(value)[1:]):
        return True
    stack = [item for item in value.values() if isinstance(item, dict)]
    while stack:
        inner = stack.pop()
        if len(inner) > 1:
            return True
        stack.extend(item for item in inner.values() if isinstance(item, dict))
    return False


def _keys_after(text: ScanText, begin: int, pos: int, end: int) -> tuple[str, ...]:
    """The keys beyond a call's among the members after its arguments.

    What cannot be read as members up to the envelope's ``}`` is named
    ``"…"``: the envelope then holds something no call holds.
    """
    if _CLOSE_OBJECT.match(text, pos, end) is not None or skip_space(text, pos) >= end:
        return ()  # the envelope closes (or lost its closer) after the arguments
    try:
        read = _decoded_envelope(orjson.loads(text[begin:end]))
    except orjson.JSONDecodeError:
        read = None
    else:
        return ("…",) if read is None else read[3]
    extra: list[str] = []
    while (member := _MEMBER_KEY.match(text, pos, end)) is not None:
        key = _json_string(member.group(1))
        if key not in CALL_KEYS:
            extra.append(key)
        pos = skip_space(text, member.end())
        if pos < end and text[pos] in "[{":
            stop = _json_end(text, pos, end)
            if stop is None:
                break
            pos = stop
        elif (scalar := _SCALAR.match(text, pos, end)) is not None:
            pos = scalar.end()
        else:
            break
    if _CLOSE_OBJECT.match(text, pos, end) is None:
        extra.append("…")
    return tuple(extra)


def _decoded_envelope(value: Any) -> _Unpacked | None:
    envelope = read_call_envelope(value)
    if envelope is None:
        return None
    name, arguments = envelope.name, envelope.arguments
    if not isinstance(arguments, str):
        arguments = orjson.dumps(arguments).decode()
    return name, arguments, True, envelope.extra


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
    body = _body(text, after, encoded=name is not None)
    if body is None:
        return None
    begin, end, closed = body
    stop = end
    close = None if closer is None else match_head(CLOSERS[closer], text, end)
    if close is not None:
        stop = close.end()
        closed = True
    if name is not None and close is None and closed:
        # Arguments glued to more JSON (``{"city": "Oslo"}{"city": "Rome"}``):
        # all of it is the arguments, which then are not one object.
        glued = _glued_end(text, end)
        if glued is not None:
            end = stop = glued
            close = None if closer is None else match_head(CLOSERS[closer], text, end)
            if close is not None:
                stop = close.end()
    if name is None:
        found = _unpack(text, begin, end, closed)
    else:
        found = [(name, text[begin:end], closed, ())]
    blanks = [(start, begin)]
    if close is None and name is None and closed:
        # Several envelopes in one block (a newline between them): read each
        # up to the block's closer, so that no call of the block is dropped.
        more = None if closer is None else _more_bodies(text, end, CLOSERS[closer])
        if more is not None:
            bodies, close = more
            for other_begin, other_end in bodies:
                found.extend(_unpack(text, other_begin, other_end, closed=True))
                blanks.append((end, other_begin))
                end = other_end
            stop = close.end()
        elif _goes_on(text, after := skip_space(text, end)):
            # JSON that goes on after the envelope (``{…}}, 2]``): a closer
            # slipped in early or a lost opener; the envelope is not the call.
            # One closer too many with one reading is left to the arguments,
            # whose reading drops it where guessing is allowed, as extract's.
            tail = _json_run_end(text, after)
            if text[after:tail] == "}" and _one_reading(text, begin, end):
                found = [(n, a + text[after], d, x) for n, a, d, x in found]
            else:
                found = [(n, a, d, (*x, GOES_ON)) for n, a, d, x in found]
            end = stop = tail
            close = None if closer is None else match_head(CLOSERS[closer], text, end)
            if close is not None:
                stop = close.end()
    if stop > end:
        blanks.append((end, stop))
    calls = [FoundCall(n, a, start, stop, done, extra) for n, a, done, extra in found]
    return Found(calls, blanks, stop)


def _one_reading(text: ScanText, begin: int, end: int) -> bool:
    """Whether a ``}`` too many after the envelope at ``begin`` has one reading.

    It may also have slipped in after an object whose parent's later
    members then move into it (``{"a": {"b": 1}, "c": 2}}`` is
    ``{"a": {"b": 1, "c": 2}}`` too): one reading only when no object, from
    the envelope down through objects, holds an object before another member.
    """
    if text[begin] != "{":
        return False
    try:
        value = orjson.loads(text[begin:end])
    except orjson.JSONDecodeError:
        return False
    stack = [value] if isinstance(value, dict) else []
    while stack:
        members = list(stack.pop().values())
        for index, member in enumerate(members):
            if isinstance(member, dict):
                if index < len(members) - 1:
                    return False
                stack.append(member)
    return True


def _goes_on(text: ScanText, pos: int) -> bool:
    """Whether JSON goes on at ``pos``, after a closed object.

    A closer, a colon or a string, or a comma before a JSON value that is not
    a word (prose after a comma is not). Stricter than
    ``spans.after.continues_structure``, which must let a root in prose be
    followed by ``, {…}`` or ``, 1``: after a call's arguments, any of these
    makes the call doubtful, and no call is made.
    """
    head = text[pos : pos + 1]
    if head and head in ']}:"':
        return True
    if head != ",":
        return False
    value = skip_space(text, pos + 1)
    after = text[value : value + 1]
    return bool(after) and after in '"{[-0123456789'


def _glued_end(text: ScanText, pos: int) -> int | None:
    """The end of the objects glued right after ``pos`` (spaces between), if any.

    An object that does not close runs to the next token or the reply's end:
    it is glued all the same. So does JSON that goes on after the object
    (``{"a": 1}, "b": 2}``, ``{"x": 1}, {"y": 2}]``): a closer slipped in
    early, or a lost ``[``, whose first object is not the arguments.
    """
    end = None
    while True:
        begin = skip_space(text, pos)
        if end is None and _goes_on(text, begin):
            return _json_run_end(text, begin)
        if begin >= len(text) or text[begin] != "{":
            return end
        stop = _json_end(text, begin)
        if stop is None:
            return _json_run_end(text, begin)
        end = pos = stop


def _json_run_end(text: ScanText, begin: int) -> int:
    """Where text from ``begin`` up to the next token ends, spaces aside."""
    token = next_token(text, begin)
    return begin + len(text[begin:token].rstrip())


def _more_bodies(
    text: ScanText, pos: int, closer: re.Pattern[str]
) -> tuple[list[tuple[int, int]], re.Match[str]] | None:
    """The JSON bodies after the first one up to the block's closer, and it.

    ``None`` unless only whole bodies (commas allowed between them) stand
    before the closer.
    """
    bodies: list[tuple[int, int]] = []
    while True:
        begin = skip_space(text, pos)
        if begin < len(text) and text[begin] == ",":
            begin = skip_space(text, begin + 1)
        if begin >= len(text) or text[begin] not in "[{":
            return None
        end = _json_end(text, begin)
        if end is None:
            return None
        bodies.append((begin, end))
        close = match_head(closer, text, end)
        if close is not None:
            return bodies, close
        pos = end


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
