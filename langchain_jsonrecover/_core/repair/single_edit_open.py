"""The containers open before the single-edit search's scan starts.

Pure functions on ``str``; no LangChain imports. The scan for far sites
(``single_edit_far.find_far_sites``) reads every token from the opener of
the innermost container open at the decoder's stop, or from before the
window near the stop: what it needs of the text before is which containers
are open there, and the last comma of each. :func:`open_before` takes them
from the brackets before, in C; :func:`open_near`, where the innermost
container opens before the window, from that container and its parent
found back from the stop, and the kinds of the containers around them.
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._core.decode.tolerant import END_OF_DATA, TRAILING
from langchain_jsonrecover._core.repair.splice import open_at, open_back

_BRACKET_NEXT: Final = re.compile(
    r'[^"{}\[\]]*+(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"[^"{}\[\]]*+)*+(?:([{}\[\]])|"|\Z)',
    re.DOTALL,
)
"""The next bracket (group 1) past the strings and the rest before it (a gap)."""
_LAST_COMMA: Final = re.compile(r'(?:[^",]++|"(?:[^"\\]++|\\.)*+"|(,))*+', re.DOTALL)
"""Over a gap: its last comma outside strings (group 1)."""


def open_near(
    text: str, lo: int, stop: int
) -> tuple[int, str, list[int], list[int]] | None:
    """:func:`open_before` where the innermost container open at the stop opens early.

    That container and its parent are found back from the stop, each an
    opener outside strings (strict tokens before it on its line) from which
    orjson stops where it stopped in the text, for a reason other than text
    after a value: it read the same tokens to there, so its container is
    open at the stop. The scan starts at the innermost one; the parent is the
    one container around it whose last comma before it is read (the member
    holding a site there starts after it); of the containers around the
    parent only their kinds are taken, in C (``splice.open_at``): no site
    reads their offsets or commas. ``None`` where one is not found in
    ``splice._TRIES`` openers, or the innermost opens at or past ``lo``.

    Returns:
        Where the scan starts, the kinds around the parent (outermost first),
        ``[parent]``, and ``[-1, the parent's last comma before the start]``.

    Example:
        >>> text = '{"a": [1, 2], "b": {"c": [3, 4 5]}}'
        >>> open_near(text, 27, 31)
        (25, '{', [19], [-1, -1])
    """
    inner = open_back(text, stop, stop, _in_container, "{[")
    if not 0 < inner < lo:
        return None
    parent = open_back(text, inner, stop, _in_container, "{[")
    if parent < 0:
        return None
    kinds = open_at(text, parent)
    if kinds is None:
        return None
    return inner, kinds, [parent], [-1, _last_comma_in(text, parent, inner)]


def _in_container(message: str) -> bool:
    """Whether orjson stopped inside a value (not after one, nor at the end)."""
    return not message.startswith((TRAILING, END_OF_DATA))


def _last_comma_in(text: str, opener: int, end: int) -> int:
    """The last comma of the container at ``opener`` before ``end`` (-1: none)."""
    depth = 0
    gaps: list[tuple[int, int]] = []
    for found in _BRACKET_NEXT.finditer(text, opener + 1, end):
        bracket = found.start(1)
        if depth == 0:
            gaps.append((found.start(), bracket if bracket >= 0 else found.end()))
        if bracket < 0:
            break
        depth += 1 if text[bracket] in "[{" else -1
    return _last_comma(text, gaps)


def open_before(text: str, lo: int, stop: int) -> tuple[int, list[int], list[int]]:
    """Where the token scan starts, the containers open there, the last comma of each.

    At the opener of the innermost container open at the stop, or, where that
    is later, where the scan reads every token (before the first bracket at
    or past ``lo``). No edit before that opener can read the text
    (:func:`before_innermost`): the scan need not look for sites there.
    Where no container is open at the stop (the value closed before it, text
    follows), at the start. The brackets before it are taken in one pass in
    C with the strings and the gaps between them, each gap noted at its
    level; only the gaps of the levels returned are read again, from the
    last, for their last comma (``-1``: none, the top level first): where a
    member holding a site after it starts.

    Example:
        >>> text = '{"a": [1, 2], "b": {"c": [3 4]}}'
        >>> open_before(text, 27, 28)  # at the innermost opener
        (25, [0, 19], [-1, 12, -1])
        >>> open_before(text, 20, 28)  # past the last bracket before lo
        (20, [0, 19], [-1, 12, -1])
    """
    openers: list[int] = []
    gaps: list[list[tuple[int, int]]] = [[]]
    start = -1
    state: tuple[list[int], list[list[tuple[int, int]]], list[int]] = ([], [[]], [0])
    for found in _BRACKET_NEXT.finditer(text, 0, stop):
        bracket = found.start(1)
        begin = found.start()
        if start < 0 and not 0 <= bracket < lo:
            # The gaps noted so far at each level; later ones are not its.
            start, state = begin, (openers.copy(), gaps.copy(), list(map(len, gaps)))
        if bracket < 0:
            gaps[-1].append((begin, found.end()))
            break
        gaps[-1].append((begin, bracket))
        if text[bracket] in "[{":
            openers.append(bracket)
            gaps.append([])
        elif openers:
            openers.pop()
            gaps.pop()
    if not openers:  # the value closed before the stop: every site counts
        return 0, [], [-1]
    if openers[-1] < start:
        commas = [_last_comma(text, level) for level in gaps[:-1]]
        return openers[-1], openers[:-1], commas
    opened, noted, counts = state
    commas = [
        _last_comma(text, level[:count])
        for level, count in zip(noted, counts, strict=True)
    ]
    return start, opened, commas


def _last_comma(text: str, gaps: list[tuple[int, int]]) -> int:
    """The last comma outside strings in these gaps of one level (``-1``: none)."""
    for begin, end in reversed(gaps):
        found = _LAST_COMMA.match(text, begin, end)
        if found is not None and found.start(1) >= 0:
            return found.start(1)
    return -1
