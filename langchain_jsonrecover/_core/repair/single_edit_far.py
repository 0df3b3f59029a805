"""Where a slip far before the decoder's stop could still hide (the single-edit search).

Pure functions on ``str``; no LangChain imports. The text before the stop is
a valid JSON prefix, so one token scan over it finds the few places where a
bracket or quote slip far from the stop would still let the text decode: the
value slots of the innermost open container, the openers still open and
those of its children, the members of the child that closed last, and the
quotes beside a bracket (or a comma or colon just before the stop,
:func:`quote_swaps`). The same scan notes, for each of
those places and for the window near the stop, where the member holding it
starts and which containers are open around it: an edit there is read in
that member alone first (``member_piece``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cache
from itertools import chain
from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.repair.single_edit_open import open_before, open_near

if TYPE_CHECKING:
    from collections.abc import Iterator

_TOKEN: Final = re.compile(r'"(?:[^"\\]++|\\.)*+"|[{}\[\],:]', re.DOTALL)
_KEY_COLON: Final = re.compile(
    r'[ \t\r\n]*+"(?:[^"\\]++|\\.)*+"[ \t\r\n]*+:', re.DOTALL
)
_NEIGHBOURS: Final = frozenset("{}[],:")
CROSSED: Final = frozenset("{}[]")
"""What a far quote swap may move into or out of a string: a bracket. One that
moves a comma or colon fails where the decoder reads the next token (see
:func:`quote_swaps`), unless that token is past the stop."""
_COMMA_NEXT: Final = re.compile(r"[ \t\r\n]*+,")
_MEMBER_NEXT: Final = {
    "}": re.compile(r'[ \t\r\n]*+,[ \t\r\n]*+"'),
    "]": re.compile(
        r"[ \t\r\n]*+,[ \t\r\n]*+"
        r'(?=[\[{"\-0-9tfn])(?!"(?:[^"\\]++|\\.)*+"[ \t\r\n]*+:)'
    ),
}
"""After a closer, a comma then what its container may hold next: a key (an
object), a value but no key (an array). Where another token follows, the
text with the closer dropped fails right there, inside the container."""
_CLOSER: Final = {"{": "}", "[": "]"}
_NEXT_CHAR: Final = re.compile(r"[ \t\r\n]*+(.)", re.DOTALL)
_ANCESTORS: Final = 32
"""How many containers around a far edit's own a piece of it is read in."""


@dataclass(slots=True)
class Far:
    """Where a slip far before the decoder's stop could still be."""

    slots: list[int]
    """Where a value of the innermost open container may start (a lost opener)."""
    stack: list[int]
    """Openers of the containers still open, outermost first."""
    openers: list[int]
    """Those, and the openers of the innermost one's children."""
    quotes: list[int]
    """Offsets ``i`` where swapping ``i`` and ``i + 1`` moves a quote past a
    bracket (``"[a",`` for ``["a",``), or a comma or colon where that may
    read on (:func:`quote_swaps`)."""
    child: int | None
    """The opener of the innermost open container's last child container."""
    child_ends: list[int]
    """The commas of that child: a lost closer may belong before any of them."""
    strings: list[tuple[int, int]]
    """The strings that end after the window's start, as ``(start, end)``."""
    last: int = 0
    """The last offset edited near the stop."""
    closers: list[int] = field(default_factory=list)
    """Closers before the window with members after them that a stray closer
    there would have moved up a level (every container they and those moved
    ones close is of one kind): dropping one keeps them in."""
    contexts: dict[int, tuple[str, int]] = field(default_factory=dict)
    """For each far site, the containers open there and where the member
    holding it starts (see :func:`member_piece`)."""
    near: tuple[str, int] | None = None
    """The same for every edit near the stop: the innermost container open
    before the window and its member that the window starts in."""
    outer: str = ""
    """The kinds of the containers open around ``stack[0]`` where they are not
    in ``stack`` (:func:`open_near`), outermost first."""


