"""Whether an offset of a reply lies inside quotes: trackers for the reasoning scan.

Pure functions on ``str``; no LangChain imports. Each tracker reads the text
once, left to right, as offsets are asked in increasing order, so many tags on
one long line stay linear.
"""

from __future__ import annotations

import re
from typing import Final


class QuoteParity:
    """Whether an offset is inside quotes on its line, read once left to right.

    Offsets are asked in increasing order; each character is counted once, so
    many tags on one long line stay linear.
    """

    __slots__ = ("_at", "_doubles", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = 0
        self._doubles = 0

    def reset(self, at: int) -> None:
        """Count from ``at`` (the end of an opening tag)."""
        self._at = at
        self._doubles = 0

    def inside(self, index: int) -> bool:
        text = self._text
        line = text.rfind("\n", self._at, index)
        if line >= 0:
            self._at = line + 1
            self._doubles = 0
        self._doubles += text.count('"', self._at, index)
        self._at = index
        return self._doubles % 2 == 1


class JsonStrings:
    """Whether an offset is inside a string of JSON that opened before it.

    Read once left to right (offsets are asked in increasing order): quotes
    (``"``, or typographic and fullwidth ones, any of which closes a string
    one of them opened) count only inside brackets, so prose quotes do not; a
    reasoning tag that
    starts a line of a JSON string (a raw newline in it) is data.
    """

    __slots__ = ("_at", "_closer", "_depth", "_in_string", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self.reset(0)

    def reset(self, at: int) -> None:
        """Read from ``at`` on, outside any JSON (after a hidden block)."""
        self._at = at
        self._depth = 0
        self._in_string = False
        self._closer = '"'

    def inside(self, index: int) -> bool:
        text = self._text
        pos = self._at
        while pos < index:
            token = (_IN_STRING if self._in_string else _OUT_OF_STRING).search(
                text, pos, index
            )
            if token is None:
                break
            char = token.group()
            pos = token.end()
            if self._in_string:
                if char != "\\":
                    self._in_string = char != self._closer and (
                        self._closer == '"' or char not in _OTHER_QUOTES
                    )
                elif pos < index:
                    pos += 1  # the escaped character
            elif char in "[{":
                self._depth += 1
            elif char in "]}":
                self._depth = max(self._depth - 1, 0)
            elif self._depth:
                self._in_string = True
                self._closer = char
        self._at = max(pos, index)
        return self._in_string


# A string opened by a typographic or fullwidth quote closes at any of them.
_OTHER_QUOTES: Final = "\u201c\u201d\uff02\u00ab\u00bb"
_IN_STRING: Final = re.compile(r'["\\\u201c\u201d\uff02\u00ab\u00bb]')
_OUT_OF_STRING: Final = re.compile(r'[\[\]{}"\u201c\u201d\uff02\u00ab\u00bb]')


_STRING_STEP: Final = re.compile(r'\\.|["\n]')


class StringParity:
    """Whether an offset is inside a ``"``-string on its line (escapes read).

    Offsets are asked in increasing order; the text is read once, by regex.
    """

    __slots__ = ("_at", "_inside", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._at = 0
        self._inside = False

    def reset(self, at: int) -> None:
        """Count from ``at``, outside any string (after a value read whole)."""
        self._at = at
        self._inside = False

    def inside(self, index: int) -> bool:
        for step in _STRING_STEP.finditer(self._text, self._at, index):
            char = step.group()
            if char == "\n":
                self._inside = False
            elif char == '"':
                self._inside = not self._inside
        self._at = max(self._at, index)
        return self._inside


def typographic_open(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` leaves a typographic opening quote unclosed.

    ``„`` closes with ``“`` (German) or ``”``; ``“`` with ``”``. A straight
    quote after an open one is the pair's closer (``„Start"``).

    Example:
        >>> typographic_open('x „Start', 0, 8), typographic_open("„a“ b", 0, 5)
        (True, False)
    """
    segment = text[start:end]
    if "„" not in segment and "“" not in segment:
        return False  # the common case: no typographic quote at all
    stack: list[str] = []
    for char in segment:
        if char == "„":
            stack.append(char)
        elif char == "“":
            if stack and stack[-1] == "„":
                stack.pop()
            else:
                stack.append(char)
        elif char == "”" and stack:
            stack.pop()
    return bool(stack)
