"""What may follow a token, read ahead in the text: the repair pass's quote rule.

A quote closes its string, a comma is missing or a value lost its opening
quote only when what follows reads as what may follow there. Each look is
bounded, or remembered (:class:`Ahead` and its comment line), so the pass
stays linear.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from langchain_jsonrecover._core.repair import tokens as tok
from langchain_jsonrecover._core.repair.tokens import (
    NUMBER_START,
    VALUE_START,
    match_end,
)

"""A value with no opening quote: up to a quote, past no ``{[:`` or backslash."""


class Where(IntEnum):
    """Where a string stands: what the quote rule lets follow it."""

    KEY = 0
    OBJECT = 1
    """A member's value."""
    ARRAY = 2
    """An array's item."""


_IN_OBJECT: Final = Where.OBJECT  # (a module constant: enum members read slowly)


class Ahead:
    """The quote rule: what follows a quote, read ahead in the text.

    It remembers its last comment line: many quotes may look past the same
    one, and each look must stay short for the pass to stay linear.

    Example:
        >>> Ahead('"a": "x" y", "b": 1}').closes(11, Where.OBJECT, "", False)
        True
        >>> Ahead('"a": "x" y", "b": 1}').closes(8, Where.OBJECT, "", False)
        False
    """

    __slots__ = ("_line", "_text")

    def __init__(self, text: str) -> None:
        """Read ahead in ``text``."""
        self._text = text
        # (from, newline, in_object, verdict) of the last look past a comment
        # line: ``newline`` is the first one after ``from``.
        self._line: tuple[int, int, bool, bool] = (-1, -1, False, False)

    def closes(self, pos: int, where: Where, parent: str, other_open: bool) -> bool:
        """Whether the quote just before ``pos`` closes its string.

        It does when what follows may follow the string as a value of its
        container. A closing bracket must in turn be followed by what may
        follow that container; one of the wrong kind needs one of its kind
        open, and a comma or a closing bracket after it.
        """
        text = self._text
        in_object = where == _IN_OBJECT
        ahead = match_end(tok.LOOK_GAP, text, pos)
        if ahead >= len(text):
            return True
        char = text[ahead]
        if char not in "}]":
            return self.follows(pos, ahead, in_object=in_object)
        after = match_end(tok.LOOK_GAP, text, ahead + 1)
        if after >= len(text):
            return True
        if (char == "}") != in_object:
            return other_open and text[after] in ",}]"
        if parent:
            return self.follows(ahead + 1, after, in_object=parent == "{")
        # The end of the top-level value: prose may follow, but not a quote
        # or a colon, nor a comma and then something that does not fit.
        if text[after] == ",":
            return self.follows(ahead + 1, after, in_object=in_object)
        return text[after] not in "\"':"

    def follows(self, pos: int, ahead: int, *, in_object: bool) -> bool:
        """Whether the text at ``ahead`` may follow a value that ends at ``pos``.

        ``ahead`` is past the spaces after the value, and not at the end.
        """
        text = self._text
        char = text[ahead]
        if char in "}]" or text.startswith(("//", "/*"), ahead):
            return True
        if char == "#" and ahead > pos:
            return True
        if char == ";":  # read as a comma before a key or item (_repair_punctuation)
            ahead = match_end(tok.LOOK_GAP, text, ahead + 1)
            return ahead < len(text) and starts_key_or_item(
                text, ahead, in_object=in_object
            )
        if char == ",":
            ahead = match_end(tok.LOOK_GAP, text, ahead + 1)
            if (
                ahead >= len(text)
                or text[ahead] in "}]"
                or text.startswith("/*", ahead)
            ):
                return True
            if text.startswith(("//", "#"), ahead):
                return self._past_comment(ahead, in_object=in_object)
            return starts_key_or_item(text, ahead, in_object=in_object)
        if char == ":":
            return not in_object
        gap = text[pos:ahead]
        new_line = "\n" in gap or "\\n" in gap
        if in_object:
            # The next key: quoted, or on a new line.
            keyed = char in "\"'“" or new_line
            return keyed and match_end(tok.KEY_AHEAD, text, ahead) > ahead
        if ahead == pos:
            return False
        if new_line:
            return starts_item(text, ahead)
        # On the same line: a container, or a whole string that may be an item.
        return char in "{[" or match_end(tok.NEXT_STRING, text, ahead) > ahead

    def _past_comment(self, start: int, *, in_object: bool) -> bool:
        """Whether a comma, then a line comment at ``start``, end a value.

        The line after the comment decides, as if it came right after the
        comma. A comment that runs to the end of the text does end it.
        """
        text = self._text
        since, newline, was_object, verdict = self._line
        if since <= start <= newline and was_object == in_object:
            return verdict
        found = text.find("\n", start)
        newline = len(text) if found < 0 else found
        ahead = match_end(tok.LOOK_GAP, text, newline)
        if ahead >= len(text) or text[ahead] in "}]#":
            verdict = True
        elif text.startswith(("//", "/*"), ahead):
            verdict = True  # more comment lines: the value did end
        else:
            verdict = starts_key_or_item(text, ahead, in_object=in_object)
        self._line = (start, newline, in_object, verdict)
        return verdict


def starts_key_or_item(text: str, pos: int, *, in_object: bool) -> bool:
    """Whether the next key (or one cut off) or item starts at ``pos``."""
    if in_object:
        return match_end(tok.KEY_OR_CUT, text, pos) > pos
    return starts_item(text, pos)


def starts_item(text: str, pos: int) -> bool:
    """Whether an array item starts at ``pos``."""
    return text[pos] in VALUE_START or match_end(tok.LITERAL, text, pos) > pos


_QUOTES: Final = frozenset("\"'\u201c\u201d\uff02")


def lacks_comma(text: str, value_end: int, pos: int, *, in_object: bool) -> bool:
    """Whether the token at ``pos`` is a next key or item missing its comma.

    In an object it must be a key with its colon. In an array it must start
    an item, apart from the value before it (a space or a comment between,
    or that value a container): ``01`` is not ``0, 1``. Two readings are
    plausible, so no comma is inserted, when the comma seems to have moved
    into a string (``"a," "b": 1``, ``"a"",b": 1``, even ``"," "b": 1``),
    between two numbers on one line (``[1 500]``: a thousands separator?),
    or between two strings on one line in an array (``["Grace" "Hopper"]``:
    two items, or one string with its inner quotes?).

    Example:
        >>> lacks_comma('[1 "a"]', 2, 3, in_object=False)
        True
        >>> lacks_comma("[1 500]", 2, 3, in_object=False)
        False
    """
    if text.endswith((',"', ",'"), 0, value_end) or (
        pos == value_end and text.startswith(('",', "',"), pos)
    ):
        return False  # (``","`` too: ``"",`` with its quote and comma swapped)
    if in_object:
        return match_end(tok.KEY_AHEAD, text, pos) > pos
    if pos == value_end and text[value_end - 1] not in "}]":
        return False
    if (
        text[value_end - 1] in _QUOTES
        and text[pos] in _QUOTES
        and "\n" not in text[value_end:pos]
    ):
        return False  # ``["Grace" "Hopper"]``: two items, or one name?
    if (
        text[value_end - 1].isdigit()
        and text[pos] in NUMBER_START
        and "\n" not in text[value_end:pos]
    ):
        return False
    return starts_item(text, pos)


def find_unopened_value_end(text: str, pos: int) -> int:
    r"""Find where a member's value that lost only its opening quote ends, or ``-1``.

    The value starts at ``pos``, where no value can start, and runs to the
    next quote, past no ``{``, ``[`` or ``:`` (nor a backslash, whose meaning
    would be a guess); that quote is followed by ``,`` or ``}`` and then a
    key or the end of the text: ``"note": Sent today.", "id": 4``.

    Example:
        >>> find_unopened_value_end('{"a": ok", "b": 1}', 6)
        9
    """
    quote = match_end(tok.UNQUOTED_BODY, text, pos)
    if quote >= len(text) or text[quote] != '"':
        return -1
    after = match_end(tok.SPACE, text, quote + 1)
    if after >= len(text) or text[after] not in ",}":
        return -1
    nxt = match_end(tok.SPACE, text, after + 1)
    if nxt < len(text) and match_end(tok.KEY_AHEAD, text, nxt) == nxt:
        return -1
    return quote + 1
