"""Whether an offset of a reply lies inside quotes: trackers for the reply scans.

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


_VALUE_STEP: Final = re.compile(r"""\\.|["'{}\[\]]""", re.DOTALL)


class SingleQuotedValue:
    """Whether an offset is in a single-quoted string of a value opening the reply.

    A reply that opens with ``{`` or ``[`` and has not closed it, the offset
    inside a ``'``-string (``{'msg': 'done</think>', …}``): a closing tag
    there is data, not the end of reasoning; reasoning is prose, and the text
    after such a tag is the rest of the value, never an answer alone.
    Offsets are asked in increasing order; the text is read once.
    """

    __slots__ = ("_at", "_depth", "_quote", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        stripped = len(text) - len(text.lstrip())
        opens = text.startswith(("{", "["), stripped)
        self._at = stripped if opens else len(text)
        self._depth = 0
        self._quote = ""

    def inside(self, index: int) -> bool:
        for step in _VALUE_STEP.finditer(self._text, self._at, max(self._at, index)):
            char = step.group()
            if len(char) > 1 or (self._quote and char != self._quote):
                continue
            if char in "\"'":
                self._quote = "" if self._quote else char
            elif char in "{[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth <= 0:
                    self._at = len(self._text)  # the value closed: prose after
                    return False
        self._at = max(self._at, index)
        return self._quote == "'" and self._depth > 0


class MisreadStrings:
    r"""Whether a token found between strings is in one by the writer's reading.

    Inside brackets the scan pairs quotes from the value's opener on; one
    quote lost or added before a token flips the pairing, and a token inside
    a string reads as between two (``{"a": "x, "b": "<tool_call>"}``): blanked,
    the string's content would change. Two signs on the token's line say the
    pairing is off, as valid JSON never has them:

    - the last closing quote before the token is followed by something
      other than ``,``, ``:``, ``]`` or ``}`` (``"b": "<tool_call>``, read
      as a string ``": "`` then ``<tool_call>``): the string is taken to
      open at that quote, and the scan goes on after its end;
    - the token is followed, before any bracket, comma or colon, by a
      quote (``"a": note: <|end|> x",``: the string's opening quote lost):
      the string ends at that quote.

    Offsets are asked in increasing order and each stretch of the text is
    searched once: linear.

    Example:
        >>> text = '{"a": "x, "b": "<tool_call>"}'
        >>> misread = MisreadStrings(text)
        >>> misread.reset(1)
        >>> misread.string_end(16, 27)
        28
    """

    __slots__ = ("_after", "_after_from", "_flipped", "_quote", "_seen", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self.reset(0)

    def reset(self, at: int) -> None:
        """Pair quotes from ``at`` on (just inside a value's opener)."""
        self._seen = at
        self._quote = -1  # the last closing quote since, on the current line
        self._after = -1  # where the last stretch after a token ended
        self._after_from = -1
        self._flipped = -1  # where the pairing was last found off, on its line

    def watch(self, at: int) -> None:
        """Ask the tokens after ``at`` on its line too (a value closed there)."""
        self._flipped = at

    def watched(self, index: int) -> bool:
        """Whether ``index`` is on the line where a value closed or the pairing was off.

        The brackets the scan counted may be off when the quotes are, and a
        value that seems closed may go on: a token after it on that line is
        asked too.
        """
        if self._flipped < 0:
            return False
        if self._text.find("\n", self._flipped, index) >= 0:
            self._flipped = -1
            return False
        self._flipped = index
        return True

    def string_end(self, start: int, end: int) -> int | None:
        """Where the string holding the token ``text[start:end]`` ends, if one does."""
        text = self._text
        quote = text.rfind('"', self._seen, start)
        line = text.rfind("\n", self._seen, start)
        self._seen = end
        if quote > line:
            self._quote = quote
        elif line >= 0:
            self._quote = -1
        opener = self._quote
        if opener >= 0 and _AFTER_STRING.match(text, opener + 1, start) is None:
            found = _LINE_STRING.match(text, opener)
            stop = found.end() if found is not None else end
            closed = text[stop - 1] == '"' and stop - 1 > opener
            self._quote = stop - 1 if closed else -1
            self._seen = self._flipped = stop
            return stop
        if text[end - 1] == "=" and text.startswith('"', end):
            return None  # ``<invoke name="f">``: the quote is the markup's
        return self.quote_after(end)

    def quote_after(self, end: int) -> int | None:
        """Just after a quote that follows ``end``, before any mark; else ``None``.

        Markup followed by text and a quote, no bracket, comma or colon
        between, is in a string whose opening quote was lost.
        """
        text = self._text
        if not self._after_from <= end <= self._after:
            found = _TO_MARK.match(text, end)
            self._after_from = end
            self._after = found.end() if found is not None else end
        if not text.startswith('"', self._after):
            return None
        self._quote = self._after
        self._seen = self._flipped = self._after + 1
        return self._after + 1


_AFTER_STRING: Final = re.compile(r"[ \t]*+[,:\]}]")
"""What may follow a closing quote in valid JSON, before a token on its line."""
_LINE_STRING: Final = re.compile(r'"(?:[^"\\\n]++|\\.)*+"?')
"""A string from its opening quote to its closer or the end of its line."""
_TO_MARK: Final = re.compile(r'[^"\n{}\[\],:]*+')
"""Text up to the next quote, bracket, comma, colon or newline."""
