"""The single-edit search's edits: near the decoder's stop, then far before it.

Pure functions on ``str``; no LangChain imports. Near the stop every edit of
one character that could have made the decoder stop is made, with its name
(``character_dropped`` …, or one of :data:`REFUSING`), and those that fail
where they are made are left out before they are read
(``single_edit_checks.cannot_follow``, ``closing_quote_fails``); further back,
the edits a bracket or quote slip allows at the far sites
(``single_edit_far``). See ``single_edit`` for the search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from langchain_jsonrecover._core.repair.single_edit_checks import (
    ANY,
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
    follows,
    joins_layout,
    may_quote,
    quote_in_key,
    splits_number,
    splits_pair,
    swallows,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

    from langchain_jsonrecover._core.repair.single_edit_far import Far

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
_SWAPPED: Final = frozenset('{}[]",:')
"""A character swapped with its neighbour is one of these, or beside one."""
LOST_ITEM: Final = "lost_item"
DIGITS_JOINED: Final = "digits_joined"
LOST_BRACES: Final = "lost_braces"
HALF_PAIR: Final = "half_pair"
TWO_STRINGS: Final = "two_strings"
SWALLOWED: Final = "structure_swallowed"
REFUSING: Final = frozenset(
    {LOST_ITEM, DIGITS_JOINED, LOST_BRACES, HALF_PAIR, TWO_STRINGS, SWALLOWED}
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


def edits(
    text: str, lo: int, far: Far, layout: int, *, distinct: bool
) -> Iterator[Edit]:
    """Every single-character edit that could have made the decoder stop.

    Near the stop from ``far.last`` back to ``lo``, then the far ones. Left out
    before ``layout`` outside strings: an edit that fails where it is made
    (:func:`cannot_follow`, in the containers open there), and where ``distinct``
    a bracket, comma or colon inserted before a space under the name it has after
    it (``1 ]``, ``1] ``); at a closing quote, one that :func:`closing_quote_fails`.
    Where the stop is outside strings (``layout`` is the stop, and the kinds of
    the containers open there are walked back), an edit at the stop is asked
    too, and where JSON lets not come what stands at the stop, none after it
    is made: the text would still fail there.
    """
    in_array = bool(far.stack) and text[far.stack[-1]] == "["
    strings = far.strings
    kinds = [text[at] for at in far.stack] if layout == far.last - 1 else None
    last = min(far.last, len(text) - 1)
    if (
        kinds is not None
        and text[layout] not in _LAYOUT
        and cannot_follow(text, layout, (0, ""), back(kinds, ""))
    ):
        last = layout  # what stands at the stop fails there: no edit after it helps
    after: dict[str, str] = {}
    for at in range(last, lo - 1, -1):
        while strings and strings[-1][0] >= at:
            strings.pop()
        if strings and at < strings[-1][1] - 1:
            after = {}
            yield from _in_string(text, at, strings[-1][0])
            continue
        closing = bool(strings) and at == strings[-1][1] - 1
        read = at < layout and not closing  # before the stop, outside strings
        inner = back(kinds, text[at] if read else "")
        outside = read or (at == layout and kinds is not None)
        fit = follows(text, at, inner) if outside else ANY
        same = distinct and at + 1 < layout and text[at] in _LAYOUT
        here: dict[str, str] = {}
        for edit in _edits_at(text, at, in_array=in_array, stop=far.last - 1, fit=fit):
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


def _in_string(text: str, at: int, start: int = 0) -> Iterator[Edit]:
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
        yield at, 1, '"', HALF_PAIR if splits_pair(text, at) else "character_replaced"
    if text[at + 1] == '"' and (text[at] in _AFTER_STRING or text[at - 1] == "\\"):
        yield at, 2, '"' + text[at], "characters_swapped"


def _edits_at(
    text: str, at: int, *, in_array: bool, stop: int, fit: str = ANY
) -> Iterator[Edit]:
    """The edits at ``at`` outside strings, with their names.

    A bracket, comma, colon or quote is put (or put for another) only where
    it is in ``fit``, what JSON lets come there (``follows``): elsewhere the
    text fails right there.
    """
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
            name = DIGITS_JOINED
        elif between_separators(text, at):
            name = LOST_ITEM
        yield at, 1, "", name
    elif char == " " and between_digits:
        yield at, 1, "", DIGITS_JOINED
    splits = None  # asked once, where a comma or colon fits
    for new in _INSERTED if may_quote(text, at) else _INSERTED_NOT_QUOTE:
        if new not in fit:
            continue
        if new in ",:" and splits is None:
            splits = splits_number(text, at)
        name = DIGITS_JOINED if splits and new in ",:" else "character_inserted"
        if new == "," and in_array and between_strings(text, at):
            name = TWO_STRINGS
        elif new == '"' and swallows(text, at, stop):
            name = SWALLOWED
        yield at, 0, new, colon_name(text, at, 0, new, name)
    if (
        char == '"'
        and not before_structure(text, at, ":")
        and not quote_in_key(text, at)
    ):
        yield at, 0, "\\", "character_inserted"
    for new in _REPLACEMENTS.get(char, ""):
        if new not in fit:
            continue
        name = "character_replaced"
        if char in TYPOGRAPHIC and splits_pair(text, at):
            name = HALF_PAIR
        elif char in SEPARATORS and between_digits:
            name = DIGITS_JOINED
        elif char == ":" and in_array and after_string(text, at):
            name = LOST_BRACES
        yield at, 1, new, colon_name(text, at, 1, new, name)
    after = text[at + 1 : at + 2]
    if after and after != char and (char in _SWAPPED or after in _SWAPPED):
        yield at, 2, after + char, "characters_swapped"
