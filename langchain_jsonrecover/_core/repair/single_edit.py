r"""The single-edit fix: a broken candidate that one edit, one reading, makes valid.

Pure functions on ``str``. Most broken replies carry one slip: a bracket,
quote, comma or colon dropped, added or put in the wrong place. The decoder
says where it stopped; the slip is at that point or before it. Every edit of
one character that could have caused the stop is tried:

- near the stop (``_WINDOW`` characters before it): drop a bracket, quote,
  comma, colon, ``;`` or ``=``; insert one of the first four (or a backslash
  before a quote; a quote only where it keeps the spaces between tokens out
  of strings); replace a bracket with one of the other kind, or a comma,
  colon, ``;`` or ``=`` with a comma or colon; swap a bracket, quote, comma
  or colon with the character beside it;
- further back, the edits a bracket slip allows there: insert an opener
  where a value of the innermost open container starts (a lost ``[`` before
  a run of items), or drop the opener of a container still open, or a
  closer whose container would keep the members after it (a stray ``}``).

An edit is kept when the whole candidate then decodes through the point where
it stopped, and nothing after the value closes what it did not open or goes
on as if it had not ended. When every edit kept gives the same value, that
value is the candidate's only one-slip reading; when two give different
values, the reply has two plausible readings and stays an error (a retry asks
again). So does a fix that shows a reading no edit can make: dropping one
of two commas (``[1,, 2]``, an item may be lost) or the space between two
digits (``[1 500]`` may be ``1500``).

Most edits break the text right where they are made, so before the whole
candidate is decoded, the member the edit is in is read alone, inside a value
slot of each container around it (``single_edit_pieces.member_piece``): a short
piece past the edit, then longer ones. Where a piece does not read on, the
whole text would not either, and the edit is ruled out; the few edits left
are decoded whole. The search reads the candidate a bounded number of times
(at most ``_BUDGET_TIMES`` its length plus ``_BUDGET_EXTRA`` characters in
whole decodes, then gives up; members up to ``_BUDGET_TIMES`` its length,
past which an edit's piece runs from the innermost container open before
the window to ``_AHEAD`` past the stop), so it stays linear in the reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Final

import orjson

from langchain_jsonrecover._core.decode.tolerant import (
    END_OF_DATA,
    TRAILING,
    Decoded,
    Stopped,
    decode,
    escape_control_characters,
)
from langchain_jsonrecover._core.repair.single_edit_checks import (
    SEPARATORS,
    TYPOGRAPHIC,
    after_string,
    back,
    before_structure,
    between_separators,
    between_strings,
    cannot_follow,
    closes_pair,
    closing_quote_fails,
    colon_name,
    joins_layout,
    may_quote,
    quote_in_key,
    splits_number,
    splits_pair,
    swallows,
)
from langchain_jsonrecover._core.repair.single_edit_far import (
    Far,
    before_innermost,
    find_far_sites,
    outside_strings,
)
from langchain_jsonrecover._core.repair.single_edit_pieces import (
    Known,
    decode_whole,
    goes_on,
    member_reads_on,
    reads_on,
    value_key,
)
from langchain_jsonrecover._core.repair.syntax import Repaired

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

_WINDOW: Final = 64
"""How far before the decoder's stop every kind of slip is looked for."""
_AHEAD: Final = 1024
"""How far past the stop an edit is checked before the text is decoded whole."""
_PAST: Final = (256, 1024, 4096)
"""How far past an edit its member is read (a short piece first, then longer
ones: a dropped closer that takes in the rest of its parent's members mostly
fails within a kilobyte) before the text is read to the stop."""
_MEMBER: Final = 4096
"""The longest stretch of a member before a far edit that is read on its own."""
_BUDGET_TIMES: Final = 64
INNER_LIMIT: Final = 1 << 12
"""The longest candidate whose inner quotes are read as text where no single
edit reads it: the search tries every edit there before its budget ends."""
_BUDGET_EXTRA: Final = 1 << 25
_DROPPED: Final = frozenset('{}[]",:;=')
_INSERTED: Final = '{}[]",:'
_INSERTED_NOT_QUOTE: Final = "{}[],:"
_LAYOUT: Final = frozenset(" \t\r\n")
_AFTER_STRING: Final = _LAYOUT | frozenset(",:]}")
_REPLACEMENTS: Final = {
    "{": "[",
    "[": "{",
    "}": "]",
    "]": "}",
    ",": ":",
    ":": ",",
    ";": ",:",
    "=": ",:",
    "'": '"',
    "`": '"',
    "\u201c": '"',
    "\u201d": '"',
    "\u201e": '"',
    "\uff02": '"',
}
"""A bracket for one of the other kind, a separator for another, a quote for
``'`` or a backtick: never an opener for a closer (``{{`` is no ``{}``)."""
_IN_STRING: Final = "'`\u201c\u201d\u201e\uff02"
"""What may be replaced inside a string (by a quote that closes it)."""
_OPENERS: Final = frozenset("{[")
_SWAPPED: Final = frozenset('{}[]",:')
"""A character swapped with its neighbour is one of these, or beside one."""
CONTROL: Final = "unexpected control character in string"
ESCAPE: Final = "invalid escaped sequence"
_DEPTH: Final = "depth limit exceeded"
"""Nested past orjson's limit: deeper than any ``max_depth`` reads, fixed or not."""
_ESCAPE_LENGTH: Final = 5
_LOST_ITEM: Final = "lost_item"
_DIGITS_JOINED: Final = "digits_joined"
_LOST_BRACES: Final = "lost_braces"
_HALF_PAIR: Final = "half_pair"
_TWO_STRINGS: Final = "two_strings"
_SWALLOWED: Final = "structure_swallowed"
REFUSING: Final = frozenset(
    {_LOST_ITEM, _DIGITS_JOINED, _LOST_BRACES, _HALF_PAIR, _TWO_STRINGS, _SWALLOWED}
)
"""Edits that, where they fix the text, show a reading we will not choose:
``[1,, 2]`` and ``{"a": 1;, "b": 2}`` may have lost an item; ``[1 500]``,
``{"t": 12:30}`` and ``{"p": 19,99}`` are no two numbers and no one;
``["a": 1]`` may be ``[{"a": 1}]``; ``["Grace" "Hopper"]`` may be one
string, ``{"a", "b"}`` a set (``colon_name``); ``{"a": “q” and more"}`` may
have lost the quote before a quotation (``“q”`` is a pair: neither half is
JSON's); ``[1, ,", "x"]`` may be ``[1, ",", "x"]`` (see ``swallows``)."""

