"""Which single-character edits are readings of a reply (the single-edit search).

Pure functions on ``str``; no LangChain imports. An edit that fixes the text
may still be no reading of what the model wrote: a quote that moves the
spaces between tokens into a string, a quote escaped into a plain key, a
separator dropped where an item may be lost, a comma that splits a number,
a typographic pair halved, two strings on one line joined by a comma.
``single_edit`` asks these before it keeps or names an edit.
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._core.reply.quotes import typographic_open

TYPOGRAPHIC: Final = frozenset("\u201c\u201d\u201e\uff02")
"""Quotes that stand for ``"``: one is the lost quote's place, no '"' goes beside it."""
_SPACE: Final = frozenset(" \t\r\n")
_SPACE_OR_STRUCTURAL: Final = _SPACE | frozenset("{}[],:")
_SEPARATOR_NEXT: Final = re.compile(r"[ \t\r\n]*+[,:;=]")
SEPARATORS: Final = frozenset(",:;=")
_NEXT_CHAR: Final = re.compile(r"[ \t\r\n]*+(.)", re.DOTALL)
_NUMBER_END: Final = re.compile(r"-?[0-9.eE+]*+\Z")
_NEXT_QUOTE: Final = re.compile(r'(?<!\\)"')
_STRUCTURE: Final = re.compile(r"[\[\]{},:]")
_PAIR_LOOK_BACK: Final = 512
_STRING_CLOSES: Final = re.compile(r'[ \t\r\n]*+"(?:[^"\\\n]++|\\.)*+"[ \t\r\n]*+\}')
"""How far a quote's string is read for the other half of its pair."""
_FOLLOWS: Final = {"{": "}", "[": "{[]", ",": "{[", ":": "{["}
"""The brackets, commas and colons JSON lets come after a token: after an
opener or a separator, an opener (or the closer); after a value (or a key), a
separator or a closer."""
_STRUCTURAL: Final = frozenset("{}[],:")
_TOKEN_ENDS: Final = _STRUCTURAL | {'"'}
"""What no number or literal goes on with."""
_VALUE: Final = frozenset('"{[-0123456789tfn')
"""What a JSON value starts with."""
_NEXT: Final = {
    "{": frozenset('"}'),
    "[": _VALUE | {"]"},
    ",": _VALUE,
    ":": _VALUE,
}
"""What JSON lets come after an opener or separator (after an object's comma: a key)."""
_OPENED: Final = {"{": '"}', "[": '"{[]', ",": '"{[', ":": '"{['}
"""Of those, the brackets, separators and quote."""
ANY: Final = '"' + "".join(sorted(_STRUCTURAL))
"""Every bracket, separator and quote (:func:`follows` where it asks nothing)."""
_WHITE: Final = " \t\r\n"
_AFTER_TOKEN: Final = frozenset(' \t\r\n"]}')
"""Where a value has ended (no number or literal goes on)."""
_OPENERS: Final = frozenset("[{")
_CLOSERS: Final = {"}": "{", "]": "["}
_CONTROL_NEXT: Final = re.compile(r'[^"\\\x00-\x1f]*+[\x00-\x1f]')
"""A raw control character before the next quote or backslash."""
_LOOK_BACK: Final = 256
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
        and _last_solid(text, before) in ("", "{", "[", ",", ":")
    )


def _last_solid(text: str, at: int) -> str:
    r"""The last character before ``at`` that is no white space (``""``: none).

    As ``text[:at].rstrip()[-1:]``, without copying all the text before
    ``at``: a short stretch first, all of it only where that is all space.

    Example:
        >>> _last_solid("[1, 2 ,\u3000 ", 9), _last_solid(" \n", 2)
        (',', '')
    """
    near = text[max(0, at - _LOOK_BACK) : at].rstrip()
    if near or at <= _LOOK_BACK:
        return near[-1:]
    return text[:at].rstrip()[-1:]


def between_separators(text: str, at: int) -> bool:
    """Whether dropping the separator at ``at`` leaves a lost item unread.

    Two commas in a row, or a ``;`` or ``=`` beside a comma or colon, may
    stand where an item or value was lost.
    """
    char = text[at]
    if char not in SEPARATORS:
        return False
    before = _last_solid(text, at)
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
    if not before[-1:].isdigit():
        return False
    right = text[at : at + 32].lstrip(" ")
    spaced = text[at - 1 : at] == " " or text[at : at + 1] == " "
    if right[:1].isdigit() and spaced:
        number = _NUMBER_END.search(before)  # tried at each offset: asked last
        return number is not None and number.group().lstrip("-") == "0"
    return right[:1] == "-" and right[1:2].isdigit() and not spaced


