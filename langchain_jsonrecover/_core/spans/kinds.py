"""What a bracket opens, read from what follows it: JSON, maybe JSON, or prose.

Pure functions on ``str``; no LangChain imports.

The span finder gives each bracket one of three kinds (see :func:`classify`):

- ``JSON``: plainly JSON (``{"``, ``{}``, ``[1``, ``["``, ``[{``, ``[true`` …);
- ``MAYBE``: an object with a bare or single-quoted first key (``{name: …``);
  JSON-like only if a ``:`` turns up at its own depth;
- ``PROSE``: anything else (``{1, 2, 3}``, ``{name}``, ``[citation]``).

A :class:`Span` is what the finder makes of a JSON-like one.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from langchain_jsonrecover._core.decode.tolerant import Decoded, DecodeFailure

JSON: Final = 0
MAYBE: Final = 1
PROSE: Final = 2

_SPACE: Final = re.compile(r"\s*")
_LITERALS: Final = ("true", "false", "null")
# What makes a container JSON-like though it is broken: a comment, escaped
# JSON, a comma or colon first; and in an array, a Python literal, NaN,
# Infinity or a bare decimal.
_BROKEN_START: Final = re.compile(r'//|/\*|#[ #]|\\"|[,:]')
# A first key that lost its opening quote: ``{name": …``.
_HALF_QUOTED_KEY: Final = re.compile(r'[A-Za-z_$][\w$-]{0,64}"[ \t]*:')
# A first item that lost its opening quote (``[Ada", …``) or holds a swapped
# one (``[t"rue", …``): a word, then a quote right before a comma or ``]``.
_HALF_QUOTED_ITEM: Final = re.compile(
    r'(?:[^\s"\'\[\]{}][^"\[\]{}\n]{0,64}|[^\s"\'\[\]{},]{1,64}"[^\s"\[\]{},]{1,64})'
    r'"[ \t]*[,\]]'
)
# A literal with a closer slipped in (``f}alse``, ``[t]rue``): a first item.
_SPLIT_LITERAL: Final = re.compile(
    "|".join(
        f"{word[:cut]}[\\]}}]{word[cut:]}"
        for word in ("true", "false", "null")
        for cut in range(1, len(word))
    )
)
_ARRAY_WORD: Final = re.compile(r"(?:True|False|None|NaN|-?Infinity)\b|-?\.[0-9]")
# Typographic, fullwidth, angle and corner quotes written for JSON's: the container is
# JSON-like (for the repair pass, or an error), never prose whose inner
# values could be taken alone (``{“nodes”: [“a”], “edges”: []}`` is not ``[]``).
_OTHER_QUOTES: Final = frozenset(
    "\u201c\u201d\u201e\u201f\uff02\u2018\u2019\u00ab\u00bb\u2039\u203a"
    "\u300c\u300d\u300e\u300f"
)


class Span(NamedTuple):
    """A JSON-like span: a candidate for decoding.

    A named tuple, not a frozen dataclass: a reply of JSON-like prose holds
    one per brace, and a tuple is made four times as fast.
    """

    start: int
    """Offset of the opening bracket."""
    end: int
    """Offset just after the closing bracket, or the scan's limit if unclosed."""
    closed: bool
    """Whether the span's brackets balance before the scan's limit."""
    is_object: bool
    """``{`` rather than ``[``."""
    empty: bool
    """Nothing but whitespace between the brackets."""
    decoded: Decoded | None = None
    """The value, when the scan already decoded it (offsets relative to ``start``)."""
    cut: DecodeFailure | None = None
    """The decoder's verdict when it ran out of text inside this span: the
    span holds a cut-off value and runs to the limit (no scan was needed)."""
    broken: bool = False
    """The structure shows the span is one value with a fault inside (a stray
    closer in it, or a root closed too early): it must decode whole."""
    nested: bool = False
    """A key and a colon stand right before it: it is a member's value, in
    an object whose opening bracket is missing, never the answer alone."""
    bare: int = -1
    """Where its first key stands, when the span is known to open with a key
    without quotes and to hold no lone surrogate (a strict decode fails
    there: see ``flat.bare_first_key``); -1: not known."""
    failed: DecodeFailure | None = None
    """The decoder's failure on exactly this span's text (``text[start:end]``,
    offsets relative to ``start``), when the scan handed it over as a root
    and the candidate reader would fail it so too (``find._failed``);
    ``None``: not known."""


def classify(text: str, start: int, limit: int) -> tuple[int, bool]:
    r"""Classify the bracket at ``start`` by what follows it.

    A container that opens with a comment, escaped JSON (``{\"``), a
    typographic or fullwidth quote (``{“``, or U+FF02), or, for
    an array, a Python literal, ``NaN``/``Infinity`` or a bare decimal is
    JSON-like too: broken JSON, for the repair pass or for an error, never
    prose whose inner values could be taken alone. So is an array whose
    first item lost its opening quote (``[Ada", {"id": 1}]``) or holds a
    swapped one (``[t"rue", [1, 2]]``), or that a ``}`` follows
    (``[}, {"a": 1}]``: its first item lost its opener), or whose first
    item is a literal with a closer slipped in (``[f}alse, []]``).

    Args:
        text: The reply.
        start: Offset of a ``{`` or ``[``.
        limit: Where the scan stops.

    Returns:
        The frame kind (``JSON``, ``MAYBE`` or ``PROSE``) and whether the
        brackets enclose nothing.

    Example:
        >>> classify("{1, 2}", 0, 6), classify("[True, None]", 0, 12)
        ((2, False), (0, False))
    """
    space = _SPACE.match(text, start + 1, limit)
    j = space.end() if space else start + 1
    nxt = text[j] if j < limit else ""
    if _BROKEN_START.match(text, j, min(limit, j + 2)) or nxt in _OTHER_QUOTES:
        return JSON, False
    if text[start] == "{":
        if nxt in {'"', ""}:
            return JSON, False
        if nxt == "}":
            return JSON, True
        if _HALF_QUOTED_KEY.match(text, j, min(limit, j + 72)):
            return JSON, False
        if nxt in {"'", "_"} or nxt.isalpha():
            return MAYBE, False
        return PROSE, False
    if nxt == "]":
        return JSON, True
    if nxt in '"{[-' or nxt.isdigit() or nxt == "'":
        return JSON, False
    if nxt == "}":
        # ``[}``: a first item that lost its opener (``[}, {"a": 1}]``), or a
        # closer slipped in (``[}[1], 2]``); never prose whose later items
        # could be taken alone.
        return JSON, False
    if _ARRAY_WORD.match(text, j, min(limit, j + 10)):
        return JSON, False
    if _HALF_QUOTED_ITEM.match(text, j, min(limit, j + 136)):
        return JSON, False
    if text.startswith(_LITERALS, j) or (
        limit - j < 5 and any(lit.startswith(text[j:limit]) for lit in _LITERALS)
    ):
        return JSON, False  # a literal, or the start of one cut by the limit
    if _SPLIT_LITERAL.match(text, j, min(limit, j + 6)):
        return JSON, False
    return PROSE, False