Edit = tuple[int, int, str, str]
"""An edit: its offset, how many characters it drops there, what it inserts
there, and its name."""


@dataclass(frozen=True, slots=True)
class Ambiguous:
    """Two single-character edits that fix a candidate into different values.

    Example:
        >>> fix_single_edit("[1, 2]]", max_depth=200)
        Ambiguous(first=6, second=4)
    """

    first: int
    """Offset of the first edit kept (the one nearest the decoder's stop)."""
    second: int
    """Offset of an edit that gives another value."""


def fix_single_edit(
    text: str,
    *,
    max_depth: int,
    stopped: Stopped | None = None,
    known: Known | None = None,
) -> Repaired | Ambiguous | None:
    r"""The candidate after its only single-character fix, if it has one.

    Args:
        text: The reply from the candidate's opener on (prose may follow).
        max_depth: Deepest nesting accepted.
        stopped: Where orjson stops in ``text``, when an earlier read learnt
            it: the text is not decoded again to learn it.
        known: A strict text and its value (a repair's): an edit that writes
            it is not decoded again (``decode_whole``).

    Returns:
        The fixed value's text (strict JSON), named ``character_dropped``,
        ``character_inserted``, ``character_replaced``, ``characters_swapped``;
        :class:`Ambiguous` when two fixes give different values; ``None``
        when the text decodes, is cut off, nests deeper than the decoder
        reads, or has no single-edit fix (or the search ran out of budget).

    Example:
        >>> fix_single_edit('{"a": 1 "b": 2}', max_depth=200).text
        '{"a": 1 ,"b": 2}'
        >>> fix_single_edit('{"tags": ["x", "y"}, "n": 2}', max_depth=200).text
        '{"tags": ["x", "y"], "n": 2}'
        >>> fix_single_edit('[1, 2]]', max_depth=200)  # [1, 2] or [1, [2]]
        Ambiguous(first=6, second=4)
    """
    if text[:1] not in _OPENERS:
        return None
    escaped = None
    if stopped is None:
        stop, message = stop_of(text)
    else:
        stop, message = stopped.pos, stopped.msg
    if message.startswith(CONTROL):
        escaped = escape_control_characters(text)
        if escaped.dangling >= 0:
            return None
        stop, message = stop_of(escaped.text)
    if stop < 0 or message.startswith((END_OF_DATA, _DEPTH)):
        return None
    work = text if escaped is None else escaped.text
    if stop >= len(work.rstrip()):
        return None
    found = _search(work, stop, max_depth, message.startswith(ESCAPE), known)
    if not isinstance(found, Repaired) or escaped is None:
        return found
    return Repaired(
        found.text,
        ("control_characters_escaped", *found.repairs),
        truncated=False,
        end=escaped.original(found.end),
        value=found.value,
    )


