r"""Where a continuation joins a cut-off reply: every reading of the two.

Pure functions on ``str``; no LangChain imports. A model asked to continue a
cut-off reply may do it exactly, or repeat what the reply ended with (the cut
token ``10`` again in ``103, 104]``, the phrase it was writing, the last key),
put a sentence first, or start the whole answer over. No text says which, so
:func:`join_readings` lists every text the two can make: the exact join, the
join without each overlap (each prefix of the continuation that the reply
ends with), the same after a lead-in sentence from a closed list (``Sure,
here is the rest:``, ``Continuing:`` …, in any case), and
:func:`restart_at` says whether the continuation may be the answer again
from its start. The retry loop parses each reading and keeps a value only
where every reading that parses agrees (``retry.parsing``).

Each scan is linear: the overlaps come from the prefix function of the
continuation (Knuth-Morris-Pratt) run over the reply's end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_READINGS: Final = 8
"""More readings than this of one continuation: ask for the whole answer."""

_HEAD: Final = 32
"""How many characters (whitespace aside) of the reply's JSON a restart repeats."""

# A sentence a model puts before the rest, in any case (a string that goes
# on with such words is then read both ways, and the model asked again);
# bounded, so the match is linear.
_LEAD_IN: Final = re.compile(
    r"[ \t]*(?:sure|ok|okay|certainly|of course|apologies|my apologies|sorry"
    r"|continuing|continued|here is|here's|here are|here you go|the rest"
    r"|as requested|resuming|below is|rest of)"
    r"\b[^\n]{0,80}?(?:[:.!][ \t]*\n*|\n+)",
    re.IGNORECASE,
)


_FENCE_OPEN: Final = re.compile(r"[ \t\r\n]*+```[\w+.-]*+[ \t]*+\r?\n")
# The guard starts the run of spaces only at its first one: a search tried
# at each space of a long run would read the rest of it each time.
_FENCE_CLOSE: Final = re.compile(r"\r?\n?(?<![ \t])[ \t]*+```[ \t\r\n]*+\Z")


@dataclass(frozen=True, slots=True)
class Reading:
    """One text the cut reply and its continuation can make."""

    text: str
    join: int
    """Where the continuation's part starts in ``text``: a value read from the
    text must lie across it. ``-1``: the continuation alone (a restart)."""


def overlaps(text: str, piece: str) -> list[int]:
    """Each ``k > 0`` for which ``text`` ends with ``piece[:k]``, longest first.

    Example:
        >>> overlaps("[101, 102, 10", "103, 104]")
        [2]
        >>> overlaps('"was strong', "strong, and")
        [6]
        >>> overlaps("[0, 0, ", "0, 0, 1]")
        [6, 3]
        >>> overlaps('{"a": ', '"b"}')
        []
    """
    size = min(len(text), len(piece))
    if not size:
        return []
    pattern = piece[:size]
    border = _prefix_function(pattern)
    matched = 0
    for char in text[-size:]:
        while matched and (matched == size or pattern[matched] != char):
            matched = border[matched - 1]
        if pattern[matched] == char:
            matched += 1
    found = []
    while matched:
        found.append(matched)
        matched = border[matched - 1]
    return found


def _prefix_function(pattern: str) -> list[int]:
    border = [0] * len(pattern)
    length = 0
    for i in range(1, len(pattern)):
        while length and pattern[i] != pattern[length]:
            length = border[length - 1]
        if pattern[i] == pattern[length]:
            length += 1
        border[i] = length
    return border


def lead_in(piece: str) -> int:
    r"""The length of a lead-in sentence before the rest, or 0.

    Example:
        >>> piece = "Sure, here is the rest:\n103, 104]"
        >>> piece[lead_in(piece):]
        '103, 104]'
        >>> lead_in("surely 5]"), lead_in("103, 104]")
        (0, 0)
    """
    found = _LEAD_IN.match(piece)
    return found.end() if found else 0


def join_readings(bases: Sequence[str], piece: str) -> list[Reading]:
    """Every text the reply so far (each reading of it) and ``piece`` make.

    The exact join of the first base comes first; then, for each base, the
    join without each overlap, and the same after a lead-in sentence.
    Duplicate texts are listed once.

    Example:
        >>> [r.text for r in join_readings(["[101, 102, 10"], "103, 104]")]
        ['[101, 102, 10103, 104]', '[101, 102, 103, 104]']
        >>> [r.text for r in join_readings(['{"a": '], "1}")]
        ['{"a": 1}']
    """
    found: dict[str, Reading] = {}
    lead = lead_in(piece)
    rests = [piece, piece[lead:]] if lead else [piece]
    # A continuation in a fence of its own: the fence may be markup, or data
    # inside the string the cut fell in. Both are read.
    rests += [u for u in map(_unfenced, rests) if u is not None]
    for base in bases:
        for rest in rests:
            for skip in (0, *overlaps(base, rest)):
                text = base + rest[skip:]
                found.setdefault(text, Reading(text, len(base)))
            spaced = rest.lstrip(" \t\r\n")
            if spaced is not rest and spaced:
                # A repeat after a space (`` in markdown"}`` after ``"in mark``)
                # that starts where a word of the reply starts.
                for skip in overlaps(base, spaced):
                    if base[-skip - 1 : -skip].isalnum():
                        continue
                    text = base + spaced[skip:]
                    found.setdefault(text, Reading(text, len(base)))
    return list(found.values())


def _unfenced(piece: str) -> str | None:
    r"""``piece`` without the fence it opens (and closes), or ``None``.

    Example:
        >>> _unfenced('```json\n-1"}\n```'), _unfenced('-1"}')
        ('-1"}', None)
    """
    opened = _FENCE_OPEN.match(piece)
    if opened is None:
        return None
    rest = piece[opened.end() :]
    closed = _FENCE_CLOSE.search(rest)
    return rest[: closed.start()] if closed is not None else rest


def restart_at(partial: str, piece: str) -> int | None:
    r"""Where ``piece`` starts the answer over, or ``None``.

    A restart's first ``{`` or ``[`` begins as the cut reply's JSON does:
    its first 16 characters, whitespace aside, or all of a shorter one.

    Example:
        >>> restart_at('Here: {"a": [1, 2', '```json\n{"a": [1, 2, 3]}\n```')
        8
        >>> restart_at('{"a": [1, 2', "3]}") is None
        True
    """
    start, again = _first_opener(partial), _first_opener(piece)
    if start is None or again is None:
        return None
    head = _squeeze(partial[start : start + 8 * _HEAD])[:_HEAD]
    other = _squeeze(piece[again : again + 8 * _HEAD])[:_HEAD]
    same = next(
        (i for i, (a, b) in enumerate(zip(head, other, strict=False)) if a != b),
        min(len(head), len(other)),
    )
    return again if same >= min(len(head), _HEAD // 2) else None


def _first_opener(text: str) -> int | None:
    found = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return min(found) if found else None


def _squeeze(text: str) -> str:
    return "".join(text.split())