def find_far_sites(text: str, stop: int, lo: int) -> Far:
    """The places before ``stop`` where a slip could hide far from it.

    The text before ``stop`` is a valid JSON prefix (the decoder read it), so
    its strings and brackets can be taken token by token. A slot is where a
    value may start: after ``[`` or an array's comma (every item of the
    innermost array), or after the last ``:`` (the innermost object's current
    value); at the top level, the candidate's start.
    """
    found = open_near(text, lo, stop)
    outer = ""
    if found is None:
        begin, openers, before = open_before(text, lo, stop)
    else:
        begin, outer, openers, before = found
    levels = range(len(openers) + 1)
    slots: list[list[int]] = [[0]] + [[] for _ in openers]
    children: list[list[int]] = [[] for _ in levels]
    commas: list[list[int]] = [[at] if at >= 0 else [] for at in before]
    last: list[tuple[int, list[int]] | None] = [None for _ in levels]
    quotes: list[int] = []
    strings: list[tuple[int, int]] = []
    runs: list[int] = []
    kinds = outer + "".join(text[at] for at in openers)
    for level, kind in enumerate(kinds):
        same = level > 0 and kinds[level - 1] == kind
        runs.append(runs[-1] + 1 if same else 1)
    shifts: list[tuple[int, int, int]] = []
    depths: list[int] = []
    pending: list[list[int]] = [[] for _ in levels]
    ruled: set[int] = set()
    members = _Members(text, openers, commas, outer)
    solid = len(text[:stop].rstrip(" \t\r\n"))
    for start, end in _tokens(text, lo, stop, begin):
        char = text[start]
        if char == ",":  # the most frequent
            commas[-1].append(start)
            if openers and text[openers[-1]] == "[":
                slots[-1].append(end)
        elif char == '"':
            if end > lo:
                strings.append((start, end))
            inner = text[openers[-1]] if openers else ""
            for at in quote_swaps(text, start, end, solid, inner=inner):
                quotes.append(at)
                members.note(at)
        elif char in "[{":
            children[-1].append(start)
            same = (text[openers[-1]] if openers else outer[-1:]) == char
            runs.append(runs[-1] + 1 if same else 1)
            openers.append(start)
            slots.append([end] if char == "[" else [])
            children.append([])
            commas.append([])
            pending.append([])
            last.append(None)
        elif char in "]}":
            if openers:
                stray = start < lo and _COMMA_NEXT.match(text, end) is not None
                if stray:
                    # Noted for the bracket edits of ``one_edit_readings`` too.
                    members.note(start)
                    stray = _MEMBER_NEXT[char].match(text, end) is not None
                if stray:
                    shifts.append((start, len(depths), len(openers) - runs[-1]))
                children_of = pending.pop()
                if children_of and not _goes_on_open(text, end, char):
                    ruled.update(children_of)
                if stray:
                    pending[-1].append(len(shifts) - 1)
                runs.pop()
                depths.append(len(openers) - 1)
                closed = (openers.pop(), commas.pop())
                slots.pop()
                children.pop()
                last.pop()
                last[-1] = closed
        else:
            slots[-1] = [end]
    if openers and text[openers[-1]] == "{" and not slots[-1]:
        slots[-1] = _last_colon(text, openers[-1], commas[-1], stop)
    child, child_ends = last[-1] if last[-1] is not None else (None, [])
    far = Far(
        slots[-1], openers, openers + children[-1], quotes, child, child_ends, strings
    )
    far.outer = outer
    kept = [shift for index, shift in enumerate(shifts) if index not in ruled]
    far.closers = _strays(kept, depths, len(openers))
    for at in chain(far.slots, far.openers):
        members.note(at)
    if child is not None:
        around = members.slots(len(openers)) + text[child]
        for index, at in enumerate(child_ends):
            begin = child_ends[index - 1] + 1 if index else child + 1
            members.found[at] = (around, begin)
    far.contexts = members.found
    far.near = members.context(lo)
    return far


def _goes_on_open(text: str, end: int, closer: str) -> bool:
    """Whether the text after ``closer`` may go on with its container left open.

    A child's closer dropped before it, ``closer`` closes that child instead
    and its own container stays open: a comma must then lead to what the
    container holds next (``_MEMBER_NEXT``), and a closer must be its own.

    Example:
        >>> _goes_on_open('[{"a": {"b": 1}}, {"c": 2}]', 16, "}")  # {"c" no key
        False
        >>> _goes_on_open('{"p": {"a": {"b": 1}}, "c": 2}', 21, "}")
        True
    """
    after = _NEXT_CHAR.match(text, end)
    if after is None:
        return True
    char = after.group(1)
    if char == ",":
        return _MEMBER_NEXT[closer].match(text, end) is not None
    return char not in CROSSED or char == closer


