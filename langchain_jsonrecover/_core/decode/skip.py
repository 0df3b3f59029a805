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
# The skeleton of a text, in a few C passes over its UTF-8 form: openers as
# "(", closers as ")", and the quotes, single quotes, comment openers and
# escape marks (NUL) kept; every other byte dropped.
_FOLD: Final = bytes.maketrans(b"[{]}", b"(())")
_ESCAPE_PAIR: Final = re.compile(rb'\\[\\"]')
_ESCAPED_QUOTE: Final = re.compile(rb'\\"')
_NOT_SKELETON: Final = bytes(b for b in range(256) if b not in b"\"'[]{}/#\x00")


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


def skeleton_outside_strings(raw: bytes, *, fold: bool = True) -> tuple[bytes, int]:
    r"""The skeleton of UTF-8 text outside its double-quoted strings, in C.

    Brackets folded to ``(`` and ``)`` (``fold=False``: kept as written);
    single quotes, ``/``, ``#`` and escape marks kept (a NUL: a ``\\`` or
    ``\"`` pair, marked when the text holds an escaped quote, or a NUL byte);
    every other byte, and every string, dropped.
    Quotes pair in order once escaped ones are marked, as a walk pairs them
    when no escape mark is left outside the strings (one there means a
    backslash outside them: a walk may read that text otherwise).

    Args:
        raw: The text's UTF-8 form (``surrogatepass``).
        fold: Fold the brackets (else their kinds are kept).

    Returns:
        The skeleton, and the byte offset of the quote of a string the text
        ends in (-1: none).

    Example:
        >>> skeleton_outside_strings(b'{"a": ["]", "b\\"c"], "d": "x')
        (b'(()', 26)
    """
    # A backslash first (memchr: most text has none), then the escaped quote
    # by a regex: ``in`` looks for two bytes five times slower.
    if b"\\" in raw and _ESCAPED_QUOTE.search(raw) is not None:
        # An escaped quote never closes a string, nor does one after an
        # escaped backslash: one pass, left to right. Same lengths: offsets hold.
        raw = _ESCAPE_PAIR.sub(b"\0\0", raw)
    skeleton = raw.translate(
        _FOLD if fold else None, _NOT_SKELETON
    )  # every quote of raw kept
    opened = -1
    if skeleton.count(b'"') % 2:  # a string runs past the end: cut at its quote
        opened = raw.rfind(b'"')
        skeleton = skeleton[: skeleton.rfind(b'"')]
    # Two quotes side by side close an empty string or open one after an
    # empty gap: either way, dropping them keeps every other pairing.
    skeleton = skeleton.replace(b'""', b"")
    if b'"' in skeleton:
        skeleton = b"".join(skeleton.split(b'"')[::2])
    return skeleton, opened
