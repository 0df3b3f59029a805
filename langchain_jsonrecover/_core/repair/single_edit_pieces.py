"""Reading an edited member alone, and what follows a value (the single-edit search).

Pure functions on ``str``; no LangChain imports. Before the single-edit
search decodes an edited text whole, it reads the member the edit is in,
inside a value slot of each container around it (:func:`member_piece`): a
piece that does not read on (:func:`reads_on`) rules the edit out. An edit
that reads on is decoded whole (:func:`decode_whole`, unless a repair wrote
its text already), and :func:`goes_on` tells whether the text after its value
reads as more of it; :func:`value_key` compares the values of two edits.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import orjson

from langchain_jsonrecover._core.decode.tolerant import (
    END_OF_DATA,
    TRAILING,
    loads_within,
    within_depth,
)

_NOT_BRACKET: Final = re.compile(r"[^\[\]{}]++")
_NEXT_CHAR: Final = re.compile(r"[ \t\r\n]*+(.)", re.DOTALL)
_TAIL_BRACKETS: Final = 4096
_NUMBER_GOES_ON: Final = re.compile(r"\.?[0-9]")
_SPACES: Final = " \t\r\n"
_BIG_INTEGER: Final = "Integer exceeds 64-bit range"
"""What orjson says of an integer it cannot write."""
Known = tuple[str, Any]
"""A strict text and its value, as ``loads_within`` gives it (:func:`decode_whole`)."""


def member_piece(
    text: str, context: tuple[str, int], at: int, edit: tuple[int, str], ahead: int
) -> str:
    """The edited member holding ``at``, in its containers, cut ``ahead`` past the edit.

    ``context`` is a value slot in each container around the member's
    (``{"":[``), then its opener, and the member's start in ``text``;
    ``edit`` drops that many characters at ``at`` and inserts the string
    there. Read alone, the piece decodes, ends early or stops at its end
    wherever the whole edited text reads past the edit: the text before
    ``at`` is unchanged, JSON's grammar does not look back past a member's
    start, and the state after an opener admits all that the state after a
    comma does. So a piece that does not read on (:func:`reads_on`) rules
    the edit out without reading the text before the member.

    Example:
        >>> text = '{"a": 1, "b:" 2}'
        >>> member_piece(text, ("{", 8), 11, (2, '":'), 4)
        '{ "b": 2}'
        >>> member_piece('[{"a": 1}, 2]', ('[{', 2), 8, (1, ""), 4)
        '[{"a": 1, 2]'
    """
    prefix, begin = context
    drop, insert = edit
    return prefix + text[begin:at] + insert + text[at + drop : at + drop + ahead]


def member_reads_on(
    text: str,
    context: tuple[str, int],
    at: int,
    edit: tuple[int, str],
    pasts: tuple[int, ...],
) -> tuple[bool, int]:
    """Whether the edited member reads on, cut at each of ``pasts``; what it read.

    Each piece is :func:`member_piece`, a short one first.

    Example:
        >>> member_reads_on('[{"a": 1}, {"b" 2}]', ("[", 10), 15, (0, ":"), (4, 9))
        (True, 22)
        >>> member_reads_on('[{"a": 1}, {"b" 2}]', ("[", 10), 15, (0, ","), (4, 9))
        (False, 11)
    """
    read = 0
    for past in pasts:
        piece = member_piece(text, context, at, edit, past)
        read += len(piece)
        if not reads_on(piece):
            return False, read
    return True, read


def goes_on(text: str, end: int) -> bool:
    """Whether the text after the value (from ``end``) reads as more of it.

    It does when it goes on as JSON would (a quote, separator or closer next,
    which takes in every case of ``_spans.continues_structure``, or a digit
    that goes on a number: ``}0.01`` read as
    ``0}.01``), closes a bracket it did not open, leaves one open, or leaves a
    quote open: a value that an edit closed early, the rest of the reply still
    the JSON, or a cut one. Text after it with more than ``_TAIL_BRACKETS``
    brackets is not read as prose at all (it costs one pass in C to tell).
    """
    after = _NEXT_CHAR.match(text, end)
    if after is not None and after.group(1) in '":,]}':
        return True
    if _NUMBER_GOES_ON.match(text, end):
        return True
    tail = text[end:]
    if (tail.count('"') - tail.count('\\"')) % 2:
        return True
    if sum(map(tail.count, "[]{}")) > _TAIL_BRACKETS:
        return True
    skeleton = _NOT_BRACKET.sub("", tail)
    depth = 0
    for bracket in skeleton:
        depth += 1 if bracket in "[{" else -1
        if depth < 0:
            return True
    return depth > 0


def reads_on(piece: str) -> bool:
    """Whether ``piece`` is the start of a container that may decode.

    ``piece`` runs from the innermost container open before the edited
    offsets to a little past the decoder's stop. Every such piece of a valid
    text decodes, closes early (text follows) or ends inside the value; only
    then is the edited text decoded whole. The piece is small where the reply
    is a list of records, and bounded past the stop: a text with a second
    slip far after the first is not read to it once per edit.
    """
    try:
        orjson.loads(piece)
    except orjson.JSONDecodeError as exc:
        return exc.msg.startswith((TRAILING, END_OF_DATA))
    return True


def decode_whole(
    edited: str, max_depth: int, known: Known | None = None
) -> tuple[Any, bool]:
    """``loads_within`` on an edited text, or the value known for that text.

    ``known`` is a strict text and its value as ``loads_within`` gives it (at
    any depth): an edited text that is that text, up to spaces after it, has
    that value, and its depth is checked as ``loads_within`` checks it (the
    brackets of its UTF-8 form peeled).

    Raises:
        orjson.JSONDecodeError: The edited text is not one JSON value.

    Example:
        >>> decode_whole("[1, [2]] ", 1, ("[1, [2]]", [1, [2]]))
        ([1, [2]], False)
    """
    if known is not None and edited.rstrip(_SPACES) == known[0]:
        return known[1], within_depth(edited, known[1], max_depth)
    return loads_within(edited, max_depth)


def value_key(value: Any) -> bytes | None:
    """A key equal for two JSON values iff they are the same value.

    Types count (``1``, ``1.0`` and ``True`` differ); key order does not.
    A value holding an integer past 64 bits, which orjson cannot write, is
    written by the standard library (the two forms never meet: whether a
    value holds one is part of the value). ``None`` for a value nested
    deeper than either writes.

    Example:
        >>> value_key({"b": 1, "a": [True]}) == value_key({"a": [True], "b": 1})
        True
        >>> value_key([10**20]) == value_key([10**20]) != value_key([1e20])
        True
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError as exc:
        if str(exc) != _BIG_INTEGER:
            return None
    try:
        return json.dumps(value, sort_keys=True).encode()
    except RecursionError:
        return None