def before_innermost(text: str, far: Far, at: int, drop: int, insert: str) -> bool:
    """Whether an edit before the innermost open container leaves the stop as it is.

    The container open at the stop (``far.stack[-1]``) holds all from its
    opener to the stop, and JSON reads a container alike wherever it stands.
    An edit wholly before that opener that keeps the quotes after it as they
    were (as many quotes put as taken, no backslash in it or before it)
    leaves the opener outside strings: the decoder fails before it, closes
    the value before it (text follows), or reads it as a value and stops
    where it stopped. No such edit reads the text.

    Example:
        >>> text = '{"a": 1, "b": [1 2]}'
        >>> far = find_far_sites(text, 17, 1)
        >>> before_innermost(text, far, 7, 1, "")  # the comma after 1 dropped
        True
        >>> before_innermost(text, far, 16, 0, ",")  # a comma put after 1
        False
    """
    if not far.stack or at + drop > far.stack[-1] or text[at - 1 : at] == "\\":
        return False
    taken = text[at : at + drop]
    return (
        "\\" not in taken
        and "\\" not in insert
        and taken.count('"') == insert.count('"')
    )


def outside_strings(text: str, far: Far, lo: int, stop: int) -> int:
    r"""Where the text from ``lo`` stops being outside strings for certain.

    The text before the stop is a valid prefix: a quote after the last string
    that ends past ``lo`` opens the string the decoder stopped in.

    Example:
        >>> text = '["a", "b\\x"]'
        >>> outside_strings(text, find_far_sites(text, 8, 1), 1, 8)
        6
    """
    strings = far.strings
    opened = text.find('"', strings[-1][1] if strings else lo, stop)
    return stop if opened < 0 else opened


def _last_colon(text: str, opener: int, commas: list[int], stop: int) -> list[int]:
    """Where the value after the last colon of an object starts (``[]``: none).

    The colons before ``lo`` are passed over with the strings (:func:`_tokens`):
    the last one is that of the last member, or the one before it (a member
    before a comma has its colon), each a key and a colon from its start.

    Example:
        >>> _last_colon('{"a": 1, "b": 2, "c"', 0, [7, 15], 20)
        [13]
    """
    for begin in [opener, *commas][-1:-3:-1]:
        found = _KEY_COLON.match(text, begin + 1, stop)
        if found is not None:
            return [found.end()]
    return []


def _tokens(text: str, lo: int, stop: int, begin: int = 0) -> Iterator[tuple[int, int]]:
    """The spans of the tokens from ``begin`` to ``stop`` that the scan reads.

    Before ``lo``, a string with no quote swap to try (:func:`quote_swaps`)
    is passed over in C with the layout and colons around it; from the first token at
    or past ``lo`` on (or where the text stops being a valid prefix: a quote
    that opens a string the stop cut), every token.
    """
    resume = begin
    for found in _far_tokens(CROSSED).finditer(text, begin, stop):
        start = found.start(1)
        if not 0 <= start < lo:
            resume = found.start()
            break
        yield start, found.end(1)
    for token in _TOKEN.finditer(text, resume, stop):
        yield token.span()


@cache
def _far_tokens(crossed: frozenset[str]) -> re.Pattern[str]:
    """The next token (group 1) past the strings with no quote swap.

    Such a string has no character of ``crossed`` beside either of its
    quotes, and a character that is no space after it (before the stop):
    what :func:`quote_swaps` asks. The match ends at a lone quote, or at the
    end, where group 1 is empty.
    """
    near = "".join(sorted(re.escape(char) for char in crossed))
    string = r'"(?:[^"\\]++|\\.)*+"'
    quiet = (
        rf"(?<![{near}])\"(?![{near}])(?:[^\"\\]++|\\.)*+(?<![{near}])\""
        rf"(?![{near}])(?=[ \t\r\n]*+[^ \t\r\n])"
    )
    return re.compile(
        rf'(?:[^"{{}}\[\],]++|{quiet})*+(?:([{{}}\[\],]|{string})|"|\Z)', re.DOTALL
    )