def closes_pair(text: str, at: int) -> bool:
    """Whether the quote at ``at`` closes a typographic opener in its string.

    ``"Hauptbutton „Start" im Header"``: the ``"`` after ``Start`` is the
    pair's closer, written straight; dropping it is no reading of the reply
    (only escaping it is). The string is looked at back to the quote before
    it, at most ``_PAIR_LOOK_BACK`` characters.
    """
    begin = text.rfind('"', max(0, at - _PAIR_LOOK_BACK), at)
    return begin >= 0 and typographic_open(text, begin + 1, at)


def between_strings(text: str, at: int) -> bool:
    """Whether ``at`` lies in the spaces between two strings on one line.

    A comma there splits ``"Grace" "Hopper"`` into two items: one string
    with its inner quotes reads as well.
    """
    before = text[max(0, at - _PAIR_LOOK_BACK) : at].rstrip(" \t")
    after = text[at : at + _PAIR_LOOK_BACK].lstrip(" \t")
    return before[-1:] == '"' and after[:1] == '"'


def splits_pair(text: str, at: int) -> bool:
    """Whether the typographic quote at ``at``, made ``"``, leaves half a pair.

    A ``“`` or ``„`` followed in its string (up to the next ``"``) by a closer
    of its pair, or a ``”`` closing an opener of its string: the pair is a
    quotation, and its lost straight quote may stand beside it as well
    (``{"a": “q” and more"}``: ``q” and more`` or ``“q” and more``?).
    """
    char = text[at]
    if char == "\u201d":
        begin = text.rfind('"', max(0, at - _PAIR_LOOK_BACK), at)
        return typographic_open(text, begin + 1, at)
    if char not in "\u201c\u201e":
        return False
    end = text.find('"', at + 1, at + _PAIR_LOOK_BACK)
    segment = text[at + 1 : end if end >= 0 else at + _PAIR_LOOK_BACK]
    return "\u201d" in segment or (char == "\u201e" and "\u201c" in segment)


def swallows(text: str, at: int, stop: int) -> bool:
    """Whether a quote opened at ``at`` takes in structure the decoder read.

    The string it opens runs to the next quote; a bracket, comma or colon in
    it before the decoder's stop was read as JSON's own (``[1, ,", "x"]``).
    """
    end = text.find('"', at, stop)
    return _STRUCTURE.search(text, at, stop if end < 0 else end) is not None


def after_string(text: str, at: int) -> bool:
    """Whether a string ends right before ``at`` (past spaces)."""
    return _last_solid(text, at) == '"'


def colon_name(text: str, at: int, drop: int, new: str, name: str) -> str:
    """``two_strings`` for a ``:`` that makes ``{"a", "b"}`` a member, else ``name``.

    An object of two strings alone (the first key, then a string that closes
    it: ``{"a", "b"}``, ``{"a" "b"}``) reads as a member whose colon was lost
    and as a set of two items with the wrong brackets: two readings, so the
    ``:`` inserted or put for the comma there is refused.
    """
    if new != ":" or not _STRING_CLOSES.match(text, at + drop):
        return name
    before = text[max(0, at - _PAIR_LOOK_BACK) : at].rstrip(" \t\r\n")
    if before[-1:] != '"':
        return name
    opened = before.rfind('"', 0, len(before) - 1)
    set_like = opened >= 0 and before[:opened].rstrip(" \t\r\n").endswith("{")
    return "two_strings" if set_like else name


def follows(text: str, at: int, inner: str = "") -> str:
    """The brackets, commas, colons and quote that JSON lets come first at ``at``.

    What :func:`cannot_follow` lets through of these (all of them where it
    asks nothing): the search puts no other there.

    Example:
        >>> follows('{"a": [1, 2', 9), follows('{"a": [1, 2', 9, "[")
        ('"{[', '"{[')
        >>> follows('{"a": 1, ', 9, "{"), follows('["a" ', 5, "["), follows('["a" ', 5)
        ('"', ',]', ',:]}"')
    """
    before = text[max(0, at - _LOOK_BACK) : at].rstrip(_WHITE)
    if not before:
        return ANY
    last = before[-1]
    if last in _FOLLOWS:
        if not inner:
            return '"' + _FOLLOWS[last]
        return '"' if last == "," and inner == "{" else _OPENED[last]
    if not inner:
        return ',:]}"'
    if inner == "[":
        return ",]"
    return ",:}" if last == '"' else ",}"