def stop_of(text: str) -> tuple[int, str]:
    """Where and why orjson stops on ``text``; ``(-1, "")`` when it decodes."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return exc.pos, exc.msg
    return -1, ""


def _search(
    text: str, stop: int, max_depth: int, escape: bool, known: Known | None
) -> Repaired | Ambiguous | None:
    """Try every edit; the one value they agree on, or ``None``."""
    found: Repaired | None = None
    seen = b""
    first = 0
    edits = kept_edits(text, stop, max_depth, escape=escape, distinct=True, known=known)
    for kept in edits:
        if kept is None:
            return None
        if kept.name in REFUSING:
            return Ambiguous(first if found is not None else kept.at, kept.at)
        key = value_key(kept.value)
        if key is None:
            return None
        if found is None:
            seen = key
            found = Repaired(
                kept.text,
                (kept.name,),
                truncated=False,
                end=kept.end,
                value=(kept.value,),
            )
            first = kept.at
        elif key != seen:
            return Ambiguous(first, kept.at)
    return found


@dataclass(frozen=True, slots=True)
class Kept:
    """An edit after which the candidate decodes through the decoder's stop."""

    at: int
    """Where the edit is, in the candidate."""
    name: str
    """What it is (``character_inserted`` …, or a name in ``REFUSING``)."""
    insert: str
    """What it inserts (in place of ``drop`` characters)."""
    drop: int
    """How many characters of the candidate it drops."""
    value: Any
    """The value the edited candidate gives."""
    text: str
    """The edited value's text."""
    end: int
    """Where the value ends in the candidate before the edit."""


def kept_edits(
    text: str,
    stop: int,
    max_depth: int,
    *,
    escape: bool,
    extra: Iterable[Edit] = (),
    short: bool = False,
    distinct: bool = False,
    known: Known | None = None,
) -> Iterator[Kept | None]:
    r"""Every edit after which ``text`` decodes through ``stop``, nearest first.

    At an invalid escape the decoder stops at its backslash, before the
    character that broke it (up to the last of ``\uXXXX``): edits go that
    far past the stop; elsewhere to the character after it. ``None`` ends
    the run when the search ran out of budget. ``extra`` edits are tried
    after the search's own; ``short``: an edit whose value ends before the
    stop is kept too; ``distinct``: see :func:`_edits`; ``known``: see
    :func:`decode_whole`.
    """
    budget = _BUDGET_TIMES * len(text) + _BUDGET_EXTRA
    lo = max(1, stop - _WINDOW)
    sites = find_far_sites(text, stop, lo)
    sites.last = stop + (_ESCAPE_LENGTH if escape else 1)
    inner = max((at for at in sites.stack if at < lo), default=0)
    checks = _BUDGET_TIMES * len(text)
    layout = outside_strings(text, sites, lo, stop)
    edits = _edits(text, lo, sites, layout, distinct=distinct)
    for at, drop, insert, name in chain(edits, extra):
        if before_innermost(text, sites, at, drop, insert):
            continue
        context = sites.contexts.get(at) if at < lo else sites.near
        if (
            context is not None
            and at - context[1] <= _MEMBER
            and checks > 0 < len(_PAST)
        ):
            fits, read = member_reads_on(text, context, at, (drop, insert), _PAST)
            checks -= read
            if not fits:
                continue
        elif inner < at:
            piece = text[inner:at] + insert + text[at + drop : stop + _AHEAD]
            budget -= len(piece)
            if budget < 0:
                yield None
                return
            if not reads_on(piece):
                continue
        edited = text[:at] + insert + text[at + drop :]
        shift = len(insert) - drop
        budget -= 2 * len(edited)
        if budget < 0:
            yield None
            return
        try:
            value, shallow = decode_whole(edited, max_depth, known)
        except orjson.JSONDecodeError as exc:
            budget -= exc.pos
            if not exc.msg.startswith(TRAILING) or exc.pos <= stop + shift:
                continue
            stopped = Stopped(exc.pos, exc.msg)
            result = decode(
                edited, max_depth=max_depth, allow_trailing=True, stop=stopped
            )
        else:
            if not shallow:
                continue
            result = Decoded(value, len(edited.rstrip(" \t\r\n")))  # as ``decode``
        if not isinstance(result, Decoded):
            continue
        end = result.end
        if at > end or goes_on(edited, end):
            continue
        end_in_text = end - shift if at < end else at + 1
        if short or end_in_text > stop:
            value, piece = result.value, edited[:end]
            yield Kept(at, name, insert, drop, value, piece, end_in_text)