@dataclass(slots=True)
class _Members:
    """Where the member holding a site starts, in the containers open there.

    ``openers`` and ``commas`` are the scan's own lists: asked about ``at``,
    they hold the scan's state at or after ``at``, with every container
    opened before ``at`` and open at it still in ``openers``.
    """

    text: str
    openers: list[int]
    commas: list[list[int]]
    outer: str = ""
    """The kinds of the containers open around ``openers[0]``, not in it."""
    found: dict[int, tuple[str, int]] = field(default_factory=dict)
    """The contexts noted, by site."""
    _around: dict[int, str] = field(default_factory=dict)
    """The value slots around a container, by its parent's opener (``-1`` at
    the top): siblings have the same ancestors."""

    def note(self, at: int) -> None:
        """Note :meth:`context` of ``at``, where it has one."""
        context = self.context(at)
        if context is not None:
            self.found[at] = context

    def context(self, at: int) -> tuple[str, int] | None:
        """The containers open before ``at`` and where the member holding it starts.

        Of the containers opened before ``at``, the innermost still open is
        the one taken. The containers around it are written as a value slot
        of their kind (``[`` or ``{"":``), at most ``_ANCESTORS`` of them.
        """
        openers = self.openers
        level = len(openers) - 1
        while level >= 0 and openers[level] >= at:
            level -= 1
        if level < 0:
            return None
        level_commas = self.commas[level + 1]
        index = bisect_left(level_commas, at)
        begin = level_commas[index - 1] + 1 if index else openers[level] + 1
        parent = openers[level - 1] if level else -1
        around = self._around.get(parent)
        if around is None:
            around = self._around[parent] = self.slots(level)
        return around + self.text[openers[level]], begin

    def slots(self, level: int) -> str:
        """A value slot in each container around ``openers[level]`` (``_ANCESTORS``)."""
        kinds = self.outer + "".join(self.text[at] for at in self.openers[:level])
        return _slots(kinds[-_ANCESTORS:])


def _slots(kinds: str) -> str:
    """A value slot in each of these containers (their openers), outermost first."""
    return "".join('{"":' if kind == "{" else "[" for kind in kinds)


def _strays(
    shifts: list[tuple[int, int, int]], depths: list[int], depth: int
) -> list[int]:
    """The closers a stray one could be: all it shifts up a level of its kind.

    ``shifts`` holds each closer with the index of its pop in ``depths`` (the
    depth after each pop) and the depth below which its run of containers of
    one kind starts; ``depth`` is the depth at the stop. Dropping the closer
    leaves its container open, so every container open there and closed
    before the stop is closed by the next closer: they must be of one kind.
    """
    lowest = [depth] * (len(depths) + 1)
    for index in range(len(depths) - 1, -1, -1):
        lowest[index] = min(depths[index], lowest[index + 1])
    return [at for at, index, floor in shifts if lowest[index] >= floor]


def quote_swaps(
    text: str, start: int, end: int, solid: int, *, inner: str = ""
) -> Iterator[int]:
    """Where swapping a quote of a string with a neighbour may read on.

    The string spans ``start:end``, in the valid prefix that ends where the
    last character before the stop that is no space ends (``solid``). A
    swap there that moves one of its quotes past a bracket can open or close
    a container. One that moves a comma or colon cannot read on: out of the
    string's start (``",a"``) or into it from before (``,"a"``), it follows
    an opener, a separator or a value; out of its end (``"a,"``) or into it
    (``"a":``), the string is followed by the token that followed the
    separator (a value) or the string (a separator or closer) before the
    swap. Such a swap is kept only where that token may lie past the stop.
    Where ``inner`` is the opener of the container the string is in, a
    bracket before its closing quote is left there unless it closes that
    container: moved out (``"a"]`` for ``"a]"``), it follows the string at
    once, and an opener or the other kind of closer fails there.

    Example:
        >>> text = '{"a": ["x]", "y"], "b": 1} ?'
        >>> list(quote_swaps(text, 7, 11, 26))  # "[x]" or ["x"]
        [9, 6]
        >>> list(quote_swaps(text, 19, 22, 26)), list(quote_swaps(text, 19, 22, 22))
        ([], [21])
    """
    crossed = _NEIGHBOURS if end >= solid else CROSSED
    if text[start + 1] in crossed:
        yield start
    if (
        end - 2 > start
        and text[end - 2] in crossed
        and not (inner and text[end - 2] in CROSSED and text[end - 2] != _CLOSER[inner])
    ):
        yield end - 2
    if start and text[start - 1] in crossed:
        yield start - 1
    if text[end : end + 1] in crossed:
        yield end - 1
