"""Skip what hides brackets in almost-JSON: quoted strings and comments.

Pure functions on ``str``; no LangChain imports.

A scan that counts brackets (the span finder, the truncation closer, the
control-character escaper) must step over strings, and comments, whole. Each
skip is one anchored, possessive regex match or one ``str.find``: C speed, no
backtracking, linear in what it skips.
"""

from __future__ import annotations

import re
from typing import Final

#: The rest of a double-quoted string after its opening quote, closing quote
#: included (an escaped quote does not close it).
STRING_REST: Final = re.compile(r'(?:[^"\\]++|\\.)*+"', re.DOTALL)
_SINGLE_QUOTED_REST: Final = re.compile(r"(?:[^'\\]++|\\.)*+'", re.DOTALL)
#: What ends each comment that almost-JSON may hold: a line's end, or ``*/``.
COMMENT_END: Final = {"//": "\n", "#": "\n", "/*": "*/"}


def skip_string(text: str, start: int, hi: int | None = None) -> int | None:
    r"""Where the string whose opening quote (``"`` or ``'``) is at ``start`` ends.

    Args:
        text: The text.
        start: Offset of the opening quote.
        hi: Where the text stops for this scan (its end by default).

    Returns:
        The offset just after the closing quote, or ``None`` when the string
        runs to ``hi`` unclosed.

    Example:
        >>> skip_string('{"a\\"b": 1}', 1), skip_string("'it\\'s' x", 0)
        (7, 7)
        >>> skip_string('"cut', 0) is None
        True
    """
    rest = STRING_REST if text[start] == '"' else _SINGLE_QUOTED_REST
    found = rest.match(text, start + 1, len(text) if hi is None else hi)
    return None if found is None else found.end()


def skip_comment(
    text: str, start: int, opener: str, hi: int | None = None
) -> int | None:
    """Where the comment that ``opener`` starts at ``start`` ends.

    Args:
        text: The text.
        start: Offset of the comment's opener.
        opener: ``//``, ``#`` or ``/*``.
        hi: Where the text stops for this scan (its end by default).

    Returns:
        The offset just after what ends it (a line break, or ``*/``), or
        ``None`` when nothing ends it before ``hi``.

    Example:
        >>> skip_comment("[1, /* two */ 2]", 4, "/*"), skip_comment("# x", 0, "#")
        (13, None)
    """
    close = COMMENT_END[opener]
    end = text.find(close, start + len(opener), len(text) if hi is None else hi)
    return None if end < 0 else end + len(close)
