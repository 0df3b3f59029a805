"""Which single-character edits are readings of a reply (the single-edit search).

Pure functions on ``str``; no LangChain imports. An edit that fixes the text
may still be no reading of what the model wrote: a quote that moves the
spaces between tokens into a string, a quote escaped into a plain key, a
separator dropped where an item may be lost, a comma that splits a number.
``single_edit`` asks these before it keeps or names an edit.
"""

from __future__ import annotations

import re
from typing import Final

TYPOGRAPHIC: Final = frozenset("\u201c\u201d\u201e\uff02")
"""Quotes that stand for ``"``: one is the lost quote's place, no '"' goes beside it."""
_SPACE: Final = frozenset(" \t\r\n")
_SPACE_OR_STRUCTURAL: Final = _SPACE | frozenset("{}[],:")
_SEPARATOR_NEXT: Final = re.compile(r"[ \t\r\n]*+[,:;=]")
SEPARATORS: Final = frozenset(",:;=")
_NEXT_CHAR: Final = re.compile(r"[ \t\r\n]*+(.)", re.DOTALL)
_NUMBER_END: Final = re.compile(r"-?[0-9.eE+]*+\Z")
_NEXT_QUOTE: Final = re.compile(r'(?<!\\)"')
_KEY_WORDS: Final = re.compile(r"[^\r\n,:{}\[\]\\]*+")
"""A key's text and the quote in it: no line break, separator, bracket or escape."""


def may_quote(text: str, at: int) -> bool:
    """Whether a quote inserted at ``at`` keeps spaces between tokens out of strings.

    A quote there that opens a string starting with a space after a bracket,
    comma or colon (``, " key":``), or closes one ending with a space before
    them, would move layout into the data; one after a backslash would be an
    escaped quote, not a lost one: neither is a reading of the reply.
    """
    before, after = text[at - 1], text[at]
    if before in TYPOGRAPHIC or after in TYPOGRAPHIC:
        return False
    return before != "\\" and not (
        (after in _SPACE and before in _SPACE_OR_STRUCTURAL)
        or (before in _SPACE and after in _SPACE_OR_STRUCTURAL)
    )


def quote_in_key(text: str, at: int) -> bool:
    """Whether escaping the quote at ``at`` leaves it in a one-line key of words.

    ``"temperat"ure": 1``, ``"start"": 52``: the string the escape makes
    closes before a colon, and holds no separator, bracket or line break, so
    the quote would be part of a plain key: not a reading (a quote is never
    part of a key by repair). A quote after a digit is an inch or a second
    mark (``"Display 14"": "Retina"``), and a string that holds more
    (``"debug: false, "prompt":``) may be another slip's reading: both keep
    the edit.
    """
    opening = text.rfind('"', 0, at)
    closing = _NEXT_QUOTE.search(text, at + 1)
    return (
        opening >= 0
        and not text[at - 1 : at].isdigit()
        and closing is not None
        and before_structure(text, closing.start(), ":")
        and _KEY_WORDS.fullmatch(text, opening + 1, closing.start()) is not None
    )


def joins_layout(text: str, at: int) -> bool:
    """Whether dropping the quote at ``at`` opens a string with layout.

    The quote before it, then only spaces (``"      "color":``, ``," "type"``):
    dropped, the spaces between tokens would start the string's text (a key
    ``"      color"``), as :func:`may_quote` keeps a quote from doing.
    """
    before = text.rfind('"', 0, at)
    return (
        before >= 0
        and at - before > 1
        and not text[before + 1 : at].strip(" \t")
        and text[:before].rstrip()[-1:] in ("", "{", "[", ",", ":")
    )


def between_separators(text: str, at: int) -> bool:
    """Whether dropping the separator at ``at`` leaves a lost item unread.

    Two commas in a row, or a ``;`` or ``=`` beside a comma or colon, may
    stand where an item or value was lost.
    """
    char = text[at]
    if char not in SEPARATORS:
        return False
    before = text[:at].rstrip()[-1:]
    after = _SEPARATOR_NEXT.match(text, at + 1)
    neighbours = (before if before in SEPARATORS else "") + (
        after.group()[-1] if after else ""
    )
    if char == ",":
        return "," in neighbours
    if char == ":":
        return False
    return bool(neighbours)


def before_structure(text: str, at: int, chars: str) -> bool:
    r"""Whether the quote at ``at`` is followed (past spaces) by one of ``chars``.

    Such a quote closes a key (``:``) or a value (``,``, ``]``, ``}``): escaping
    it, or dropping a key's, would merge JSON's own structure into a string
    (``{"a\\": 1, b": 2}``), not a reading of the reply.
    """
    after = _NEXT_CHAR.match(text, at + 1)
    return after is not None and after.group(1) in chars


def splits_number(text: str, at: int) -> bool:
    """Whether a separator inserted at ``at`` splits ``10-20`` or ``0 5``.

    ``[18-25]`` is a range, ``[0 5]`` may be ``0.5``: no lost comma between two
    numbers (``[1 500]`` is refused where dropping the space decodes).
    """
    before = text[max(0, at - 32) : at].rstrip(" ")
    right = text[at : at + 32].lstrip(" ")
    spaced = text[at - 1 : at] == " " or text[at : at + 1] == " "
    number = _NUMBER_END.search(before)
    return before[-1:].isdigit() and (
        (
            right[:1].isdigit()
            and spaced
            and number is not None
            and number.group().lstrip("-") == "0"
        )
        or (right[:1] == "-" and right[1:2].isdigit() and not spaced)
    )
