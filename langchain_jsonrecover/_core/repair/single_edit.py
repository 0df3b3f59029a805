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
from langchain_jsonrecover._core.repair.single_edit_far import (
    before_innermost,
    find_far_sites,
    outside_strings,
)
from langchain_jsonrecover._core.repair.single_edit_near import REFUSING, Edit, edits
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
_OPENERS: Final = frozenset("{[")
CONTROL: Final = "unexpected control character in string"
ESCAPE: Final = "invalid escaped sequence"
_DEPTH: Final = "depth limit exceeded"
"""Nested past orjson's limit: deeper than any ``max_depth`` reads, fixed or not."""
_ESCAPE_LENGTH: Final = 5


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
    stop is kept too; ``distinct``: see ``single_edit_near.edits``; ``known``: see
    :func:`decode_whole`.
    """
    budget = _BUDGET_TIMES * len(text) + _BUDGET_EXTRA
    lo = max(1, stop - _WINDOW)
    sites = find_far_sites(text, stop, lo)
    sites.last = stop + (_ESCAPE_LENGTH if escape else 1)
    inner = max((at for at in sites.stack if at < lo), default=0)
    checks = _BUDGET_TIMES * len(text)
    layout = outside_strings(text, sites, lo, stop)
    near = edits(text, lo, sites, layout, distinct=distinct)
    for at, drop, insert, name in chain(near, extra):
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
