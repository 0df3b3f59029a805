"""Braces in prose whose fate is known without the span finder's walk.

Pure functions on ``str``; no LangChain imports.

JSON-like prose (``Use {name: Ada} or {city: Paris, tags: [a, b]}``, a
megabyte of it in issue 24) holds a brace per few words. The walk of
:mod:`~langchain_jsonrecover._core.spans.find` would open a frame for each,
read its tokens in Python and look after it; here the braces whose outcome is
plain from their text are taken in one C match each: braces that are prose
(skipped), and flat objects of bare keys (each a span, found as the walk finds
it). And a candidate that opens with a bare key is failed where the decoder
would fail it, without decoding (:func:`bare_first_key`).
"""

from __future__ import annotations

import re
from typing import Final

from langchain_jsonrecover._core.spans.after import STANDS_ALONE, after_key
from langchain_jsonrecover._core.spans.kinds import Span

# Braces that hold no bracket, quote, colon, comment or backslash and are not
# empty (``{x}``, ``{name, age}``): prose, never a candidate, whatever their
# classification; a run of them, with the prose between, is skipped at once.
# Each skip looks at most this far, so a candidate pays a bounded look.
SKIP_WINDOW: Final = 1024
PROSE_BRACES: Final = re.compile(
    r"(?:\{\s*+[^\s\[\]{}:\"'/#\\][^\[\]{}:\"'/#\\]*+\}[^\[{]*+)++"
)
# A flat object of bare keys in prose (``{name: Ada}``, ``{city: Paris, tags:
# [a, b]}``), seen from its ``{`` at the top level, where the frame walk's
# result is known without walking it: a ``MAYBE`` frame (a letter first, no
# quote anywhere) with a colon of its own, holding only arrays of bare words
# (``PROSE`` frames that add nothing: no digit, quote or literal first) and
# nothing the walk reads as a string, comment or bracket; it closes at its
# ``}``, a JSON-like root. Nothing after it may go on as structure (a comma,
# a closer, a key, a value, a bracket: ``after.STANDS_ALONE``, the rule the
# walk's look after a root keeps), so the root stands alone. Anything else is
# left to the walk.
# No lone surrogate either: then the decoder fails where its key is (group 1).
_PLAIN: Final = r"[^{}\[\]\"'#/\\\ud800-\udfff]"
_PLAIN_NO_COLON: Final = r"[^{}\[\]\"'#/\\:\ud800-\udfff]"
_BARE_ITEMS: Final = (
    r"\[[ \t\r\n]*+(?!true|false|null|True|False|None|NaN|Infinity)[A-Za-z_]"
    rf"{_PLAIN}*+\]"
)
_FLAT_BARE_OBJECT: Final = (
    rf"\{{[ \t\r\n]*+(?=([A-Za-z_]))(?:{_PLAIN_NO_COLON}++|{_BARE_ITEMS})*+"
    rf":(?:{_PLAIN}++|{_BARE_ITEMS})*+\}}{STANDS_ALONE}"
)
FLAT_BARE_OBJECT: Final = re.compile(_FLAT_BARE_OBJECT)
# The next one after prose with no bracket (group 1, its key group 2), unless
# a colon and spaces stand right before it (a member's value: ``after_key``).
FLAT_BARE_OBJECT_NEXT: Final = re.compile(
    rf"(?:[^\[{{:]++|:(?![ \t\r\n]*+\{{))*+({_FLAT_BARE_OBJECT})"
)

# An object whose first key has no quote (group 1), then no lone surrogate:
# see bare_first_key.
_BARE_KEY: Final = re.compile(r"\{[ \t\r\n]*+([A-Za-z_])[^\ud800-\udfff]*+")
BARE_KEY_REASON: Final = "expected a string key"
"""orjson's message at a bare first key, in the decoder's words (a test pins it)."""


def bare_first_key(text: str, start: int, end: int) -> int:
    """Where a strict decode of ``text[start:end]`` fails: at a bare first key.

    A JSON object opens with a string or ``}``; one whose first key has no
    quote (``{name: …``) fails at that key whatever follows, so the decoder
    need not be asked. Unless a lone surrogate is in the text: the decoder
    refuses all of it first.

    Returns:
        The key's offset, or -1 when the text does not open so.

    Example:
        >>> bare_first_key("see { name: Ada}", 4, 16), bare_first_key('{"a": 1}', 0, 8)
        (6, -1)
    """
    found = _BARE_KEY.match(text, start, end)
    if found is None or found.end() != end:
        return -1
    return found.start(1)


def take_flat_objects(text: str, i: int, lo: int, hi: int, spans: list[Span]) -> int:
    """Take the flat objects of bare keys from the ``{`` at ``i`` on, as spans.

    The first at ``i``, then each that follows with only prose and no
    bracket between (and no key's colon right before it), at the top level
    of the walk (no frame open), which scans ``text[lo:hi]``.

    Returns:
        Where the walk resumes, or -1 when none is at ``i``.

    Example:
        >>> spans: list[Span] = []
        >>> text = "Use {name: Ada} or {city: Paris} as examples."
        >>> take_flat_objects(text, 4, 0, len(text), spans)
        32
        >>> [(span.start, span.end, span.bare) for span in spans]
        [(4, 15, 5), (19, 32, 20)]
    """
    flat = FLAT_BARE_OBJECT.match(text, i, min(hi, i + SKIP_WINDOW))
    if flat is None:
        return -1
    nested = after_key(text, i, lo)
    start, end = flat.span()
    key = flat.start(1)
    match, append = FLAT_BARE_OBJECT_NEXT.match, spans.append
    while True:
        # closed, an object, not empty, nothing decoded, not cut, not broken,
        # its key, no failure known; made as a tuple is (Span._make checks
        # its length: a Python call more)
        made = (start, end, True, True, False, None, None, False, nested, key, None)
        append(tuple.__new__(Span, made))
        limit = end + SKIP_WINDOW
        flat = match(text, end, limit if limit < hi else hi)  # noqa: FURB136 - per brace
        if flat is None:
            return end
        start, end = flat.span(1)
        key, nested = flat.start(2), False