def _edits(
    text: str, lo: int, far: Far, layout: int, *, distinct: bool
) -> Iterator[Edit]:
    """Every single-character edit that could have made the decoder stop.

    Near the stop from ``far.last`` back to ``lo``, then the far ones. Left out
    before ``layout`` outside strings: an edit that fails where it is made
    (:func:`cannot_follow`, in the containers open there), and where ``distinct``
    a bracket, comma or colon inserted before a space under the name it has after
    it (``1 ]``, ``1] ``); at a closing quote, one that :func:`closing_quote_fails`.
    """
    in_array = bool(far.stack) and text[far.stack[-1]] == "["
    strings = far.strings
    kinds = [text[at] for at in far.stack] if layout == far.last - 1 else None
    after: dict[str, str] = {}
    for at in range(min(far.last, len(text) - 1), lo - 1, -1):
        while strings and strings[-1][0] >= at:
            strings.pop()
        if strings and at < strings[-1][1] - 1:
            after = {}
            yield from _edits_in_string(text, at, strings[-1][0])
            continue
        closing = bool(strings) and at == strings[-1][1] - 1
        outside = at < layout and not closing
        inner = back(kinds, text[at] if outside else "")
        same = distinct and at + 1 < layout and text[at] in _LAYOUT
        here: dict[str, str] = {}
        for edit in _edits_at(text, at, in_array=in_array, stop=far.last - 1):
            if not edit[1] and edit[2] in _INSERTED_NOT_QUOTE:
                here[edit[2]] = edit[3]
                if same and after.get(edit[2]) == edit[3]:
                    continue
            fails = closing and closing_quote_fails(text, at, edit[1], edit[2])
            if not (fails or (outside and cannot_follow(text, at, edit[1:3], inner))):
                yield edit
        after = here
    for at in reversed(far.slots):
        if at < lo:
            for opener in "[{":
                yield at, 0, opener, "character_inserted"
    for at in reversed(far.closers + far.openers):
        if 0 < at < lo:
            yield at, 1, "", "character_dropped"
    for at in reversed(far.quotes):
        if at + 1 < lo:
            yield at, 2, text[at + 1] + text[at], "characters_swapped"
    if far.child is not None:
        closer = "}" if text[far.child] == "{" else "]"
        for at in reversed(far.child_ends):
            if at < lo:
                yield at, 0, closer, "character_inserted"


def _edits_in_string(text: str, at: int, start: int = 0) -> Iterator[Edit]:
    """The edits inside a string's text that can change more than its text.

    A quote inserted (the string lost its closing quote there) before what
    may follow a string in a container (before anything else the text fails
    right after it), a ``'`` or backtick taken for the closing quote, or the
    last character swapped with the closing quote (``"name:"`` for
    ``"name":``; after no backslash, only before what may follow a string);
    any other edit there leaves the string a string and the stop where it was.
    """
    if may_quote(text, at):
        if text[at] in _AFTER_STRING:
            yield at, 0, '"', "character_inserted"
        if text[at - 2 : at] == '\\"' and text.count('\\"', start, at) % 2:
            yield at - 2, 0, "\\", "character_inserted"
    if text[at] in _IN_STRING:
        yield at, 1, '"', _HALF_PAIR if splits_pair(text, at) else "character_replaced"
    if text[at + 1] == '"' and (text[at] in _AFTER_STRING or text[at - 1] == "\\"):
        yield at, 2, '"' + text[at], "characters_swapped"


def _edits_at(text: str, at: int, *, in_array: bool, stop: int) -> Iterator[Edit]:
    char = text[at]
    between_digits = (text[at - 1 : at] + text[at + 1 : at + 2]).isdigit()
    if char in _DROPPED and not (
        char == '"'
        and (
            before_structure(text, at, ":")
            or closes_pair(text, at)
            or joins_layout(text, at)
        )
    ):
        name = "character_dropped"
        if char in SEPARATORS and between_digits:
            name = _DIGITS_JOINED
        elif between_separators(text, at):
            name = _LOST_ITEM
        yield at, 1, "", name
    elif char == " " and between_digits:
        yield at, 1, "", _DIGITS_JOINED
    splits = splits_number(text, at)
    strings = in_array and between_strings(text, at)
    for new in _INSERTED if may_quote(text, at) else _INSERTED_NOT_QUOTE:
        name = _DIGITS_JOINED if splits and new in ",:" else "character_inserted"
        if strings and new == ",":
            name = _TWO_STRINGS
        elif new == '"' and swallows(text, at, stop):
            name = _SWALLOWED
        yield at, 0, new, colon_name(text, at, 0, new, name)
    if (
        char == '"'
        and not before_structure(text, at, ":")
        and not quote_in_key(text, at)
    ):
        yield at, 0, "\\", "character_inserted"
    for new in _REPLACEMENTS.get(char, ""):
        name = "character_replaced"
        if char in TYPOGRAPHIC and splits_pair(text, at):
            name = _HALF_PAIR
        elif char in SEPARATORS and between_digits:
            name = _DIGITS_JOINED
        elif char == ":" and in_array and after_string(text, at):
            name = _LOST_BRACES
        yield at, 1, new, colon_name(text, at, 1, new, name)
    after = text[at + 1 : at + 2]
    if after and after != char and (char in _SWAPPED or after in _SWAPPED):
        yield at, 2, after + char, "characters_swapped"
