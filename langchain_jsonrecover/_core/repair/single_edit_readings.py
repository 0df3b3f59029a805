"""Every reading one edit gives a broken candidate, for a schema to choose among.

Pure functions on ``str``; no LangChain imports. The single-edit search
(``single_edit``) takes a fix only where every edit that fixes the candidate
gives one value; where two give different values the candidate stays an
error. A schema may still tell them apart: ``[["a", "b"], "c", "d"], ["e",
"f"]]`` is a row that lost its ``[`` (``[["a", "b"], ["c", "d"], ["e",
"f"]]``), or a stray ``]`` (``[["a", "b", "c", "d"], ["e", "f"]]``), or a
``]`` swapped into a string, …; for ``list[tuple[str, str]]`` only the first
validates. So this lists them all: the search's own edits near the stop and
far before it, and every bracket edit anywhere before the stop (an opener
inserted where a value may start, a closer dropped, replaced by a comma or
swapped with a quote beside it), which the search looks for only near the
stop or in the innermost open container: a long row that lost its opener
puts its start far from where the decoder stops, after the root closed.
Where they cannot all be listed (a candidate with more bracket sites than
``_MAX_SITES``, the search's budget spent, or an edit that shows a reading
no edit can make), there is no list and the candidate stays an error.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final

from langchain_jsonrecover._core.decode.tolerant import TRAILING, Decoded, decode
from langchain_jsonrecover._core.repair.single_edit import (
    CONTROL,
    ESCAPE,
    INNER_LIMIT,
    Kept,
    fix_single_edit,
    kept_edits,
    stop_of,
)
from langchain_jsonrecover._core.repair.single_edit_near import REFUSING, Edit
from langchain_jsonrecover._core.repair.single_edit_pieces import value_key
from langchain_jsonrecover._core.repair.syntax import Repaired, repair_inner_quotes

if TYPE_CHECKING:
    from collections.abc import Iterator

_MAX_SITES: Final = 2048
"""More bracket sites than this before the stop: too many readings to list."""
_TOKEN: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\],:]', re.DOTALL)
_SPACE: Final = re.compile(r"[ \t\r\n]*+")


def one_edit_readings(text: str, *, max_depth: int) -> list[Kept] | None:
    """Every edit of one character that fixes ``text``, with the value it gives.

    Args:
        text: The reply from the candidate's opener on (prose may follow).
        max_depth: Deepest nesting accepted.

    Returns:
        The edits kept, nearest the decoder's stop first, those whose value
        ends before the stop too, and first of all, where a whole value ends
        at the stop, that value (``rest_dropped``: what follows it a stray);
        ``None`` when they cannot all be listed, or the text decodes, is cut
        off or holds a control character.

    Example:
        >>> readings = one_edit_readings('[["a"], "b"], ["c"]]', max_depth=9)
        >>> [["a"], ["b"], ["c"]] in [kept.value for kept in readings]
        True
        >>> [["a", "b"], ["c"]] in [kept.value for kept in readings]
        True
    """
    if text[:1] not in "[{":
        return None
    stop, message = stop_of(text)
    if stop < 0 or stop >= len(text.rstrip()) or message.startswith(CONTROL):
        return None
    extra = list(_bracket_edits(text, stop))
    if len(extra) > _MAX_SITES:
        return None
    kept: list[Kept] = []
    if message.startswith(TRAILING):
        # No edit: the value before the stop, and a stray rest after it.
        prefix = decode(text[:stop], max_depth=max_depth, allow_trailing=False)
        if not isinstance(prefix, Decoded):
            return None
        kept.append(Kept(stop, "rest_dropped", "", 0, prefix.value, text[:stop], stop))
    escape = message.startswith(ESCAPE)
    edits = kept_edits(text, stop, max_depth, escape=escape, extra=extra, short=True)
    for edit in edits:
        if edit is None or edit.name in REFUSING:
            return None
        kept.append(edit)
    return kept


def closers_inside(text: str, root: Any, max_depth: int) -> tuple[Any, ...] | None:
    """The other values of a root (``root``) and a ``}`` after it: one inside dropped.

    ``{"a": {"b": 1}, "c": 2}}`` is the root and a stray ``}``, or
    ``{"a": {"b": 1, "c": 2}}`` with a ``}`` slipped in after ``1``: the
    second, one value per reading that differs from the root; ``None``
    where the readings cannot all be listed (see :func:`one_edit_readings`).

    Example:
        >>> text = '{"a": {"b": 1}, "c": 2}}'
        >>> closers_inside(text, {"a": {"b": 1}, "c": 2}, 9)
        ({'a': {'b': 1, 'c': 2}},)
        >>> closers_inside('{"a": [1], "c": 2}}', {"a": [1], "c": 2}, 9)
        ()
    """
    readings = one_edit_readings(text, max_depth=max_depth)
    if readings is None:
        return None
    keys = {value_key(root)}
    values: list[Any] = []
    for kept in readings:
        if kept.drop and not kept.insert and text[kept.at] == "}":
            key = value_key(kept.value)
            if key is None:
                return None
            if key not in keys:
                keys.add(key)
                values.append(kept.value)
    return tuple(values)


def _bracket_edits(text: str, stop: int) -> Iterator[Edit]:
    """The bracket edits before ``stop``: openers added, closers dropped or moved.

    The text before ``stop`` is a valid JSON prefix, so it is read token by
    token, strings whole.
    """
    for token in _TOKEN.finditer(text, 0, stop):
        start, end = token.span()
        char = text[start]
        if char in "[,:":
            slot = _SPACE.match(text, end)
            at = end if slot is None else slot.end()
            if text[at : at + 1] not in ("]", "}", ""):
                yield at, 0, "[", "character_inserted"
                yield at, 0, "{", "character_inserted"
        elif char in "]}":
            yield start, 1, "", "character_dropped"
            yield start, 1, ",", "character_replaced"
            if text[start - 1] == '"':
                yield start - 1, 2, char + '"', "characters_swapped"
            if text[end : end + 1] == '"':
                yield start, 2, '"' + char, "characters_swapped"


def read_inner_quotes(text: str, *, max_depth: int) -> Repaired | None:
    """``repair_inner_quotes`` where the candidate has no single-edit reading.

    Only for a candidate of at most :data:`INNER_LIMIT` characters.

    Example:
        >>> read_inner_quotes('{"t": "say "hi"", "n": 1}', max_depth=9).repairs
        ('inner_quotes_escaped',)
        >>> read_inner_quotes('{"t": "1/2" wrench"}', max_depth=9) is None
        True
    """
    if len(text) > INNER_LIMIT:
        return None
    if fix_single_edit(text, max_depth=max_depth) is not None:
        return None
    return repair_inner_quotes(text)