def cannot_follow(text: str, at: int, edit: tuple[int, str], inner: str = "") -> bool:
    """Whether JSON lets nothing that the edit puts first at ``at`` come there.

    ``text[:at]`` is JSON read so far with no error, and ``at`` is outside its
    strings; the edit drops ``edit[0]`` characters there and inserts
    ``edit[1]``. The first character after it that is no space must be one
    JSON lets come after the token before (:data:`_FOLLOWS`), or the edited
    text fails right there. Where ``inner``, the opener of the innermost
    container open at ``at``, is known (``""``: not known, or no container),
    any character is asked, and what may follow a value is that container's
    (``[1:`` fails, ``{"a": 1]`` too); else only a bracket, comma or colon.
    Any character may come after a number or literal that may go on
    (``1`` then ``2``), or more than ``_LOOK_BACK`` spaces on or back.

    Example:
        >>> cannot_follow('{"a": [1, 2', 9, (0, ":"))
        True
        >>> cannot_follow('{"a": [1, ', 10, (0, "["))
        False
        >>> cannot_follow('{"a"', 4, (0, ":")), cannot_follow("[", 1, (0, "}"))
        (False, True)
        >>> text = '["a" ]'
        >>> cannot_follow(text, 5, (0, "}"), "["), cannot_follow(text, 5, (0, "}"))
        (True, False)
        >>> cannot_follow('["a", "b"]', 6, (1, ""), "[")  # "b" made b"
        True
    """
    drop, insert = edit
    rest = insert.lstrip(_WHITE) or text[at + drop : at + drop + _LOOK_BACK].lstrip(
        _WHITE
    )
    first = rest[:1]
    if not first:
        return False
    if first in _TOKEN_ENDS:
        return first not in follows(text, at, inner)
    before = text[max(0, at - _LOOK_BACK) : at].rstrip(_WHITE)
    if not inner or not before:
        return False
    last = before[-1]
    if last in _NEXT:
        return (last == "," and inner == "{") or first not in _NEXT[last]
    return text[at - 1] in _AFTER_TOKEN  # a value ended, no number or literal


def back(kinds: list[str] | None, char: str) -> str:
    """Un-read ``char`` (outside strings); the innermost kind of container open then.

    ``kinds`` are the openers of the containers open after ``char``,
    outermost first (``None``: not known, ``""`` returned): before an
    opener, it is not open yet; before a closer, its container is. ``""``
    where no container is open.

    Example:
        >>> kinds = ["{", "["]
        >>> back(kinds, "["), back(kinds, "}"), back(kinds, ","), kinds
        ('{', '{', '{', ['{', '{'])
    """
    if kinds is None:
        return ""
    if char in _OPENERS and kinds:
        kinds.pop()
    elif char in _CLOSERS:
        kinds.append(_CLOSERS[char])
    return kinds[-1] if kinds else ""


def closing_quote_fails(text: str, at: int, drop: int, insert: str) -> bool:
    r"""Whether an edit at the closing quote of a string read before the stop fails.

    A bracket, comma or colon put before it is more of the string's text: the
    decoder reads on as before and stops where it stopped. A quote put
    before it ends the string there, and a string follows it. Dropped or
    escaped (``\"``), it leaves the string open, which fails at a raw
    control character met before another quote or backslash (a line break in
    pretty-printed JSON); swapped with the character after it, where that is
    a control character.

    Example:
        >>> text = '["a",\n "b"]'
        >>> [closing_quote_fails(text, 3, *edit) for edit in ((0, ","), (1, ""))]
        [True, True]
        >>> closing_quote_fails(text, 3, 0, "\\")
        True
        >>> closing_quote_fails(text, 3, 2, ',"')  # "a," then a line break
        False
        >>> closing_quote_fails('["a", "b"]', 3, 1, "")  # the string "a, " closes
        False
    """
    if drop == 2:  # swapped: the character after it ends the string
        return text[at + 1] < " "
    if drop == 0 and insert != "\\":
        return True
    if (drop, insert) in ((1, ""), (0, "\\")):
        return _CONTROL_NEXT.match(text, at + 1, at + 1 + _LOOK_BACK) is not None
    return False
